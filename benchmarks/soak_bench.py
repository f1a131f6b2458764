"""Soak benchmark (issue 12): memory of a long-lived app. `make bench BENCH=soak`.

1. One session navigates (a capture each time) CAPTURES times to distinct URLs of a local page;
   the PSS of the host, the agent and the renderers is printed every STEP captures, with the
   slope per 100 captures before and after warm-up (the first WARMUP captures).
2. ROUNDS rounds of creating SESSIONS sessions (one capture each) and deleting them; PSS after
   each round: what deleted sessions leave behind.

No peer tool runs here: the figure to watch is the slope, which a flat curve keeps near zero.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.engine_bench import PAGE, Svc
from benchmarks.local import page_handler, parent_of, process_tree, pss_mib, serving

CAPTURES = int(os.environ.get("SOAK_CAPTURES", "1000"))
STEP = 100
WARMUP = 300
ROUNDS = 5
SESSIONS = 10


def _cmdline(pid: int) -> list[bytes]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return []


def _kind(pid: int, host: int) -> str:
    if pid == host:
        return "host"
    cmd = _cmdline(pid)
    if b"--agent" in cmd:
        return "agent"
    # renderers are forked by a zygote and keep its command line
    if b"--type=renderer" in cmd or any(b"--type=zygote" in a for a in _cmdline(parent_of(pid))):
        return "renderers"
    return "other"


def sample(host: int) -> dict[str, float]:
    out = {"host": 0.0, "agent": 0.0, "renderers": 0.0, "other": 0.0}
    for pid in process_tree(host):
        kind = _kind(pid, host)
        if kind in out:
            out[kind] += pss_mib([pid])
    out["total"] = sum(out.values())
    return out


def _slope(points: list[tuple[int, float]]) -> float:
    """Least-squares slope per 100 operations."""
    if len(points) < 2:
        return float("nan")
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return 100 * sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den


def _row(label: str, s: dict[str, float]) -> str:
    return (
        f"{label:>14}{s['host']:9.1f}{s['agent']:9.1f}{s['renderers']:11.1f}"
        f"{s['other']:9.1f}{s['total']:9.1f}"
    )


def main() -> None:
    with serving(page_handler(PAGE, no_store=True)) as site, tempfile.TemporaryDirectory() as tmp:
        base = f"{site}/page"
        svc = Svc(Path(tmp))
        try:
            header = f"{'':>14}{'host':>9}{'agent':>9}{'renderers':>11}{'other':>9}{'total':>9}"
            print(f"PSS in MiB; {CAPTURES} captures in one session")
            print(header)
            sid = svc.session()
            series: dict[str, list[tuple[int, float]]] = {}
            t0 = time.perf_counter()
            for n in range(CAPTURES + 1):
                if n:
                    svc.capture(sid, f"{base}?n={n}", 0)
                if n % STEP == 0:
                    s = sample(svc.proc.pid)
                    for k, v in s.items():
                        series.setdefault(k, []).append((n, v))
                    print(_row(f"{n} captures", s), flush=True)
            elapsed = time.perf_counter() - t0
            print(f"({CAPTURES / elapsed:.1f} captures/s)")
            print(f"slope, MiB per 100 captures (before / after the first {WARMUP}):")
            for k in ("host", "agent", "renderers", "total"):
                pts = series[k]
                early = [p for p in pts if p[0] <= WARMUP]
                late = [p for p in pts if p[0] >= WARMUP]
                print(f"{k:>14}{_slope(early):9.2f} / {_slope(late):.2f}")
            svc.client.delete(f"/v1/sessions/{sid}")
            print(
                f"\n{ROUNDS} rounds of {SESSIONS} sessions created (one capture each) and deleted"
            )
            print(header)
            print(_row("before", sample(svc.proc.pid)), flush=True)
            for r in range(1, ROUNDS + 1):
                made = [svc.session() for _ in range(SESSIONS)]
                for i, one in enumerate(made):
                    svc.capture(one, f"{base}?round={r}&s={i}", 0)
                for one in made:
                    svc.client.delete(f"/v1/sessions/{one}")
                time.sleep(1)
                print(_row(f"round {r}", sample(svc.proc.pid)), flush=True)
        finally:
            svc.close()


if __name__ == "__main__":
    main()
    sys.exit(0)
