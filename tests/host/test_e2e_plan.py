"""The app chooses the agent's plan: SVC_PLAN in the app's launch environment wins, else the
app setting, else Free."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..agent.agentproc import AgentProcess
from .hostproc import HostApp
from .site import Site

pytestmark = pytest.mark.e2e


def _second_session_status(data_dir: Path, env_plan: str, setting: str) -> int:
    settings = json.dumps({"plan": setting})
    app = HostApp(data_dir, env={"SVC_PLAN": env_plan, "_SETTINGS": settings}).start()
    try:
        assert app.client.post("/v1/sessions", json={}).status_code == 200
        second = app.client.post("/v1/sessions", json={})
        if second.status_code == 403:
            assert second.json()["error"]["details"] == {
                "feature": "additional_sessions",
                "plan": "free",
            }
        return second.status_code
    finally:
        app.stop()


def test_the_app_setting_chooses_the_plan_when_the_environment_does_not(tmp_path: Path) -> None:
    assert _second_session_status(tmp_path / "pro", "", "pro") == 200


def test_the_environment_wins_over_the_app_setting(tmp_path: Path) -> None:
    assert _second_session_status(tmp_path / "free", "free", "pro") == 403


def test_a_proxy_kept_from_pro_is_pro_required_on_free(tmp_path: Path, site: Site) -> None:
    """A session given a proxy under Pro keeps it when the app moves to Free. Its browser work
    would use the proxy, which Free does not include (spec 1 §7 rule 1): every operation on it
    is PRO_REQUIRED (before, the navigation failed with the listener's 502 as
    UPSTREAM_UNAVAILABLE). Detaching the proxy, which Free allows, makes the session work."""
    data_dir = tmp_path / "moved"
    # the Pro side only writes the store: a real agent with a scripted host is enough
    pro = AgentProcess(data_dir).start()
    try:
        upstream = {"upstream_host": "127.0.0.1", "upstream_port": 9}
        pro.ok("POST", "/v1/proxies", {"alias": "kept", **upstream})
        body = {"proxy_alias": "kept", "lifetime": {"type": "indefinite"}}
        sid = str(pro.ok("POST", "/v1/sessions", body)["session"]["id"])
    finally:
        pro.stop()

    app = HostApp(data_dir, env={"SVC_PLAN": "free"}).start()
    try:
        url = site.url("/table")
        refused: list[tuple[str, dict[str, object]]] = [
            ("/v1/navigate", {"url": url, "session_id": sid, "wait": 0}),
            ("/v1/navigate/observe", {"url": url, "session_id": sid, "wait": 0}),
            # the capture stream's preflight: an ordinary error, no stream
            ("/v1/captures", {"url": url, "session_id": sid, "wait": 0}),
            ("/v1/pages", {"url": url, "session_id": sid}),
            ("/v1/capture", {"session_id": sid}),
            ("/v1/screenshot", {"session_id": sid}),
            ("/v1/observe", {"session_id": sid}),
        ]
        for path, request in refused:
            status, error = app.error("POST", path, request)
            assert (status, error["id"], error["code"]) == (403, "PRO_REQUIRED", 10208), path
            assert error["details"] == {"feature": "proxies", "plan": "free"}, path
            assert "'kept'" in error["message"], path
            assert "proxy_alias" in error["message"], path

        detached = app.ok("PATCH", f"/v1/sessions/{sid}", {"proxy_alias": None})
        assert detached["session"]["proxy_alias"] is None
        data = app.ok("POST", "/v1/navigate", {"url": url, "session_id": sid, "wait": 0})
        assert data["capture"]["target_http_status"] == 200
    finally:
        app.stop()
