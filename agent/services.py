"""Builds the agent's services bottom-up and wires them together (the one place that knows them
all). Each room receives the services it uses; nothing looks another up by name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from bridge_protocol.session_ids import session_number
from proxy import Diagnostics, ProxyListeners

from . import build_info
from .bridge_client import BridgeClient
from .browser import Browser
from .capture_stream import CaptureJob
from .config import AgentConfig
from .context import AgentProcess
from .engine_client import EngineClient
from .health_responses import Build
from .identity import SessionIdentity
from .logs import LogWriter
from .notification_log import NotificationLog
from .pages import PageRegistry
from .profiles import Profiles
from .proxies import Proxies
from .scheduler import Scheduler
from .sessions import Sessions
from .store import Store
from .worker import ControlWorker, WorkerState


@dataclass(frozen=True)
class Services:
    config: AgentConfig
    process: AgentProcess
    store: Store
    logs: LogWriter
    scheduler: Scheduler
    bridge: BridgeClient | None
    worker: ControlWorker
    profiles: Profiles
    proxies: Proxies
    sessions: Sessions
    proxy_listeners: ProxyListeners
    identity: SessionIdentity
    engine: EngineClient
    browser: Browser
    captures: CaptureJob
    notifications: NotificationLog


def build_services(
    config: AgentConfig,
    store: Store,
    logs: LogWriter,
    scheduler: Scheduler,
    bridge: BridgeClient | None,
) -> Services:
    build = build_info.load()
    process = AgentProcess(build=None if build is None else msgspec.convert(build, Build))
    worker = ControlWorker(
        WorkerState(deadline_seconds=config.worker_deadline, awaiting_engine=bridge is not None)
    )
    profiles = Profiles(store, config)
    proxies = Proxies(store, config)
    sessions = Sessions(store, logs, config, profiles.resolve_template, proxies)

    def proxy_log(
        category: str, level: str, message: str, session: int | None, data: dict[str, Any]
    ) -> None:
        logs.write(category, message, level=level, profile_id=session, data=data or None)

    diagnostics = Diagnostics()
    listeners = ProxyListeners(
        config.proxy_base_port,
        lookup=lambda number: proxies.upstream(sessions.find(number)),
        proxied=sessions.proxied_numbers,
        diagnostics=diagnostics,
        log=proxy_log,
    )
    identity = SessionIdentity(store, config, logs, profiles, proxies)
    engine = EngineClient(
        bridge,
        config.proxy_base_port,
        identity=identity,
        read_session=sessions.find,
        logs=logs,
        # an exit lookup, then the host's answer
        push_timeout=config.geolocation_timeout + 5.0,
        routes_ready=listeners.settled,
    )
    pages = PageRegistry()
    browser = Browser(
        config=config,
        logs=logs,
        scheduler=scheduler,
        worker=worker,
        sessions=sessions,
        diagnostics=diagnostics,
        engine=engine,
        pages=pages,
    )
    captures = CaptureJob(
        config=config,
        process=process,
        store=store,
        logs=logs,
        engine=engine,
        pages=pages,
        browser=browser,
    )
    notifications = NotificationLog(engine.notifications, since=process.started_at)

    async def session_closed(session_id: str) -> None:
        scheduler.close_session(session_id)
        await browser.session_closed(session_id)

    sessions.hooks.on_closed.append(session_closed)
    sessions.hooks.on_proxy_changed.append(proxies.session_assigned)

    def proxy_changed(session_id: str, alias: str | None) -> None:
        number = session_number(session_id)
        if number is not None:
            listeners.cut([number])  # open tunnels keep the old upstream otherwise
        listeners.changed()

    sessions.hooks.on_proxy_changed.append(proxy_changed)
    sessions.hooks.busy = lambda sid: scheduler.has_work(sid) or engine.has_work(sid)
    return Services(
        config=config,
        process=process,
        store=store,
        logs=logs,
        scheduler=scheduler,
        bridge=bridge,
        worker=worker,
        profiles=profiles,
        proxies=proxies,
        sessions=sessions,
        proxy_listeners=listeners,
        identity=identity,
        engine=engine,
        browser=browser,
        captures=captures,
        notifications=notifications,
    )
