"""The harness of the tests that drive an in-process `host_app.engine.runtime.Engine` in a child process.

Some engine behaviour has no bridge command yet (or a test needs the engine's own objects), so a
test module runs itself with `python -m` as a child: QtWebEngine must be imported before the
QApplication exists, which a pytest process that made one already cannot do. The parent half
(`run_child`, `child_result`) starts that child and reads the JSON it prints last; the child half
starts the app and engine as svc-app does and gives the async helpers a scenario needs.

Nothing here imports Qt at module level: the parent imports this module too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bridge_protocol.identity import FingerprintProfile, ProxyTrust
    from host_app.engine.runtime import Engine
    from host_app.engine.session_browser import SessionBrowser
    from host_app.logic.settings import AppSettings
    from host_app.qt import QApplication

# the checkout's root: the child runs `-m tests.host.<module>` from there
ROOT = Path(__file__).resolve().parents[2]

# --- the parent ----------------------------------------------------------------------------------


def run_child(
    module: str, *args: str, timeout: float, flags: str | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run `python -m module args...` offscreen, its output captured. `flags` replace the
    Chromium flags; without them the caller's are kept, or the sandbox and GPU are turned off
    (neither works in a container)."""
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        check=False,
        timeout=timeout,
        env=child_env(flags),
        cwd=ROOT,
        capture_output=True,
    )


def child_env(flags: str | None = None) -> dict[str, str]:
    """The child's environment: offscreen; `flags` replace the Chromium flags, else the
    caller's are kept, or the sandbox and GPU are turned off (neither works in a container)."""
    # a crash of the engine in the child prints every thread's stack
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONFAULTHANDLER="1")
    if flags is None:
        env.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox --disable-gpu")
    else:
        env["QTWEBENGINE_CHROMIUM_FLAGS"] = flags
    return env


def child_result(
    proc: subprocess.CompletedProcess[bytes], stderr_file: Path | None = None
) -> dict[str, Any]:
    """The JSON object on the child's last line, once it exited cleanly. `stderr_file` keeps the
    engine's whole stderr for a failure's post-mortem (the assertion shows only its tail)."""
    if stderr_file is not None:
        stderr_file.write_bytes(proc.stderr)
    assert proc.returncode == 0, (
        f"the child exited {proc.returncode}; stdout ends {proc.stdout.decode()[-300:]!r}; "
        f"stderr ends {proc.stderr.decode()[-4000:]}"
    )
    out: dict[str, Any] = json.loads(proc.stdout.decode().strip().splitlines()[-1])
    return out


# --- the child -----------------------------------------------------------------------------------


def start_engine(
    data_dir: Path,
    app_name: str,
    *,
    settings: AppSettings | None = None,
    headless: bool = True,
    schemes: bool = False,
) -> tuple[QApplication, Engine]:
    """The QApplication and Engine as svc-app makes them, storing in `data_dir`. `settings`:
    the app settings, else those saved in data_dir (the defaults on a first start); `schemes`:
    register the app's URL schemes, which must happen before the QApplication exists."""
    from host_app.engine.runtime import Engine, engine_application_name, prepare_storage
    from host_app.logic.logfile import HostLog
    from host_app.logic.settings import SettingsStore
    from host_app.qt import QApplication

    # QtWebEngine reads the profiles' default folder from here (DESIGN.md, user_prefs.json)
    os.environ["XDG_DATA_HOME"] = str(prepare_storage(data_dir))
    engine_application_name()
    if schemes:
        from host_app.engine.asset_scheme import register_schemes

        register_schemes()
    app = QApplication([app_name])
    if settings is None:
        settings = SettingsStore(data_dir / "app-settings.json").load()
    engine = Engine(data_dir, settings, headless=headless, log=HostLog(data_dir / "Logs"))
    return app, engine


def configure(
    engine: Engine,
    n: int,
    *,
    proxy_port: int | None = None,
    identity: FingerprintProfile | None = None,
    trust: ProxyTrust | None = None,
) -> str:
    """Apply settings to session `Session<n>` (profile n), as the bridge would; its id."""
    import bridge_protocol as bp

    sid = f"Session{n}"
    engine.apply_session_settings(
        sid,
        bp.SessionSettings(
            profile_id=n, name=sid, proxy_port=proxy_port, identity=identity, trust=trust
        ),
    )
    return sid


async def load(engine: Engine, b: SessionBrowser, url: str, settle: float = 0.0) -> bool:
    """Load url in b: whether it finished well within 15 s (False when it did not finish).
    `settle`: seconds to wait after, for what the page does once loaded."""
    from host_app.logic import aio

    assert b.page is not None
    done: aio.Future[bool] = aio.Future()

    def finished(ok: bool) -> None:
        # a redirect or a script's navigation may finish more than once
        if not done.done():
            done.set_result(ok)

    b.page.loadFinished.connect(finished)
    b.load(url)
    ok = await aio.within(engine.loop, done, 15.0, False)
    if settle:
        await aio.sleep(engine.loop, settle)
    return ok


async def until(
    engine: Engine, cond: Callable[[], object], seconds: float = 10.0, poll: float = 0.1
) -> bool:
    """Poll cond on the engine's loop (most states have no signal); whether it came true."""
    from host_app.logic import aio

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        await aio.sleep(engine.loop, poll)
    return bool(cond())


def log_data(data_dir: Path, n: int, category: str) -> list[dict[str, Any]]:
    """The data of session n's log records of one category, oldest first."""
    log = data_dir / "Logs" / "sessions" / f"{n}.ndjson"
    if not log.exists():
        return []
    records = [json.loads(line) for line in log.read_text().splitlines()]
    return [r["data"] for r in records if r["category"] == category]


def scenario_result(
    app: QApplication,
    engine: Engine,
    scenario: Coroutine[Any, Any, None],
    out: dict[str, Any],
    limit_ms: int = 100_000,
) -> dict[str, Any]:
    """Run scenario (`run_scenario`), shut the engine down, and return `out` with the
    exception the scenario raised, if any, as `out["error"]` (for `child_result`'s reader)."""
    exc = run_scenario(app, scenario, limit_ms)
    engine.shutdown()
    if exc is not None:
        out["error"] = repr(exc)
    return out


def run_scenario(
    app: QApplication, scenario: Coroutine[Any, Any, None], limit_ms: int | None = None
) -> BaseException | None:
    """Run scenario on the engine's loop in app.exec(), quitting when it ends (or after
    limit_ms); the exception it raised. The caller shuts the engine down after."""
    from host_app.logic import aio
    from host_app.qt import QTimer

    task = aio.Task(scenario, lambda _: app.quit())
    # started from the event loop, so that all of it runs inside app.exec()
    QTimer.singleShot(0, task.start)
    if limit_ms is not None:
        QTimer.singleShot(limit_ms, app.quit)
    app.exec()
    return task.exception
