"""What `apply-session-settings` carries of a session's identity and trust, and when (issue 14
points 1-4, agent side), read off the scripted host's operation log: the fingerprint of the
session's profile with its own seed, the exit locale resolved before the first navigation
through a route (a local upstream proxy and a local geolocation service), settings pushed before
a route change is answered, and the proxy's trust."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

import bridge_protocol as bp

from ..proxy.geoservice import BERLIN, GeoService
from ..proxy.servers import UpstreamProxy
from .agentproc import AgentProcess
from .fakebrowser import FakeBrowser, new_session
from .test_proxies import certificate, new_alias

USER, PASSWORD = "iduser", "id-secret-pw"
# The user's language as the agent's environment says it (LANGUAGE/LC_ALL/LC_MESSAGES unset),
# and the machine's time zone.
LOCALE_ENV = {
    "LANG": "pt_BR.UTF-8",
    "LC_ALL": "",
    "LC_MESSAGES": "",
    "LANGUAGE": "",
    "TZ": "America/Sao_Paulo",
}
PARIS = json.dumps({"country": "FR", "timezone": "Europe/Paris"}).encode()

CUSTOM_FP: dict[str, Any] = {
    "schema_version": 1,
    "seed": "00c0ffee00c0ffee",
    "platform": "Win32",
    "browser_brand": "Google Chrome",
    "browser_version": "140.0.7339.128",
    "user_agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/140.0.0.0 Safari/537.36",
    "locale": "de-DE",
    "timezone": "Europe/Berlin",
    "network_profile": "broadband",
    "hardware_concurrency": 4,
    "device_memory_gib": 16,
    "max_touch_points": 0,
    "screen": {"width": 2560, "height": 1440, "available_height": 1400, "device_scale_factor": 1.5},
    "graphics_profile": "generic-angle",
    "storage_quota_bytes": 1000000000,
    "canvas_noise_mode": "seeded",
    "audio_noise_mode": "seeded",
}


def env_for(geo: GeoService) -> dict[str, str]:
    return LOCALE_ENV | {
        "SVC_GEOLOCATION_URL": geo.url("/json"),
        "SVC_GEOLOCATION_TIMEOUT": "2",
    }


@pytest.fixture(scope="module")
def geo() -> Iterator[GeoService]:
    with GeoService() as service:
        yield service


@pytest.fixture(scope="module")
def identity_agent(
    tmp_path_factory: pytest.TempPathFactory, geo: GeoService
) -> Iterator[AgentProcess]:
    agent = AgentProcess(tmp_path_factory.mktemp("identity"), env=env_for(geo)).start()
    try:
        yield agent
    finally:
        agent.close()


@pytest.fixture
def agent(identity_agent: AgentProcess, geo: GeoService) -> AgentProcess:
    geo.answer, geo.stall = (200, BERLIN), False
    geo.seen.clear()
    return identity_agent


@pytest.fixture
def fake(agent: AgentProcess) -> FakeBrowser:
    fake = FakeBrowser()
    assert agent.host is not None
    agent.host.answer = fake
    return fake


@pytest.fixture
def upstream() -> Iterator[UpstreamProxy]:
    proxy = UpstreamProxy(None, PASSWORD)
    proxy.start()
    try:
        yield proxy
    finally:
        proxy.stop()


def navigate(agent: AgentProcess, sid: str, **fields: Any) -> None:
    agent.ok("POST", "/v1/navigate", {"url": "id.test", "session_id": sid, "wait": 0} | fields)


def applied(fake: FakeBrowser, sid: str) -> list[bp.SessionSettings]:
    return [op.params.settings for op in fake.named("apply-session-settings", sid)]


def identity_of(fake: FakeBrowser, sid: str) -> bp.FingerprintProfile | None:
    return fake.settings[sid].identity


def new_profile(agent: AgentProcess, **fields: Any) -> str:
    name = new_alias("prof")
    agent.ok("POST", "/v1/profiles", {"name": name} | fields)
    return name


def new_proxy(agent: AgentProcess, port: int, **fields: Any) -> str:
    alias = new_alias("idpx")
    body = {
        "alias": alias,
        "upstream_host": "127.0.0.1",
        "upstream_port": port,
        "username": USER,
        "password": PASSWORD,
    }
    agent.ok("POST", "/v1/proxies", body | fields)
    return alias


# --- point 1: the fingerprint ------------------------------------------------------------------


def test_native_custom_and_saved_profiles(agent: AgentProcess, fake: FakeBrowser) -> None:
    native = new_session(agent, profile=new_profile(agent, fingerprint_profile=None))
    custom = new_session(agent)  # no default profile: the built-in Custom
    templated = new_session(agent, profile=new_profile(agent))  # fingerprint omitted
    saved = new_session(agent, profile=new_profile(agent, fingerprint_profile=CUSTOM_FP))
    for sid in (native, custom, templated, saved):
        navigate(agent, sid)
        assert fake.names(sid)[:2] == ["apply-session-settings", "browser_attach"]

    assert identity_of(fake, native) is None  # nothing overridden, no language either

    template = identity_of(fake, custom)
    assert template is not None
    assert (template.user_agent, template.platform) == (
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/140.0.0.0 Safari/537.36",
        "Linux x86_64",
    )
    # a direct session: the machine's timezone and the user's language (the template's zone
    # and locale are placeholders, not custom ones)
    assert (template.timezone, template.locale) == ("America/Sao_Paulo", "pt-BR")
    assert fake.settings[custom].trust is None
    assert identity_of(fake, templated) == msgspec.structs.replace(
        template,
        seed=identity_of(fake, templated).seed,  # type: ignore[union-attr]
    )

    mine = identity_of(fake, saved)
    assert mine is not None
    # every field as saved (a custom locale wins over the user's language), but the seed
    expected = msgspec.convert(CUSTOM_FP, bp.FingerprintProfile)
    assert mine == msgspec.structs.replace(expected, seed=mine.seed)
    seeds = {identity_of(fake, s).seed for s in (custom, templated, saved)}  # type: ignore[union-attr]
    assert len(seeds) == 3
    assert CUSTOM_FP["seed"] not in seeds


def test_seeds_differ_between_sessions_and_survive_a_restart(
    make_agent: Any, tmp_path: Path
) -> None:
    data_dir = tmp_path / "restart"
    first = make_agent(env=LOCALE_ENV, data_dir=data_dir)
    fake = FakeBrowser()
    first.host.answer = fake
    profile = new_profile(first, fingerprint_profile=CUSTOM_FP)
    one, two = new_session(first, profile=profile), new_session(first, profile=profile)
    other = new_session(first)
    for sid in (one, two, other):
        navigate(first, sid)
    before = {sid: identity_of(fake, sid).seed for sid in (one, two, other)}  # type: ignore[union-attr]
    assert len(set(before.values())) == 3
    for seed in before.values():
        assert len(seed) == 32
        int(seed, 16)
    first.stop()

    again = make_agent(env=LOCALE_ENV, data_dir=data_dir)
    fake = FakeBrowser()
    again.host.answer = fake
    for sid in (one, two, other):
        navigate(again, sid)
    assert {sid: identity_of(fake, sid).seed for sid in before} == before  # type: ignore[union-attr]


def test_profile_edits_reach_its_sessions_and_deletion_keeps_their_identity(
    agent: AgentProcess, fake: FakeBrowser
) -> None:
    name = new_profile(agent, fingerprint_profile=CUSTOM_FP)
    profile_id = next(
        p["id"] for p in agent.ok("GET", "/v1/profiles")["profiles"] if p["name"] == name
    )
    sid = new_session(agent, profile=name)
    navigate(agent, sid)
    seed = identity_of(fake, sid).seed  # type: ignore[union-attr]
    edited = CUSTOM_FP | {"user_agent": "Edited/1.0"}
    renamed = new_alias("renamed")
    agent.ok(
        "PATCH", f"/v1/profiles/{profile_id}", {"fingerprint_profile": edited, "name": renamed}
    )
    # pushed with the edit, before it was answered; the session follows the rename
    assert fake.names(sid)[-1] == "apply-session-settings"
    assert identity_of(fake, sid).user_agent == "Edited/1.0"  # type: ignore[union-attr]
    assert identity_of(fake, sid).seed == seed  # type: ignore[union-attr]
    assert agent.ok("GET", f"/v1/sessions/{sid}")["session"]["profile"] == renamed
    agent.ok("DELETE", f"/v1/profiles/{profile_id}")
    count = len(applied(fake, sid))
    navigate(agent, sid)
    assert len(applied(fake, sid)) == count  # the same identity: nothing to send again
    assert identity_of(fake, sid).user_agent == "Edited/1.0"  # type: ignore[union-attr]


# --- point 2: the exit locale ------------------------------------------------------------------


def test_detected_exit_locale_before_the_first_navigation(
    agent: AgentProcess, fake: FakeBrowser, geo: GeoService, upstream: UpstreamProxy
) -> None:
    alias = new_proxy(agent, upstream.port)  # detect_exit_locale is on by default
    sid = new_session(agent, proxy_alias=alias)
    assert geo.seen == []
    navigate(agent, sid)
    assert fake.names(sid) == ["apply-session-settings", "browser_attach"]
    identity = identity_of(fake, sid)
    assert identity is not None
    assert (identity.timezone, identity.locale) == ("Europe/Berlin", "de-DE")
    # looked up through the session's proxy, once: the next operation uses the cache
    assert len(geo.seen) == 1
    assert upstream.seen[-1].username == USER
    navigate(agent, sid)
    assert len(geo.seen) == 1
    assert fake.names(sid)[-1] == "browser_attach"

    # a custom locale wins; the timezone still follows the exit
    pinned = new_session(
        agent, proxy_alias=alias, profile=new_profile(agent, fingerprint_profile=CUSTOM_FP)
    )
    geo.answer = (200, PARIS)
    navigate(agent, pinned)
    identity = identity_of(fake, pinned)
    assert identity is not None
    assert (identity.timezone, identity.locale) == ("Europe/Paris", "de-DE")

    # native identity: nothing looked up, nothing overridden
    native = new_session(
        agent, proxy_alias=alias, profile=new_profile(agent, fingerprint_profile=None)
    )
    seen = len(geo.seen)
    navigate(agent, native)
    assert identity_of(fake, native) is None
    assert len(geo.seen) == seen


def test_failed_lookup_keeps_the_fingerprint_and_says_why(
    agent: AgentProcess, fake: FakeBrowser, geo: GeoService, upstream: UpstreamProxy
) -> None:
    geo.answer = (429, b'{"error":"rate limited"}')
    alias = new_proxy(agent, upstream.port)
    sid = new_session(
        agent, proxy_alias=alias, profile=new_profile(agent, fingerprint_profile=CUSTOM_FP)
    )
    navigate(agent, sid)
    identity = identity_of(fake, sid)
    assert identity is not None
    assert (identity.timezone, identity.locale) == ("Europe/Berlin", "de-DE")  # as saved
    number = int(sid.removeprefix("Session"))
    log = (agent.data_dir / "Logs").rglob(f"*{number}*")
    lines = [line for path in log if path.is_file() for line in path.read_text().splitlines()]
    assert any("session.exit_locale_failed" in line and "HTTP 429" in line for line in lines)
    # not retried by every operation while the service fails
    seen = len(geo.seen)
    navigate(agent, sid)
    assert len(geo.seen) == seen


def test_without_detection_the_provider_country_else_the_users_language(
    agent: AgentProcess, fake: FakeBrowser, geo: GeoService, upstream: UpstreamProxy
) -> None:
    y = new_proxy(
        agent,
        upstream.port,
        detect_exit_locale=False,
        providery={"enabled": True, "country": "fr"},
    )
    x = new_proxy(
        agent,
        upstream.port,
        detect_exit_locale=False,
        providerx_enabled=True,
        providerx_location_parameter="cc",
        providerx_location_value="jp",
    )
    plain = new_proxy(agent, upstream.port, detect_exit_locale=False)
    expected = {
        y: ("Europe/Paris", "fr-FR"),
        x: ("Asia/Tokyo", "ja-JP"),
        # the template's timezone (never the machine's through a proxy), the user's language
        plain: ("UTC", "pt-BR"),
    }
    for alias, (timezone, locale) in expected.items():
        sid = new_session(agent, proxy_alias=alias)
        navigate(agent, sid)
        identity = identity_of(fake, sid)
        assert identity is not None
        assert (identity.timezone, identity.locale) == (timezone, locale), alias
    assert geo.seen == []


def test_rotation_looks_the_exit_up_again(
    agent: AgentProcess, fake: FakeBrowser, geo: GeoService, upstream: UpstreamProxy
) -> None:
    alias = new_proxy(agent, upstream.port, providery={"enabled": True, "country": "de"})
    sid = new_session(agent, proxy_alias=alias)
    navigate(agent, sid)
    assert identity_of(fake, sid).timezone == "Europe/Berlin"  # type: ignore[union-attr]
    geo.answer = (200, PARIS)
    agent.ok("POST", f"/v1/proxies/{alias}/rotate-session")
    # the new route's exit, looked up and pushed before the rotation was answered
    assert len(geo.seen) == 2
    assert fake.names(sid)[-1] == "apply-session-settings"
    identity = identity_of(fake, sid)
    assert identity is not None
    assert (identity.timezone, identity.locale) == ("Europe/Paris", "fr-FR")
    navigate(agent, sid)
    assert fake.names(sid)[-1] == "browser_attach"
    assert len(geo.seen) == 2


# --- point 3: route changes reach the host before they are answered ----------------------------


def test_route_changes_are_pushed_before_the_answer(
    agent: AgentProcess, fake: FakeBrowser, geo: GeoService, upstream: UpstreamProxy
) -> None:
    first = new_proxy(agent, upstream.port, detect_exit_locale=False)
    second = new_proxy(agent, upstream.port)
    sid = new_session(agent, proxy_alias=first)
    navigate(agent, sid)
    base = agent.ok("GET", "/v1/health")["browser_proxy_port"]
    port = base + int(sid.removeprefix("Session")) - 1
    assert fake.settings[sid].proxy_port == port

    # direct: the host held it when the PATCH answered (the fake host answers only after
    # recording the operation, and the agent waits for that answer)
    agent.ok("PATCH", f"/v1/sessions/{sid}", {"proxy_alias": None})
    after = time.monotonic()
    op = fake.named("apply-session-settings", sid)[-1]
    assert op.at < after
    assert (op.params.settings.proxy_port, op.params.settings.trust) == (None, None)

    # to another proxy (detection on): route, trust and exit locale in one push
    agent.ok("PATCH", f"/v1/sessions/{sid}", {"proxy_alias": second})
    settings = applied(fake, sid)[-1]
    assert settings.proxy_port == port
    assert settings.trust == bp.ProxyTrust(mode="system")
    assert settings.identity is not None
    assert settings.identity.timezone == "Europe/Berlin"
    assert fake.names(sid)[-1] == "apply-session-settings"

    # a navigate's `proxy` that changes it
    navigate(agent, sid, proxy=first)
    assert fake.names(sid)[-2:] == ["apply-session-settings", "browser_attach"]
    assert fake.settings[sid].identity.timezone == "UTC"  # type: ignore[union-attr]

    # the proxy's detection switched on: pushed with the PATCH
    agent.ok("PATCH", f"/v1/proxies/{first}", {"detect_exit_locale": True})
    assert fake.names(sid)[-1] == "apply-session-settings"
    assert fake.settings[sid].identity.timezone == "Europe/Berlin"  # type: ignore[union-attr]

    # deleting the proxy detaches the session: direct at once
    agent.ok("DELETE", f"/v1/proxies/{first}")
    assert fake.names(sid)[-1] == "apply-session-settings"
    assert (fake.settings[sid].proxy_port, fake.settings[sid].trust) == (None, None)


def test_an_unavailable_host_does_not_fail_the_change(
    agent: AgentProcess, fake: FakeBrowser, upstream: UpstreamProxy
) -> None:
    alias = new_proxy(agent, upstream.port, detect_exit_locale=False)
    sid = new_session(agent)
    navigate(agent, sid)
    fake.script["apply-session-settings"] = lambda p: (
        0.0,
        bp.ApiError.of(bp.ErrorId.BROWSER_UNAVAILABLE, "restarting"),
    )
    data = agent.ok("PATCH", f"/v1/sessions/{sid}", {"proxy_alias": alias})
    assert data["session"]["proxy_alias"] == alias  # saved
    fake.script.clear()
    navigate(agent, sid)  # the settings go with the next operation
    assert fake.names(sid)[-2:] == ["apply-session-settings", "browser_attach"]
    assert fake.settings[sid].proxy_port is not None


# --- point 4: trust ----------------------------------------------------------------------------


def test_trust_follows_the_proxys_tls(
    agent: AgentProcess, fake: FakeBrowser, upstream: UpstreamProxy
) -> None:
    bundle = certificate("svc identity test CA")
    alias = new_proxy(agent, upstream.port, detect_exit_locale=False, tls={"certificates": bundle})
    sid = new_session(agent, proxy_alias=alias)
    navigate(agent, sid)
    trust = fake.settings[sid].trust
    assert trust is not None
    assert (trust.mode, trust.certificates) == ("system", bundle)

    agent.ok("PATCH", f"/v1/proxies/{alias}", {"tls": {"mode": "providery"}})
    assert fake.names(sid)[-1] == "apply-session-settings"  # pushed with the PATCH
    assert fake.settings[sid].trust == bp.ProxyTrust(mode="providery")

    direct = new_session(agent)
    navigate(agent, direct)
    assert fake.settings[direct].trust is None
