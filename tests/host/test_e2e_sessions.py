"""Sessions in the engine: storage folders, proxy preference, pause and play, close, concurrency
and cancellation."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from .hostproc import HostApp
from .site import Site

pytestmark = pytest.mark.e2e


def test_lazy_profile_in_its_own_folder_with_direct_proxy(
    host: HostApp, site: Site, session: str
) -> None:
    n = int(session.removeprefix("Session"))
    folder = host.data_dir / "Browser" / f"Tab-{n}"
    assert not folder.exists()  # activation is lazy
    host.ok(
        "POST", "/v1/navigate", {"url": site.url("/set-cookie"), "session_id": session, "wait": 0}
    )
    prefs = json.loads((folder / "user_prefs.json").read_text())
    assert prefs["proxy"] == {"mode": "direct"}
    assert (folder / "Cache").is_dir()
    deadline = time.monotonic() + 10
    while not (folder / "Cookies").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert (folder / "Cookies").exists()


def test_sessions_are_isolated(host: HostApp, site: Site, session: str) -> None:
    other = host.new_session()
    try:
        host.ok(
            "POST",
            "/v1/navigate",
            {"url": site.url("/set-cookie"), "session_id": session, "wait": 0},
        )
        mine = host.ok(
            "POST",
            "/v1/navigate",
            {"url": site.url("/show-cookie"), "session_id": session, "wait": 0},
        )
        theirs = host.ok(
            "POST",
            "/v1/navigate",
            {"url": site.url("/show-cookie"), "session_id": other, "wait": 0},
        )
        assert "svc_test=kept" in Path(mine["capture"]["output_path"]).read_text()
        assert "svc_test" not in Path(theirs["capture"]["output_path"]).read_text()
    finally:
        host.client.delete(f"/v1/sessions/{other}")


def test_delete_session_drops_browser_data(host: HostApp, site: Site) -> None:
    sid = host.new_session()
    host.ok("POST", "/v1/navigate", {"url": site.url("/"), "session_id": sid, "wait": 0})
    folder = host.data_dir / "Browser" / f"Tab-{sid.removeprefix('Session')}"
    assert folder.is_dir()
    host.ok("DELETE", f"/v1/sessions/{sid}")
    deadline = time.monotonic() + 10
    while folder.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not folder.exists()


def test_pause_blocks_network_and_play_resumes(host: HostApp, site: Site, session: str) -> None:
    host.ok("POST", "/v1/navigate", {"url": site.url("/table"), "session_id": session, "wait": 0})
    assert host.ok("POST", f"/v1/sessions/{session}/pause")["network_paused"] is True
    assert host.ok("POST", f"/v1/sessions/{session}/pause")["network_paused"] is True
    _, error = host.error("POST", "/v1/navigate", {"url": site.url("/"), "session_id": session})
    assert error["id"] == "NETWORK_PAUSED"
    # the live document is still there and readable
    data = host.ok("POST", "/v1/capture", {"session_id": session, "wait": 0})
    assert data["page"]["url"] == site.url("/table")
    assert host.ok("POST", f"/v1/sessions/{session}/play")["network_paused"] is False
    data = host.ok("POST", "/v1/navigate", {"url": site.url("/"), "session_id": session, "wait": 0})
    assert data["capture"]["target_http_status"] == 200


def test_pause_during_navigation_restores_previous_page(
    host: HostApp, site: Site, session: str
) -> None:
    host.ok("POST", "/v1/navigate", {"url": site.url("/table"), "session_id": session, "wait": 0})
    result: dict[str, Any] = {}

    def slow() -> None:
        r = host.client.post(
            "/v1/navigate", json={"url": site.url("/slow?s=3"), "session_id": session}
        )
        result["r"] = r.json()

    t = threading.Thread(target=slow)
    t.start()
    time.sleep(0.7)
    host.ok("POST", f"/v1/sessions/{session}/pause")
    t.join(10)
    assert result["r"]["status"] == "error"
    data = host.ok("POST", "/v1/capture", {"session_id": session, "wait": 0})
    assert data["page"]["url"] == site.url("/table")
    host.ok("POST", f"/v1/sessions/{session}/play")


def test_closing_the_connection_cancels_within_a_second(
    host: HostApp, site: Site, session: str
) -> None:
    host.ok("POST", "/v1/navigate", {"url": site.url("/"), "session_id": session, "wait": 0})
    with httpx.Client(base_url=str(host.client.base_url), timeout=0.5, trust_env=False) as c:
        with pytest.raises(httpx.ReadTimeout):
            c.post("/v1/navigate", json={"url": site.url("/slow?s=6"), "session_id": session})
        with pytest.raises(httpx.ReadTimeout):
            c.post(
                "/v1/perform",
                json={
                    "session_id": session,
                    "actions": [{"action": "wait-for", "selector": "#never"}],
                },
            )
    t0 = time.monotonic()
    data = host.ok(
        "POST", "/v1/navigate", {"url": site.url("/table"), "session_id": session, "wait": 0}
    )
    assert data["page"]["url"] == site.url("/table")
    assert time.monotonic() - t0 < 2.5


def test_eight_sessions_capture_at_once(host: HostApp, site: Site) -> None:
    sessions = [host.new_session() for _ in range(8)]
    results: list[Any] = [None] * 8

    def run(i: int) -> None:
        with httpx.Client(base_url=str(host.client.base_url), timeout=60, trust_env=False) as c:
            r = c.post(
                "/v1/navigate",
                json={"url": site.url("/table"), "session_id": sessions[i], "wait": 0.2},
            )
            results[i] = r.json()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert all(r is not None and r["status"] == "ok" for r in results), results
        assert {r["data"]["page"]["session_id"] for r in results} == set(sessions)
    finally:
        for sid in sessions:
            host.client.delete(f"/v1/sessions/{sid}")


def test_notifications_off_by_default(host: HostApp, site: Site, session: str) -> None:
    host.ok(
        "POST", "/v1/navigate", {"url": site.url("/notify"), "session_id": session, "wait": 0.5}
    )
    assert host.ok("GET", "/v1/notifications")["notifications"] == []
