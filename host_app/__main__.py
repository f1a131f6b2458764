"""`svc-app`: the desktop app; `svc-app --agent` runs the agent process instead."""

from __future__ import annotations

import sys


def main() -> int:
    args = sys.argv[1:]
    if args == ["--agent"]:
        from agent.main import main as agent_main

        return agent_main()
    print(
        "svc-app: the desktop host app arrives with the host-app issue (4); "
        "only `svc-app --agent` runs today",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main())
