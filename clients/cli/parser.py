"""The `svc` command-line surface (spec 2 §4): argv in, an argparse namespace out.

Every usage problem raises `UsageError` (one plain line, exit status 1), including argparse's own
("invalid choice", "required"), never argparse's exit status 2. `svc URL [options]` is read as
`svc capture URL [options]` when URL is not a command name.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from typing import Any, NoReturn

PROG = "svc"


class UsageError(Exception):
    """A bad command line: printed as one line, exit status 1."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


# --- value types ---------------------------------------------------------------------------------


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def positive_seconds(text: str) -> float:
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be positive")
    return value


def nonnegative_seconds(text: str) -> float:
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must not be negative")
    return value


def retry_delay(text: str) -> float:
    value = nonnegative_seconds(text)
    if value > 86400:
        raise argparse.ArgumentTypeError(f"{text!r} must be at most 86400")
    return value


def _int_in(low: int, high: int) -> Any:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text!r} must be {low}-{high}")
        return value

    return parse


def boolean(text: str) -> bool:
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    raise argparse.ArgumentTypeError(f"{text!r} must be true or false")


def lifetime(text: str) -> dict[str, Any]:
    if text == "indefinite":
        return {"type": "indefinite"}
    if text.isdigit() and int(text) > 0:
        return {"type": "inactivity", "timeout_seconds": int(text)}
    raise argparse.ArgumentTypeError(
        f"{text!r} must be a positive number of seconds or `indefinite`"
    )


def json_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not valid JSON ({exc})") from None


def json_object(text: str) -> dict[str, Any]:
    value = json_value(text)
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be one JSON object")
    return value


def json_array(text: str) -> list[Any]:
    value = json_value(text)
    if not isinstance(value, list):
        raise argparse.ArgumentTypeError("must be a JSON array")
    return value


class OrderedActions(argparse.Action):
    """--action OBJECT and --actions ARRAY append to one list in command-line order."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        items = list(getattr(namespace, self.dest, None) or [])
        if option == "--actions":
            items.extend(values)
        else:
            items.append(values)
        setattr(namespace, self.dest, items)


# --- the commands --------------------------------------------------------------------------------

EPILOG = """\
commands:
  health                       is the agent up? (never starts the app)
  status                       diagnostic report; exit 1 unless overall_status is ok
  navigate [URL]               open URL in a session, select it as the current page
  read [URL] [--query TEXT]    page text as bounded Markdown, ranked by a query
  perform ACTIONS              run a JSON array of actions on the current page
  capture [URL]                rendered HTML: of URL (a capture stream), or of the current page
  URL                          the same as `capture URL`
  page attach [URL]            attach a page (an id for page actions)
  page action PAGE_ID          one action on an attached page
  observe                      a semantic, hybrid or visual observation with element refs
  observation action OBS_ID    act on an observation's refs
  session ...                  list, get, create, update, pause, play, delete, ping, close
  profile list                 saved profiles

Every command but health and status starts svc-app in the background when the agent is not
running. The agent is found at 127.0.0.1:$SVC_AGENT_PORT (default 17319). Commands that target
a session use --session-id, else $SVC_SESSION_ID, else the newest session, creating one only
when none exists. Exit status: 0 success, 1 failure, 130 interrupted; a URL capture exits with
the capture's exit code (0 ok, 1 target status >= 400, 2 failed).

examples:
  svc example.com > page.html
  svc read https://en.wikipedia.org/wiki/Okapi_BM25 --query "saturation"
  svc session list
"""


def _common(p: argparse.ArgumentParser, *names: str) -> None:
    """The shared page-operation options, each added when named."""
    if "session" in names:
        p.add_argument("--session-id", metavar="ID", help="target this session (Session<N>)")
    if "profile" in names:
        p.add_argument("--profile", metavar="NAME", help="new session from this saved profile")
    if "group" in names:
        p.add_argument("--group", metavar="GROUP", help="group of the new session (1-128 chars)")
    if "proxy" in names:
        p.add_argument("--proxy", metavar="ALIAS", help="use this proxy alias for the session")
    if "output" in names:
        p.add_argument("--output", metavar="PATH", help="write the captured HTML to PATH")
    if "timeout" in names:
        p.add_argument(
            "--timeout",
            type=positive_seconds,
            metavar="SECONDS",
            help="operation deadline (positive, default 90)",
        )
    if "wait" in names:
        p.add_argument(
            "--wait",
            type=nonnegative_seconds,
            metavar="SECONDS",
            help="settle time after the page is ready (default 1)",
        )


def _sub(
    subs: Any, name: str, help_: str, description: str, example: str, **kw: Any
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subs.add_parser(
        name,
        help=help_,
        description=description,
        epilog=f"example:\n  {example}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        **kw,
    )
    return parser


def build() -> Parser:  # noqa: PLR0915 (one declarative list of every command)
    root = Parser(
        prog=PROG,
        description="svc: drive persistent browser sessions of the svc app from the shell.\n"
        "`svc URL [options]` is short for `svc capture URL [options]`.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    root.add_argument("--version", action="store_true", help="print the version and exit")
    subs = root.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    _sub(
        subs,
        "health",
        "is the agent up?",
        "GET /v1/health: the agent's health data. Never starts the app; exit 1 when the agent "
        "is not running or unhealthy.",
        "svc health",
    )
    _sub(
        subs,
        "status",
        "diagnostic report",
        "GET /v1/status: the app, agent, proxy listeners and engine bridge. Never starts the "
        "app; exit 1 unless overall_status is ok.",
        "svc status",
    )

    p = _sub(
        subs,
        "navigate",
        "open a URL",
        "POST /v1/navigate: open URL in the selected session and make it the current page. "
        "Prints {page, capture}. URL defaults to $SVC_SESSION_URL.",
        "svc navigate localhost:8000/login --wait 2",
    )
    p.add_argument("url", nargs="?", metavar="URL")
    _common(p, "session", "profile", "proxy", "output", "timeout", "wait")

    p = _sub(
        subs,
        "read",
        "page text as Markdown",
        "Reads a page semantically (POST /v1/navigate/observe with URL, else POST /v1/observe "
        "of the current page) and prints bounded Markdown after a front-matter block of "
        "metadata. With --query, the sections are ranked by BM25; without, long documents are "
        "sampled from beginning to end.",
        'svc read https://example.org/docs --query "rate limits" --max-chars 4000',
    )
    p.add_argument("url", nargs="?", metavar="URL")
    p.add_argument("--query", metavar="TEXT", help="rank sections by these words")
    p.add_argument(
        "--max-chars",
        type=_int_in(512, 32768),
        default=12000,
        metavar="N",
        help="Markdown length bound, 512-32768 (default 12000)",
    )
    p.add_argument(
        "--max-sections",
        type=_int_in(1, 100),
        default=24,
        metavar="N",
        help="sections given, 1-100 (default 24)",
    )
    p.add_argument("--json", action="store_true", help="print {metadata, markdown} as JSON")
    _common(p, "session", "profile", "proxy", "timeout", "wait")

    p = _sub(
        subs,
        "perform",
        "run actions on the current page",
        "POST /v1/perform: run a non-empty JSON array of actions (click, wait-for, type, clear, "
        "press, select, wait, click-link) on the session's current page; a single action is "
        "still wrapped in an array. Prints {page, capture}.",
        'svc perform \'[{"action":"type","selector":"#q","text":"svc"},'
        '{"action":"press","selector":"#q","key":"Enter"}]\'',
    )
    p.add_argument("actions", type=json_array, metavar="ACTIONS")
    _common(p, "session", "output", "timeout", "wait")

    p = _sub(
        subs,
        "capture",
        "rendered HTML",
        "With URL: POST /v1/captures. The HTML goes to stdout (or --output), the capture events "
        "to stderr as NDJSON; the exit status is the capture's exit code. Without URL: POST "
        "/v1/capture of the current page (only --output, --timeout, --wait, --session-id).",
        'svc capture example.com --action \'{"action":"wait-for","selector":"main"}\' '
        "--output page.html",
    )
    p.add_argument("url", nargs="?", metavar="URL")
    _common(p, "session", "profile", "group", "proxy", "output", "timeout", "wait")
    p.add_argument(
        "--action",
        dest="action_items",
        type=json_object,
        action=OrderedActions,
        metavar="JSON",
        help="one action object (repeatable)",
    )
    p.add_argument(
        "--actions",
        dest="action_items",
        type=json_array,
        action=OrderedActions,
        metavar="JSON",
        help="an array of actions; combined with --action in command-line order",
    )
    p.add_argument(
        "--retry", type=_int_in(0, 100), metavar="COUNT", help="retries, 0-100 (default 1)"
    )
    p.add_argument(
        "--retry-delay",
        type=retry_delay,
        metavar="SECONDS",
        help="pause between attempts, 0-86400 (default 3)",
    )

    page = _sub(
        subs,
        "page",
        "attached pages",
        "Attached pages: `attach` pins a page of a session to its URL and proxy and prints its "
        "id; `action` runs one action on it.",
        "svc page attach https://example.org && svc page action page_123 --action "
        '\'{"action":"click","selector":"a"}\'',
    )
    page_subs = page.add_subparsers(dest="page_command", metavar="attach|action", required=True)
    p = _sub(
        page_subs,
        "attach",
        "attach a page",
        "POST /v1/pages: attach a page and print {page, capture}; page.id names it in later "
        "commands. URL defaults to $SVC_SESSION_URL. With --session-id or $SVC_SESSION_ID the "
        "session's current page is attached (it must be at URL); otherwise a new session is "
        "created and navigated to URL.",
        "svc page attach https://example.org --group crawl",
    )
    p.add_argument("url", nargs="?", metavar="URL")
    _common(p, "session", "profile", "group", "proxy", "output", "timeout", "wait")
    p = _sub(
        page_subs,
        "action",
        "one action on an attached page",
        "POST /v1/pages/{page_id}/actions: exactly one --action. Prints {page, capture}.",
        'svc page action page_0f3c --action \'{"action":"click","selector":"#more"}\'',
    )
    p.add_argument("page_id", metavar="PAGE_ID")
    p.add_argument(
        "--action",
        dest="action_items",
        type=json_object,
        action=OrderedActions,
        metavar="JSON",
        required=True,
        help="the action object",
    )
    _common(p, "output", "timeout", "wait")

    p = _sub(
        subs,
        "observe",
        "observe a page",
        "POST /v1/observe (the session's current page) or POST /v1/pages/{id}/observe "
        "(--page-id): content entries and interactive elements with refs (e1, e2, ...). "
        "Prints {page, observation}.",
        "svc observe --mode hybrid",
    )
    p.add_argument("--page-id", metavar="ID", help="observe this attached page")
    p.add_argument(
        "--mode",
        choices=("semantic", "hybrid", "visual"),
        default="semantic",
        help="semantic (default), hybrid (adds a viewport PNG) or visual",
    )
    _common(p, "session", "timeout", "wait")

    obs = _sub(
        subs,
        "observation",
        "act on observation refs",
        "Observations: `action` runs a batch of ref actions.",
        'svc observation action obs_5f0c --request \'{"actions":[{"action":"click","ref":"e4"}]}\'',
    )
    obs_subs = obs.add_subparsers(dest="observation_command", metavar="action", required=True)
    p = _sub(
        obs_subs,
        "action",
        "act on refs",
        "POST /v1/observations/{id}/actions: --request is the body {actions: [1-32 ref "
        "actions], mode}. Prints the new {page, observation}.",
        "svc observation action obs_5f0c --request "
        '\'{"actions":[{"action":"type","ref":"e2","text":"pears"}]}\'',
    )
    p.add_argument("observation_id", metavar="OBSERVATION_ID")
    p.add_argument("--request", type=json_object, metavar="JSON", required=True)

    session = _sub(
        subs,
        "session",
        "sessions",
        "Persistent browser sessions. Sessions created here close after 120 s without a "
        "session command or browser work, unless --lifetime says otherwise.",
        "svc session create --name research --lifetime indefinite --id-only",
    )
    ss = session.add_subparsers(
        dest="session_command",
        metavar="list|get|create|update|pause|play|delete|ping|close",
        required=True,
    )
    _sub(ss, "list", "list sessions", "GET /v1/sessions (does not refresh).", "svc session list")
    for name, help_, path in (
        ("get", "read a session", "GET /v1/sessions/{id}"),
        ("pause", "pause networking", "POST /v1/sessions/{id}/pause"),
        ("play", "resume networking", "POST /v1/sessions/{id}/play"),
        ("delete", "delete a session", "DELETE /v1/sessions/{id}"),
        ("ping", "refresh inactivity", "POST /v1/sessions/{id}/ping"),
    ):
        p = _sub(ss, name, help_, f"{path}.", f"svc session {name} Session1")
        p.add_argument("id", metavar="ID")
    p = _sub(
        ss,
        "create",
        "create a session",
        "POST /v1/sessions. Prints {session}, or with --id-only just its id. Without --profile "
        "the configured Default Profile is used, else Custom.",
        "svc session create --group crawl --direct --adblock-enabled false",
    )
    p.add_argument("--name", metavar="NAME")
    p.add_argument("--group", metavar="GROUP")
    p.add_argument("--profile", metavar="NAME")
    _session_settings(p)
    p.add_argument(
        "--lifetime",
        type=lifetime,
        metavar="SECONDS|indefinite",
        help="close after this many seconds of inactivity (default 120), or never",
    )
    p.add_argument("--id-only", action="store_true", help="print only the new id")
    p = _sub(
        ss,
        "update",
        "change a session",
        "PATCH /v1/sessions/{id}: at least one option.",
        "svc session update Session3 --name research --proxy de-1",
    )
    p.add_argument("id", metavar="ID")
    p.add_argument("--name", metavar="NAME")
    _session_settings(p)
    p = _sub(
        ss,
        "close",
        "close a group",
        "POST /v1/sessions/close: close every session of a group (case-insensitive).",
        "svc session close --group crawl",
    )
    p.add_argument("--group", metavar="GROUP", required=True)

    profile = _sub(subs, "profile", "profiles", "Saved profiles.", "svc profile list")
    ps = profile.add_subparsers(dest="profile_command", metavar="list", required=True)
    _sub(ps, "list", "list profiles", "GET /v1/profiles, sorted by name.", "svc profile list")
    return root


def _session_settings(p: argparse.ArgumentParser) -> None:
    proxy = p.add_mutually_exclusive_group()
    proxy.add_argument("--proxy", metavar="ALIAS", help="assign this proxy")
    proxy.add_argument("--direct", action="store_true", help="no proxy (proxy_alias null)")
    p.add_argument("--adblock-enabled", type=boolean, metavar="true|false")
    p.add_argument("--image-blocking-mode", choices=("none", "all", "over_limit"))
    p.add_argument("--image-size-limit-kb", type=_int_in(1, 1_048_576), metavar="N")


COMMANDS = frozenset(
    {
        "health",
        "status",
        "navigate",
        "read",
        "perform",
        "capture",
        "page",
        "observe",
        "observation",
        "session",
        "profile",
    }
)


def parse(argv: Sequence[str]) -> argparse.Namespace:
    args = list(argv)
    if args and not args[0].startswith("-") and args[0] not in COMMANDS:
        args.insert(0, "capture")
    return build().parse_args(args)
