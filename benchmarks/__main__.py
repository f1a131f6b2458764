"""`make bench`: runs every benchmark module that exists and prints its figures.

Each module exposes `main()`; modules arrive with their issues, so a missing one is skipped with a
note rather than failing the run.
"""

from __future__ import annotations

import importlib
import sys
import time

MODULES = [
    "benchmarks.bridge_bench",
    "benchmarks.agent_bench",
    "benchmarks.engine_bench",
    "benchmarks.adblock_bench",
    "benchmarks.observation_bench",
    "benchmarks.apps_bench",
    "benchmarks.action_bench",
    "benchmarks.clients_bench",
    "benchmarks.keyserver_bench",
    "benchmarks.soak_bench",
    "benchmarks.assets_bench",
    "benchmarks.first_capture_bench",
    "benchmarks.dates_bench",
]


def main() -> int:
    wanted = sys.argv[1:]
    for name in MODULES:
        if wanted and not any(w in name for w in wanted):
            continue
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                print(f"\n== {name}: not present yet")
                continue
            raise
        print(f"\n== {name}")
        started = time.perf_counter()
        module.main()
        print(f"({time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
