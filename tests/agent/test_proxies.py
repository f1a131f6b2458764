"""Proxy routes end to end against the real agent process (spec 1 §2 Proxy, §4 Proxies, §7)."""

from __future__ import annotations

import base64
import datetime
import itertools
import json
import socket
import stat
from collections.abc import Callable
from typing import Any

import apsw
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from agent import transfers

from ..archives import padded_proxy_archive
from .agentproc import AgentProcess

_counter = itertools.count(1)
AUTH = "X-Svc-App-Authorization"


def new_alias(prefix: str = "px") -> str:
    return f"{prefix}{next(_counter)}"


def create(agent: AgentProcess, **fields: Any) -> dict[str, Any]:
    body = {"alias": new_alias(), "upstream_host": "proxy.example.com", "upstream_port": 8080}
    body.update(fields)
    proxy: dict[str, Any] = agent.ok("POST", "/v1/proxies", body)["proxy"]
    return proxy


def invalid(agent: AgentProcess, method: str, path: str, body: Any) -> str:
    """The details.field of a VALIDATION_FAILED answer (HTTP 422)."""
    status, error = agent.error(method, path, body)
    assert (status, error["id"]) == (422, "VALIDATION_FAILED"), error
    field: str = error["details"]["field"]
    return field


def sticky_ids(agent: AgentProcess, alias: str) -> dict[str, str]:
    """The sticky ids kept in the store (they are not part of the resource)."""
    db = apsw.Connection(str(agent.data_dir / "svc-agent.sqlite3"), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        rows = db.execute(
            "SELECT settings FROM proxies WHERE alias_key=?", (alias.lower(),)
        ).fetchall()
    finally:
        db.close()
    ids: dict[str, str] = json.loads(str(rows[0][0])).get("sticky_ids", {})
    return ids


def certificate(name: str) -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.PEM).decode()


# --- create, read, list --------------------------------------------------------------------------


def test_create_read_list_and_password_never_returned(agent: AgentProcess) -> None:
    alias = new_alias("Mixed")
    response = agent.request(
        "POST",
        "/v1/proxies",
        {
            "alias": alias,
            "upstream_host": "Proxy.Example.com",
            "upstream_port": 3128,
            "username": "user",
            "password": "s3cret-pw",
        },
    )
    assert response.status_code == 200
    assert "s3cret-pw" not in response.text
    proxy = response.json()["data"]["proxy"]
    assert proxy == {
        "alias": alias,
        "upstream_host": "proxy.example.com",
        "upstream_port": 3128,
        "username": "user",
        "password_set": True,
        "providery": {"enabled": False, "country": None, "state": None, "city": None, "asn": None},
        "tls": {"mode": "system"},
        "locale": None,
        "detect_exit_locale": True,
    }
    # The alias is looked up case-insensitively; providerx is omitted when never configured.
    assert agent.ok("GET", f"/v1/proxies/{alias.upper()}")["proxy"] == proxy
    later = create(agent)
    listing = agent.request("GET", "/v1/proxies")
    assert "s3cret-pw" not in listing.text
    aliases = [p["alias"] for p in listing.json()["data"]["proxies"]]
    assert aliases.index(alias) < aliases.index(later["alias"])  # creation order


def test_alias_rules(agent: AgentProcess) -> None:
    for bad in ("1abc", "a b", "a" * 65, "", "ab.c", "-x", "Ünicode"):
        body = {"alias": bad, "upstream_host": "h.example", "upstream_port": 1}
        assert invalid(agent, "POST", "/v1/proxies", body) == "alias"
    uuid_alias = "abcdef01-2345-6789-abcd-ef0123456789"
    body = {"alias": uuid_alias, "upstream_host": "h.example", "upstream_port": 1}
    assert invalid(agent, "POST", "/v1/proxies", body) == "alias"
    longest = create(agent, alias="L" + "x" * 63)
    assert len(longest["alias"]) == 64
    first = create(agent)
    status, error = agent.error(
        "POST",
        "/v1/proxies",
        {"alias": first["alias"].upper(), "upstream_host": "h.example", "upstream_port": 1},
    )
    assert (status, error["id"], error["details"]["field"]) == (409, "CONFLICT", "alias")
    # The alias is immutable: PATCH has no such field.
    assert invalid(agent, "PATCH", f"/v1/proxies/{first['alias']}", {"alias": "Other"}) == "alias"


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"block_images": True}, "block_images"),
        ({"upstream_port": "80"}, "upstream_port"),
        ({"upstream_port": 0}, "upstream_port"),
        ({"upstream_port": 65536}, "upstream_port"),
        ({"upstream_host": "http://proxy.example.com"}, "upstream_host"),
        ({"upstream_host": "proxy.example.com:8080"}, "upstream_host"),
        ({"upstream_host": ""}, "upstream_host"),
        ({"username": "a:b"}, "username"),
        ({"username": 7}, "username"),
        ({"password": "line\nbreak"}, "password"),
        ({"locale": "not a locale"}, "locale"),
        ({"detect_exit_locale": "yes"}, "detect_exit_locale"),
        ({"providerx_enabled": 1}, "providerx_enabled"),
        ({"providerx_location_parameter": "zz"}, "providerx_location_parameter"),
        ({"providerx_location_parameter": "cc"}, "providerx_location_value"),
        ({"providerx_location_value": "us"}, "providerx_location_parameter"),
        (
            {"providerx_location_parameter": "st", "providerx_location_value": "new york"},
            "providerx_location_value",
        ),
        ({"providery": {"country": "us"}}, "providery.enabled"),
        ({"providery": {"enabled": True, "zip": "1"}}, "providery.zip"),
        ({"providery": {"enabled": True, "country": "usa"}}, "providery.country"),
        ({"providery": {"enabled": True, "state": "ny"}}, "providery.state"),
        ({"providery": {"enabled": True, "city": "paris"}}, "providery.city"),
        ({"providery": {"enabled": True, "country": "us", "city": "new york"}}, "providery.city"),
        ({"providery": {"enabled": True, "country": "fr", "state": "île"}}, "providery.state"),
        ({"providery": {"enabled": True, "asn": "AS123"}}, "providery.asn"),
        (
            {"providerx_enabled": True, "providery": {"enabled": True}},
            "providery.enabled",
        ),
        ({"tls": {}}, "tls"),
        ({"tls": {"mode": "system", "certificates": "x"}}, "tls"),
        ({"tls": {"mode": "insecure"}}, "tls.mode"),
        ({"tls": {"certificates": "not a certificate"}}, "tls.certificates"),
        ({"tls": {"certificates": ""}}, "tls.certificates"),
    ],
)
def test_create_validation_names_the_field(
    agent: AgentProcess, fields: dict[str, Any], field: str
) -> None:
    body = {"alias": new_alias(), "upstream_host": "proxy.example.com", "upstream_port": 8080}
    body.update(fields)
    assert invalid(agent, "POST", "/v1/proxies", body) == field


def test_create_malformed_bodies(agent: AgentProcess) -> None:
    response = agent.client.post(
        "/v1/proxies", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert (response.status_code, response.json()["error"]["id"]) == (400, "INVALID_REQUEST")
    status, error = agent.error("POST", "/v1/proxies")
    assert (status, error["id"]) == (422, "VALIDATION_FAILED")
    missing = {"alias": new_alias(), "upstream_host": "h.example"}
    assert invalid(agent, "POST", "/v1/proxies", missing) == "upstream_port"
    export = {"alias": "x"}
    assert invalid(agent, "POST", "/v1/proxy-transfers/export", export) == "include_credentials"
    response = agent.client.post("/v1/proxies", content=b"alias=x")
    assert response.json()["error"]["id"] == "UNSUPPORTED_MEDIA_TYPE"
    status, error = agent.error("PUT", "/v1/proxies/anything", {})
    assert (status, error["id"]) == (405, "METHOD_NOT_ALLOWED")


def test_providery_is_trimmed_lowercased_and_cleared(agent: AgentProcess) -> None:
    proxy = create(
        agent,
        providery={
            "enabled": True,
            "country": " US ",
            "state": "NY",
            "city": " NewYork1 ",
            "asn": " 7922 ",
        },
    )
    assert proxy["providery"] == {
        "enabled": True,
        "country": "us",
        "state": "ny",
        "city": "newyork1",
        "asn": "7922",
    }
    blank = create(agent, providery={"enabled": True, "country": "  ", "asn": ""})
    assert blank["providery"] == {
        "enabled": True,
        "country": None,
        "state": None,
        "city": None,
        "asn": None,
    }


def test_certificate_bundle_rules(agent: AgentProcess) -> None:
    bundle = certificate("one") + certificate("two")
    proxy = create(agent, tls={"certificates": bundle})
    assert proxy["tls"]["mode"] is None
    assert proxy["tls"]["certificate_count"] == 2
    assert proxy["tls"]["certificates"].count("BEGIN CERTIFICATE") == 2
    one = certificate("many")
    body = {"alias": new_alias(), "upstream_host": "h.example", "upstream_port": 1}
    too_many = body | {"tls": {"certificates": one * 17}}
    assert invalid(agent, "POST", "/v1/proxies", too_many) == "tls.certificates"
    too_big = body | {"tls": {"certificates": one + "\n" * (64 * 1024)}}
    assert invalid(agent, "POST", "/v1/proxies", too_big) == "tls.certificates"
    key = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    with_key = body | {"tls": {"certificates": one + key.decode()}}
    assert invalid(agent, "POST", "/v1/proxies", with_key) == "tls.certificates"
    # A mode replaces the bundle (they are mutually exclusive); omission keeps the setting.
    path = f"/v1/proxies/{proxy['alias']}"
    assert agent.ok("PATCH", path, {"upstream_port": 1})["proxy"]["tls"] == proxy["tls"]
    assert agent.ok("PATCH", path, {"tls": {"mode": "providery"}})["proxy"]["tls"] == {
        "mode": "providery"
    }


# --- patch ---------------------------------------------------------------------------------------


def test_patch_is_a_true_partial_update(agent: AgentProcess) -> None:
    proxy = create(agent, username="u1", password="p1", locale="de-DE", detect_exit_locale=False)
    path = f"/v1/proxies/{proxy['alias']}"
    patched = agent.ok("PATCH", path, {"upstream_host": "other.example", "upstream_port": 9})
    assert patched["proxy"] == proxy | {"upstream_host": "other.example", "upstream_port": 9}
    assert agent.ok("PATCH", path, {})["proxy"] == patched["proxy"]
    assert agent.ok("PATCH", path, {"password": None})["proxy"]["password_set"] is False
    assert agent.ok("PATCH", path, {"password": "p2"})["proxy"]["password_set"] is True
    cleared = agent.ok("PATCH", path, {"username": None, "locale": None})["proxy"]
    assert (cleared["username"], cleared["locale"], cleared["password_set"]) == (None, None, True)
    assert cleared["detect_exit_locale"] is False  # preserved when omitted
    assert invalid(agent, "PATCH", path, {"upstream_port": -1}) == "upstream_port"
    assert invalid(agent, "PATCH", path, {"providery": None}) == "providery"
    assert invalid(agent, "PATCH", path, {"tls": None}) == "tls"


def test_patch_providers(agent: AgentProcess) -> None:
    proxy = create(agent, providery={"enabled": True, "country": "de", "city": "berlin"})
    path = f"/v1/proxies/{proxy['alias']}"
    # Omitting providery keeps it; supplying it replaces it (omitted targeting fields clear).
    assert agent.ok("PATCH", path, {"locale": "en"})["proxy"]["providery"] == proxy["providery"]
    replaced = agent.ok("PATCH", path, {"providery": {"enabled": True, "country": "fr"}})
    assert replaced["proxy"]["providery"] == {
        "enabled": True,
        "country": "fr",
        "state": None,
        "city": None,
        "asn": None,
    }
    assert invalid(agent, "PATCH", path, {"providerx_enabled": True}) == "providerx_enabled"
    agent.ok("PATCH", path, {"providery": {"enabled": False}})
    px = agent.ok(
        "PATCH",
        path,
        {
            "providerx_enabled": True,
            "providerx_location_parameter": "cc",
            "providerx_location_value": "us",
        },
    )["proxy"]["providerx"]
    assert px == {"enabled": True, "location_parameter": "cc", "location_value": "us"}
    assert (
        invalid(agent, "PATCH", path, {"providerx_location_parameter": None})
        == "providerx_location_parameter"
    )
    cleared = agent.ok(
        "PATCH",
        path,
        {"providerx_location_parameter": None, "providerx_location_value": None},
    )["proxy"]["providerx"]
    assert cleared == {"enabled": True, "location_parameter": None, "location_value": None}
    assert invalid(agent, "PATCH", path, {"providery": {"enabled": True}}) == "providery.enabled"


def test_session_render_follows_the_proxy(agent: AgentProcess) -> None:
    proxy = create(agent, providery={"enabled": True, "country": "it"}, locale="it-IT")
    session = agent.ok("POST", "/v1/sessions", {"proxy_alias": proxy["alias"].lower()})["session"]
    assert session["proxy_alias"] == proxy["alias"]  # the stored spelling
    assert session["proxy_country"] == "it"
    assert session["proxy_locale"] == "it-IT"
    assert session["proxy_detect_exit_locale"] is True


# --- not found, delete ---------------------------------------------------------------------------


def test_unknown_alias_is_proxy_not_found(agent: AgentProcess) -> None:
    for method, path, body in (
        ("GET", "/v1/proxies/NoSuchProxy", None),
        ("PATCH", "/v1/proxies/NoSuchProxy", {}),
        ("DELETE", "/v1/proxies/NoSuchProxy", None),
        ("POST", "/v1/proxies/NoSuchProxy/rotate-session", None),
        (
            "POST",
            "/v1/proxy-transfers/export",
            {"alias": "NoSuchProxy", "include_credentials": False},
        ),
    ):
        status, error = agent.error(method, path, body)
        assert (status, error["id"], error["details"]["alias"]) == (
            404,
            "PROXY_NOT_FOUND",
            "NoSuchProxy",
        )
    sid = agent.ok("POST", "/v1/sessions")["session"]["id"]
    for method, path in (("POST", "/v1/sessions"), ("PATCH", f"/v1/sessions/{sid}")):
        status, error = agent.error(method, path, {"proxy_alias": "NoSuchProxy"})
        assert (status, error["id"], error["details"]) == (
            404,
            "PROXY_NOT_FOUND",
            {"alias": "NoSuchProxy"},
        )


def test_delete_detaches_from_sessions_and_profiles(agent: AgentProcess) -> None:
    proxy = create(agent)
    alias = proxy["alias"]
    sid = agent.ok("POST", "/v1/sessions", {"proxy_alias": alias})["session"]["id"]
    profile = agent.ok(
        "POST", "/v1/profiles", {"name": new_alias("profile-for-"), "proxy_alias": alias}
    )["profile"]
    deleted = agent.ok("DELETE", f"/v1/proxies/{alias.lower()}")
    assert deleted == {"deleted_alias": alias, "detached_session_ids": [sid]}
    assert agent.ok("GET", f"/v1/sessions/{sid}")["session"]["proxy_alias"] is None
    profiles = agent.ok("GET", "/v1/profiles")["profiles"]
    assert next(p for p in profiles if p["id"] == profile["id"])["proxy_alias"] is None
    status, error = agent.error("GET", f"/v1/proxies/{alias}")
    assert (status, error["id"]) == (404, "PROXY_NOT_FOUND")


# --- rotate-session and sticky ids ---------------------------------------------------------------


def test_rotate_session_replaces_sticky_ids(agent: AgentProcess) -> None:
    plain = create(agent)
    status, error = agent.error("POST", f"/v1/proxies/{plain['alias']}/rotate-session")
    assert (status, error["id"], error["details"]) == (409, "CONFLICT", {"alias": plain["alias"]})

    proxy = create(
        agent,
        providerx_enabled=True,
        providerx_location_parameter="country",
        providerx_location_value="us",
    )
    alias = proxy["alias"]
    a = agent.ok("POST", "/v1/sessions", {"proxy_alias": alias})["session"]["id"]
    b = agent.ok("POST", "/v1/sessions", {"proxy_alias": alias})["session"]["id"]
    assert agent.ok("POST", f"/v1/proxies/{alias}/rotate-session") == {"proxy": proxy}
    first = sticky_ids(agent, alias)
    assert set(first) == {a, b}
    assert first[a] != first[b]
    # Editing the location keeps the ids; rotation replaces every one of them.
    agent.ok("PATCH", f"/v1/proxies/{alias}", {"providerx_location_value": "ca"})
    assert sticky_ids(agent, alias) == first
    agent.ok("POST", f"/v1/proxies/{alias}/rotate-session")
    second = sticky_ids(agent, alias)
    assert set(second) == {a, b}
    assert not set(second.values()) & set(first.values())
    # Re-enabling managed sessions drops them: new ones are generated at next use.
    agent.ok("PATCH", f"/v1/proxies/{alias}", {"providerx_enabled": False})
    assert sticky_ids(agent, alias) == second
    agent.ok("PATCH", f"/v1/proxies/{alias}", {"providerx_enabled": True})
    assert sticky_ids(agent, alias) == {}


# --- proxy-location ------------------------------------------------------------------------------


def test_proxy_location_errors(agent: AgentProcess) -> None:
    status, error = agent.error("GET", "/v1/sessions/Session999999/proxy-location")
    assert (status, error["id"], error["details"]) == (
        404,
        "SESSION_NOT_FOUND",
        {"id": "Session999999"},
    )
    direct = agent.ok("POST", "/v1/sessions")["session"]["id"]
    status, error = agent.error("GET", f"/v1/sessions/{direct}/proxy-location")
    assert (status, error["id"], error["details"]) == (
        404,
        "PROXY_NOT_FOUND",
        {"id": direct, "alias": None},
    )
    off = create(agent, detect_exit_locale=False)
    sid = agent.ok("POST", "/v1/sessions", {"proxy_alias": off["alias"]})["session"]["id"]
    status, error = agent.error("GET", f"/v1/sessions/{sid}/proxy-location")
    assert (status, error["id"]) == (409, "CONFLICT")
    assert error["details"] == {"alias": off["alias"], "detect_exit_locale": False}
    # With detection on, the lookup goes through the upstream; nothing listens there (the
    # lookups that succeed: tests/agent/test_proxy_location.py).
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    agent.ok(
        "PATCH",
        f"/v1/proxies/{off['alias']}",
        {
            "detect_exit_locale": True,
            "upstream_host": "127.0.0.1",
            "upstream_port": port,
            "username": "locuser",
            "password": "loc-secret-pw",
        },
    )
    status, error = agent.error("GET", f"/v1/sessions/{sid}/proxy-location")
    assert (status, error["id"], error["retryable"]) == (502, "UPSTREAM_UNAVAILABLE", True)
    details = error["details"]
    assert (details["error_source"], details["proxy_alias"]) == ("proxy", off["alias"])
    assert details["source_error"].startswith(f"cannot connect to upstream proxy 127.0.0.1:{port}")
    assert "loc-secret-pw" not in json.dumps(error)


# --- transfers -----------------------------------------------------------------------------------


def test_export_and_import_without_credentials(agent: AgentProcess) -> None:
    proxy = create(
        agent,
        username="acct",
        password="pw",
        providery={"enabled": True, "country": "gb", "asn": "2856"},
        locale="en-GB",
        detect_exit_locale=False,
        tls={"mode": "providery"},
    )
    exported = agent.ok(
        "POST",
        "/v1/proxy-transfers/export",
        {"alias": proxy["alias"], "include_credentials": False},
    )
    assert exported["filename"] == f"{proxy['alias']}.svcproxy"
    assert exported["credentials_included"] is False
    raw = base64.b64decode(exported["contents_base64"])
    assert raw.startswith(b"SQLite format 3\x00")
    assert b"acct" not in raw
    assert b"pw" not in raw.replace(b"providery", b"")
    new = new_alias("Imported")
    imported = agent.ok(
        "POST",
        "/v1/proxy-transfers/import",
        {"contents_base64": exported["contents_base64"], "alias": new},
    )["proxy"]
    assert imported == proxy | {"alias": new, "username": None, "password_set": False}
    # Import never overwrites an existing alias.
    status, error = agent.error(
        "POST", "/v1/proxy-transfers/import", {"contents_base64": exported["contents_base64"]}
    )
    assert (status, error["id"], error["details"]["field"]) == (409, "CONFLICT", "alias")


def test_credentials_need_the_app_header_and_a_passphrase(agent: AgentProcess) -> None:
    secret_file = agent.data_dir / "agent-secret"
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
    secret = secret_file.read_text().strip()
    proxy = create(agent, username="acct", password="hunter2")
    body = {"alias": proxy["alias"], "include_credentials": True, "passphrase": "correct horse"}
    path = "/v1/proxy-transfers/export"
    assert invalid(agent, "POST", path, body) == "include_credentials"
    _, error = agent.error("POST", path, body, headers={AUTH: "wrong"})
    assert (error["id"], error["details"]["field"]) == ("VALIDATION_FAILED", "include_credentials")
    assert error["details"]["header"] == AUTH
    no_pass = body | {"passphrase": ""}
    _, error = agent.error("POST", path, no_pass, headers={AUTH: secret})
    assert (error["id"], error["details"]["field"]) == ("VALIDATION_FAILED", "passphrase")
    plain_with_pass = body | {"include_credentials": False}
    assert invalid(agent, "POST", path, plain_with_pass) == "passphrase"

    exported = agent.ok("POST", path, body, headers={AUTH: secret})
    assert exported["credentials_included"] is True
    raw = base64.b64decode(exported["contents_base64"])
    assert b"hunter2" not in raw
    assert b"acct" not in raw
    new = new_alias("WithCreds")
    imp = {"contents_base64": exported["contents_base64"], "alias": new}
    assert invalid(agent, "POST", "/v1/proxy-transfers/import", imp) == "passphrase"
    wrong = imp | {"passphrase": "wrong"}
    assert invalid(agent, "POST", "/v1/proxy-transfers/import", wrong) == "passphrase"
    imported = agent.ok(
        "POST", "/v1/proxy-transfers/import", imp | {"passphrase": "correct horse"}
    )["proxy"]
    assert (imported["username"], imported["password_set"]) == ("acct", True)


def _archive(version: int, settings: dict[str, Any], alias: str = "Legacy") -> str:
    archive = transfers.Archive(kind="proxy", version=version, credentials_included=False)
    archive.proxies.append(
        {"alias": alias, "upstream_host": "h.example", "upstream_port": 1, "settings": settings}
    )
    return transfers.encode(archive)


def test_import_versions(agent: AgentProcess) -> None:
    settings = {
        "providery": {"enabled": True, "country": "us"},
        "tls": {"mode": "system"},
        "detect_exit_locale": True,
    }
    path = "/v1/proxy-transfers/import"
    v6 = agent.ok("POST", path, {"contents_base64": _archive(6, settings), "alias": new_alias()})
    assert (v6["proxy"]["detect_exit_locale"], v6["proxy"]["providery"]["enabled"]) == (True, True)
    v5 = agent.ok("POST", path, {"contents_base64": _archive(5, settings), "alias": new_alias()})
    assert (v5["proxy"]["detect_exit_locale"], v5["proxy"]["providery"]["enabled"]) == (False, True)
    v3 = agent.ok("POST", path, {"contents_base64": _archive(3, settings), "alias": new_alias()})
    assert v3["proxy"]["providery"] == {
        "enabled": False,
        "country": "us",
        "state": None,
        "city": None,
        "asn": None,
    }
    future = {"contents_base64": _archive(7, settings), "alias": new_alias()}
    _, error = agent.error("POST", path, future)
    assert (error["id"], error["details"]["field"], error["details"]["version"]) == (
        "VALIDATION_FAILED",
        "contents_base64",
        7,
    )


def test_import_rejects_what_is_not_a_proxy_archive(agent: AgentProcess) -> None:
    path = "/v1/proxy-transfers/import"
    legacy_json = base64.b64encode(json.dumps({"alias": "x"}).encode()).decode()
    profile_archive = transfers.Archive(kind="profile", version=6, credentials_included=False)
    profile_archive.profiles.append({"name": "p", "proxy_alias": None, "settings": {}})
    bad_settings = _archive(6, {"providery": {"enabled": True, "country": "usa"}})
    for contents in (
        "%%% not base64",
        legacy_json,
        base64.b64encode(b"SQLite format 3\x00" + b"\x00" * 100).decode(),
        transfers.encode(profile_archive),
        bad_settings,
    ):
        body = {"contents_base64": contents, "alias": new_alias()}
        assert invalid(agent, "POST", path, body) == "contents_base64"
    assert invalid(agent, "POST", path, {"contents_base64": ""}) == "contents_base64"
    assert invalid(agent, "POST", path, {"contents_base64": "x", "alias": "9x"}) == "alias"
    # Transfers are limited to 12 MiB, said as such; a body beyond the route's limit is refused.
    huge = base64.b64encode(b"\x00" * (12 * 1024 * 1024 + 3)).decode()
    status, error = agent.error("POST", path, {"contents_base64": huge})
    assert (status, error["id"]) == (422, "VALIDATION_FAILED")
    assert "limited to 12 MiB" in error["message"]
    status, error = agent.error("POST", path, {"contents_base64": "A" * (17 * 1024 * 1024)})
    assert (status, error["id"]) == (413, "PAYLOAD_TOO_LARGE")


def test_the_largest_archive_is_importable(agent: AgentProcess) -> None:
    """Issue 16 point 6: 12 MiB is 16 MiB in base64, more than the ordinary body limit."""
    raw = padded_proxy_archive(12 * 1024 * 1024)
    body = {"contents_base64": base64.b64encode(raw).decode(), "alias": new_alias("big")}
    imported = agent.ok("POST", "/v1/proxy-transfers/import", body)["proxy"]
    assert imported["alias"] == body["alias"]
    # other routes keep the 16 MiB limit
    status, error = agent.error("POST", "/v1/sessions", {"name": "x" * (16 * 1024 * 1024)})
    assert (status, error["id"]) == (413, "PAYLOAD_TOO_LARGE")


# --- the Free plan -------------------------------------------------------------------------------


def test_free_plan_blocks_proxy_writes_and_use_but_not_reads(
    make_agent: Callable[..., AgentProcess],
) -> None:
    pro = make_agent()
    proxy = create(pro, providery={"enabled": True, "country": "us"}, username="u", password="p")
    alias = proxy["alias"]
    sid = pro.ok("POST", "/v1/sessions", {"proxy_alias": alias})["session"]["id"]
    exported = pro.ok(
        "POST", "/v1/proxy-transfers/export", {"alias": alias, "include_credentials": False}
    )["contents_base64"]
    pro.stop()

    free = make_agent(env={"SVC_PLAN": "free"}, data_dir=pro.data_dir)
    pro_required = {"feature": "proxies", "plan": "free"}
    for method, path, body in (
        ("POST", "/v1/proxies", {"alias": "New", "upstream_host": "h.example", "upstream_port": 1}),
        ("PATCH", f"/v1/proxies/{alias}", {"upstream_port": 2}),
        ("POST", f"/v1/proxies/{alias}/rotate-session", None),
        ("POST", "/v1/proxy-transfers/import", {"contents_base64": exported, "alias": "Copy"}),
        ("GET", f"/v1/sessions/{sid}/proxy-location", None),
        ("PATCH", f"/v1/sessions/{sid}", {"proxy_alias": alias}),
    ):
        status, error = free.error(method, path, body)
        assert (status, error["id"], error["details"]) == (403, "PRO_REQUIRED", pro_required), path
    # Listing, reading, exporting, detaching and deleting stay available.
    assert free.ok("GET", "/v1/proxies")["proxies"] == [proxy]
    assert free.ok("GET", f"/v1/proxies/{alias}")["proxy"] == proxy
    free.ok("POST", "/v1/proxy-transfers/export", {"alias": alias, "include_credentials": False})
    assert (
        free.ok("PATCH", f"/v1/sessions/{sid}", {"proxy_alias": None})["session"]["proxy_alias"]
        is None
    )
    assert free.ok("DELETE", f"/v1/proxies/{alias}")["deleted_alias"] == alias
    assert free.ok("GET", "/v1/proxies")["proxies"] == []


def test_moving_a_session_to_another_proxy_and_back_gives_new_sticky_ids(
    agent: AgentProcess,
) -> None:
    managed = {
        "providerx_enabled": True,
        "providerx_location_parameter": "country",
        "providerx_location_value": "us",
    }
    first = create(agent, **managed)["alias"]
    second = create(agent, **managed)["alias"]
    sid = agent.ok("POST", "/v1/sessions", {"proxy_alias": first})["session"]["id"]
    agent.ok("POST", f"/v1/proxies/{first}/rotate-session")
    original = sticky_ids(agent, first)[sid]
    agent.ok("PATCH", f"/v1/sessions/{sid}", {"proxy_alias": second})
    assert sid not in sticky_ids(agent, first)  # assigning another proxy forgets the old id
    agent.ok("PATCH", f"/v1/sessions/{sid}", {"proxy_alias": first})
    agent.ok("POST", f"/v1/proxies/{first}/rotate-session")
    assert sticky_ids(agent, first)[sid] != original
    agent.ok("DELETE", f"/v1/sessions/{sid}")
    assert sid not in sticky_ids(agent, first)
