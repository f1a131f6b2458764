"""`svc` entry point: parse, run the command, map every failure onto an exit status."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from . import exitcodes


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as package_version

    try:
        return package_version("svc")
    except PackageNotFoundError:
        return "0.0.0"


def run(argv: Sequence[str]) -> int:  # noqa: PLR0911  one return per exit status path
    from . import exitcodes, render
    from .parser import UsageError, parse

    if not argv:
        sys.stderr.write(render.plain_error("a command or URL is required (see svc --help)"))
        return exitcodes.FAILURE
    if list(argv) == ["--version"]:
        sys.stdout.write(f"svc {version()}\n")
        return exitcodes.OK
    try:
        args = parse(argv)
    except UsageError as exc:
        sys.stderr.write(render.plain_error(str(exc)))
        return exitcodes.FAILURE
    except SystemExit as exc:  # --help / -h
        return exc.code if isinstance(exc.code, int) else exitcodes.OK
    if args.version:
        sys.stdout.write(f"svc {version()}\n")
        return exitcodes.OK
    if args.command is None:
        sys.stderr.write(render.plain_error("a command or URL is required (see svc --help)"))
        return exitcodes.FAILURE

    from ..agent_client import AgentClient, AgentError, agent_port
    from .commands import COMMANDS, Context

    try:
        port = agent_port()
    except ValueError as exc:
        sys.stderr.write(render.plain_error(str(exc)))
        return exitcodes.FAILURE
    ctx = Context(
        env=os.environ,
        client=AgentClient(port),
        out=sys.stdout.buffer,
        err=sys.stderr,
        launch=args.command not in ("health", "status"),
        terminal=sys.stdout.isatty(),
    )
    try:
        return COMMANDS[args.command](ctx, args)
    except UsageError as exc:
        sys.stderr.write(render.plain_error(str(exc)))
    except AgentError as exc:
        if exc.kind == "api":
            sys.stderr.write(render.compact(exc.envelope()))
        else:
            sys.stderr.write(render.plain_error(exc.message))
    return exitcodes.FAILURE


def main(argv: Sequence[str] | None = None) -> int:
    try:
        code = run(sys.argv[1:] if argv is None else argv)
        sys.stdout.flush()
    except KeyboardInterrupt:
        return exitcodes.INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`svc URL | head`): say nothing more to it.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
