"""The `svc` command-line surface (spec 2 §4): argv in, an argparse namespace out.

Every usage problem raises `UsageError` (one plain line, exit status 1), including argparse's own
("invalid choice", "required"), never argparse's exit status 2. `svc URL [options]` is read as
`svc capture URL [options]` when URL is not a command name and could be a host a person means
(`could_be_host`); any other first word is an unknown command, refused with the closest command
suggested before anything is asked of the agent (docs/decisions.md "Clients", "A bare word").
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import re
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
  URL                          the same as `capture URL` (a dot, a port, a scheme or localhost)
  page attach [URL]            attach a page (an id for page actions)
  page action PAGE_ID          one action on an attached page
  observe                      a semantic, hybrid or visual observation with element refs
  observation action OBS_ID    act on an observation's refs
  session ...                  list, get, create, update, pause, play, delete, ping, close
  proxy ...                    list, get, create, update, delete, rotate, export, import
  profile ...                  list, export, import (saved profiles, .svcprofile files)

Every command but health and status starts svc-app in the background when the agent is not
running. The agent is found at 127.0.0.1:$SVC_AGENT_PORT (default 17319). Commands that target
a session use --session-id, else $SVC_SESSION_ID, else the newest session, creating one only
when none exists. Exit status: 0 success, 1 failure, 130 interrupted; a URL capture exits with
the capture's exit code (0 ok, 1 target status >= 400 or failed).

Output: results are JSON on stdout, indented when stdout is a terminal and compact (one line)
when it is a pipe or a file, for the program that reads it. Capture events (NDJSON) and errors
go to stderr. A first word that is neither a command nor a host (no dot, port, scheme or
`localhost`, such as `helth`) is a usage error naming the closest command; nothing is started.

examples:
  svc example.com > page.html
  svc read https://en.wikipedia.org/wiki/Okapi_BM25 --query "saturation"
  svc session list
  svc proxy create --alias de-1 --upstream-host proxy.example --upstream-port 8080 \\
      --username me --password-stdin < password.txt
  svc profile export Research && svc profile import Research.svcprofile --name Copy
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
    subs: Any, name: str, help_: str, description: str, example: str | tuple[str, ...], **kw: Any
) -> argparse.ArgumentParser:
    examples = (example,) if isinstance(example, str) else example
    heading = "example:" if len(examples) == 1 else "examples:"
    parser: argparse.ArgumentParser = subs.add_parser(
        name,
        help=help_,
        description=description,
        epilog=heading + "".join(f"\n  {e}" for e in examples),
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
    page_subs = page.add_subparsers(
        dest="page_command", metavar="|".join(SUBCOMMANDS["page"]), required=True
    )
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
        metavar="|".join(SUBCOMMANDS["session"]),
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

    _proxy_commands(subs)
    _profile_commands(subs)
    return root


PROXY_EXAMPLE = (
    "svc proxy create --alias de-1 --upstream-host proxy.example --upstream-port 8080 "
    "--username me --password-stdin"
)


def _proxy_commands(subs: Any) -> None:
    proxy = _sub(
        subs,
        "proxy",
        "proxies",
        "Upstream proxies that sessions use (by alias). Passwords are sent to the agent and "
        "never shown again (only password_set). Proxy creation, change, rotation and use need "
        "the Pro plan.",
        (
            "svc proxy list",
            PROXY_EXAMPLE,
            "svc proxy update de-1 --providerx-enabled true --providerx-location-parameter cc "
            "--providerx-location-value de",
            "svc proxy export de-1 --output ~/de-1.svcproxy",
        ),
    )
    ps = proxy.add_subparsers(
        dest="proxy_command",
        metavar="|".join(SUBCOMMANDS["proxy"]),
        required=True,
    )
    _sub(ps, "list", "list proxies", "GET /v1/proxies, in creation order.", "svc proxy list")
    p = _sub(ps, "get", "read a proxy", "GET /v1/proxies/{alias}.", "svc proxy get de-1")
    p.add_argument("alias", metavar="ALIAS")

    p = _sub(
        ps,
        "create",
        "create a proxy",
        "POST /v1/proxies. --alias, --upstream-host and --upstream-port are required. Give the "
        "password with --password-stdin (read from standard input, or asked for on a "
        "terminal) to keep it out of the process list. Trust: --tls system (default) or "
        "providery, or --ca-cert PATH with 1-16 PEM certificates (64 KiB at most) trusted for "
        "this proxy's sessions only.",
        (
            PROXY_EXAMPLE,
            "svc proxy create --alias corp --upstream-host 10.0.0.2 --upstream-port 3128 "
            "--ca-cert corp-root.pem --detect-exit-locale false",
        ),
    )
    p.add_argument("--alias", metavar="ALIAS", required=True, help="the proxy's name (unique)")
    p.add_argument("--upstream-host", metavar="HOST", required=True)
    p.add_argument("--upstream-port", type=_int_in(1, 65535), metavar="PORT", required=True)
    _proxy_settings(p, update=False)

    p = _sub(
        ps,
        "update",
        "change a proxy",
        "PATCH /v1/proxies/{alias}: at least one option; what is not given is kept. The "
        "--clear-* options remove a value. Provider Y options change only the fields given.",
        (
            "svc proxy update de-1 --upstream-port 8081 --clear-locale",
            "printf '%s' \"$PW\" | svc proxy update de-1 --username other --password-stdin",
        ),
    )
    p.add_argument("alias", metavar="ALIAS")
    p.add_argument("--upstream-host", metavar="HOST")
    p.add_argument("--upstream-port", type=_int_in(1, 65535), metavar="PORT")
    _proxy_settings(p, update=True)

    for name, help_, path, example in (
        (
            "delete",
            "delete a proxy",
            "DELETE /v1/proxies/{alias}: sessions and profiles using it become direct",
            "svc proxy delete de-1",
        ),
        (
            "rotate",
            "new managed session ids",
            "POST /v1/proxies/{alias}/rotate-session: every session on this proxy gets a new "
            "sticky id (managed provider X or Y must be enabled)",
            "svc proxy rotate de-1",
        ),
    ):
        p = _sub(ps, name, help_, f"{path}.", example)
        p.add_argument("alias", metavar="ALIAS")

    p = _sub(
        ps,
        "export",
        "write a .svcproxy file",
        "POST /v1/proxy-transfers/export without credentials: writes ALIAS.svcproxy in the "
        "current directory, or exactly --output PATH; never overwrites a file; the file is "
        "owner-only. Prints {output_path, bytesize, credentials_included}.",
        "svc proxy export de-1 --output backups/de-1.svcproxy",
    )
    p.add_argument("alias", metavar="ALIAS")
    p.add_argument("--output", metavar="PATH", help="write exactly here (default ./ALIAS.svcproxy)")
    p = _sub(
        ps,
        "import",
        "read a .svcproxy file",
        "POST /v1/proxy-transfers/import: creates the proxy of a .svcproxy file (12 MiB at "
        "most; legacy JSON files are refused), under --alias when given, else its stored "
        "alias; an existing alias is never overwritten. Prints {proxy}.",
        "svc proxy import de-1.svcproxy --alias de-2",
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument("--alias", metavar="ALIAS", help="import under this alias")


def _proxy_settings(p: argparse.ArgumentParser, *, update: bool) -> None:
    """The options of proxy create and update (update adds the --clear-* ones)."""
    user = p.add_mutually_exclusive_group()
    user.add_argument("--username", metavar="NAME", help="upstream Basic auth user name")
    password = p.add_mutually_exclusive_group()
    password.add_argument(
        "--password", metavar="PASSWORD", help="upstream password (visible to other local users)"
    )
    password.add_argument(
        "--password-stdin",
        action="store_true",
        help="read the password from standard input (asked for when it is a terminal)",
    )
    p.add_argument("--providerx-enabled", type=boolean, metavar="true|false")
    p.add_argument("--providerx-location-parameter", choices=("cc", "country", "st"))
    p.add_argument("--providerx-location-value", metavar="VALUE")
    p.add_argument("--providery-enabled", type=boolean, metavar="true|false")
    p.add_argument("--providery-country", metavar="CC", help="two-letter country code")
    p.add_argument("--providery-state", metavar="STATE", help="needs a country")
    p.add_argument("--providery-city", metavar="CITY", help="needs a country")
    p.add_argument("--providery-asn", metavar="ASN", help="digits only")
    locale = p.add_mutually_exclusive_group()
    locale.add_argument("--locale", metavar="BCP47", help="e.g. de-DE")
    p.add_argument(
        "--detect-exit-locale",
        type=boolean,
        metavar="true|false",
        help="derive language and timezone from the exit (default true on create)",
    )
    trust = p.add_mutually_exclusive_group()
    trust.add_argument("--tls", choices=("system", "providery"), help="certificate trust")
    trust.add_argument(
        "--ca-cert", metavar="PATH", help="PEM bundle (1-16 certificates) trusted for this proxy"
    )
    if update:
        user.add_argument("--clear-username", action="store_true", help="remove the user name")
        password.add_argument("--clear-password", action="store_true", help="remove the password")
        p.add_argument(
            "--clear-providerx-location",
            action="store_true",
            help="remove provider X's location (parameter and value)",
        )
        p.add_argument(
            "--clear-providery-location",
            action="store_true",
            help="remove provider Y's country, state, city and ASN",
        )
        locale.add_argument("--clear-locale", action="store_true", help="remove the locale")


def _profile_commands(subs: Any) -> None:
    profile = _sub(
        subs,
        "profile",
        "profiles",
        "Saved profiles (session templates) and .svcprofile transfer files.",
        (
            "svc profile list",
            "svc profile export Research",
            "svc profile import Research.svcprofile --name 'Research 2'",
        ),
    )
    ps = profile.add_subparsers(
        dest="profile_command", metavar="|".join(SUBCOMMANDS["profile"]), required=True
    )
    _sub(ps, "list", "list profiles", "GET /v1/profiles, sorted by name.", "svc profile list")
    p = _sub(
        ps,
        "export",
        "write a .svcprofile file",
        "POST /v1/profile-transfers/export: writes NAME.svcprofile in the current directory, "
        "or exactly --output PATH; never overwrites a file; the file is owner-only. It holds "
        "the profile's settings and its proxy's configuration, never cookies, passwords or "
        "proxy credentials. Prints {output_path, bytesize, credentials_included}.",
        "svc profile export Research --output /tmp/research.svcprofile",
    )
    p.add_argument("name", metavar="NAME")
    p.add_argument(
        "--output", metavar="PATH", help="write exactly here (default ./NAME.svcprofile)"
    )
    p = _sub(
        ps,
        "import",
        "read a .svcprofile file",
        "POST /v1/profile-transfers/import: saves the profile of a .svcprofile file (12 MiB at "
        "most; legacy JSON files are refused) under --name when given, else its stored name. "
        "Its proxy is created without credentials unless one with that alias exists. Prints "
        "{profile, proxy_created}.",
        "svc profile import research.svcprofile --name 'Research copy'",
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument("--name", metavar="NAME", help="save under this name")


def _session_settings(p: argparse.ArgumentParser) -> None:
    proxy = p.add_mutually_exclusive_group()
    proxy.add_argument("--proxy", metavar="ALIAS", help="assign this proxy")
    proxy.add_argument("--direct", action="store_true", help="no proxy (proxy_alias null)")
    p.add_argument("--adblock-enabled", type=boolean, metavar="true|false")
    p.add_argument("--image-blocking-mode", choices=("none", "all", "over_limit"))
    p.add_argument("--image-size-limit-kb", type=_int_in(1, 1_048_576), metavar="N")


# Every command and its subcommands (the parser's tree, checked against `build` by a test).
SUBCOMMANDS: dict[str, tuple[str, ...]] = {
    "health": (),
    "status": (),
    "navigate": (),
    "read": (),
    "perform": (),
    "capture": (),
    "page": ("attach", "action"),
    "observe": (),
    "observation": ("action",),
    "session": ("list", "get", "create", "update", "pause", "play", "delete", "ping", "close"),
    "proxy": ("list", "get", "create", "update", "delete", "rotate", "export", "import"),
    "profile": ("list", "export", "import"),
}
COMMANDS = frozenset(SUBCOMMANDS)

_HOST_END = re.compile(r"[/?#]")


def could_be_host(word: str) -> bool:
    """Whether a first word that is no command could name a host a person means, so that
    `svc WORD` captures it: its host part (before any `/`, `?` or `#`, after any `user@`) has a
    dot (`example.com`, `127.0.0.1`), a colon (a port, `myhost:8080`, or a scheme,
    `https://intranet/`), is a bracketed IPv6 literal, or is `localhost`. A bare word such as
    `helth`, `ping` or `8080` is not: a typo or a removed command must not start a capture."""
    host = _HOST_END.split(word, maxsplit=1)[0].rpartition("@")[2]
    return "." in host or ":" in host or host.startswith("[") or host.lower() == "localhost"


def unknown_command(word: str) -> str:
    """The usage message for a first word that is neither a command nor a host: the command it
    names one level down (`ping` -> `session ping`), else the closest command by spelling."""
    folded = word.lower()
    nested = [f"{c} {folded}" for c, subs in SUBCOMMANDS.items() if folded in subs]
    suggestions = nested or difflib.get_close_matches(folded, sorted(COMMANDS), n=1)
    if suggestions:
        quoted = [f"'{s}'" for s in suggestions]
        alternatives = (
            quoted[-1] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
        )
        return f"unknown command {word!r}; did you mean {alternatives}?"
    return (
        f"unknown command {word!r} (see svc --help); to capture a host without a dot, "
        f"give its scheme: svc https://{word}/"
    )


def parse(argv: Sequence[str]) -> argparse.Namespace:
    args = list(argv)
    if args and not args[0].startswith("-") and args[0] not in COMMANDS:
        if not args[0].strip():
            raise UsageError("a command or URL is required (see svc --help)")
        if not could_be_host(args[0]):
            raise UsageError(unknown_command(args[0]))
        args.insert(0, "capture")
    return build().parse_args(args)
