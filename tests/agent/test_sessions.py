"""Session routes end to end against the real agent process."""

from __future__ import annotations

from collections.abc import Callable

from .agentproc import AgentProcess


def test_create_get_list_patch_delete(agent: AgentProcess) -> None:
    created = agent.ok("POST", "/v1/sessions", {"group": "  Team A  "})["session"]
    sid = created["id"]
    assert sid.startswith("Session")
    assert created["name"] == sid
    assert created["group"] == "Team A"
    assert created["profile"] == "Custom"
    assert created["adblock_enabled"] is True
    assert created["image_blocking_mode"] == "none"
    assert created["lifetime"] == {"type": "inactivity", "timeout_seconds": 120}
    assert agent.ok("GET", f"/v1/sessions/{sid}")["session"] == created
    assert created in agent.ok("GET", "/v1/sessions")["sessions"]
    patched = agent.ok(
        "PATCH", f"/v1/sessions/{sid}", {"name": "Renamed", "adblock_enabled": False}
    )
    assert patched["session"]["name"] == "Renamed"
    assert patched["session"]["adblock_enabled"] is False
    assert agent.ok("DELETE", f"/v1/sessions/{sid}") == {"deleted_id": sid}
    status, error = agent.error("GET", f"/v1/sessions/{sid}")
    assert (status, error["id"], error["details"]) == (404, "SESSION_NOT_FOUND", {"id": sid})


def test_ids_are_never_reused(agent: AgentProcess) -> None:
    first = agent.ok("POST", "/v1/sessions")["session"]["id"]
    agent.ok("DELETE", f"/v1/sessions/{first}")
    second = agent.ok("POST", "/v1/sessions")["session"]["id"]
    assert int(second.removeprefix("Session")) > int(first.removeprefix("Session"))


def test_names_are_unique_case_insensitively(agent: AgentProcess) -> None:
    agent.ok("POST", "/v1/sessions", {"name": "Shop Bot"})
    status, error = agent.error("POST", "/v1/sessions", {"name": "shop bot"})
    assert (status, error["id"]) == (409, "CONFLICT")


def test_unknown_and_non_canonical_ids_never_create_a_session(agent: AgentProcess) -> None:
    before = len(agent.ok("GET", "/v1/sessions")["sessions"])
    for raw in ("Session999999", "session1", "1", "Session01", "Session1x"):
        for method, path in (
            ("GET", f"/v1/sessions/{raw}"),
            ("POST", f"/v1/sessions/{raw}/ping"),
            ("PATCH", f"/v1/sessions/{raw}"),
            ("DELETE", f"/v1/sessions/{raw}"),
        ):
            status, error = agent.error(method, path, {} if method == "PATCH" else None)
            assert (status, error["id"], error["details"]["id"]) == (404, "SESSION_NOT_FOUND", raw)
    assert len(agent.ok("GET", "/v1/sessions")["sessions"]) == before


def test_close_by_group_is_trimmed_and_case_insensitive(agent: AgentProcess) -> None:
    a = agent.ok("POST", "/v1/sessions", {"group": "Crawl-7"})["session"]["id"]
    b = agent.ok("POST", "/v1/sessions", {"group": "crawl-7"})["session"]["id"]
    other = agent.ok("POST", "/v1/sessions", {"group": "other"})["session"]["id"]
    closed = agent.ok("POST", "/v1/sessions/close", {"group": "  CRAWL-7 "})
    assert closed == {"group": "CRAWL-7", "deleted_ids": [a, b]}
    assert agent.ok("POST", "/v1/sessions/close", {"group": "   "}) == {
        "group": "",
        "deleted_ids": [],
    }
    agent.ok("GET", f"/v1/sessions/{other}")


def test_group_validation(agent: AgentProcess) -> None:
    for bad in ("x" * 129, "a\x07b"):
        status, error = agent.error("POST", "/v1/sessions", {"group": bad})
        assert (status, error["id"], error["details"]["field"]) == (
            422,
            "VALIDATION_FAILED",
            "group",
        )


def test_free_plan_allows_one_session(make_agent: Callable[..., AgentProcess]) -> None:
    free = make_agent(env={"SVC_PLAN": "free"})
    free.ok("POST", "/v1/sessions")
    status, error = free.error("POST", "/v1/sessions")
    assert status == 403
    assert error["id"] == "PRO_REQUIRED"
    assert error["details"] == {"feature": "additional_sessions", "plan": "free"}


def test_session_names_are_bounded_like_groups(agent: AgentProcess) -> None:
    """Issue 12: a 16 MiB name was accepted and carried by every session list."""
    for bad in ("x" * 129, "a\x01b", "tab\there", "x" * 16 * 1024 * 1024):
        r = agent.request("POST", "/v1/sessions", {"name": bad})
        assert r.json()["error"]["id"] in ("VALIDATION_FAILED", "PAYLOAD_TOO_LARGE")
        if len(bad) < 1000:
            assert r.json()["error"]["details"]["field"] == "name"
    sid = agent.ok("POST", "/v1/sessions", {"name": "é" * 128})["session"]["id"]
    r = agent.request("PATCH", f"/v1/sessions/{sid}", {"name": "y" * 129})
    assert r.json()["error"]["details"]["field"] == "name"
    assert agent.ok("GET", f"/v1/sessions/{sid}")["session"]["name"] == "é" * 128
