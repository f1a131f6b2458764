"""Profile routes end to end against the real agent process (spec 1 §2 Profile, §4 Profiles)."""

from __future__ import annotations

import base64
import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import apsw
import pytest

from agent import transfers
from bridge_protocol import browser_data
from bridge_protocol.browser_data import StagedCookie

from .agentproc import AgentProcess

_counter = itertools.count(1)
BUILTIN_ID = "00000000-0000-0000-0000-000000000000"
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def new_name(prefix: str = "Profile ") -> str:
    return f"{prefix}{next(_counter)}"


def create(agent: AgentProcess, **fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"name": new_name()}
    body.update(fields)
    profile: dict[str, Any] = agent.ok("POST", "/v1/profiles", body)["profile"]
    return profile


def invalid(agent: AgentProcess, method: str, path: str, body: Any) -> str:
    status, error = agent.error(method, path, body)
    assert (status, error["id"]) == (422, "VALIDATION_FAILED"), error
    field: str = error["details"]["field"]
    return field


def fingerprint(**changes: Any) -> dict[str, Any]:
    fp: dict[str, Any] = {
        "schema_version": 1,
        "seed": "0123456789abcdef",
        "platform": "Win32",
        "browser_brand": "Chromium",
        "browser_version": "140.0.7339.225",
        "user_agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/140.0.0.0",
        "locale": "fr-FR",
        "timezone": "Europe/Paris",
        "network_profile": "broadband",
        "hardware_concurrency": 4,
        "device_memory_gib": 8,
        "max_touch_points": 0,
        "screen": {
            "width": 1536,
            "height": 864,
            "available_height": 824,
            "device_scale_factor": 1.25,
        },
        "graphics_profile": "generic-mesa",
        "storage_quota_bytes": 1000000,
        "canvas_noise_mode": "seeded",
        "audio_noise_mode": "off",
    }
    fp.update(changes)
    return fp


# --- create, list, patch, delete -----------------------------------------------------------------


def test_create_list_patch_delete(agent: AgentProcess) -> None:
    profile = create(
        agent,
        adblock_enabled=False,
        image_blocking_mode="over_limit",
        image_size_limit_kb=300,
    )
    assert UUID.match(profile["id"])
    assert {
        k: v for k, v in profile.items() if k not in ("id", "created_at", "fingerprint_profile")
    } == {
        "name": profile["name"],
        "proxy_alias": None,
        "adblock_enabled": False,
        "image_blocking_mode": "over_limit",
        "image_size_limit_kb": 300,
        "includes_cookies": False,
        "includes_passwords": False,
        "is_builtin": False,
    }
    assert isinstance(profile["created_at"], int)
    assert profile in agent.ok("GET", "/v1/profiles")["profiles"]

    path = f"/v1/profiles/{profile['id']}"
    renamed = new_name("Renamed ")
    patched = agent.ok("PATCH", path, {"name": renamed, "image_blocking_mode": "all"})["profile"]
    assert patched == profile | {"name": renamed, "image_blocking_mode": "all"}
    assert agent.ok("PATCH", path, {})["profile"] == patched
    assert agent.ok("DELETE", path.upper().replace("/V1/PROFILES/", "/v1/profiles/")) == {
        "deleted_id": profile["id"]
    }
    assert all(p["id"] != profile["id"] for p in agent.ok("GET", "/v1/profiles")["profiles"])


def test_list_is_sorted_by_name_and_holds_only_saved_profiles(agent: AgentProcess) -> None:
    tag = next(_counter)
    for name in (f"zz{tag} b", f"ZZ{tag} a", f"zz{tag} C"):
        create(agent, name=name)
    profiles = agent.ok("GET", "/v1/profiles")["profiles"]
    names = [p["name"] for p in profiles]
    assert [n for n in names if n.lower().startswith(f"zz{tag} ")] == [
        f"ZZ{tag} a",
        f"zz{tag} b",
        f"zz{tag} C",
    ]
    assert names == sorted(names, key=str.casefold)
    assert all(not p["is_builtin"] and p["name"] != "Custom" for p in profiles)


def test_fingerprint_template_null_and_explicit(agent: AgentProcess) -> None:
    template = create(agent)["fingerprint_profile"]
    assert template["schema_version"] == 1
    assert re.fullmatch(r"[0-9a-f]{32}", template["seed"])
    assert template["platform"] == "Linux x86_64"
    assert "Chrome/140." in template["user_agent"]
    assert template["browser_version"].startswith("140.")
    assert set(template["screen"]) == {"width", "height", "available_height", "device_scale_factor"}
    assert create(agent)["fingerprint_profile"]["seed"] != template["seed"]  # one seed each

    native = create(agent, fingerprint_profile=None)
    assert native["fingerprint_profile"] is None
    explicit = create(agent, fingerprint_profile=fingerprint())
    assert explicit["fingerprint_profile"] == fingerprint()
    path = f"/v1/profiles/{explicit['id']}"
    assert (
        agent.ok("PATCH", path, {"fingerprint_profile": None})["profile"]["fingerprint_profile"]
        is None
    )
    back = agent.ok("PATCH", path, {"fingerprint_profile": fingerprint(locale="de-DE")})
    assert back["profile"]["fingerprint_profile"]["locale"] == "de-DE"


def test_names_are_unique_case_insensitively_and_custom_is_reserved(agent: AgentProcess) -> None:
    profile = create(agent, name=new_name("Shop "))
    for name in (profile["name"].upper(), f"  {profile['name'].lower()} ", "Custom", "cUSTOM"):
        status, error = agent.error("POST", "/v1/profiles", {"name": name})
        assert (status, error["id"], error["details"]["field"]) == (409, "CONFLICT", "name")
    other = create(agent)
    status, error = agent.error("PATCH", f"/v1/profiles/{other['id']}", {"name": "CUSTOM"})
    assert (status, error["id"], error["details"]["field"]) == (409, "CONFLICT", "name")
    status, error = agent.error("PATCH", f"/v1/profiles/{other['id']}", {"name": profile["name"]})
    assert (status, error["id"]) == (409, "CONFLICT")
    # Renaming to its own name in another case is fine; names are trimmed.
    same = agent.ok("PATCH", f"/v1/profiles/{other['id']}", {"name": f" {other['name'].upper()} "})
    assert same["profile"]["name"] == other["name"].upper()


def test_builtin_custom_cannot_be_deleted_or_changed(agent: AgentProcess) -> None:
    for raw in (BUILTIN_ID, "Custom", "custom"):
        status, error = agent.error("DELETE", f"/v1/profiles/{raw}")
        assert (status, error["id"], error["details"]) == (
            409,
            "CONFLICT",
            {"id": raw, "builtin": "Custom"},
        )
        status, error = agent.error("PATCH", f"/v1/profiles/{raw}", {"adblock_enabled": False})
        assert (status, error["id"]) == (409, "CONFLICT")


def test_unknown_profile_id(agent: AgentProcess) -> None:
    for raw in ("3f2504e0-4f89-41d3-9a0c-0305e82c3301", "not-a-uuid"):
        for method, body in (("DELETE", None), ("PATCH", {})):
            status, error = agent.error(method, f"/v1/profiles/{raw}", body)
            assert (status, error["id"], error["details"]) == (404, "ROUTE_NOT_FOUND", {"id": raw})


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"block_images": True}, "block_images"),
        ({"name": ""}, "name"),
        ({"name": "   "}, "name"),
        ({"name": "x" * 129}, "name"),
        ({"name": "tab\there"}, "name"),
        ({"name": 5}, "name"),
        ({"adblock_enabled": "yes"}, "adblock_enabled"),
        ({"image_blocking_mode": "some"}, "image_blocking_mode"),
        ({"image_size_limit_kb": 0}, "image_size_limit_kb"),
        ({"image_size_limit_kb": 1_048_577}, "image_size_limit_kb"),
        ({"image_size_limit_kb": 1.5}, "image_size_limit_kb"),
        ({"includes_cookies": None}, "includes_cookies"),
        ({"proxy_alias": ""}, "proxy_alias"),
        ({"fingerprint_profile": "native"}, "fingerprint_profile"),
        (
            {"fingerprint_profile": fingerprint(schema_version=2)},
            "fingerprint_profile.schema_version",
        ),
        ({"fingerprint_profile": fingerprint(extra=1)}, "fingerprint_profile.extra"),
        ({"fingerprint_profile": fingerprint(seed="XYZ")}, "fingerprint_profile.seed"),
        ({"fingerprint_profile": fingerprint(locale="french")}, "fingerprint_profile.locale"),
        (
            {"fingerprint_profile": fingerprint(timezone="Mars/Base")},
            "fingerprint_profile.timezone",
        ),
        (
            {"fingerprint_profile": fingerprint(hardware_concurrency=0)},
            "fingerprint_profile.hardware_concurrency",
        ),
        (
            {"fingerprint_profile": fingerprint(canvas_noise_mode="loud")},
            "fingerprint_profile.canvas_noise_mode",
        ),
        (
            {
                "fingerprint_profile": fingerprint(
                    screen={
                        "width": 0,
                        "height": 1,
                        "available_height": 1,
                        "device_scale_factor": 1,
                    }
                )
            },
            "fingerprint_profile.screen.width",
        ),
        (
            {
                "fingerprint_profile": fingerprint(
                    screen={
                        "width": 9,
                        "height": 10,
                        "available_height": 11,
                        "device_scale_factor": 1,
                    }
                )
            },
            "fingerprint_profile.screen.available_height",
        ),
    ],
)
def test_validation_names_the_field(
    agent: AgentProcess, fields: dict[str, Any], field: str
) -> None:
    body: dict[str, Any] = {"name": new_name()}
    body.update(fields)
    assert invalid(agent, "POST", "/v1/profiles", body) == field
    profile = create(agent)
    assert invalid(agent, "PATCH", f"/v1/profiles/{profile['id']}", fields) == field


def test_proxy_reference(agent: AgentProcess) -> None:
    alias = f"ProfProxy{next(_counter)}"
    agent.ok(
        "POST", "/v1/proxies", {"alias": alias, "upstream_host": "h.example", "upstream_port": 1}
    )
    profile = create(agent, proxy_alias=alias.lower())
    assert profile["proxy_alias"] == alias  # the stored spelling
    status, error = agent.error("POST", "/v1/profiles", {"name": new_name(), "proxy_alias": "Nope"})
    assert (status, error["id"], error["details"]) == (404, "PROXY_NOT_FOUND", {"alias": "Nope"})
    path = f"/v1/profiles/{profile['id']}"
    assert agent.ok("PATCH", path, {"proxy_alias": None})["profile"]["proxy_alias"] is None


# --- session templates ---------------------------------------------------------------------------


def test_sessions_take_the_named_profile(agent: AgentProcess) -> None:
    profile = create(
        agent, adblock_enabled=False, image_blocking_mode="all", image_size_limit_kb=77
    )
    session = agent.ok("POST", "/v1/sessions", {"profile": profile["name"].upper()})["session"]
    assert (session["profile"], session["adblock_enabled"]) == (profile["name"], False)
    assert (session["image_blocking_mode"], session["image_size_limit_kb"]) == ("all", 77)
    # Explicit fields win over the template.
    own = agent.ok("POST", "/v1/sessions", {"profile": profile["name"], "adblock_enabled": True})
    assert own["session"]["adblock_enabled"] is True
    custom = agent.ok("POST", "/v1/sessions", {"profile": "custom"})["session"]
    assert (custom["profile"], custom["adblock_enabled"], custom["image_blocking_mode"]) == (
        "Custom",
        True,
        "none",
    )
    status, error = agent.error("POST", "/v1/sessions", {"profile": "No Such Profile"})
    assert (status, error["id"], error["details"]) == (
        422,
        "VALIDATION_FAILED",
        {"field": "profile"},
    )


def test_the_browser_data_flags_say_what_the_app_staged(agent: AgentProcess) -> None:
    """includes_cookies is true only while the app has staged the profile's cookies (a saved
    sign-in, an imported file: docs/decisions.md "Sign in once"), and a session made from the
    profile then gets a copy for the app to put into its store; includes_passwords is never
    true (svc keeps no passwords). The values never cross the API."""
    for flag in ("includes_cookies", "includes_passwords"):
        assert invalid(agent, "POST", "/v1/profiles", {"name": new_name(), flag: True}) == flag
    profile = create(agent)
    path = f"/v1/profiles/{profile['id']}"
    for flag in ("includes_cookies", "includes_passwords"):
        assert invalid(agent, "PATCH", path, {flag: True}) == flag
    staged = browser_data.staged_cookies(agent.data_dir, profile["id"])
    cookies = [
        StagedCookie("sid", "s3cret", "example.test", http_only=True, expires=4102444800.0),
        StagedCookie("pref", "dark", ".example.test", same_site="lax"),
    ]
    browser_data.write_private(staged, browser_data.encode(cookies))
    changed = agent.ok("PATCH", path, {"includes_cookies": True})["profile"]
    assert changed["includes_cookies"] is True
    assert "s3cret" not in json.dumps(agent.ok("GET", "/v1/profiles"))

    def seed(session: dict[str, Any]) -> Path:
        tab = agent.data_dir / "Browser" / f"Tab-{session['id'].removeprefix('Session')}"
        return browser_data.seed_cookies(tab)

    made = agent.ok("POST", "/v1/sessions", {"profile": profile["name"]})["session"]
    assert browser_data.decode(seed(made).read_bytes()) == cookies
    other = agent.ok("POST", "/v1/sessions", {})["session"]  # another profile's: none
    assert not seed(other).exists()
    # off: the staged cookies go, and later sessions start without them
    assert agent.ok("PATCH", path, {"includes_cookies": False})["profile"]["includes_cookies"] is (
        False
    )
    assert not staged.exists()
    later = agent.ok("POST", "/v1/sessions", {"profile": profile["name"]})["session"]
    assert not seed(later).exists()
    # a deleted profile's staged data goes with it
    browser_data.write_private(staged, browser_data.encode(cookies))
    agent.ok("DELETE", path)
    assert not staged.parent.exists()
    for s in (made, other, later):
        agent.ok("DELETE", f"/v1/sessions/{s['id']}")


def _set_default(agent: AgentProcess, name: str | None) -> None:
    """What the host app does: the default profile lives in the store's metadata."""
    db = apsw.Connection(str(agent.data_dir / "svc-agent.sqlite3"))
    db.setbusytimeout(5000)
    try:
        with db:
            db.execute("DELETE FROM metadata WHERE key='default_profile'")
            if name is not None:
                db.execute("INSERT INTO metadata VALUES('default_profile', ?)", (name,))
    finally:
        db.close()


def test_sessions_take_the_default_profile_else_custom(
    make_agent: Callable[..., AgentProcess],
) -> None:
    agent = make_agent()
    assert agent.ok("POST", "/v1/sessions")["session"]["profile"] == "Custom"
    profile = create(agent, name="Default One", image_blocking_mode="all")
    _set_default(agent, "default one")
    session = agent.ok("POST", "/v1/sessions")["session"]
    assert (session["profile"], session["image_blocking_mode"]) == ("Default One", "all")
    # The default follows a rename, and deleting the profile falls back to Custom.
    agent.ok("PATCH", f"/v1/profiles/{profile['id']}", {"name": "Default Two"})
    assert agent.ok("POST", "/v1/sessions")["session"]["profile"] == "Default Two"
    agent.ok("DELETE", f"/v1/profiles/{profile['id']}")
    assert agent.ok("POST", "/v1/sessions")["session"]["profile"] == "Custom"
    # A default naming no saved profile is ignored.
    _set_default(agent, "Gone")
    assert agent.ok("POST", "/v1/sessions")["session"]["profile"] == "Custom"


def test_the_default_profile_chosen_in_the_app_settings_reaches_the_agent(
    make_agent: Callable[..., AgentProcess],
) -> None:
    """Issue 16 point 5: the host app saves its Settings to app-settings.json in the shared data
    folder; a change of its default_profile becomes the agent's default."""
    agent = make_agent()
    settings = agent.data_dir / "app-settings.json"

    def choose(name: str) -> None:
        settings.write_text(json.dumps({"default_profile": name, "plan": "pro"}))

    choose("Chosen")  # not saved yet: sessions take Custom until it is
    assert agent.ok("POST", "/v1/sessions")["session"]["profile"] == "Custom"
    profile = create(agent, name="Chosen", adblock_enabled=False)
    session = agent.ok("POST", "/v1/sessions")["session"]
    assert (session["profile"], session["adblock_enabled"]) == ("Chosen", False)
    # an explicit profile wins
    assert agent.ok("POST", "/v1/sessions", {"profile": "Custom"})["session"]["profile"] == "Custom"
    # a rename is followed while the setting is unchanged
    agent.ok("PATCH", f"/v1/profiles/{profile['id']}", {"name": "Renamed"})
    assert agent.ok("POST", "/v1/sessions")["session"]["profile"] == "Renamed"
    choose("Custom")
    assert agent.ok("POST", "/v1/sessions")["session"]["profile"] == "Custom"
    choose("renamed")  # names match case-insensitively
    assert agent.ok("POST", "/v1/sessions")["session"]["profile"] == "Renamed"
    settings.write_text("{not json")  # a damaged file changes nothing
    assert agent.ok("POST", "/v1/sessions")["session"]["profile"] == "Renamed"


# --- plan ----------------------------------------------------------------------------------------


def test_free_plan_allows_one_custom_profile(make_agent: Callable[..., AgentProcess]) -> None:
    free = make_agent(env={"SVC_PLAN": "free"})
    status, error = free.error("POST", "/v1/profiles", {"name": "Proxied", "proxy_alias": "Any"})
    assert (status, error["details"]) == (403, {"feature": "proxies", "plan": "free"})
    first = create(free, name="Only")
    expected = {"feature": "additional_custom_profiles", "plan": "free"}
    status, error = free.error("POST", "/v1/profiles", {"name": "Second"})
    assert (status, error["id"], error["details"]) == (403, "PRO_REQUIRED", expected)
    exported = free.ok("POST", "/v1/profile-transfers/export", {"name": "Only"})
    body = {"contents_base64": exported["contents_base64"], "name": "Copy"}
    status, error = free.error("POST", "/v1/profile-transfers/import", body)
    assert (status, error["id"], error["details"]) == (403, "PRO_REQUIRED", expected)
    # Editing and deleting the one profile stay available; then another may be made.
    free.ok("PATCH", f"/v1/profiles/{first['id']}", {"adblock_enabled": False})
    free.ok("DELETE", f"/v1/profiles/{first['id']}")
    create(free, name="Second")


# --- transfers -----------------------------------------------------------------------------------


def test_export_and_import(agent: AgentProcess, make_agent: Callable[..., AgentProcess]) -> None:
    alias = f"XferProxy{next(_counter)}"
    proxy = agent.ok(
        "POST",
        "/v1/proxies",
        {
            "alias": alias,
            "upstream_host": "h.example",
            "upstream_port": 3128,
            "username": "acct",
            "password": "topsecret",
            "providery": {"enabled": True, "country": "nl"},
        },
    )["proxy"]
    profile = create(
        agent,
        name=new_name("Export Me "),
        proxy_alias=alias,
        adblock_enabled=False,
        image_blocking_mode="over_limit",
        image_size_limit_kb=64,
        fingerprint_profile=fingerprint(),
    )
    exported = agent.ok("POST", "/v1/profile-transfers/export", {"name": profile["name"].lower()})
    assert exported["filename"] == profile["name"].replace(" ", "_") + ".svcprofile"
    assert exported["credentials_included"] is False
    raw = base64.b64decode(exported["contents_base64"])
    assert raw.startswith(b"SQLite format 3\x00")
    assert b"topsecret" not in raw
    assert b"acct" not in raw

    # Same agent: the existing proxy is linked, never overwritten.
    name = new_name("Imported ")
    imported = agent.ok(
        "POST",
        "/v1/profile-transfers/import",
        {"contents_base64": exported["contents_base64"], "name": name},
    )
    assert imported["proxy_created"] is False
    same = {
        "proxy_alias",
        "adblock_enabled",
        "image_blocking_mode",
        "image_size_limit_kb",
        "fingerprint_profile",
    }
    assert {k: imported["profile"][k] for k in same} == {k: profile[k] for k in same}
    status, error = agent.error(
        "POST", "/v1/profile-transfers/import", {"contents_base64": exported["contents_base64"]}
    )
    assert (status, error["id"], error["details"]["field"]) == (409, "CONFLICT", "name")

    # Another installation: the proxy is created from the archive, without credentials.
    other = make_agent()
    fresh = other.ok(
        "POST", "/v1/profile-transfers/import", {"contents_base64": exported["contents_base64"]}
    )
    assert fresh["proxy_created"] is True
    assert fresh["profile"]["name"] == profile["name"]
    assert other.ok("GET", f"/v1/proxies/{alias}")["proxy"] == proxy | {
        "username": None,
        "password_set": False,
    }


def test_transfer_errors(agent: AgentProcess) -> None:
    status, error = agent.error("POST", "/v1/profile-transfers/export", {"name": "Nobody"})
    assert (status, error["id"], error["details"]["field"]) == (422, "VALIDATION_FAILED", "name")
    status, error = agent.error("POST", "/v1/profile-transfers/export", {"name": "Custom"})
    assert (status, error["id"]) == (409, "CONFLICT")
    assert invalid(agent, "POST", "/v1/profile-transfers/export", {}) == "name"
    assert invalid(agent, "POST", "/v1/profiles", {"adblock_enabled": True}) == "name"
    fp = {k: v for k, v in fingerprint().items() if k != "seed"}
    body = {"name": new_name(), "fingerprint_profile": fp}
    assert invalid(agent, "POST", "/v1/profiles", body) == "fingerprint_profile.seed"
    assert invalid(agent, "POST", "/v1/profile-transfers/export", {"name": "x", "id": 1}) == "id"
    proxy_archive = transfers.Archive(kind="proxy", version=6, credentials_included=False)
    proxy_archive.proxies.append(
        {"alias": "P", "upstream_host": "h", "upstream_port": 1, "settings": {}}
    )
    dangling = transfers.Archive(kind="profile", version=6, credentials_included=False)
    dangling.profiles.append({"name": new_name(), "proxy_alias": "Missing", "settings": {}})
    bad_policy = transfers.Archive(kind="profile", version=6, credentials_included=False)
    bad_policy.profiles.append(
        {"name": new_name(), "proxy_alias": None, "settings": {"image_size_limit_kb": 0}}
    )
    for contents in (
        "not base64!",
        base64.b64encode(b'{"name": "legacy json"}').decode(),
        transfers.encode(proxy_archive),
        transfers.encode(dangling),
        transfers.encode(bad_policy),
    ):
        body = {"contents_base64": contents}
        assert invalid(agent, "POST", "/v1/profile-transfers/import", body) == "contents_base64"
    # Old versions are read; one without a fingerprint gets the template, as on creation.
    old = transfers.Archive(kind="profile", version=3, credentials_included=False)
    name = new_name("Old ")
    old.profiles.append({"name": name, "proxy_alias": None, "settings": {"adblock_enabled": False}})
    imported = agent.ok(
        "POST", "/v1/profile-transfers/import", {"contents_base64": transfers.encode(old)}
    )["profile"]
    assert (imported["name"], imported["adblock_enabled"]) == (name, False)
    assert imported["fingerprint_profile"]["schema_version"] == 1


def test_profiles_and_proxies_survive_kill_9(make_agent: Callable[..., AgentProcess]) -> None:
    agent = make_agent()
    secret = (agent.data_dir / "agent-secret").read_text()
    proxy = agent.ok(
        "POST",
        "/v1/proxies",
        {"alias": "Durable", "upstream_host": "h.example", "upstream_port": 1, "password": "pw"},
    )["proxy"]
    profile = create(agent, name="Durable Profile", proxy_alias="Durable")
    agent.kill9()
    again = make_agent(data_dir=agent.data_dir)
    assert again.ok("GET", "/v1/profiles")["profiles"] == [profile]
    assert again.ok("GET", "/v1/proxies")["proxies"] == [proxy]
    # The app-authorization secret is made anew at every start.
    assert (again.data_dir / "agent-secret").read_text() != secret


def test_an_archived_profile_without_a_fingerprint_gets_the_template(agent: AgentProcess) -> None:
    """As on creation: omitted -> the compatibility template (a seed of its own), null ->
    native identity."""
    for key, present in (("template", False), ("native", True)):
        settings: dict[str, Any] = {"adblock_enabled": True}
        if present:
            settings["fingerprint_profile"] = None
        archive = transfers.Archive(kind="profile", version=6, credentials_included=False)
        name = new_name(f"Archived {key} ")
        archive.profiles.append({"name": name, "proxy_alias": None, "settings": settings})
        imported = agent.ok(
            "POST", "/v1/profile-transfers/import", {"contents_base64": transfers.encode(archive)}
        )["profile"]
        fp = imported["fingerprint_profile"]
        if present:
            assert fp is None
        else:
            assert fp["schema_version"] == 1
            assert len(fp["seed"]) == 32
