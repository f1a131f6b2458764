"""`svc-mcp`: starts the MCP server on stdin/stdout. No MCP options; --help and --version."""

from __future__ import annotations

import os
import sys

HELP = """\
usage: svc-mcp [-h | --help] [--version]

The MCP server of svc: JSON-RPC 2.0 over stdin/stdout, one JSON object per line. It speaks MCP
revision 2026-07-28 (server/discover) and the legacy revisions 2024-11-05, 2025-03-26,
2025-06-18 and 2025-11-25 (initialize), and offers 16 svc_* tools that forward to the local svc
agent at 127.0.0.1:$SVC_AGENT_PORT (default 17319). A tool call other than svc_status starts
svc-app in the background when the agent is not running. A tool given no session_id uses
$SVC_SESSION_ID, else the newest session, else a new one, as svc does.

Add it to an MCP client as a stdio server, for example:
  {"mcpServers": {"svc": {"command": "svc-mcp"}}}

It exits 0 when stdin closes.
"""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    from ..cli.__main__ import version

    if args in (["--help"], ["-h"]):
        sys.stdout.write(HELP)
        return 0
    if args == ["--version"]:
        sys.stdout.write(f"svc-mcp {version()}\n")
        return 0
    if args:
        sys.stderr.write("svc-mcp: takes no options besides --help and --version\n")
        return 1
    from ..agent_client import agent_port

    try:
        port = agent_port()
    except ValueError as exc:
        sys.stderr.write(f"svc-mcp: {exc}\n")
        return 1
    import trio

    from .server import main_async

    try:
        trio.run(main_async, port, dict(os.environ), version())
    except KeyboardInterrupt:
        return 130
    except (
        BrokenPipeError,
        ConnectionResetError,
        trio.BrokenResourceError,
        trio.ClosedResourceError,
    ):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
