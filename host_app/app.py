"""`svc-app`: the QApplication, the engine, the supervisor and (unless headless) the UI."""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .collector import MainThreadCollector
from .config import ConfigError, HostConfig
from .logic import instance
from .logic.logfile import HostLog
from .logic.policy import engine_flags
from .logic.settings import SettingsStore

if TYPE_CHECKING:
    from .engine.runtime import Engine
    from .instance_server import InstanceServer
    from .qt import QFileSystemWatcher as Watcher
    from .supervisor import Supervisor
    from .ui.main_ui import MainUI


def _prepare_env(config: HostConfig) -> dict[str, str]:
    """Set the process environment Qt needs; returns the environment for the agent child."""
    child_env = dict(os.environ)
    if config.headless:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    flags = os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "")
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "--no-sandbox" not in flags:
        flags = f"{flags} --no-sandbox".strip()
    if config.headless and "--disable-gpu" not in flags:
        flags = f"{flags} --disable-gpu".strip()
    os.environ["QTWEBENGINE_CHROMIUM_FLAGS"] = engine_flags(flags)
    from .engine.runtime import prepare_storage

    os.environ["XDG_DATA_HOME"] = str(prepare_storage(config.data_dir))
    return child_env


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def _follow_settings_file(
    config: HostConfig, store: SettingsStore, engine: Engine, log: HostLog
) -> Watcher:
    # The settings file is the app-level way to change app settings without the window (scripts,
    # tests, a second editor): a change on disk applies at once, as a Save in the window does.
    # The folder is watched, not the file: a save replaces the file, which a file watch loses.
    from .qt import QFileSystemWatcher

    watcher = QFileSystemWatcher([str(config.data_dir)])
    stamp = [_stamp(config.settings_path)]

    def settings_file_changed(_: str) -> None:
        now = _stamp(config.settings_path)
        if now == stamp[0]:
            return
        stamp[0] = now
        fresh = store.load(plan_override=os.environ.get("SVC_PLAN"))
        if fresh != engine.settings:
            engine.apply_app_settings(fresh)
            log.write("host.settings_reloaded", "app settings reloaded from the settings file")

    watcher.directoryChanged.connect(settings_file_changed)
    return watcher


CRASH_FILE = "host-crash.txt"


def _crash_report(logs_dir: Path, log: HostLog) -> Callable[[], None]:
    """A native crash (the engine's code runs in this process) kills it without a word: Python's
    fault handler writes the stacks of every thread to `Logs/host-crash.txt` first, and the next
    start moves that report into the global log (`host.crashed`, an error). Returns what ends
    the handler at a normal exit."""
    path = logs_dir / CRASH_FILE
    try:
        left = path.read_text("utf-8", "replace").strip()
    except OSError:
        left = ""
    if left:
        log.write(
            "host.crashed",
            "the previous svc-app run ended with a fatal error; its threads' stacks follow",
            level="error",
            data={"report": left[-16000:]},
        )
    try:
        out = path.open("w", encoding="utf-8")
    except OSError:
        return lambda: None
    faulthandler.enable(file=out, all_threads=True)

    def end() -> None:
        faulthandler.disable()
        out.close()

    return end


def _quit_on_signals(quit_app: Callable[[], None]) -> Any:
    """SIGTERM and SIGINT quit the app from its event loop; returns the timer that must live as
    long as the app: Python runs signal handlers only between bytecodes, and the timer lets it
    in regularly."""
    from .qt import QTimer

    signal.signal(signal.SIGTERM, lambda *_: QTimer.singleShot(0, quit_app))
    signal.signal(signal.SIGINT, lambda *_: QTimer.singleShot(0, quit_app))
    ticker = QTimer()
    ticker.timeout.connect(lambda: None)
    ticker.start(200)
    return ticker


def _log_uncaught(log: HostLog) -> None:
    """An exception that escapes our code called by Qt (a reimplemented virtual, a slot) made
    PyQt end the whole app (`qFatal`: abort) with every session in it, as one did at exit
    (a request the engine sent after the asset pool had shut down). With an excepthook of its
    own PyQt calls that instead: the exception is written to stderr and to the global log
    (`host.exception`, an error) and the app goes on; the call that raised gets Qt's default
    answer."""

    def hook(kind: type[BaseException], value: BaseException, tb: Any) -> None:
        text = "".join(traceback.format_exception(kind, value, tb))
        sys.stderr.write(text)
        log.write(
            "host.exception",
            f"an error in svc-app's code was caught, the app goes on: {value!r}",
            level="error",
            data={"traceback": text[-16000:]},
        )

    sys.excepthook = hook


def _already_running(config: HostConfig, taken: instance.Taken) -> int:
    """A later launch on a data folder an app holds: it starts nothing and touches nothing of
    the running app but its window (docs/decisions.md "One app per data folder")."""
    pid = taken.pid
    end = time.monotonic() + 1.0
    while not pid and time.monotonic() < end:  # the holder writes its pid just after locking
        time.sleep(0.05)
        pid = instance.holder_pid(config.data_dir / instance.LOCK_NAME)
    running = f"svc-app is already running on {config.data_dir} (pid {pid or 'unknown'})"
    if config.headless:
        print(f"{running}; not starting another", file=sys.stderr)
        return instance.EXIT_ALREADY_RUNNING
    answer = instance.ask_to_show(config.data_dir)
    if answer == instance.SHOWN:
        print(f"{running}; its browser window is shown", file=sys.stderr)
        return 0
    if answer == instance.HEADLESS:
        print(f"{running} headless: it has no window to show", file=sys.stderr)
    else:
        print(f"{running} and did not answer the request to show its window", file=sys.stderr)
    return instance.EXIT_ALREADY_RUNNING


def _answer_later_launches(
    config: HostConfig, show: Callable[[], None] | None, log: HostLog
) -> InstanceServer:
    from .instance_server import InstanceServer

    server = InstanceServer(instance.socket_path(config.data_dir), show)
    if not server.listening:
        log.write(
            "host.instance_socket",
            "a later launch cannot ask this app for its window: its local socket does not listen",
            level="warning",
        )
    return server


def _windows(
    config: HostConfig,
    engine: Engine,
    supervisor: Supervisor,
    store: SettingsStore,
    *,
    quit_app: Callable[[], None],
    user_env: dict[str, str],
) -> MainUI:
    """The windows: they see the engine through its window port, get the agent's port and the
    logs folder as values, and hear the agent's state from the supervisor."""
    from .engine.window_adapter import WindowAdapter
    from .ui.main_ui import MainUI

    ui = MainUI(
        WindowAdapter(engine),
        store,
        quit_app,
        port=config.port,
        logs_dir=config.logs_dir,
        user_env=user_env,
    )
    supervisor.on_state.append(ui.agent_state)
    return ui


def run(*, headless: bool) -> int:
    try:
        config = HostConfig.from_env(headless=headless)
    except ConfigError as exc:
        print(f"svc-app: configuration error: {exc}", file=sys.stderr)
        return 2
    config.data_dir.mkdir(parents=True, exist_ok=True)
    held = instance.acquire(config.data_dir)
    if isinstance(held, instance.Taken):
        return _already_running(config, held)
    return _run(config)  # the lock is held until the process ends


def _run(config: HostConfig) -> int:
    log = HostLog(config.logs_dir)
    end_crash_report = _crash_report(config.logs_dir, log)
    _log_uncaught(log)
    child_env = _prepare_env(config)
    store = SettingsStore(config.settings_path)
    settings = store.load(plan_override=os.environ.get("SVC_PLAN"))
    # The app chooses the agent's plan: SVC_PLAN in our environment wins, else the setting.
    child_env["SVC_PLAN"] = settings.plan

    from .engine.asset_scheme import register_schemes
    from .engine.filters import FilterService
    from .engine.runtime import Engine, engine_application_name
    from .logic.adblock import ENV_MIRROR, FilterStore, list_urls
    from .qt import QApplication
    from .supervisor import Supervisor

    engine_application_name()
    register_schemes()
    app = QApplication([sys.argv[0] or "svc-app"])
    app.setQuitOnLastWindowClosed(False)
    # before any thread of ours starts (filter lists, asset fetches)
    collector = MainThreadCollector()
    engine = Engine(config.data_dir, settings, headless=config.headless, log=log)
    supervisor = Supervisor(config, engine.handle, log, child_env)
    filter_service = FilterService(
        engine.filters,
        FilterStore(config.data_dir / "Filters"),
        list_urls(os.environ.get(ENV_MIRROR)),
        log,
    )
    filter_service.start()
    watcher = _follow_settings_file(config, store, engine, log)
    log.write(
        "host.started",
        "svc-app started" + (" headless" if config.headless else ""),
        data={"pid": os.getpid(), "port": config.port},
    )

    quitting = [False]
    closing: list[Callable[[], None]] = []  # the windows' own ends (the terminals' shells)

    def quit_app(*_: Any) -> None:
        if quitting[0]:
            return
        quitting[0] = True
        filter_service.stop()
        for close in closing:
            close()
        supervisor.stop()
        engine.shutdown()
        log.write("host.stopped", "svc-app stopped")
        app.exit(0)

    ticker = _quit_on_signals(quit_app)

    ui = None
    if not config.headless:
        ui = _windows(
            config, engine, supervisor, store, quit_app=quit_app, user_env=dict(child_env)
        )
        closing.append(ui.close)
        ui.start()
    server = _answer_later_launches(config, None if ui is None else ui.show_browser, log)
    closing.append(server.close)
    supervisor.start()
    code = app.exec()
    if not quitting[0]:
        quit_app()
    del ui, server, watcher, ticker, collector  # the collector stays off: the process ends
    end_crash_report()
    return code
