"""The repositories hand out typed, frozen records and each issues SQL only against its own table
(issue 13 point 5). No process: a real store on a temporary file."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import msgspec
import pytest

from agent.api import ProfileCreate, ProviderY, ProxyCreate, SessionCreate, SessionPatch
from agent.config import AgentConfig
from agent.logs import LogWriter
from agent.profiles import Profiles
from agent.proxies import Proxies
from agent.records import ProfileRecord, ProxyExit, ProxyRecord, SessionRecord
from agent.sessions import Sessions
from agent.store import Store
from bridge_protocol import ErrorId, SvcError


@dataclass
class Repos:
    store: Store
    profiles: Profiles
    proxies: Proxies
    sessions: Sessions


def _build(data_dir: Path, store: Store) -> Repos:
    config = AgentConfig(data_dir=data_dir, plan="pro", bridge="none")
    logs = LogWriter(config.logs_dir, store.machine_id)
    profiles = Profiles(store, config)
    proxies = Proxies(store, config)
    sessions = Sessions(store, logs, config, profiles.resolve_template, proxies)
    return Repos(store, profiles, proxies, sessions)


@pytest.fixture
def repos(tmp_path: Path) -> Iterator[Repos]:
    store = Store(tmp_path / "svc.sqlite3")
    try:
        yield _build(tmp_path, store)
    finally:
        store.close()


def _managed_proxy(alias: str = "Exit") -> ProxyCreate:
    return ProxyCreate(
        alias=alias,
        upstream_host="proxy.example",
        upstream_port=8080,
        username="user",
        password="secret",
        providery=ProviderY(enabled=True, country="DE"),
        locale="de-DE",
    )


async def test_a_session_is_a_typed_frozen_record(repos: Repos) -> None:
    created = repos.sessions.create(SessionCreate(group="g"))
    assert isinstance(created, SessionRecord)
    assert created.session_id == f"Session{created.id}"
    assert created.name == created.session_id
    # SQLite keeps 0/1: the record says bool, as the API does.
    read = repos.sessions.get(created.session_id)
    assert read == created
    assert read.adblock_enabled is True
    assert read.network_paused is False
    with pytest.raises(AttributeError):
        read.name = "other"  # type: ignore[misc]
    with pytest.raises(SvcError) as missing:
        repos.sessions.get("Session999")
    assert missing.value.error.id == ErrorId.SESSION_NOT_FOUND


async def test_render_asks_the_proxies_repository_for_the_exit(repos: Repos) -> None:
    repos.proxies.create(_managed_proxy())
    session = repos.sessions.create(SessionCreate(proxy_alias="exit"))
    assert session.proxy_alias == "Exit"
    rendered = msgspec.to_builtins(repos.sessions.render(session))
    assert rendered["proxy_country"] == "de"
    assert rendered["proxy_locale"] == "de-DE"
    assert rendered["proxy_detect_exit_locale"] is True
    assert list(rendered) == [
        "id",
        "name",
        "profile",
        "profile_data_id",
        "group",
        "proxy_alias",
        "adblock_enabled",
        "image_blocking_mode",
        "image_size_limit_kb",
        "created_at",
        "proxy_country",
        "proxy_detect_exit_locale",
        "proxy_locale",
        "lifetime",
        "network_paused",
    ]


async def test_sessions_need_only_the_proxy_catalog(tmp_path: Path) -> None:
    class Catalog:
        def check_assignable(self, alias: str) -> str:
            return alias.upper()

        def exit_of(self, alias: str) -> ProxyExit | None:
            return ProxyExit(country="fr", locale=None, detect_exit_locale=False)

    store = Store(tmp_path / "svc.sqlite3")
    try:
        config = AgentConfig(data_dir=tmp_path, plan="pro", bridge="none")
        logs = LogWriter(config.logs_dir, store.machine_id)
        sessions = Sessions(
            store, logs, config, Profiles(store, config).resolve_template, Catalog()
        )
        session = sessions.create(SessionCreate(proxy_alias="anywhere"))
        assert session.proxy_alias == "ANYWHERE"
        assert msgspec.to_builtins(sessions.render(session))["proxy_country"] == "fr"
    finally:
        store.close()


async def test_patch_returns_the_record_as_stored(repos: Repos) -> None:
    session = repos.sessions.create(SessionCreate())
    patched = repos.sessions.patch(session.session_id, SessionPatch(adblock_enabled=False))
    assert patched == msgspec.structs.replace(session, adblock_enabled=False)
    repos.sessions.set_paused(session.session_id, True)
    assert repos.sessions.get(session.session_id).network_paused is True


async def test_set_paused_on_a_gone_session_is_not_found(repos: Repos) -> None:
    with pytest.raises(SvcError) as gone:
        repos.sessions.set_paused("Session42", True)
    assert gone.value.error.id == ErrorId.SESSION_NOT_FOUND


async def test_a_proxy_is_a_typed_record_and_upstream_takes_the_session(repos: Repos) -> None:
    proxy = repos.proxies.create(_managed_proxy())
    assert isinstance(proxy, ProxyRecord)
    assert repos.proxies.get("EXIT") == proxy
    session = repos.sessions.create(SessionCreate(proxy_alias="Exit"))
    upstream = repos.proxies.upstream(session)
    assert upstream is not None
    assert (upstream.host, upstream.port, upstream.alias) == ("proxy.example", 8080, "Exit")
    assert upstream.username is not None
    assert upstream.username != "user"
    assert repos.proxies.upstream(None) is None
    assert repos.proxies.upstream(repos.sessions.create(SessionCreate())) is None
    assert repos.sessions.proxied_numbers() == [session.id]


async def test_deleting_a_proxy_detaches_sessions_and_profiles(repos: Repos) -> None:
    repos.proxies.create(_managed_proxy())
    profile = repos.profiles.create(
        ProfileCreate(name="Via exit", proxy_alias="Exit"), repos.proxies
    )
    assert isinstance(profile, ProfileRecord)
    assert profile.proxy_alias == "Exit"
    first = repos.sessions.create(SessionCreate(proxy_alias="Exit"))
    repos.sessions.create(SessionCreate())
    third = repos.sessions.create(SessionCreate(profile="via exit"))
    answer = msgspec.to_builtins(repos.proxies.delete("exit", repos.sessions, repos.profiles))
    assert answer == {
        "deleted_alias": "Exit",
        "detached_session_ids": [first.session_id, third.session_id],
    }
    assert repos.proxies.find("Exit") is None
    assert [s.proxy_alias for s in repos.sessions.list_all()] == [None, None, None]
    assert repos.profiles.get(profile.id, action="changed").proxy_alias is None


async def test_a_profile_is_a_typed_record_and_a_template(repos: Repos) -> None:
    profile = repos.profiles.create(
        ProfileCreate(name="Quiet", adblock_enabled=False, image_blocking_mode="all"),
        repos.proxies,
    )
    assert profile.adblock_enabled is False
    assert profile.includes_cookies is False
    assert repos.profiles.list_all() == [profile]
    rendered = msgspec.to_builtins(repos.profiles.render(profile))
    assert rendered["fingerprint_profile"]["schema_version"] == 1
    template = repos.profiles.resolve_template("quiet")
    assert (template.name, template.adblock_enabled, template.image_blocking_mode) == (
        "Quiet",
        False,
        "all",
    )
    session = repos.sessions.create(SessionCreate(profile="Quiet"))
    assert (session.profile, session.adblock_enabled) == ("Quiet", False)
