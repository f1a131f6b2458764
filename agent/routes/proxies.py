"""Proxy routes: list, create, read, patch, delete, rotate-session, transfers, proxy-location."""

from __future__ import annotations

from quart import Quart, Response, request

from bridge_protocol.session_ids import session_number
from proxy import ProxyListeners

from ..api import ProxyCreate, ProxyExport, ProxyImport, ProxyPatch
from ..engine_client import EngineClient
from ..identity import SessionIdentity
from ..profiles import Profiles
from ..proxies import AUTH_HEADER, Proxies
from ..proxy_responses import ProxyDeleted, ProxyList, ProxyResult
from ..records import ProxyRecord
from ..sessions import Sessions
from ..worker import ControlWorker
from .toolkit import NoBody, add_route, ok, read_body


async def _push(
    engine: EngineClient, listeners: ProxyListeners, sessions: Sessions, alias: str
) -> None:
    """The proxy's sessions hold what changed (route, trust, exit locale) before the change is
    answered (issue 14 point 3), and their open connections, which keep the upstream they
    opened with, end: the engine reconnects by the changed route."""
    using = sessions.using_proxy(alias)
    listeners.cut(s.id for s in using)
    await engine.push_settings(s.session_id for s in using)


def register(  # noqa: PLR0913  the services its routes use, keyword-only
    app: Quart,
    proxies: Proxies,
    *,
    sessions: Sessions,
    profiles: Profiles,
    worker: ControlWorker,
    engine: EngineClient,
    identity: SessionIdentity,
    listeners: ProxyListeners,
) -> None:
    async def list_proxies() -> Response:
        await read_body(NoBody)
        return ok(ProxyList(proxies=[proxies.render(p) for p in proxies.list_all()]))

    async def create() -> Response:
        proxies.require_pro()
        body = await read_body(ProxyCreate, required=True)

        async def job() -> ProxyRecord:
            return proxies.create(body)

        return ok(ProxyResult(proxy=proxies.render(await worker.run(job))))

    async def get(alias: str) -> Response:
        await read_body(NoBody)
        return ok(ProxyResult(proxy=proxies.render(proxies.get(alias))))

    async def patch(alias: str) -> Response:
        proxies.get(alias)
        proxies.require_pro()
        body = await read_body(ProxyPatch)

        async def job() -> ProxyRecord:
            return proxies.patch(alias, body)

        patched = await worker.run(job)
        identity.forget_failures()  # fixed credentials or service: look the exit up again
        await _push(engine, listeners, sessions, patched.alias)
        return ok(ProxyResult(proxy=proxies.render(patched)))

    async def delete(alias: str) -> Response:
        proxies.get(alias)
        await read_body(NoBody)

        async def job() -> ProxyDeleted:
            return proxies.delete(alias, sessions, profiles)

        deleted = await worker.run(job)
        detached = deleted.detached_session_ids
        listeners.cut(n for sid in detached if (n := session_number(sid)) is not None)
        await engine.push_settings(detached)
        return ok(deleted)

    async def rotate(alias: str) -> Response:
        proxies.get(alias)
        proxies.require_pro()
        await read_body(NoBody)

        async def job() -> ProxyRecord:
            return proxies.rotate(alias, sessions)

        rotated = await worker.run(job)
        await _push(
            engine, listeners, sessions, rotated.alias
        )  # a new route: its exit is looked up again
        return ok(ProxyResult(proxy=proxies.render(rotated)))

    async def export() -> Response:
        body = await read_body(ProxyExport, required=True)
        authorization = request.headers.get(AUTH_HEADER)
        return ok(await worker.run(lambda: proxies.export(body, authorization)))

    async def import_() -> Response:
        proxies.require_pro()
        body = await read_body(ProxyImport, required=True)

        async def job() -> ProxyResult:
            return ProxyResult(proxy=proxies.render(await proxies.import_(body)))

        return ok(await worker.run(job))

    async def location(id: str) -> Response:
        session = sessions.get(id)
        await read_body(NoBody)
        # Not a control-worker job: the lookup may take up to its 10 s timeout, and it only
        # reads the store (plus a sticky id generated at first use, as the relay does).
        return ok(await proxies.location(session))

    add_route(app, "GET", "/v1/proxies", list_proxies)
    add_route(app, "POST", "/v1/proxies", create)
    add_route(app, "GET", "/v1/proxies/<alias>", get)
    add_route(app, "PATCH", "/v1/proxies/<alias>", patch)
    add_route(app, "DELETE", "/v1/proxies/<alias>", delete)
    add_route(app, "POST", "/v1/proxies/<alias>/rotate-session", rotate)
    add_route(app, "POST", "/v1/proxy-transfers/export", export)
    add_route(app, "POST", "/v1/proxy-transfers/import", import_)
    add_route(app, "GET", "/v1/sessions/<id>/proxy-location", location)
