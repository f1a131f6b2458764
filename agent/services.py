"""Builds the agent's services and wires them together (the one place that knows them all)."""

from __future__ import annotations

from typing import Any

from proxy import Diagnostics, ProxyListeners

from .bridge_client import BridgeClient
from .browser import Browser
from .config import AgentConfig
from .context import AgentContext
from .logs import LogWriter
from .profiles import Profiles
from .proxies import Proxies
from .scheduler import Scheduler
from .sessions import Sessions
from .store import Store
from .worker import ControlWorker


def build_services(
    config: AgentConfig,
    store: Store,
    logs: LogWriter,
    scheduler: Scheduler,
    bridge: BridgeClient | None,
) -> AgentContext:
    profiles = Profiles(store, config)
    proxies = Proxies(store, config)
    sessions = Sessions(store, logs, config, profiles.resolve_template, proxies.check_assignable)
    ctx = AgentContext(
        config=config,
        store=store,
        logs=logs,
        scheduler=scheduler,
        sessions=sessions,
        bridge=bridge,
    )
    ctx.worker.deadline_seconds = config.worker_deadline
    worker = ControlWorker(ctx.worker)
    browser = Browser(ctx)

    def proxy_log(
        category: str, level: str, message: str, session: int | None, data: dict[str, Any]
    ) -> None:
        logs.write(category, message, level=level, profile_id=session, data=data or None)

    listeners = ProxyListeners(
        config.proxy_base_port,
        lookup=proxies.upstream,
        proxied=proxies.proxied_sessions,
        diagnostics=Diagnostics(),
        log=proxy_log,
    )

    async def session_closed(session_id: str) -> None:
        scheduler.close_session(session_id)
        await browser.session_closed(session_id)

    sessions.hooks.on_closed.append(session_closed)
    sessions.hooks.on_proxy_changed.append(proxies.session_assigned)
    sessions.hooks.on_proxy_changed.append(lambda session_id, alias: listeners.changed())
    sessions.hooks.busy = lambda sid: scheduler.has_work(sid) or browser.has_work(sid)
    ctx.services.update(
        worker=worker,
        profiles=profiles,
        proxies=proxies,
        browser=browser,
        proxy_listeners=listeners,
    )
    return ctx
