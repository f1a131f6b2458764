"""Routes in-process (tests/agent/inprocess.py): the real app and services, quart's test client,
a FakeBrowser on an in-memory bridge. The same behaviour the process tests check end to end
(test_sessions, test_browser_routes, test_scheduler, test_observations), in milliseconds and
under `make test-fast`; the process tests stay for what only a process has (sockets, HTTP/1.1
framing, signals, stdio pipes)."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

import bridge_protocol as bp

from .fakebrowser import error
from .inprocess import InProcessAgent, in_process_agent, until


@pytest.fixture
async def inproc(tmp_path: Path) -> AsyncIterator[InProcessAgent]:
    async with in_process_agent(tmp_path / "data") as agent_:
        yield agent_


async def post(agent_: InProcessAgent, path: str, body: Any) -> tuple[dict[str, Any], str]:
    """(data, request id) of a successful POST."""
    response = await agent_.request("POST", path, body)
    envelope = response.json()
    assert response.status == 200, envelope
    assert envelope["request_id"] == response.headers["x-request-id"]
    return envelope["data"], envelope["request_id"]


async def new_session(agent_: InProcessAgent) -> str:
    return str((await agent_.ok("POST", "/v1/sessions", {}))["session"]["id"])


async def test_session_create_get_list_patch_delete(inproc: InProcessAgent) -> None:
    created = (await inproc.ok("POST", "/v1/sessions", {"group": "  Team A  "}))["session"]
    sid = created["id"]
    assert (sid, created["name"], created["group"]) == ("Session1", "Session1", "Team A")
    assert created["lifetime"] == {"type": "inactivity", "timeout_seconds": 120}
    assert (await inproc.ok("GET", f"/v1/sessions/{sid}"))["session"] == created
    assert (await inproc.ok("GET", "/v1/sessions"))["sessions"] == [created]
    patched = await inproc.ok(
        "PATCH", f"/v1/sessions/{sid}", {"name": "Renamed", "adblock_enabled": False}
    )
    assert (patched["session"]["name"], patched["session"]["adblock_enabled"]) == (
        "Renamed",
        False,
    )
    assert await inproc.ok("DELETE", f"/v1/sessions/{sid}") == {"deleted_id": sid}
    status, error_ = await inproc.error("GET", f"/v1/sessions/{sid}")
    assert (status, error_["id"], error_["details"]) == (404, "SESSION_NOT_FOUND", {"id": sid})
    assert (await inproc.ok("GET", "/v1/sessions"))["sessions"] == []
    # the PATCH pushed the changed settings before answering (issue 14: routes that can't
    # leak); closing the session tells the host too
    assert inproc.fake.names(sid) == ["apply-session-settings", "close-session"]


async def test_navigate_sends_settings_then_attach(inproc: InProcessAgent) -> None:
    sid = await new_session(inproc)
    data, rid = await post(inproc, "/v1/navigate", {"url": "Example.COM/a?q=1#top", "wait": 0})
    page = data["page"]
    assert page["id"].startswith("page_")
    assert (page["session_id"], page["url"]) == (sid, "https://example.com/a?q=1#top")
    expected_path = str(inproc.data_dir / "Temporary" / "Captures" / f"{rid}.html")
    assert data == {
        "page": page,
        "capture": {"output_path": expected_path, "bytesize": 4321, "target_http_status": 200},
    }
    assert inproc.fake.names(sid) == ["apply-session-settings", "browser_attach"]
    settings = msgspec.to_builtins(inproc.fake.settings[sid])
    # the built-in Custom profile's identity (tests/agent/test_identity.py); a direct session
    assert settings.pop("identity")["schema_version"] == 1
    assert settings.pop("trust") is None
    assert settings.pop("proxy_id") is None
    assert settings == {
        "profile_id": 1,
        "name": sid,
        "group": None,
        "proxy_port": None,
        "adblock_enabled": True,
        "image_blocking_mode": "none",
        "image_size_limit_kb": 1024,
        "network_paused": False,
    }
    attach = inproc.fake.named("browser_attach", sid)[0].params
    assert isinstance(attach, bp.AttachParams)
    assert (attach.url, attach.navigate, attach.output_path, attach.wait) == (
        page["url"],
        True,
        expected_path,
        0,
    )
    # the settings went once: a second navigation on the page sends only the attach
    again, _ = await post(inproc, "/v1/navigate", {"url": "example.com/b", "wait": 0})
    assert again["page"]["id"] == page["id"]
    assert inproc.fake.names(sid) == ["apply-session-settings", "browser_attach", "browser_attach"]


async def test_engine_error_reaches_the_client_unchanged(inproc: InProcessAgent) -> None:
    sid = await new_session(inproc)
    engine_error = error(
        bp.ErrorId.UPSTREAM_UNAVAILABLE,
        "target answered 404",
        url="https://gone.test/missing",
        target_http_status=404,
    )
    inproc.fake.script["browser_attach"] = lambda p: (0.0, engine_error)
    response = await inproc.request("POST", "/v1/navigate", {"url": "gone.test", "session_id": sid})
    assert response.status == engine_error.http_status
    assert response.json() == {
        "status": "error",
        "request_id": response.headers["x-request-id"],
        "error": msgspec.to_builtins(engine_error),
    }
    assert response.json()["error"]["code"] == bp.ERROR_TABLE[bp.ErrorId.UPSTREAM_UNAVAILABLE].code


async def test_malformed_or_wrong_typed_answers_are_internal_errors(
    inproc: InProcessAgent,
) -> None:
    sid = await new_session(inproc)
    await post(inproc, "/v1/navigate", {"url": "x.test", "session_id": sid, "wait": 0})
    # an answer of another operation's type: a capture without bytesize, an observation without id
    inproc.fake.script["capture"] = lambda p: (0.0, bp.PageAnswer(url="https://x.test/"))
    inproc.fake.script["observe"] = lambda p: (0.0, bp.PageAnswer(title="no id"))
    # the right type with a field of the wrong type (structs do not check types when built)
    inproc.fake.script["screenshot"] = lambda p: (
        0.0,
        bp.ScreenshotAnswer(
            output_path=p.output_path,
            bytesize="big",  # type: ignore[arg-type]
            format=p.format,
            mime_type="image/png",
            width=1,
            height=1,
        ),
    )
    for path in ("/v1/capture", "/v1/observe", "/v1/screenshot"):
        status, error_ = await inproc.error("POST", path, {"session_id": sid})
        assert (status, error_["id"]) == (500, "INTERNAL_ERROR"), path
        # the agent's decoding refused it, not the host failing to build it
        assert error_["message"].startswith("engine bridge sent an invalid answer"), error_
    # each bad answer spoiled only its own request: the bridge still serves
    inproc.fake.reset()
    data, _ = await post(inproc, "/v1/capture", {"session_id": sid})
    assert data["capture"]["bytesize"] == 4321
    assert inproc.services.bridge is not None
    assert inproc.services.bridge.connected


async def test_a_client_that_goes_away_cancels_the_hosts_work(inproc: InProcessAgent) -> None:
    sid = await new_session(inproc)
    inproc.fake.script["capture"] = lambda p: (30.0, bp.Done())
    await inproc.go_away(
        "/v1/capture", {"session_id": sid}, when=lambda: inproc.fake.named("capture", sid)
    )
    await until(lambda: inproc.memory_host.cancels_received == 1, what="the cancellation")
    bridge = inproc.services.bridge
    assert bridge is not None
    assert bridge.cancellations_sent == 1
    # the host answered the cancelled request (REQUEST_CANCELLED), once: nothing stays in flight
    await until(lambda: bridge.in_flight == 0, what="the cancelled request's answer")
    assert inproc.memory_host.endpoint.in_flight == 0
    await until(lambda: inproc.services.scheduler.active_count == 0, what="the slot's release")
    # the session, its queue and the bridge keep working
    inproc.fake.reset()
    data, _ = await post(inproc, "/v1/capture", {"session_id": sid})
    assert data["page"]["session_id"] == sid


async def test_work_past_its_deadline_is_a_timeout_and_cancels_the_host(
    inproc: InProcessAgent,
) -> None:
    sid = await new_session(inproc)
    inproc.fake.script["capture"] = lambda p: (30.0, bp.Done())
    _, error_ = await inproc.error("POST", "/v1/capture", {"session_id": sid, "timeout": 0.2})
    assert error_["id"] == "TIMEOUT"
    await until(lambda: inproc.memory_host.cancels_received == 1, what="the cancellation")


def stored_events(agent_: InProcessAgent, request_id: str) -> tuple[tuple[Any, ...], list[str]]:
    db = sqlite3.connect(f"file:{agent_.services.config.store_path}?mode=ro", uri=True)
    try:
        row = db.execute(
            "SELECT kind, outcome, exit_code FROM requests WHERE id=?", (request_id,)
        ).fetchone()
        events = [
            r[0]
            for r in db.execute(
                "SELECT event FROM events WHERE request_id=? ORDER BY id", (request_id,)
            )
        ]
    finally:
        db.close()
    return tuple(row), events


async def test_captures_stream_reports_events_in_order(inproc: InProcessAgent) -> None:
    output = str(inproc.data_dir / "caps" / "one.html")
    response = await inproc.stream(
        "/v1/captures", {"url": "cap.test/page", "group": "Crawl", "output": output, "wait": 0}
    )
    rid = response.headers["x-request-id"]
    assert response.status == 200
    assert response.headers["content-type"] == "application/x-ndjson"
    lines = response.lines()
    assert {(line["status"], line["request_id"]) for line in lines} == {("ok", rid)}
    events = [line["event"] for line in lines]
    assert events == [
        "capture.started",
        "capture.browser_requested",
        "capture.page_ready",
        "capture.rendered",
        "capture.writing",
        "capture.traffic",
        "capture.completed",
        "capture.finished",
    ]
    data = {line["event"]: line["data"] for line in lines}
    sid = data["capture.started"]["session_id"]
    assert (await inproc.ok("GET", f"/v1/sessions/{sid}"))["session"]["group"] == "Crawl"
    assert data["capture.completed"] == {
        "output_path": output,
        "bytesize": 4321,
        "url": "https://cap.test/page",
        "target_http_status": 200,
        "session_id": sid,
        "capture_id": rid,
        "proxy_traffic": {"proxy_alias": None, "bytes": 1000},
        "outcome": "success",
    }
    assert data["capture.finished"] == {"exit_code": 0}
    assert inproc.fake.names(sid) == ["apply-session-settings", "capture"]
    assert stored_events(inproc, rid) == (("capture", "success", 0), events)

    # a retryable engine error retries, and the stream says so between the attempts
    attempts: list[int] = []

    def flaky(p: Any) -> Any:
        attempts.append(1)
        if len(attempts) == 1:
            return 0.0, error(bp.ErrorId.UPSTREAM_UNAVAILABLE, "proxy hiccup")
        return None

    inproc.fake.script["capture"] = flaky
    response = await inproc.stream(
        "/v1/captures",
        {"url": "cap.test/retry", "session_id": sid, "retry": 2, "retry_delay": 0, "wait": 0},
    )
    lines = response.lines()
    assert [line["event"] for line in lines][:4] == [
        "capture.started",
        "capture.browser_requested",
        "capture.retrying",
        "capture.browser_requested",
    ]
    assert lines[2]["data"]["error"]["id"] == "UPSTREAM_UNAVAILABLE"
    assert lines[-1]["data"] == {"exit_code": 0}


async def test_observe_then_the_retained_observation_then_find(inproc: InProcessAgent) -> None:
    sid = await new_session(inproc)
    await post(inproc, "/v1/navigate", {"url": "obs.test", "session_id": sid, "wait": 0})
    observed, _ = await post(inproc, "/v1/observe", {"mode": "hybrid", "wait": 0})
    observation = observed["observation"]
    assert observed["page"]["session_id"] == sid
    observe = inproc.fake.named("observe", sid)[-1].params
    assert isinstance(observe, bp.Observe)
    assert observe.mode == "hybrid"
    oid = observation["id"]
    assert await inproc.ok("GET", f"/v1/observations/{oid}") == observed

    found = await inproc.ok("POST", f"/v1/observations/{oid}/find", {"query": "go", "limit": 5})
    assert (found["observation_id"], found["page"]["session_id"]) == (oid, sid)
    assert found["elements"] == [{"ref": "e1", "role": "button", "name": "Go"}]
    assert found["total_matches"] == 1
    assert inproc.fake.named("find", sid) == []  # the agent searched its retained copy

    await inproc.ok("DELETE", f"/v1/sessions/{sid}")
    _, gone = await inproc.error("POST", f"/v1/observations/{oid}/find", {"query": "go"})
    assert gone["id"] == "OBSERVATION_STALE"
