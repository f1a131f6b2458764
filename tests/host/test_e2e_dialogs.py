"""JavaScript dialogs on the real headless app (issue 11, point 1): a ref click that opens an
alert, confirm, prompt or beforeunload prompt is answered at once by the policy and reported in
the post-action observation and the session log; a page raising dialogs in one session leaves
eight other sessions working as fast as without it."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from bridge_protocol import observation as wire
from tests.host.obs_pages import observation_of

from .hostproc import HostApp
from .routes import Routes, html

pytestmark = pytest.mark.e2e

DIALOGS = """<!doctype html><html><head><title>Dialogs</title></head><body>
<button onclick="alert('Hello from the page')">Alert</button>
<button onclick="document.getElementById('out').textContent='confirmed: '+confirm('Proceed?')">
Confirm</button>
<button onclick="document.getElementById('out').textContent='prompted: '+prompt('Your name?','Ada')">
Prompt</button>
<a href="/plain">Leave</a>
<button onclick="for (var i = 0; i < 3000; i++) alert('flood ' + i);
document.getElementById('out').textContent = 'flooded';">Flood</button>
<p id=out>nothing yet</p>
<script>addEventListener('beforeunload', function (e) { e.preventDefault(); e.returnValue = ''; });
</script></body></html>"""

# dialogs on a timer, with no agent operation running: headless, the policy answers them
STORM = """<!doctype html><html><head><title>Storm</title></head><body><p id=n>0</p><script>
var n = 0;
setInterval(function () {
  n += 1;
  if (n % 3 == 0) alert('tick ' + n);
  else if (n % 3 == 1) confirm('tock ' + n);
  else prompt('tack ' + n, 'x');
  document.getElementById('n').textContent = String(n);
}, 40);
</script></body></html>"""

LATER = """<!doctype html><html><head><title>Later</title></head><body><p>waiting</p><script>
setTimeout(function () { document.title = 'asked: ' + confirm('Later?'); }, 300);
</script></body></html>"""

PLAIN = """<!doctype html><html><head><title>Plain</title></head><body><h1>Plain</h1>
<p>Some text</p><a href="/plain">again</a></body></html>"""


@pytest.fixture(scope="module")
def pages() -> Iterator[Routes]:
    routes = {
        "/dialogs": lambda: html(DIALOGS),
        "/storm": lambda: html(STORM),
        "/later": lambda: html(LATER),
        "/plain": lambda: html(PLAIN),
    }
    with Routes(routes) as server:
        yield server


def decoded(obs: dict[str, Any]) -> dict[str, Any]:
    return wire.decode(obs)


def navigate(host: HostApp, sid: str, url: str) -> dict[str, Any]:
    data = host.ok("POST", "/v1/navigate/observe", {"url": url, "session_id": sid, "wait": 0})
    return observation_of(data)


def click(host: HostApp, obs: dict[str, Any], name: str) -> dict[str, Any]:
    ref = next(e["ref"] for e in obs["elements"] if e["name"] == name)
    data = host.ok(
        "POST",
        f"/v1/observations/{obs['id']}/actions",
        {"actions": [{"action": "click", "ref": ref}]},
    )
    return observation_of(data)


def dialogs(obs: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in obs.get("content", []) if c["k"] == "dialog"]


def session_log(host: HostApp, sid: str) -> list[dict[str, Any]]:
    path = host.data_dir / "Logs" / "sessions" / f"{int(sid.removeprefix('Session'))}.ndjson"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_ref_clicks_report_each_dialog_and_its_answer(
    host: HostApp, pages: Routes, session: str
) -> None:
    obs = navigate(host, session, pages.url("/dialogs"))
    assert not dialogs(obs)

    after = click(host, obs, "Alert")
    [alert] = dialogs(after)
    assert alert["t"] == "Hello from the page"
    assert alert["d"] == {
        "dialog": "alert",
        "answer": "accepted",
        "by": "policy",
        "origin": pages.url(""),
        "trust": "untrusted_website_content",
    }
    assert after["content"][0] == alert  # page events come first

    after = click(host, after, "Confirm")
    [confirm] = dialogs(after)
    assert (confirm["t"], confirm["d"]["dialog"], confirm["d"]["answer"]) == (
        "Proceed?",
        "confirm",
        "accepted",
    )
    # the page's script continued with the answer
    assert "confirmed: true" in [c.get("t") for c in after["content"]]

    after = click(host, after, "Prompt")
    [prompt] = dialogs(after)
    assert prompt["t"] == "Your name?"
    assert prompt["d"]["dialog"] == "prompt"
    assert (prompt["d"]["default"], prompt["d"]["value"]) == ("Ada", "Ada")
    assert "prompted: Ada" in [c.get("t") for c in after["content"]]

    after = click(host, after, "Leave")
    [unload] = dialogs(after)
    assert unload["d"]["dialog"] == "beforeunload"
    assert unload["d"]["answer"] == "left_page"
    assert after["url"] == pages.url("/plain")  # the policy left the page

    records = [r for r in session_log(host, session) if r["category"] == "page.dialog"]
    assert [r["data"]["dialog"] for r in records[:4]] == [
        "alert",
        "confirm",
        "prompt",
        "beforeunload",
    ]
    first = records[0]
    assert first["data"]["session_id"] == session
    assert first["data"]["trust"] == "untrusted_website_content"
    assert "Hello from the page" not in first["message"]  # the page's text stays in the data


def test_an_agent_navigation_leaves_a_page_that_asks_before_unload(
    host: HostApp, pages: Routes, session: str
) -> None:
    obs = navigate(host, session, pages.url("/dialogs"))
    click(host, obs, "Alert")  # a user gesture: Chromium asks before unload only after one
    after = navigate(host, session, pages.url("/plain"))
    assert after["url"] == pages.url("/plain")
    [unload] = dialogs(after)
    assert (unload["d"]["dialog"], unload["d"]["answer"]) == ("beforeunload", "left_page")


def test_a_flood_of_dialogs_is_answered_and_bounded(
    host: HostApp, pages: Routes, session: str
) -> None:
    obs = navigate(host, session, pages.url("/dialogs"))
    after = click(host, obs, "Flood")
    assert "flooded" in [c.get("t") for c in after["content"]]  # every alert was answered
    reported = dialogs(after)
    assert len(reported) == 32  # the page events' bound; the rest are counted as omitted
    assert reported[-1]["t"] == "flood 2999"
    assert after["omitted_node_count"] >= 3000 - 32
    records = [r for r in session_log(host, session) if r["category"] == "page.dialog"]
    assert 20 <= len(records) < 3000  # at most 20 a second
    assert sum(r["data"].get("unlogged_before", 0) for r in records) <= 3000 - len(records)


def test_a_dialog_without_an_operation_is_answered_and_reported_later(
    host: HostApp, pages: Routes, session: str
) -> None:
    navigate(host, session, pages.url("/later"))
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + 30
    title = ""
    while time.monotonic() < deadline:
        data = host.ok("POST", "/v1/observe", {"session_id": session, "wait": 0})
        obs = observation_of(data)
        seen += dialogs(obs)
        title = obs.get("title", "")
        if title.startswith("asked") and seen:
            break
        time.sleep(0.1)
    assert title == "asked: true"
    assert [(d["t"], d["d"]["dialog"], d["d"]["by"]) for d in seen] == [
        ("Later?", "confirm", "policy")
    ]


def _dialog_records(host: HostApp, sid: str) -> list[dict[str, Any]]:
    return [r for r in session_log(host, sid) if r["category"] == "page.dialog"]


def _rounds(host: HostApp, sid: str, url: str, n: int) -> list[float]:
    """`n` navigate/observe + observe pairs; the seconds each pair took."""
    times = []
    for i in range(n):
        start = time.monotonic()
        host.ok("POST", "/v1/navigate/observe", {"url": f"{url}?{i}", "session_id": sid, "wait": 0})
        host.ok("POST", "/v1/observe", {"session_id": sid, "wait": 0})
        times.append(time.monotonic() - start)
    return times


def _run(host: HostApp, sids: list[str], url: str, n: int) -> tuple[float, list[float]]:
    start = time.monotonic()
    with ThreadPoolExecutor(len(sids)) as pool:
        per_session = list(pool.map(lambda sid: _rounds(host, sid, url, n), sids))
    return time.monotonic() - start, [t for times in per_session for t in times]


def test_dialogs_in_one_session_leave_eight_others_at_full_speed(
    host: HostApp, pages: Routes
) -> None:
    sids = [host.new_session() for _ in range(9)]
    noisy, others = sids[0], sids[1:]
    try:
        plain = pages.url("/plain")
        _run(host, others, plain, 1)  # warm: every profile created and its first page loaded
        calm_total, calm = _run(host, others, plain, 6)

        stop = threading.Event()
        errors: list[BaseException] = []
        kinds: set[str] = set()

        def make_dialogs() -> None:
            try:
                while not stop.is_set():
                    obs = navigate(host, noisy, pages.url("/dialogs"))
                    for name in ("Alert", "Confirm", "Prompt", "Leave"):
                        obs = click(host, obs, name)
                        kinds.update(d["d"]["dialog"] for d in dialogs(obs))
                    # and dialogs on a timer, between the agent's operations
                    navigate(host, noisy, pages.url("/storm"))
                    time.sleep(0.2)
            except BaseException as exc:  # reported by the test thread
                errors.append(exc)

        before = len(session_log(host, noisy))
        worker = threading.Thread(target=make_dialogs)
        worker.start()
        try:
            # the noisy session is clicking its dialogs before the others start
            deadline = time.monotonic() + 30
            while len(session_log(host, noisy)) < before + 4 and time.monotonic() < deadline:
                time.sleep(0.05)
            at_start = len(_dialog_records(host, noisy))
            noisy_total, noisy_times = _run(host, others, plain, 6)
            during = len(_dialog_records(host, noisy)) - at_start
        finally:
            stop.set()
            worker.join(60)
        assert not errors, errors
        assert kinds == {"alert", "confirm", "prompt", "beforeunload"}
        assert during >= 4  # dialogs kept coming while the others were measured
        # same work, same bound: the dialogs cost the other sessions no more than the noisy
        # session's own load on this (shared, two-core) machine accounts for
        assert noisy_total <= 2.5 * calm_total + 3.0, (noisy_total, calm_total)
        assert max(noisy_times) <= 2.5 * max(calm) + 3.0, (noisy_times, calm)
    finally:
        for sid in sids:
            host.client.delete(f"/v1/sessions/{sid}")
