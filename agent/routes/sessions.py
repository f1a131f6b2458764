"""Session routes: list, get, create, patch, delete, close by group, ping, pause, play."""

from __future__ import annotations

from quart import Quart, Response

from ..api import SessionCreate, SessionPatch, SessionsClose
from ..browser import Browser
from ..engine_client import EngineClient
from ..records import SessionRecord
from ..responses import SessionDeleted, SessionList, SessionResult, SessionsClosed
from ..sessions import Sessions
from ..worker import ControlWorker
from .toolkit import NoBody, add_route, ok, read_body


def register(
    app: Quart, sessions: Sessions, worker: ControlWorker, browser: Browser, engine: EngineClient
) -> None:
    async def list_sessions() -> Response:
        return ok(SessionList(sessions=[sessions.render(s) for s in sessions.list_all()]))

    async def create() -> Response:
        body = await read_body(SessionCreate)

        async def job() -> SessionRecord:
            return sessions.create(body)

        return ok(SessionResult(session=sessions.render(await worker.run(job))))

    async def close_group() -> Response:
        body = await read_body(SessionsClose, required=True)
        group, ids = await worker.run(lambda: sessions.close_group(body.group))
        return ok(SessionsClosed(group=group, deleted_ids=ids))

    async def get(id: str) -> Response:
        return ok(SessionResult(session=sessions.render(sessions.get(id))))

    async def patch(id: str) -> Response:
        sessions.get(id)
        body = await read_body(SessionPatch)

        async def job() -> SessionRecord:
            return sessions.patch(id, body)

        patched = await worker.run(job)
        # Answered only once the host holds the new route (spec 1 §4 PATCH; issue 14 point 3).
        await engine.push_settings([patched.session_id])
        return ok(SessionResult(session=sessions.render(sessions.find(patched.id) or patched)))

    async def delete(id: str) -> Response:
        sessions.get(id)
        await read_body(NoBody)
        deleted = await worker.run(lambda: sessions.delete(id))
        return ok(SessionDeleted(deleted_id=deleted))

    async def ping(id: str) -> Response:
        sessions.get(id)
        await read_body(NoBody)
        return ok(sessions.ping(id))

    async def pause(id: str) -> Response:
        session = sessions.get(id)
        await read_body(NoBody)
        return ok(await browser.set_network_paused(session, True))

    async def play(id: str) -> Response:
        session = sessions.get(id)
        await read_body(NoBody)
        return ok(await browser.set_network_paused(session, False))

    add_route(app, "GET", "/v1/sessions", list_sessions)
    add_route(app, "POST", "/v1/sessions", create)
    add_route(app, "POST", "/v1/sessions/close", close_group)
    add_route(app, "GET", "/v1/sessions/<id>", get)
    add_route(app, "PATCH", "/v1/sessions/<id>", patch)
    add_route(app, "DELETE", "/v1/sessions/<id>", delete)
    add_route(app, "POST", "/v1/sessions/<id>/ping", ping)
    add_route(app, "POST", "/v1/sessions/<id>/pause", pause)
    add_route(app, "POST", "/v1/sessions/<id>/play", play)
