"""Profile routes: list, create, patch, delete, and profile transfers."""

from __future__ import annotations

import re
from typing import TypeVar

from quart import Quart, Response

from ..api import ProfileCreate, ProfileExport, ProfileImport, ProfilePatch
from ..engine_client import EngineClient
from ..profiles import Profiles
from ..proxies import Proxies
from ..records import ProfileRecord
from ..responses import (
    ProfileDeleted,
    ProfileImported,
    ProfileList,
    ProfileResult,
    TransferArchive,
)
from ..sessions import Sessions
from ..worker import ControlWorker
from .toolkit import NoBody, add_route, ok, read_body

T = TypeVar("T")
_MISSING = re.compile(r"missing required field `([^`]*)`(?: - at `\$([^`]*)`)?")


def register(
    app: Quart,
    profiles: Profiles,
    *,
    proxies: Proxies,
    sessions: Sessions,
    worker: ControlWorker,
    engine: EngineClient,
) -> None:
    async def list_profiles() -> Response:
        await read_body(NoBody)
        return ok(ProfileList(profiles=[profiles.render(p) for p in profiles.list_all()]))

    async def create() -> Response:
        body = await read_body(ProfileCreate, required=True)

        async def job() -> ProfileRecord:
            return profiles.create(body, proxies)

        return ok(ProfileResult(profile=profiles.render(await worker.run(job))))

    async def patch(id: str) -> Response:
        profiles.get(id, action="changed")
        body = await read_body(ProfilePatch)

        async def job() -> ProfileRecord:
            old = profiles.get(id, action="changed")
            new = profiles.patch(id, body, proxies)
            if new.name != old.name:
                sessions.profile_renamed(old.name, new.name)
            return new

        patched = await worker.run(job)
        # Its sessions take its fingerprint: a live one gets the edit now, not at some later
        # operation of its own.
        await engine.push_settings(sessions.made_from(patched.name))
        return ok(ProfileResult(profile=profiles.render(patched)))

    async def delete(id: str) -> Response:
        profiles.get(id, action="deleted")
        await read_body(NoBody)

        async def job() -> str:
            return profiles.delete(id)

        return ok(ProfileDeleted(deleted_id=await worker.run(job)))

    async def export() -> Response:
        body = await read_body(ProfileExport, required=True)

        async def job() -> TransferArchive:
            return profiles.export(body, proxies)

        return ok(await worker.run(job))

    async def import_() -> Response:
        body = await read_body(ProfileImport, required=True)

        async def job() -> ProfileImported:
            return profiles.import_(body, proxies)

        return ok(await worker.run(job))

    add_route(app, "GET", "/v1/profiles", list_profiles)
    add_route(app, "POST", "/v1/profiles", create)
    add_route(app, "PATCH", "/v1/profiles/<id>", patch)
    add_route(app, "DELETE", "/v1/profiles/<id>", delete)
    add_route(app, "POST", "/v1/profile-transfers/export", export)
    add_route(app, "POST", "/v1/profile-transfers/import", import_)
