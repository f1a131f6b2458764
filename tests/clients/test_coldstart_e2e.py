"""Cold start: ten `svc` processes started at once against a stopped agent launch one app."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from ..ports import listener_base
from .conftest import SVC, client_env, free_port, kill_all, svc_app_processes

pytestmark = pytest.mark.e2e


def test_ten_concurrent_invocations_launch_one_app(tmp_path: Path) -> None:
    port = free_port()
    data_dir = tmp_path / "data"
    env = client_env(
        port,
        SVC_DATA_DIR=str(data_dir),
        SVC_BROWSER_PROXY_PORT=str(listener_base()),
        SVC_PLAN="pro",
        XDG_RUNTIME_DIR=str(tmp_path / "run"),
        QT_QPA_PLATFORM="offscreen",
        QTWEBENGINE_CHROMIUM_FLAGS="--no-sandbox --disable-gpu",
    )
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    (tmp_path / "run").mkdir()
    procs = [
        subprocess.Popen(
            [SVC, "session", "list"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(10)
    ]
    try:
        results = [p.communicate(timeout=120) for p in procs]
        for p, (out, err) in zip(procs, results, strict=True):
            assert p.returncode == 0, err
            assert json.loads(out) == {"sessions": []}
        hosts = [
            pid
            for pid in svc_app_processes(data_dir)
            if not Path(f"/proc/{pid}/cmdline").read_bytes().endswith(b"--agent\0")
        ]
        assert len(hosts) == 1, hosts
        status = httpx.get(f"http://127.0.0.1:{port}/v1/status", trust_env=False).json()["data"]
        app_check = next(c for c in status["checks"] if c["id"] == "svc_app")
        assert app_check["pids"] == hosts
        # A warm call does not launch anything more.
        warm = subprocess.run(
            [SVC, "session", "list"], check=False, env=env, capture_output=True, timeout=30
        )
        assert warm.returncode == 0
        assert len(svc_app_processes(data_dir)) == 2  # the app and its agent
    finally:
        pids = svc_app_processes(data_dir)
        kill_all(pids)
        deadline = time.monotonic() + 10
        while svc_app_processes(data_dir) and time.monotonic() < deadline:
            time.sleep(0.05)
    assert svc_app_processes(data_dir) == []
