"""The app chooses the agent's plan: SVC_PLAN in the app's launch environment wins, else the
app setting, else Free."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .hostproc import HostApp

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
