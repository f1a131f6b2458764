"""What each `svc` command does: API v1 calls, session selection, cold start; results are written
through `render`. Each command returns its exit status (`exitcodes`)."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any, BinaryIO, TextIO
from urllib.parse import quote

from ..agent_client import AgentClient, AgentUnavailable
from ..session_rule import from_environment, newest
from . import exitcodes, render
from .parser import UsageError


@dataclass
class Context:
    env: Mapping[str, str]
    client: AgentClient
    out: BinaryIO
    err: TextIO
    launch: bool = True
    terminal: bool = False  # stdout is a terminal: indented results, else compact
    stdin: TextIO = field(default_factory=lambda: sys.stdin)

    def cold_start(self) -> None:
        from ..coldstart import ensure_running_sync

        ensure_running_sync(self.client.port, self.client.base_url, self.healthy, self.env)

    def healthy(self) -> bool:
        from ..agent_client import AgentError

        try:
            self.client.call("GET", "/v1/health")
        except AgentError:
            return False
        return True

    def call(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        try:
            return self.client.call(method, path, body)
        except AgentUnavailable:
            if not self.launch:
                raise
        self.cold_start()
        return self.client.call(method, path, body)

    @contextmanager
    def stream(self, method: str, path: str, body: Any) -> Iterator[Iterator[dict[str, Any]]]:
        with ExitStack() as stack:
            try:
                events = stack.enter_context(self.client.stream(method, path, body))
            except AgentUnavailable:
                if not self.launch:
                    raise
                self.cold_start()
                events = stack.enter_context(self.client.stream(method, path, body))
            yield events

    def print(self, data: Any) -> None:
        self.out.write(render.result(data, terminal=self.terminal).encode())
        self.out.flush()


# --- helpers -------------------------------------------------------------------------------------


def _url(raw: str | None, ctx: Context, *, from_env: bool, command: str) -> str:
    from ..urls import normalize_url

    if raw is None and from_env:
        raw = ctx.env.get("SVC_SESSION_URL") or None
    if raw is None:
        hint = " (or set SVC_SESSION_URL)" if from_env else ""
        raise UsageError(f"svc {command}: a URL is required{hint}")
    try:
        return normalize_url(raw)
    except ValueError as exc:
        raise UsageError(f"svc {command}: {exc}") from None


def _path(raw: str | None) -> str | None:
    return None if raw is None else os.path.abspath(os.path.expanduser(raw))


def _seg(value: str) -> str:
    return quote(value, safe="")


def _timing(args: argparse.Namespace, body: dict[str, Any]) -> dict[str, Any]:
    for name in ("timeout", "wait"):
        value = getattr(args, name, None)
        if value is not None:
            body[name] = value
    return body


def _conflict(args: argparse.Namespace, command: str, *names: str) -> None:
    if getattr(args, "session_id", None) is not None:
        for name in names:
            if getattr(args, name, None) is not None:
                raise UsageError(f"svc {command}: --{name} cannot be combined with --session-id")


def select_session(ctx: Context, explicit: str | None) -> str:
    """--session-id, else SVC_SESSION_ID, else the newest session, else a new one (created once
    even when several clients ask at the same moment)."""
    chosen = explicit or from_environment(ctx.env)
    if chosen:
        return chosen
    sessions = ctx.call("GET", "/v1/sessions")["sessions"]
    if sessions:
        return newest(sessions)
    import fcntl

    from ..coldstart import lock_path

    with lock_path(ctx.client.port, ctx.env, "session").open("ab") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        sessions = ctx.call("GET", "/v1/sessions")["sessions"]
        if sessions:
            return newest(sessions)
        return str(ctx.call("POST", "/v1/sessions", {})["session"]["id"])


@contextmanager
def staging() -> Iterator[str]:
    """A private file for HTML headed to stdout; removed afterwards, never shown."""
    folder = tempfile.mkdtemp(prefix="svc-capture-")
    try:
        yield os.path.join(folder, "capture.html")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _copy_out(ctx: Context, path: str) -> None:
    with open(path, "rb") as source:
        shutil.copyfileobj(source, ctx.out)
    ctx.out.flush()


# --- commands ------------------------------------------------------------------------------------


def health(ctx: Context, args: argparse.Namespace) -> int:
    ctx.print(ctx.call("GET", "/v1/health"))
    return exitcodes.OK


def status(ctx: Context, args: argparse.Namespace) -> int:
    data = ctx.call("GET", "/v1/status")
    ctx.print(data)
    return exitcodes.OK if data.get("overall_status") == "ok" else exitcodes.FAILURE


def navigate(ctx: Context, args: argparse.Namespace) -> int:
    url = _url(args.url, ctx, from_env=True, command="navigate")
    _conflict(args, "navigate", "profile")
    body: dict[str, Any] = {"url": url}
    if args.profile is not None:
        body["profile"] = args.profile
    else:
        body["session_id"] = select_session(ctx, args.session_id)
    if args.proxy is not None:
        body["proxy"] = args.proxy
    if args.output is not None:
        body["output"] = _path(args.output)
    ctx.print(ctx.call("POST", "/v1/navigate", _timing(args, body)))
    return exitcodes.OK


def perform(ctx: Context, args: argparse.Namespace) -> int:
    if not args.actions:
        raise UsageError("svc perform: ACTIONS must be a non-empty JSON array")
    if not all(isinstance(a, dict) for a in args.actions):
        raise UsageError("svc perform: every action must be a JSON object")
    body: dict[str, Any] = {"actions": args.actions}
    body["session_id"] = select_session(ctx, args.session_id)
    if args.output is not None:
        body["output"] = _path(args.output)
    ctx.print(ctx.call("POST", "/v1/perform", _timing(args, body)))
    return exitcodes.OK


def capture(ctx: Context, args: argparse.Namespace) -> int:
    if args.url is None:
        return capture_current(ctx, args)
    url = _url(args.url, ctx, from_env=False, command="capture")
    _conflict(args, "capture", "profile", "group")
    body: dict[str, Any] = {"url": url}
    if args.profile is not None or args.group is not None:
        for name in ("profile", "group"):
            if getattr(args, name) is not None:
                body[name] = getattr(args, name)
    else:
        body["session_id"] = select_session(ctx, args.session_id)
    if args.proxy is not None:
        body["proxy"] = args.proxy
    if args.action_items is not None:
        body["actions"] = args.action_items
    if args.retry is not None:
        body["retry"] = args.retry
    if args.retry_delay is not None:
        body["retry_delay"] = args.retry_delay
    _timing(args, body)
    if args.output is not None:
        body["output"] = _path(args.output)
        return _capture_stream(ctx, body, None)
    with staging() as private:
        body["output"] = private
        return _capture_stream(ctx, body, private)


def _capture_stream(ctx: Context, body: dict[str, Any], private: str | None) -> int:
    exit_code: int | None = None
    completed = False
    with ctx.stream("POST", "/v1/captures", body) as events:
        for event in events:
            line = render.compact(event)
            if private is not None:
                line = line.replace(private, "-")
            ctx.err.write(line)
            ctx.err.flush()
            name = event["event"]
            if name == "capture.completed":
                completed = True
            elif name == "capture.finished":
                code = event["data"].get("exit_code")
                exit_code = code if isinstance(code, int) else exitcodes.FAILURE
    if exit_code is None:
        from ..agent_client import connection_lost

        raise connection_lost(ctx.client.base_url, "the capture stream ended before its end")
    if private is not None and completed and os.path.exists(private):
        _copy_out(ctx, private)
    return exit_code


def capture_current(ctx: Context, args: argparse.Namespace) -> int:
    extra = [
        f"--{name.replace('_', '-')}"
        for name in ("action_items", "proxy", "retry", "retry_delay", "profile", "group")
        if getattr(args, name) is not None
    ]
    if extra:
        names = ", ".join("--action/--actions" if e == "--action-items" else e for e in extra)
        raise UsageError(
            f"svc capture: without a URL only --output, --timeout, --wait and --session-id "
            f"apply, not {names}"
        )
    body: dict[str, Any] = {"session_id": select_session(ctx, args.session_id)}
    _timing(args, body)
    if args.output is not None:
        body["output"] = _path(args.output)
        ctx.print(ctx.call("POST", "/v1/capture", body))
        return exitcodes.OK
    with staging() as private:
        body["output"] = private
        ctx.call("POST", "/v1/capture", body)
        _copy_out(ctx, private)
    return exitcodes.OK


def page(ctx: Context, args: argparse.Namespace) -> int:
    if args.page_command == "attach":
        url = _url(args.url, ctx, from_env=True, command="page attach")
        _conflict(args, "page attach", "profile", "group")
        body: dict[str, Any] = {"url": url}
        explicit = args.session_id or (ctx.env.get("SVC_SESSION_ID") or "").strip() or None
        if explicit is not None and args.profile is None and args.group is None:
            body["session_id"] = explicit
        for name in ("profile", "group", "proxy"):
            if getattr(args, name) is not None:
                body[name] = getattr(args, name)
        if args.output is not None:
            body["output"] = _path(args.output)
        ctx.print(ctx.call("POST", "/v1/pages", _timing(args, body)))
        return exitcodes.OK
    if len(args.action_items) != 1:
        raise UsageError("svc page action: exactly one --action is required")
    body = {"action": args.action_items[0]}
    if args.output is not None:
        body["output"] = _path(args.output)
    path = f"/v1/pages/{_seg(args.page_id)}/actions"
    ctx.print(ctx.call("POST", path, _timing(args, body)))
    return exitcodes.OK


def observe(ctx: Context, args: argparse.Namespace) -> int:
    if args.page_id is not None and args.session_id is not None:
        raise UsageError("svc observe: --page-id cannot be combined with --session-id")
    body: dict[str, Any] = _timing(args, {"mode": args.mode})
    if args.page_id is not None:
        ctx.print(ctx.call("POST", f"/v1/pages/{_seg(args.page_id)}/observe", body))
    else:
        body["session_id"] = select_session(ctx, args.session_id)
        ctx.print(ctx.call("POST", "/v1/observe", body))
    return exitcodes.OK


def observation(ctx: Context, args: argparse.Namespace) -> int:
    path = f"/v1/observations/{_seg(args.observation_id)}/actions"
    ctx.print(ctx.call("POST", path, args.request))
    return exitcodes.OK


def read(ctx: Context, args: argparse.Namespace) -> int:
    from ..read import compose

    _conflict(args, "read", "profile")
    if args.url is None:
        for name in ("profile", "proxy"):
            if getattr(args, name) is not None:
                raise UsageError(f"svc read: --{name} needs a URL")
    body: dict[str, Any] = _timing(args, {"mode": "semantic"})
    if args.url is not None:
        body["url"] = _url(args.url, ctx, from_env=False, command="read")
        if args.profile is not None:
            body["profile"] = args.profile
        else:
            body["session_id"] = select_session(ctx, args.session_id)
        if args.proxy is not None:
            body["proxy"] = args.proxy
        data = ctx.call("POST", "/v1/navigate/observe", body)
    else:
        body["session_id"] = select_session(ctx, args.session_id)
        data = ctx.call("POST", "/v1/observe", body)
    markdown, metadata = compose(
        data["page"],
        data["observation"],
        query=args.query,
        max_chars=args.max_chars,
        max_sections=args.max_sections,
    )
    if args.json:
        ctx.print({**metadata, "markdown": markdown})
    else:
        ctx.out.write(render.read_document(markdown, metadata).encode())
        ctx.out.flush()
    return exitcodes.OK


def _settings(args: argparse.Namespace, body: dict[str, Any]) -> dict[str, Any]:
    if args.proxy is not None:
        body["proxy_alias"] = args.proxy
    if args.direct:
        body["proxy_alias"] = None
    for name in ("adblock_enabled", "image_blocking_mode", "image_size_limit_kb"):
        if getattr(args, name) is not None:
            body[name] = getattr(args, name)
    return body


def session(ctx: Context, args: argparse.Namespace) -> int:
    sub = args.session_command
    if sub == "list":
        ctx.print(ctx.call("GET", "/v1/sessions"))
        return exitcodes.OK
    if sub == "create":
        body: dict[str, Any] = {}
        for name in ("name", "group", "profile", "lifetime"):
            if getattr(args, name) is not None:
                body[name] = getattr(args, name)
        data = ctx.call("POST", "/v1/sessions", _settings(args, body))
        if args.id_only:
            ctx.out.write(f"{data['session']['id']}\n".encode())
            ctx.out.flush()
        else:
            ctx.print(data)
        return exitcodes.OK
    if sub == "close":
        ctx.print(ctx.call("POST", "/v1/sessions/close", {"group": args.group}))
        return exitcodes.OK
    path = f"/v1/sessions/{_seg(args.id)}"
    if sub == "get":
        data = ctx.call("GET", path)
    elif sub == "update":
        body = {"name": args.name} if args.name is not None else {}
        _settings(args, body)
        if not body:
            raise UsageError(
                "svc session update: give at least one of --name, --proxy, --direct, "
                "--adblock-enabled, --image-blocking-mode, --image-size-limit-kb"
            )
        data = ctx.call("PATCH", path, body)
    elif sub == "delete":
        data = ctx.call("DELETE", path)
    else:  # pause, play, ping
        data = ctx.call("POST", f"{path}/{sub}")
    ctx.print(data)
    return exitcodes.OK


# --- proxies and profiles ------------------------------------------------------------------------

PROVIDERY_TARGETS = ("country", "state", "city", "asn")


def _clear(args: argparse.Namespace, name: str) -> bool:
    return bool(getattr(args, f"clear_{name}", False))


def _providery(
    args: argparse.Namespace, *, update: bool, current: dict[str, Any] | None
) -> dict[str, Any] | None:
    """The providery object to send, or None to send none. The API replaces the whole object;
    on update the CLI keeps what is not given (spec 2: omission preserves values)."""
    given = {
        k: getattr(args, f"providery_{k}")
        for k in PROVIDERY_TARGETS
        if getattr(args, f"providery_{k}") is not None
    }
    clear = _clear(args, "providery_location")
    if clear and given:
        raise UsageError(
            "svc proxy update: --clear-providery-location cannot be combined with "
            "--providery-country, --providery-state, --providery-city or --providery-asn"
        )
    if args.providery_enabled is None and not given and not clear:
        return None
    if not update and args.providery_enabled is None:
        raise UsageError("svc proxy create: provider Y options need --providery-enabled true|false")
    kept = {} if current is None else current
    out: dict[str, Any] = {"enabled": bool(kept.get("enabled", False))}
    if not clear:
        out.update({k: kept[k] for k in PROVIDERY_TARGETS if kept.get(k) is not None})
    out.update(given)
    if args.providery_enabled is not None:
        out["enabled"] = args.providery_enabled
    return out


def wants_providery(args: argparse.Namespace) -> bool:
    return (
        args.providery_enabled is not None
        or any(getattr(args, f"providery_{k}") is not None for k in PROVIDERY_TARGETS)
        or _clear(args, "providery_location")
    )


def proxy_body(  # noqa: PLR0912  one branch per optional flag
    args: argparse.Namespace,
    *,
    update: bool,
    ca_bundle: str | None = None,
    current_providery: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The create or PATCH body of the proxy options (the password is added by the caller once
    the command line is known to be good). Raises UsageError."""
    command = "svc proxy update" if update else "svc proxy create"
    body: dict[str, Any] = {}
    if not update:
        body["alias"] = args.alias
    for name in ("upstream_host", "upstream_port", "username", "password"):
        if getattr(args, name) is not None:
            body[name] = getattr(args, name)
    for name in ("username", "password", "locale"):
        if _clear(args, name):
            body[name] = None
    if args.providerx_enabled is not None:
        body["providerx_enabled"] = args.providerx_enabled
    location = (args.providerx_location_parameter, args.providerx_location_value)
    if _clear(args, "providerx_location"):
        if location != (None, None):
            raise UsageError(
                f"{command}: --clear-providerx-location cannot be combined with "
                "--providerx-location-parameter or --providerx-location-value"
            )
        body["providerx_location_parameter"] = None
        body["providerx_location_value"] = None
    else:
        if args.providerx_location_parameter is not None:
            body["providerx_location_parameter"] = args.providerx_location_parameter
        if args.providerx_location_value is not None:
            body["providerx_location_value"] = args.providerx_location_value
    providery = _providery(args, update=update, current=current_providery)
    if providery is not None:
        body["providery"] = providery
    if args.locale is not None:
        body["locale"] = args.locale
    if args.detect_exit_locale is not None:
        body["detect_exit_locale"] = args.detect_exit_locale
    if args.tls is not None:
        body["tls"] = {"mode": args.tls}
    if ca_bundle is not None:
        body["tls"] = {"certificates": ca_bundle}
    if update and not body and not args.password_stdin:
        raise UsageError(
            "svc proxy update: give at least one option to change (see svc proxy update --help)"
        )
    return body


def read_password(stdin: TextIO, err: TextIO) -> str:
    """--password-stdin: one line of standard input, or, on a terminal, a prompt that does not
    echo what is typed."""
    if stdin.isatty():
        value = _prompt(stdin, err)
    else:
        value = stdin.readline()
        if value.endswith("\n"):
            value = value[:-1]
        if value.endswith("\r"):
            value = value[:-1]
    if not value:
        raise UsageError("--password-stdin: no password was given on standard input")
    return value


def _prompt(stdin: TextIO, err: TextIO) -> str:
    import termios

    fd = stdin.fileno()
    before = termios.tcgetattr(fd)
    quiet = list(before)
    quiet[3] &= ~termios.ECHO
    err.write("Proxy password: ")
    err.flush()
    try:
        termios.tcsetattr(fd, termios.TCSAFLUSH, quiet)
        line = stdin.readline()
    finally:
        termios.tcsetattr(fd, termios.TCSAFLUSH, before)
        err.write("\n")
        err.flush()
    return line.rstrip("\r\n")


def _write_export(ctx: Context, data: dict[str, Any], output: str | None) -> None:
    import base64
    import binascii

    from ..agent_client import protocol_failure
    from .files import export_path, write_new

    if data.get("credentials_included") is not False:
        raise protocol_failure(ctx.client.base_url, "an export that includes credentials")
    try:
        raw = base64.b64decode(str(data.get("contents_base64", "")), validate=True)
        filename = str(data["filename"])
    except (KeyError, binascii.Error, ValueError):
        raise protocol_failure(ctx.client.base_url, "an export without its archive") from None
    path = export_path(filename, output)
    write_new(path, raw)
    ctx.print({"output_path": str(path), "bytesize": len(raw), "credentials_included": False})


def _check_output(output: str | None) -> None:
    """An exact --output is refused before anything is asked of the agent (the default name is
    the agent's, so it is checked once the export answered)."""
    if output is not None:
        from .files import export_path

        export_path("", output)


def _archive(path: str, kind: str) -> str:
    from .files import encode_archive, read_archive

    return encode_archive(read_archive(path, kind))


def proxy(ctx: Context, args: argparse.Namespace) -> int:
    sub = args.proxy_command
    if sub == "list":
        ctx.print(ctx.call("GET", "/v1/proxies"))
        return exitcodes.OK
    if sub == "import":
        body: dict[str, Any] = {"contents_base64": _archive(args.file, "proxy")}
        if args.alias is not None:
            body["alias"] = args.alias
        ctx.print(ctx.call("POST", "/v1/proxy-transfers/import", body))
        return exitcodes.OK
    if sub == "create":
        ca_bundle = _ca_bundle(args)
        body = proxy_body(args, update=False, ca_bundle=ca_bundle)
        if args.password_stdin:
            body["password"] = read_password(ctx.stdin, ctx.err)
        ctx.print(ctx.call("POST", "/v1/proxies", body))
        return exitcodes.OK
    path = f"/v1/proxies/{_seg(args.alias)}"
    if sub == "update":
        ca_bundle = _ca_bundle(args)
        proxy_body(args, update=True, ca_bundle=ca_bundle)  # usage errors before any request
        current = ctx.call("GET", path)["proxy"].get("providery") if wants_providery(args) else None
        body = proxy_body(args, update=True, ca_bundle=ca_bundle, current_providery=current)
        if args.password_stdin:
            body["password"] = read_password(ctx.stdin, ctx.err)
        data = ctx.call("PATCH", path, body)
    elif sub == "get":
        data = ctx.call("GET", path)
    elif sub == "delete":
        data = ctx.call("DELETE", path)
    elif sub == "rotate":
        data = ctx.call("POST", f"{path}/rotate-session")
    else:  # export
        _check_output(args.output)
        body = {"alias": args.alias, "include_credentials": False}
        _write_export(ctx, ctx.call("POST", "/v1/proxy-transfers/export", body), args.output)
        return exitcodes.OK
    ctx.print(data)
    return exitcodes.OK


def _ca_bundle(args: argparse.Namespace) -> str | None:
    if args.ca_cert is None:
        return None
    from .files import read_ca_bundle

    return read_ca_bundle(args.ca_cert)


def profile(ctx: Context, args: argparse.Namespace) -> int:
    sub = args.profile_command
    if sub == "list":
        ctx.print(ctx.call("GET", "/v1/profiles"))
    elif sub == "export":
        _check_output(args.output)
        data = ctx.call("POST", "/v1/profile-transfers/export", {"name": args.name})
        _write_export(ctx, data, args.output)
    else:  # import
        body: dict[str, Any] = {"contents_base64": _archive(args.file, "profile")}
        if args.name is not None:
            body["name"] = args.name
        ctx.print(ctx.call("POST", "/v1/profile-transfers/import", body))
    return exitcodes.OK


COMMANDS = {
    "health": health,
    "status": status,
    "navigate": navigate,
    "read": read,
    "perform": perform,
    "capture": capture,
    "page": page,
    "observe": observe,
    "observation": observation,
    "session": session,
    "proxy": proxy,
    "profile": profile,
}
