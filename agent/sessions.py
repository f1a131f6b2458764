"""Persistent sessions: rows of `browser_profiles`, their lifetimes, and the plan's limits."""

from __future__ import annotations

import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, assert_never

import msgspec
import trio

from bridge_protocol import ErrorId, SvcError, browser_data, settings
from bridge_protocol.session_ids import format_session_id, session_number

from . import responses
from .api import InactivityLifetime, IndefiniteLifetime, SessionCreate, SessionPatch
from .config import AgentConfig
from .logs import LogWriter
from .records import ProxyExit, SessionRecord, SessionTemplate, from_row, name_key
from .store import Store, now_ms

DEFAULT_INACTIVITY = 120
BUILTIN_PROFILE = "Custom"
# The built-in Custom profile: direct networking and the settings' defaults (adblock on, all
# images allowed).
CUSTOM_TEMPLATE = SessionTemplate(name=BUILTIN_PROFILE, proxy_alias=None)


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


class ProxyCatalog(Protocol):
    """What sessions need of the proxies repository (agent.proxies.Proxies)."""

    def check_assignable(self, alias: str) -> str:
        """The stored alias to assign, or PRO_REQUIRED / PROXY_NOT_FOUND."""
        ...

    def exit_of(self, alias: str) -> ProxyExit | None:
        """What a session shows of the proxy `alias`; None when there is no such proxy."""
        ...


class Sessions:
    """The repository of `browser_profiles`: the only code that reads or writes that table."""

    def __init__(
        self,
        store: Store,
        logs: LogWriter,
        config: AgentConfig,
        resolve_profile: Callable[[str | None], SessionTemplate],
        proxies: ProxyCatalog,
    ) -> None:
        self._store = store
        self._logs = logs
        self._config = config
        self._resolve_profile = resolve_profile
        self._proxies = proxies
        self._last_activity: dict[int, float] = {}
        self.hooks = SessionHooks()

    # --- reading -------------------------------------------------------------------------------

    def find(self, number: int) -> SessionRecord | None:
        """Session N, or None when there is none."""
        row = self._store.query_one("SELECT * FROM browser_profiles WHERE id=?", (number,))
        return None if row is None else from_row(row, SessionRecord)

    def get(self, session_id: str) -> SessionRecord:
        """The session `Session<N>`; SESSION_NOT_FOUND when it does not exist."""
        record = self.find(parse_session_id(session_id))
        if record is None:
            raise not_found(session_id)
        return record

    def list_all(self) -> list[SessionRecord]:
        rows = self._store.query("SELECT * FROM browser_profiles ORDER BY id")
        return [from_row(r, SessionRecord) for r in rows]

    def newest_id(self) -> str | None:
        row = self._store.query_one("SELECT id FROM browser_profiles ORDER BY id DESC LIMIT 1")
        return None if row is None else format_session_id(row["id"])

    def first(self) -> SessionRecord | None:
        row = self._store.query_one("SELECT * FROM browser_profiles ORDER BY id LIMIT 1")
        return None if row is None else from_row(row, SessionRecord)

    def using_proxy(self, alias: str) -> list[SessionRecord]:
        """The sessions assigned the proxy `alias` (any case), in id order."""
        rows = self._store.query(
            "SELECT * FROM browser_profiles WHERE lower(proxy_alias)=? ORDER BY id",
            (name_key(alias),),
        )
        return [from_row(r, SessionRecord) for r in rows]

    def check_proxy_plan(self, session_id: str) -> None:
        """Spec 1 §7 rule 1: browser work of a session with a proxy uses that proxy, which the
        Free plan does not include: PRO_REQUIRED `proxies` before anything reaches the engine
        (a proxy assigned under Pro stays assigned after a move to Free; detaching it makes
        the session usable again). An unknown session passes: its lookup says
        SESSION_NOT_FOUND."""
        if self._config.plan != "free":
            return
        number = session_number(session_id)
        record = None if number is None else self.find(number)
        if record is None or record.proxy_alias is None:
            return
        plan = self._config.plan
        raise SvcError.of(
            ErrorId.PRO_REQUIRED,
            f"{session_id} uses the proxy {record.proxy_alias!r} and the {plan.capitalize()} "
            "plan does not include proxies: detach it (PATCH the session's proxy_alias to "
            "null) or use the Pro plan",
            feature="proxies",
            plan=plan,
        )

    def proxied_numbers(self) -> list[int]:
        """Numbers of the sessions that have a proxy (each gets a listener)."""
        rows = self._store.query("SELECT id FROM browser_profiles WHERE proxy_alias IS NOT NULL")
        return [int(r["id"]) for r in rows]

    @staticmethod
    def _lifetime(record: SessionRecord) -> responses.LifetimeShown:
        if record.lifetime_type == "inactivity" and record.lifetime_timeout is not None:
            return responses.InactivityLifetimeShown(timeout_seconds=record.lifetime_timeout)
        return responses.IndefiniteLifetimeShown()

    def render(self, record: SessionRecord) -> responses.Session:
        """The API's session object (spec 1 §2 Session)."""
        proxy = None if record.proxy_alias is None else self._proxies.exit_of(record.proxy_alias)
        shown = proxy or ProxyExit()
        return responses.Session(
            id=record.session_id,
            name=record.name,
            profile=record.profile,
            profile_data_id=None,
            group=record.group_name,
            proxy_alias=record.proxy_alias,
            **settings.rendered(record),
            created_at=record.created_at,
            proxy_country=shown.country,
            proxy_detect_exit_locale=shown.detect_exit_locale,
            proxy_locale=shown.locale,
            lifetime=self._lifetime(record),
            network_paused=record.network_paused,
        )

    # --- writing -------------------------------------------------------------------------------

    def create(self, body: SessionCreate, *, origin: str = "api") -> SessionRecord:
        if self._config.plan == "free":
            count = self._store.query_one("SELECT count(*) AS n FROM browser_profiles")
            if count is not None and count["n"] >= 1:
                raise pro_required("additional_sessions", self._config.plan)
        template = self._resolve_profile(body.profile)
        group = clean_group(body.group) if body.group is not None else None
        proxy_alias = body.proxy_alias if body.proxy_alias is not None else template.proxy_alias
        if proxy_alias is not None:
            proxy_alias = self._proxies.check_assignable(proxy_alias)
        if origin == "app" or isinstance(body.lifetime, IndefiniteLifetime):
            lifetime_type: Literal["inactivity", "indefinite"] = "indefinite"
            timeout = None
        elif isinstance(body.lifetime, InactivityLifetime):
            lifetime_type, timeout = "inactivity", body.lifetime.timeout_seconds
        elif body.lifetime is None:
            lifetime_type, timeout = "inactivity", DEFAULT_INACTIVITY
        else:
            assert_never(body.lifetime)
        created_at = now_ms()
        # The record as stored (id and name once known), to answer without reading it back.
        pending = SessionRecord(
            id=0,
            name="",
            name_key=f"\x00pending{created_at}",
            profile=template.name,
            group_name=group,
            group_key=None if group is None else name_key(group),
            proxy_alias=proxy_alias,
            **settings.rendered(settings.chosen(template, body)),
            lifetime_type=lifetime_type,
            lifetime_timeout=timeout,
            origin=origin,
            network_paused=False,
            created_at=created_at,
        )
        with self._store.transaction() as db:
            if body.name is not None:
                self._check_name_free(body.name, None)
            row = {
                "name": pending.name,
                "name_key": pending.name_key,
                "profile": pending.profile,
                "group_name": pending.group_name,
                "group_key": pending.group_key,
                "proxy_alias": pending.proxy_alias,
                **settings.stored(pending),
                "lifetime_type": pending.lifetime_type,
                "lifetime_timeout": pending.lifetime_timeout,
                "origin": pending.origin,
                "created_at": pending.created_at,
            }
            db.execute(
                f"INSERT INTO browser_profiles({', '.join(row)}) "
                f"VALUES({', '.join('?' * len(row))})",
                tuple(row.values()),
            )
            sid = int(db.last_insert_rowid())
            name = body.name if body.name is not None else self._default_name(sid)
            db.execute(
                "UPDATE browser_profiles SET name=?, name_key=? WHERE id=?",
                (name, name_key(name), sid),
            )
        record = msgspec.structs.replace(pending, id=sid, name=name, name_key=name_key(name))
        if template.staged_cookies is not None:
            self._seed_cookies(template.staged_cookies, sid)
        self.touch(record.session_id)
        if proxy_alias is not None:
            self._proxy_changed(record.session_id, proxy_alias)
        self._logs.write("session.created", f"session {record.session_id} created", profile_id=sid)
        return record

    def _seed_cookies(self, staged: Path, number: int) -> None:
        """The profile's staged cookies, copied for the app to put into the new session's store
        when it opens it (bridge_protocol.browser_data). A copy that cannot be made leaves the
        session without them, said in its log; the session itself is made."""
        browser_dir = self._config.data_dir / "Browser" / f"Tab-{number}"
        try:
            browser_data.copy_private(staged, browser_data.seed_cookies(browser_dir))
        except OSError as exc:
            self._logs.write(
                "session.cookies_not_seeded",
                f"the profile's cookies could not be copied for session {number}: {exc}",
                level="warning",
                profile_id=number,
            )

    def _proxy_changed(self, session_id: str, alias: str | None) -> None:
        for hook in self.hooks.on_proxy_changed:
            hook(session_id, alias)

    def _default_name(self, sid: int) -> str:
        # A new session is named like its id; someone may have named another session that
        # already, and that never fails a create.
        name, n = format_session_id(sid), 1
        while self._store.query_one(
            "SELECT id FROM browser_profiles WHERE name_key=? AND id<>?", (name_key(name), sid)
        ):
            n += 1
            name = f"{format_session_id(sid)} ({n})"
        return name

    def _check_name_free(self, name: str, own_id: int | None) -> None:
        row = self._store.query_one(
            "SELECT id FROM browser_profiles WHERE name_key=?", (name_key(name),)
        )
        if row is not None and row["id"] != own_id:
            raise SvcError.of(
                ErrorId.CONFLICT, f"a session named {name!r} already exists", field="name"
            )

    def patch(self, session_id: str, body: SessionPatch) -> SessionRecord:
        record = self.get(session_id)
        sets: dict[str, Any] = {}
        if body.name is not msgspec.UNSET:
            self._check_name_free(body.name, record.id)
            sets["name"] = body.name
            sets["name_key"] = name_key(body.name)
        if body.proxy_alias is not msgspec.UNSET:
            sets["proxy_alias"] = (
                None
                if body.proxy_alias is None
                else self._proxies.check_assignable(body.proxy_alias)
            )
        sets.update(settings.changes(body))
        if sets:
            assignments = ", ".join(f"{k}=?" for k in sets)
            self._store.execute(
                f"UPDATE browser_profiles SET {assignments} WHERE id=?",
                (*sets.values(), record.id),
            )
        if "proxy_alias" in sets and sets["proxy_alias"] != record.proxy_alias:
            self._proxy_changed(session_id, sets["proxy_alias"])
        self.touch(session_id)
        return self.get(session_id)

    def set_paused(self, session_id: str, paused: bool) -> None:
        """Record the session's network as paused or playing; SESSION_NOT_FOUND when it is
        gone."""
        number = parse_session_id(session_id)
        with self._store.transaction() as db:
            db.execute(
                "UPDATE browser_profiles SET network_paused=? WHERE id=?", (int(paused), number)
            )
            if not db.changes():
                raise not_found(session_id)

    async def delete(self, session_id: str) -> str:
        record = self.get(session_id)
        self._store.execute("DELETE FROM browser_profiles WHERE id=?", (record.id,))
        self._last_activity.pop(record.id, None)
        if record.proxy_alias is not None:
            self._proxy_changed(session_id, None)
        self._logs.write("session.deleted", f"session {session_id} deleted", profile_id=record.id)
        self._logs.session_closed(record.id)
        for hook in self.hooks.on_closed:
            await hook(session_id)
        return session_id

    def profile_renamed(self, old: str, new: str) -> list[str]:
        """The saved profile `old` is now called `new`: its sessions follow it (they take its
        fingerprint by name). Returns their ids."""
        rows = self._store.query("SELECT id FROM browser_profiles WHERE profile=?", (old,))
        self._store.execute("UPDATE browser_profiles SET profile=? WHERE profile=?", (new, old))
        return [format_session_id(r["id"]) for r in rows]

    def made_from(self, profile: str) -> list[str]:
        """The ids of the sessions made from the profile named `profile`."""
        rows = self._store.query(
            "SELECT id FROM browser_profiles WHERE profile=? ORDER BY id", (profile,)
        )
        return [format_session_id(r["id"]) for r in rows]

    def detach_proxy(self, alias: str) -> list[str]:
        """The proxy `alias` is being deleted: its sessions become direct. Returns their ids.
        Runs inside the caller's transaction when there is one (the proxy's deletion)."""
        detached = [r.session_id for r in self.using_proxy(alias)]
        self._store.execute(
            "UPDATE browser_profiles SET proxy_alias=NULL WHERE lower(proxy_alias)=?",
            (name_key(alias),),
        )
        return detached

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

    def ping(self, session_id: str) -> responses.SessionPing:
        record = self.get(session_id)
        self.touch(session_id)
        return responses.SessionPing(session_id=session_id, lifetime=self._lifetime(record))

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
