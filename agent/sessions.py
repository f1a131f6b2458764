"""Persistent sessions: rows of `browser_profiles`, their lifetimes, and the plan's limits."""

from __future__ import annotations

import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec
import trio

from bridge_protocol import ErrorId, SvcError
from bridge_protocol.session_ids import format_session_id, session_number

from .api import InactivityLifetime, IndefiniteLifetime, SessionCreate, SessionPatch
from .config import AgentConfig
from .logs import LogWriter
from .store import Store, now_ms

DEFAULT_INACTIVITY = 120
BUILTIN_PROFILE = "Custom"
# The built-in Custom profile: direct networking, adblock on, all images allowed.
CUSTOM_DEFAULTS: dict[str, Any] = {
    "proxy_alias": None,
    "adblock_enabled": True,
    "image_blocking_mode": "none",
    "image_size_limit_kb": 1024,
}


def name_key(name: str) -> str:
    return unicodedata.normalize("NFC", name).casefold()


def clean_group(raw: str) -> str:
    """A group after trimming: 1-128 characters, none of them control characters."""
    group = raw.strip()
    if not 1 <= len(group) <= 128 or any(unicodedata.category(c) == "Cc" for c in group):
        raise SvcError.of(
            ErrorId.VALIDATION_FAILED,
            "group must be 1-128 non-control characters after trimming",
            field="group",
        )
    return group


def parse_session_id(raw: str) -> int:
    number = session_number(raw)
    if number is None:
        raise not_found(raw)
    return number


def not_found(raw: str) -> SvcError:
    return SvcError.of(ErrorId.SESSION_NOT_FOUND, f"session {raw!r} does not exist", id=raw)


def pro_required(feature: str, plan: str) -> SvcError:
    return SvcError.of(
        ErrorId.PRO_REQUIRED,
        f"the {plan.capitalize()} plan does not include {feature.replace('_', ' ')}",
        feature=feature,
        plan=plan,
    )


@dataclass
class SessionHooks:
    """What closing a session must also stop: set by the agent's wiring."""

    on_closed: list[Callable[[str], Awaitable[None]]] = field(default_factory=list)
    # (session id, new proxy alias or None): a session's proxy was assigned, changed or dropped.
    on_proxy_changed: list[Callable[[str, str | None], None]] = field(default_factory=list)
    # Whether a session has queued or running browser work: such a session is not inactive.
    busy: Callable[[str], bool] = lambda session_id: False


class Sessions:
    def __init__(
        self,
        store: Store,
        logs: LogWriter,
        config: AgentConfig,
        resolve_profile: Callable[[str | None], dict[str, Any]],
        check_proxy: Callable[[str], str],
    ) -> None:
        self._store = store
        self._logs = logs
        self._config = config
        self._resolve_profile = resolve_profile
        self._check_proxy = check_proxy
        self._last_activity: dict[int, float] = {}
        self.hooks = SessionHooks()

    # --- reading -------------------------------------------------------------------------------

    def _row(self, sid: int) -> dict[str, Any] | None:
        return self._store.query_one("SELECT * FROM browser_profiles WHERE id=?", (sid,))

    def get_row(self, session_id: str) -> dict[str, Any]:
        row = self._row(parse_session_id(session_id))
        if row is None:
            raise not_found(session_id)
        return row

    def get(self, session_id: str) -> dict[str, Any]:
        return self.render(self.get_row(session_id))

    def list_all(self) -> list[dict[str, Any]]:
        rows = self._store.query("SELECT * FROM browser_profiles ORDER BY id")
        return [self.render(r) for r in rows]

    def newest_id(self) -> str | None:
        row = self._store.query_one("SELECT id FROM browser_profiles ORDER BY id DESC LIMIT 1")
        return None if row is None else format_session_id(row["id"])

    def first_id(self) -> str | None:
        row = self._store.query_one("SELECT id FROM browser_profiles ORDER BY id LIMIT 1")
        return None if row is None else format_session_id(row["id"])

    def render(self, row: dict[str, Any]) -> dict[str, Any]:
        proxy = None
        if row["proxy_alias"] is not None:
            proxy = self._store.query_one(
                "SELECT settings FROM proxies WHERE alias_key=?", (name_key(row["proxy_alias"]),)
            )
        settings = msgspec.json.decode(proxy["settings"]) if proxy else {}
        providerx = settings.get("providerx") or {}
        providery = settings.get("providery") or {}
        country = None
        if providery.get("enabled") and providery.get("country"):
            country = providery["country"]
        elif providerx.get("enabled") and providerx.get("location_parameter") in ("cc", "country"):
            country = providerx.get("location_value")
        lifetime: dict[str, Any] = {"type": row["lifetime_type"]}
        if row["lifetime_type"] == "inactivity":
            lifetime["timeout_seconds"] = row["lifetime_timeout"]
        return {
            "id": format_session_id(row["id"]),
            "name": row["name"],
            "profile": row["profile"],
            "profile_data_id": None,
            "group": row["group_name"],
            "proxy_alias": row["proxy_alias"],
            "adblock_enabled": bool(row["adblock_enabled"]),
            "image_blocking_mode": row["image_blocking_mode"],
            "image_size_limit_kb": row["image_size_limit_kb"],
            "created_at": row["created_at"],
            "proxy_country": country,
            "proxy_detect_exit_locale": bool(settings.get("detect_exit_locale", False)),
            "proxy_locale": settings.get("locale"),
            "lifetime": lifetime,
            "network_paused": bool(row["network_paused"]),
        }

    # --- writing -------------------------------------------------------------------------------

    def create(self, body: SessionCreate, *, origin: str = "api") -> dict[str, Any]:
        if self._config.plan == "free":
            count = self._store.query_one("SELECT count(*) AS n FROM browser_profiles")
            if count is not None and count["n"] >= 1:
                raise pro_required("additional_sessions", self._config.plan)
        template = self._resolve_profile(body.profile)
        group = clean_group(body.group) if body.group is not None else None
        proxy_alias = body.proxy_alias if body.proxy_alias is not None else template["proxy_alias"]
        if proxy_alias is not None:
            proxy_alias = self._check_proxy(proxy_alias)
        if origin == "app" or isinstance(body.lifetime, IndefiniteLifetime):
            lifetime_type, timeout = "indefinite", None
        elif isinstance(body.lifetime, InactivityLifetime):
            lifetime_type, timeout = "inactivity", body.lifetime.timeout_seconds
        else:
            lifetime_type, timeout = "inactivity", DEFAULT_INACTIVITY

        def pick(value: Any, key: str) -> Any:
            return template[key] if value is None else value

        created_at = now_ms()
        # The row as stored, to render the answer without reading it back.
        row: dict[str, Any] = {
            "profile": template["name"],
            "group_name": group,
            "group_key": None if group is None else name_key(group),
            "proxy_alias": proxy_alias,
            "adblock_enabled": int(pick(body.adblock_enabled, "adblock_enabled")),
            "image_blocking_mode": pick(body.image_blocking_mode, "image_blocking_mode"),
            "image_size_limit_kb": pick(body.image_size_limit_kb, "image_size_limit_kb"),
            "lifetime_type": lifetime_type,
            "lifetime_timeout": timeout,
            "origin": origin,
            "created_at": created_at,
            "network_paused": 0,
        }
        with self._store.transaction() as db:
            if body.name is not None:
                self._check_name_free(body.name, None)
            db.execute(
                "INSERT INTO browser_profiles(name, name_key, profile, group_name, group_key, "
                "proxy_alias, adblock_enabled, image_blocking_mode, image_size_limit_kb, "
                "lifetime_type, lifetime_timeout, origin, created_at) "
                "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    "",
                    f"\x00pending{created_at}",
                    row["profile"],
                    row["group_name"],
                    row["group_key"],
                    row["proxy_alias"],
                    row["adblock_enabled"],
                    row["image_blocking_mode"],
                    row["image_size_limit_kb"],
                    row["lifetime_type"],
                    row["lifetime_timeout"],
                    row["origin"],
                    row["created_at"],
                ),
            )
            sid = int(db.last_insert_rowid())
            name = body.name if body.name is not None else self._default_name(sid)
            db.execute(
                "UPDATE browser_profiles SET name=?, name_key=? WHERE id=?",
                (name, name_key(name), sid),
            )
        row.update(id=sid, name=name, name_key=name_key(name))
        self.touch(format_session_id(sid))
        if proxy_alias is not None:
            self._proxy_changed(format_session_id(sid), proxy_alias)
        self._logs.write("session.created", f"session Session{sid} created", profile_id=sid)
        return self.render(row)

    def _proxy_changed(self, session_id: str, alias: str | None) -> None:
        for hook in self.hooks.on_proxy_changed:
            hook(session_id, alias)

    def _default_name(self, sid: int) -> str:
        # Someone may have named another session "Session<sid>" already; never fail for that.
        name, n = f"Session{sid}", 1
        while self._store.query_one(
            "SELECT id FROM browser_profiles WHERE name_key=? AND id<>?", (name_key(name), sid)
        ):
            n += 1
            name = f"Session{sid} ({n})"
        return name

    def _check_name_free(self, name: str, own_id: int | None) -> None:
        row = self._store.query_one(
            "SELECT id FROM browser_profiles WHERE name_key=?", (name_key(name),)
        )
        if row is not None and row["id"] != own_id:
            raise SvcError.of(
                ErrorId.CONFLICT, f"a session named {name!r} already exists", field="name"
            )

    def patch(self, session_id: str, body: SessionPatch) -> dict[str, Any]:
        row = self.get_row(session_id)
        sets: dict[str, Any] = {}
        if body.name is not msgspec.UNSET:
            self._check_name_free(body.name, row["id"])
            sets["name"] = body.name
            sets["name_key"] = name_key(body.name)
        if body.proxy_alias is not msgspec.UNSET:
            sets["proxy_alias"] = (
                None if body.proxy_alias is None else self._check_proxy(body.proxy_alias)
            )
        if body.adblock_enabled is not msgspec.UNSET:
            sets["adblock_enabled"] = int(body.adblock_enabled)
        if body.image_blocking_mode is not msgspec.UNSET:
            sets["image_blocking_mode"] = body.image_blocking_mode
        if body.image_size_limit_kb is not msgspec.UNSET:
            sets["image_size_limit_kb"] = body.image_size_limit_kb
        if sets:
            assignments = ", ".join(f"{k}=?" for k in sets)
            self._store.execute(
                f"UPDATE browser_profiles SET {assignments} WHERE id=?",
                (*sets.values(), row["id"]),
            )
        if "proxy_alias" in sets and sets["proxy_alias"] != row["proxy_alias"]:
            self._proxy_changed(session_id, sets["proxy_alias"])
        self.touch(session_id)
        return self.get(session_id)

    def set_paused(self, session_id: str, paused: bool) -> None:
        row = self.get_row(session_id)
        self._store.execute(
            "UPDATE browser_profiles SET network_paused=? WHERE id=?", (int(paused), row["id"])
        )

    async def delete(self, session_id: str) -> str:
        row = self.get_row(session_id)
        self._store.execute("DELETE FROM browser_profiles WHERE id=?", (row["id"],))
        self._last_activity.pop(row["id"], None)
        if row["proxy_alias"] is not None:
            self._proxy_changed(session_id, None)
        self._logs.write("session.deleted", f"session {session_id} deleted", profile_id=row["id"])
        self._logs.session_closed(row["id"])
        for hook in self.hooks.on_closed:
            await hook(session_id)
        return session_id

    async def close_group(self, raw_group: str) -> tuple[str, list[str]]:
        group = raw_group.strip()
        if group == "":
            return "", []
        group = clean_group(group)
        rows = self._store.query(
            "SELECT id FROM browser_profiles WHERE group_key=? ORDER BY id", (name_key(group),)
        )
        closed = []
        for r in rows:
            closed.append(await self.delete(format_session_id(r["id"])))
        return group, closed

    # --- lifetime ------------------------------------------------------------------------------

    def touch(self, session_id: str) -> None:
        number = session_number(session_id)
        if number is not None:
            self._last_activity[number] = trio.current_time()

    def ping(self, session_id: str) -> dict[str, Any]:
        row = self.get_row(session_id)
        self.touch(session_id)
        return {"session_id": session_id, "lifetime": self.render(row)["lifetime"]}

    def expired(self, now: float) -> list[str]:
        rows = self._store.query(
            "SELECT id, lifetime_timeout FROM browser_profiles WHERE lifetime_type='inactivity'"
        )
        out = []
        for r in rows:
            session_id = format_session_id(r["id"])
            if self.hooks.busy(session_id):
                # Work in progress is activity: the clock restarts when it ends.
                self._last_activity[r["id"]] = now
                continue
            last = self._last_activity.setdefault(r["id"], now)
            if now - last >= r["lifetime_timeout"]:
                out.append(session_id)
        return out

    async def expire_forever(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        task_status.started()
        while True:
            await trio.sleep(0.5)
            for session_id in self.expired(trio.current_time()):
                try:
                    await self.delete(session_id)
                except SvcError:
                    continue
                self._logs.write("session.expired", f"session {session_id} closed after inactivity")
