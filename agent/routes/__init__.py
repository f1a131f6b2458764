"""The 41 routes of spec 1 section 4, registered by area; no other route exists."""

from __future__ import annotations

from quart import Quart

from ..services import Services
from . import browser, observations, profiles, proxies, sessions, system


def register_all(app: Quart, services: Services) -> None:
    """Each area gets the services its handlers use, and nothing else."""
    s = services
    system.register(
        app,
        system.Health(
            s.config, s.process, s.store, s.scheduler, s.bridge, s.worker, s.proxy_listeners
        ),
    )
    sessions.register(app, s.sessions, s.worker, s.browser, s.engine)
    profiles.register(
        app, s.profiles, proxies=s.proxies, sessions=s.sessions, worker=s.worker, engine=s.engine
    )
    proxies.register(
        app,
        s.proxies,
        sessions=s.sessions,
        profiles=s.profiles,
        worker=s.worker,
        engine=s.engine,
        identity=s.identity,
        listeners=s.proxy_listeners,
    )
    browser.register(app, s.browser, s.captures, s.notifications)
    observations.register(app, s.browser)
