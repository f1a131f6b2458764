"""`svc-app`: the desktop app; `svc-app --headless` the same app without windows;
`svc-app --agent` runs the agent process instead (the supervisor launches it so)."""

from __future__ import annotations

import os
import sys

USAGE = "usage: svc-app [--headless | --agent]"


def main() -> int:
    args = sys.argv[1:]
    if args == ["--agent"]:
        from agent.main import main as agent_main

        return agent_main()
    if args in ([], ["--headless"]):
        headless = args == ["--headless"]
        if not headless and not (
            os.environ.get("DISPLAY")
            or os.environ.get("WAYLAND_DISPLAY")
            or os.environ.get("QT_QPA_PLATFORM") not in (None, "", "offscreen")
        ):
            print("svc-app: no display; running headless", file=sys.stderr)
            headless = True
        from .app import run

        return run(headless=headless)
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
