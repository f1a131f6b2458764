"""Profile routes: list, create, patch, delete, and profile transfers."""

from __future__ import annotations

import re
from typing import Any, TypeVar

from quart import Quart, Response

from bridge_protocol import ErrorId, SvcError

from ..api import ProfileCreate, ProfileExport, ProfileImport, ProfilePatch
from ..context import AgentContext
from ..http_app import NoBody, add_route, ok, read_body
from ..profiles import Profiles
from ..proxies import Proxies

T = TypeVar("T")
_MISSING = re.compile(r"missing required field `([^`]*)`(?: - at `\$([^`]*)`)?")


async def read_closed(type_: type[T], *, required: bool = False) -> T:
    """`read_body`, with `details.field` naming a missing required field too (decode_body names
    unknown, mistyped and out-of-range fields only)."""
    try:
        return await read_body(type_, required=required)
    except SvcError as exc:
        match = _MISSING.search(exc.error.message)
        if exc.error.id != ErrorId.VALIDATION_FAILED or match is None:
            raise
        prefix = match.group(2).lstrip(".") if match.group(2) else ""
        field = f"{prefix}.{match.group(1)}" if prefix else match.group(1)
        details = {**(exc.error.details or {}), "field": field}
        raise SvcError.of(ErrorId.VALIDATION_FAILED, exc.error.message, **details) from None


def register(app: Quart, ctx: AgentContext) -> None:
    profiles: Profiles = ctx.services["profiles"]
    proxies: Proxies = ctx.services["proxies"]
    worker = ctx.services["worker"]

    async def list_profiles() -> Response:
        await read_body(NoBody)
        return ok({"profiles": profiles.list_all()})

    async def create() -> Response:
        body = await read_closed(ProfileCreate, required=True)

        async def job() -> dict[str, Any]:
            return profiles.create(body, proxies)

        return ok({"profile": await worker.run(job)})

    async def patch(id: str) -> Response:
        profiles.get_row(id, action="changed")
        body = await read_closed(ProfilePatch)

        async def job() -> dict[str, Any]:
            return profiles.patch(id, body, proxies)

        return ok({"profile": await worker.run(job)})

    async def delete(id: str) -> Response:
        profiles.get_row(id, action="deleted")
        await read_body(NoBody)

        async def job() -> str:
            return profiles.delete(id)

        return ok({"deleted_id": await worker.run(job)})

    async def export() -> Response:
        body = await read_closed(ProfileExport, required=True)

        async def job() -> dict[str, Any]:
            return profiles.export(body, proxies)

        return ok(await worker.run(job))

    async def import_() -> Response:
        body = await read_closed(ProfileImport, required=True)

        async def job() -> dict[str, Any]:
            return profiles.import_(body, proxies)

        return ok(await worker.run(job))

    add_route(app, "GET", "/v1/profiles", list_profiles)
    add_route(app, "POST", "/v1/profiles", create)
    add_route(app, "PATCH", "/v1/profiles/<id>", patch)
    add_route(app, "DELETE", "/v1/profiles/<id>", delete)
    add_route(app, "POST", "/v1/profile-transfers/export", export)
    add_route(app, "POST", "/v1/profile-transfers/import", import_)
