"""The installed `svc` against the real app headless and the fixture site: stdout, stderr and exit
status of every command (spec 2 §4, §6, §7)."""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import termios
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.host import click_pages
from tests.host.economy_pages import LINKS, MENU, SIGNIN
from tests.host.hostproc import HostApp
from tests.host.site import Site

from ..ports import listener_base
from .conftest import SVC, Run, client_env, free_port, kill_all, svc, svc_app_processes

pytestmark = pytest.mark.e2e

W0 = ("--wait", "0")


def piped(r: Run) -> Any:
    """The result `svc` printed to a pipe: exactly one line of compact JSON (issue 38 point 2)."""
    text = r.out.decode()
    value = json.loads(text)
    assert text == json.dumps(value, separators=(",", ":"), ensure_ascii=False) + "\n", text[:300]
    return value


def indented(r: Run) -> Any:
    """The result `svc` printed to a terminal: JSON indented by two spaces."""
    text = r.out.decode()
    value = json.loads(text)
    assert text == json.dumps(value, indent=2, ensure_ascii=False) + "\n", text[:300]
    return value


def on_terminal(port: int, *args: str, timeout: float = 60) -> Run:
    """`svc` with its stdout a pseudo-terminal (stdin none, stderr a pipe). The terminal does no
    output processing, so its bytes are the ones svc wrote."""
    master, slave = pty.openpty()
    try:
        attrs = termios.tcgetattr(slave)
        attrs[1] &= ~termios.OPOST  # no "\n" -> "\r\n"
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        proc = subprocess.Popen(
            [SVC, *args],
            env=client_env(port),
            stdin=subprocess.DEVNULL,
            stdout=slave,
            stderr=subprocess.PIPE,
        )
        os.close(slave)
        slave = -1
        out = bytearray()
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: svc, the terminal's last writer, is gone
                break
            if not chunk:
                break
            out += chunk
        _, err = proc.communicate(timeout=timeout)
    finally:
        os.close(master)
        if slave != -1:
            os.close(slave)
    return Run(proc.returncode, bytes(out), err.decode())


def envelope_of(err: str) -> dict[str, Any]:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    env: dict[str, Any] = json.loads(lines[0])
    assert env["status"] == "error"
    assert {"id", "code", "message", "retryable"} <= set(env["error"])
    return env


def test_help_and_version_exit_0(host: HostApp) -> None:
    for args in (["--help"], ["-h"]):
        r = svc(host.port, *args)
        assert r.code == 0
        assert "navigate" in r.text
        assert "examples:" in r.text
        assert "indented when stdout is a terminal and compact (one line)" in " ".join(
            r.text.split()
        )
    r = svc(host.port, "--version")
    assert (r.code, r.text.strip()) == (0, "svc 0.1.0")
    for command in (
        ["health"],
        ["status"],
        ["navigate"],
        ["read"],
        ["perform"],
        ["capture"],
        ["page", "attach"],
        ["page", "action"],
        ["observe"],
        ["observation", "action"],
        ["session", "create"],
        ["session", "close"],
        ["profile", "list"],
    ):
        r = svc(host.port, *command, "--help")
        assert r.code == 0, command
        assert "example:\n  svc " in r.text, command


def test_health_and_status(host: HostApp) -> None:
    r = svc(host.port, "health")
    assert r.code == 0
    assert r.err == ""
    assert piped(r)["pid"] == host.agent_pid()
    r = svc(host.port, "status")
    assert r.code == 0
    assert piped(r)["overall_status"] == "ok"


def test_health_and_status_never_launch_and_fail_in_one_line(tmp_path: Path) -> None:
    port = free_port()
    for command in ("health", "status"):
        r = svc(port, command, env={"SVC_DATA_DIR": str(tmp_path)})
        assert r.code == 1
        assert r.out == b""
        assert r.err.count("\n") == 1
        assert r.err.startswith("svc: ")
        assert "not running" in r.err
    assert not list(tmp_path.iterdir())  # no app was started on this data folder


def test_a_bare_word_that_is_no_command_and_no_host_starts_nothing(tmp_path: Path) -> None:
    """Issue 38 point 3: a typo or a removed command is a usage error naming the closest command,
    refused before the agent is asked (nothing listens on its port, so an ask would cold-start:
    a lock in XDG_RUNTIME_DIR, then svc-app on SVC_DATA_DIR)."""
    port = free_port()
    data_dir, run_dir = tmp_path / "data", tmp_path / "run"
    run_dir.mkdir()
    env = {
        "SVC_DATA_DIR": str(data_dir),
        "XDG_RUNTIME_DIR": str(run_dir),
        "SVC_BROWSER_PROXY_PORT": str(listener_base()),
    }
    expected = {
        "helth": "svc: unknown command 'helth'; did you mean 'health'?\n",
        "ping": "svc: unknown command 'ping'; did you mean 'session ping'?\n",
        "logs": "svc: unknown command 'logs' (see svc --help); to capture a host without a dot, "
        "give its scheme: svc https://logs/\n",
    }
    started: list[int] = []
    try:
        for word, message in expected.items():
            r = svc(port, word, *W0, env=env)
            assert (r.code, r.out, r.err) == (1, b"", message), word
    finally:
        started = svc_app_processes(data_dir)
        kill_all(started)
    assert started == []
    assert not data_dir.exists()
    assert list(run_dir.iterdir()) == []  # no cold-start lock, no session lock


def test_usage_failures_are_one_plain_line(host: HostApp) -> None:
    cases = [
        [],
        ["navigate", "ftp://example.org"],
        ["navigate"],
        ["capture", "x.org", "--timeout", "0"],
        ["capture", "x.org", "--wait", "-1"],
        ["capture", "x.org", "--retry", "101"],
        ["capture", "x.org", "--retry-delay", "86401"],
        ["capture", "x.org", "--action", "[1]"],
        ["capture", "x.org", "--actions", "{}"],
        ["capture", "x.org", "--session-id", "Session1", "--profile", "p"],
        ["capture", "x.org", "--session-id", "Session1", "--group", "g"],
        ["capture", "--proxy", "p"],
        ["capture", "--action", '{"action":"wait","seconds":0}'],
        ["perform", "[]"],
        ["perform", "{}"],
        ["page", "action", "page_1"],
        ["observe", "--page-id", "p", "--session-id", "Session1"],
        ["read", "--profile", "p"],
        ["read", "x.org", "--max-chars", "511"],
        ["read", "x.org", "--max-sections", "101"],
        ["session", "update", "Session1"],
        ["session", "create", "--lifetime", "0"],
        ["session", "create", "--proxy", "a", "--direct"],
        ["session"],
        ["nonsense-command", "--weird"],
    ]
    for args in cases:
        r = svc(host.port, *args)
        assert r.code == 1, args
        assert r.out == b"", args
        assert r.err.count("\n") == 1, (args, r.err)
        assert r.err.startswith("svc"), (args, r.err)


def test_api_failure_prints_the_whole_envelope(host: HostApp) -> None:
    r = svc(host.port, "session", "get", "Session999999")
    assert r.code == 1
    assert r.out == b""
    env = envelope_of(r.err)
    assert env["error"]["id"] == "SESSION_NOT_FOUND"
    assert env["error"]["code"] == 10100
    assert env["error"]["details"] == {"id": "Session999999"}
    assert env["request_id"].startswith("req_")


def test_session_commands(fresh: HostApp) -> None:
    port = fresh.port
    r = svc(port, "session", "create", "--name", "alpha", "--group", "g1", "--id-only")
    assert r.code == 0
    sid = r.text.strip()
    assert r.text == f"{sid}\n"
    assert sid.startswith("Session")
    r = svc(port, "session", "create", "--lifetime", "indefinite", "--adblock-enabled", "false")
    created = piped(r)["session"]
    assert created["lifetime"] == {"type": "indefinite"}
    assert created["adblock_enabled"] is False
    listed = piped(svc(port, "session", "list"))["sessions"]
    assert [s["id"] for s in listed] == [sid, created["id"]]
    got = piped(svc(port, "session", "get", sid))["session"]
    assert (got["name"], got["group"]) == ("alpha", "g1")
    r = svc(port, "session", "update", sid, "--name", "beta", "--image-blocking-mode", "all")
    updated = piped(r)["session"]
    assert (updated["name"], updated["image_blocking_mode"]) == ("beta", "all")
    assert piped(svc(port, "session", "pause", sid)) == {
        "session_id": sid,
        "network_paused": True,
    }
    assert piped(svc(port, "session", "play", sid)) == {
        "session_id": sid,
        "network_paused": False,
    }
    assert piped(svc(port, "session", "ping", sid))["session_id"] == sid
    r = svc(port, "session", "close", "--group", "G1")
    assert piped(r) == {"group": "G1", "deleted_ids": [sid]}
    r = svc(port, "session", "close", "--group", "G1")
    assert (r.code, piped(r)["deleted_ids"]) == (0, [])
    r = svc(port, "session", "delete", created["id"])
    assert piped(r) == {"deleted_id": created["id"]}
    assert piped(svc(port, "session", "list")) == {"sessions": []}


def test_profile_list(fresh: HostApp) -> None:
    r = svc(fresh.port, "profile", "list")
    assert (r.code, piped(r)) == (0, {"profiles": []})


def test_session_selection_precedence(fresh: HostApp, site: Site) -> None:
    port = fresh.port
    url = site.url("/table")
    # No session: one is created.
    first = piped(svc(port, "navigate", url, *W0))["page"]["session_id"]
    assert [s["id"] for s in fresh.ok("GET", "/v1/sessions")["sessions"]] == [first]
    # The newest session is used next.
    newer = fresh.new_session()
    assert piped(svc(port, "navigate", url, *W0))["page"]["session_id"] == newer
    # SVC_SESSION_ID beats the newest; --session-id beats SVC_SESSION_ID.
    r = svc(port, "navigate", url, *W0, env={"SVC_SESSION_ID": first})
    assert piped(r)["page"]["session_id"] == first
    r = svc(port, "navigate", url, *W0, "--session-id", newer, env={"SVC_SESSION_ID": first})
    assert piped(r)["page"]["session_id"] == newer
    # An unknown explicit id never creates a replacement.
    r = svc(port, "navigate", url, *W0, env={"SVC_SESSION_ID": "Session999999"})
    assert r.code == 1
    assert envelope_of(r.err)["error"]["id"] == "SESSION_NOT_FOUND"
    assert len(fresh.ok("GET", "/v1/sessions")["sessions"]) == 2


def test_navigate_uses_svc_session_url_and_output(
    fresh: HostApp, site: Site, tmp_path: Path
) -> None:
    out = tmp_path / "nav.html"
    r = svc(
        fresh.port,
        "navigate",
        *W0,
        "--output",
        str(out),
        env={"SVC_SESSION_URL": site.url("/table")},
    )
    assert r.code == 0, r.err
    data = piped(r)
    assert data["page"]["url"] == site.url("/table")
    assert data["capture"]["output_path"] == str(out)
    assert "Apple" in out.read_text()
    # An explicit URL beats SVC_SESSION_URL.
    r = svc(fresh.port, "navigate", site.url("/"), *W0, env={"SVC_SESSION_URL": site.url("/table")})
    assert piped(r)["page"]["url"] == site.url("/")


def test_url_capture_to_stdout(fresh: HostApp, site: Site) -> None:
    r = svc(fresh.port, site.url("/table"), *W0)
    assert r.code == 0
    assert b"<caption>Prices</caption>" in r.out
    events = [json.loads(line) for line in r.err.splitlines()]
    names = [e["event"] for e in events]
    assert names[0] == "capture.started"
    assert names[-1] == "capture.finished"
    assert {"capture.writing", "capture.completed"} <= set(names)
    for e in events:
        if e["event"] in ("capture.writing", "capture.completed"):
            assert e["data"]["output_path"] == "-"
    assert "svc-capture-" not in r.err  # the private staging path never shows
    # Compact NDJSON: one object per line, no spaces after separators.
    assert all(", " not in line.split('"url"')[0] for line in r.err.splitlines())
    assert events[-1]["data"] == {"exit_code": 0}
    # a scheme-less localhost with a port is still a capture (issue 38 point 3), over http
    url = f"localhost:{urlsplit(site.base).port}/table"
    r = svc(fresh.port, url, *W0)
    assert r.code == 0, r.err
    assert b"<caption>Prices</caption>" in r.out
    assert json.loads(r.err.splitlines()[0])["data"]["url"] == f"http://{url}"


def test_capture_url_form_with_output_actions_in_command_line_order_and_target_error(
    fresh: HostApp, site: Site, tmp_path: Path
) -> None:
    out = tmp_path / "keys.html"

    def typed(key: str) -> str:
        return json.dumps({"action": "type", "selector": "#line", "text": key})

    # --action and --actions interleaved: run in command-line order (spec 2 §4 option rules),
    # which /keys shows as the keys its input saw
    r = svc(
        fresh.port,
        "capture",
        site.url("/keys"),
        *W0,
        "--output",
        str(out),
        "--actions",
        f"[{typed('1')},{typed('2')}]",
        "--action",
        typed("3"),
        "--actions",
        f"[{typed('4')}]",
        "--action",
        typed("5"),
    )
    assert r.code == 0, r.err
    assert r.out == b""
    completed = next(json.loads(x) for x in r.err.splitlines() if "capture.completed" in x)
    assert completed["data"]["output_path"] == str(out)
    log = out.read_text().split('<pre id="log">')[1].split("</pre>")[0]
    assert log.split() == ["line:1", "line:2", "line:3", "line:4", "line:5"], log
    # A target 404 is capture data: exit code 1 from capture.finished, HTML still written.
    r = svc(fresh.port, site.url("/missing"), *W0)
    assert r.code == 1
    assert b"404 page" in r.out
    assert json.loads(r.err.splitlines()[-1])["data"] == {"exit_code": 1}


def test_capture_failure_exits_with_the_capture_exit_code(fresh: HostApp) -> None:
    port = free_port()  # nothing listens there
    r = svc(fresh.port, f"127.0.0.1:{port}/", *W0, "--retry", "0")
    assert r.code == 1  # spec 2 §7: the terminal exit code of an unsuccessful capture
    events = [json.loads(x) for x in r.err.splitlines()]
    names = [e["event"] for e in events]
    assert "capture.failed" in names
    assert names[-1] == "capture.finished"
    assert events[-1]["data"] == {"exit_code": 1}


def test_a_capture_gives_a_bot_challenge_its_time(fresh: HostApp, site: Site) -> None:
    """Spec 1 §4 shorthand rule 8 applies to captures too (issue 16 point 5): the challenge page
    (403, "Just a moment...") continues to /table after 0.8 s, and that is what is captured."""
    r = svc(fresh.port, site.url("/challenge-403"), *W0)
    assert r.code == 0, r.err
    assert b"<caption>Prices</caption>" in r.out
    completed = next(json.loads(x) for x in r.err.splitlines() if "capture.completed" in x)
    assert completed["data"]["target_http_status"] == 200


def test_argument_free_capture(fresh: HostApp, site: Site, tmp_path: Path) -> None:
    svc(fresh.port, "navigate", site.url("/table"), *W0)
    r = svc(fresh.port, "capture", *W0)
    assert r.code == 0
    assert r.err == ""
    assert b"<caption>Prices</caption>" in r.out
    out = tmp_path / "current.html"
    r = svc(fresh.port, "capture", *W0, "--output", str(out))
    assert piped(r)["capture"]["output_path"] == str(out)
    assert "Prices" in out.read_text()


def test_perform(fresh: HostApp, site: Site) -> None:
    svc(fresh.port, "navigate", site.url("/form"), *W0)
    r = svc(
        fresh.port,
        "perform",
        '[{"action":"select","selector":"#color","value":"blue"},'
        '{"action":"click","selector":"#go"},{"action":"wait-for","selector":"#color"}]',
        *W0,
    )
    assert r.code == 0, r.err
    assert piped(r)["page"]["url"].startswith(site.url("/submitted"))
    r = svc(fresh.port, "perform", '[{"action":"click","selector":"#absent"}]', *W0)
    assert r.code == 1
    assert envelope_of(r.err)["error"]["id"] == "ACTION_TARGET_NOT_FOUND"


def test_page_attach_and_action(fresh: HostApp, site: Site) -> None:
    r = svc(fresh.port, "page", "attach", site.url("/form"), *W0, "--group", "pages")
    assert r.code == 0, r.err
    page = piped(r)["page"]
    assert page["id"].startswith("page_")
    r = svc(
        fresh.port,
        "page",
        "action",
        page["id"],
        "--action",
        '{"action":"type","selector":"#name","text":"zz"}',
        *W0,
    )
    assert r.code == 0, r.err
    assert piped(r)["page"]["id"] == page["id"]
    # SVC_SESSION_ID and SVC_SESSION_URL: attach that session's current page.
    r = svc(
        fresh.port,
        "page",
        "attach",
        *W0,
        env={"SVC_SESSION_ID": page["session_id"], "SVC_SESSION_URL": site.url("/form")},
    )
    assert r.code == 0, r.err
    assert piped(r)["page"]["session_id"] == page["session_id"]
    r = svc(fresh.port, "page", "action", "page_nope", "--action", '{"action":"wait","seconds":0}')
    assert envelope_of(r.err)["error"]["id"] == "PAGE_NOT_FOUND"


def test_observe_and_observation_action(fresh: HostApp, site: Site) -> None:
    svc(fresh.port, "navigate", site.url("/form"), *W0)
    r = svc(fresh.port, "observe", *W0)
    assert r.code == 0, r.err
    data = piped(r)
    obs = data["observation"]
    assert "mode" not in obs  # semantic, the default
    assert "url" not in obs  # the URL once: in page.url
    assert data["page"]["url"] == site.url("/form")
    # the wire form (docs/observations.md): [ref, role, ...] arrays and context markers
    name_box = next(e for e in obs["elements"] if isinstance(e, list) and e[1] == "textbox")
    request = {"actions": [{"action": "type", "ref": name_box[0], "text": "Q"}]}
    r = svc(fresh.port, "observation", "action", obs["id"], "--request", json.dumps(request))
    assert r.code == 0, r.err
    assert piped(r)["observation"]["id"] != obs["id"]
    r = svc(fresh.port, "observation", "action", "obs_nope", "--request", json.dumps(request))
    assert envelope_of(r.err)["error"]["id"] == "OBSERVATION_STALE"
    attached = piped(svc(fresh.port, "page", "attach", site.url("/table"), *W0))
    r = svc(fresh.port, "observe", "--page-id", attached["page"]["id"], "--mode", "hybrid", *W0)
    assert r.code == 0, r.err
    hybrid = piped(r)["observation"]
    assert hybrid["mode"] == "hybrid"
    assert hybrid["image"]["mime_type"] == "image/png"


def test_results_are_indented_on_a_terminal_and_compact_through_a_pipe(
    fresh: HostApp, site: Site, tmp_path: Path
) -> None:
    """Issue 38 point 2: each command that prints JSON, with stdout a pseudo-terminal (indented)
    and then a pipe (one compact line), gives the same result both ways."""
    port = fresh.port
    sid = piped(svc(port, "session", "create", "--name", "tty"))["session"]["id"]
    assert piped(svc(port, "navigate", site.url("/form"), *W0))["page"]["session_id"] == sid
    page = piped(svc(port, "page", "attach", site.url("/form"), *W0, "--session-id", sid))["page"]
    # one command of each kind of result (every command prints through the same function,
    # which test_cli_parser checks for both kinds of stdout): 18 commands took 10.5 s
    commands: list[tuple[str, ...]] = [
        ("status",),
        ("session", "get", sid),
        ("capture", "--output", str(tmp_path / "page.html"), *W0),
        ("observe", "--page-id", page["id"], *W0),
        ("read", "--json", *W0),
        ("proxy", "list"),
    ]
    for args in commands:
        shown = on_terminal(port, *args)
        assert shown.code == 0, (args, shown.err)
        read = svc(port, *args)
        assert read.code == 0, (args, read.err)
        person, program = indented(shown), piped(read)
        assert person.keys() == program.keys(), args
        assert len(read.out) < len(shown.out), args
    assert person == program  # the last: the same value either way
    r = on_terminal(port, "session", "create", "--group", "tty")
    created = indented(r)["session"]
    r = svc(port, "session", "close", "--group", "tty")
    assert piped(r) == {"group": "tty", "deleted_ids": [created["id"]]}
    # errors are no result: the envelope stays one compact line on stderr, stdout empty
    r = on_terminal(port, "session", "get", "Session999999")
    assert (r.code, r.out) == (1, b"")
    assert envelope_of(r.err)["error"]["id"] == "SESSION_NOT_FOUND"


def test_read(fresh: HostApp, site: Site) -> None:
    r = svc(fresh.port, "read", site.url("/table"), *W0, "--query", "pear")
    assert r.code == 0, r.err
    text = r.text
    assert text.startswith("---\n")
    front, _, markdown = text[4:].partition("\n---\n")
    meta = dict(line.split(": ", 1) for line in front.splitlines())
    assert meta["title"] == "Table"
    assert meta["query_matched"] == "true"
    assert meta["source_truncated"] == "false"
    assert "| Pear | 2 |" in markdown
    r = svc(fresh.port, "read", "--json", "--max-chars", "512")
    assert r.code == 0, r.err
    data = piped(r)
    assert data["source_url"] == site.url("/table")
    assert data["query"] is None
    assert len(data["markdown"]) <= 512


def test_compact_observations_decode_for_read(fresh: HostApp, site: Site) -> None:
    """Issue 11 point 8: `svc observe` prints the compact header and relative destinations;
    `svc read` decodes them with the page's URL."""
    r = svc(fresh.port, "navigate", site.url(LINKS), *W0)
    assert r.code == 0, r.err
    r = svc(fresh.port, "observe", *W0)
    assert r.code == 0, r.err
    data = piped(r)
    obs = data["observation"]
    assert data["page"]["url"] == site.url(LINKS)
    header = set(obs) - {"contexts", "content", "elements"}
    assert header == {"id", "seq", "at", "title", "vp", "doc", "truncated"}
    assert obs["truncated"] is False
    links = [e for e in obs["elements"] if isinstance(e, list) and e[1] == "link"]
    assert [e[3] for e in links] == [sent for _, _, sent in MENU]
    r = svc(fresh.port, "read", site.url(SIGNIN), "--json", *W0)
    assert r.code == 0, r.err
    meta = piped(r)
    assert (meta["source_url"], meta["title"]) == (site.url(SIGNIN), "Sign in")
    assert (meta["link_count"], meta["source_truncated"]) == (2, False)
    assert meta["observation_id"].startswith("obs_")


def test_read_keeps_code_lines(fresh: HostApp, site: Site) -> None:
    """Issue 11 point 6: a page's code blocks come out of `svc read` fenced, lines intact."""
    r = svc(fresh.port, "read", site.url("/pre/code"), *W0)
    assert r.code == 0, r.err
    assert f"```\n{click_pages.CODE}\n```" in r.text
    assert "```\nfirst  line\n  second line\n```" in r.text
    assert "```\nalpha\n  beta\ngamma\n```" in r.text  # the textarea's lines


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_sigint_exits_130(fresh: HostApp, site: Site) -> None:
    proc = subprocess.Popen(
        [SVC, "navigate", site.url("/slow?s=20"), "--wait", "0"],
        env=client_env(fresh.port),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # as from a terminal: a suite run in the background has SIGINT ignored, and that
        # would be inherited
        preexec_fn=_default_sigint,  # noqa: PLW1509
    )
    deadline = time.monotonic() + 20
    # Wait until the navigation is under way in the agent (its session exists).
    while time.monotonic() < deadline and not fresh.ok("GET", "/v1/sessions")["sessions"]:
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    assert out == b""
    # The agent is still healthy and the session kept.
    assert svc(fresh.port, "health").code == 0
    assert os.environ.get("SVC_SESSION_ID") is None
