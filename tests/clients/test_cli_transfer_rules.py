"""`svc proxy` / `svc profile` without processes: argument parsing into request bodies, the
password from standard input, and the rules of transfer files and certificate bundles."""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from agent import transfers
from clients.cli import files
from clients.cli.commands import proxy_body, read_password, wants_providery
from clients.cli.parser import UsageError, parse
from tests.certs import ca

ALIAS_ARGS = ("--alias", "de-1", "--upstream-host", "proxy.example", "--upstream-port", "8080")


def create_body(*extra: str) -> dict[str, Any]:
    return proxy_body(parse(["proxy", "create", *ALIAS_ARGS, *extra]), update=False)


def update_body(*extra: str, current: dict[str, Any] | None = None) -> dict[str, Any]:
    args = parse(["proxy", "update", "de-1", *extra])
    return proxy_body(args, update=True, current_providery=current)


def test_create_takes_every_option_under_its_api_name() -> None:
    assert create_body() == {
        "alias": "de-1",
        "upstream_host": "proxy.example",
        "upstream_port": 8080,
    }
    body = create_body(
        "--username",
        "me",
        "--password",
        "pw",
        "--providerx-enabled",
        "true",
        "--providerx-location-parameter",
        "cc",
        "--providerx-location-value",
        "de",
        "--locale",
        "de-DE",
        "--detect-exit-locale",
        "false",
        "--tls",
        "providery",
    )
    assert body == {
        "alias": "de-1",
        "upstream_host": "proxy.example",
        "upstream_port": 8080,
        "username": "me",
        "password": "pw",
        "providerx_enabled": True,
        "providerx_location_parameter": "cc",
        "providerx_location_value": "de",
        "locale": "de-DE",
        "detect_exit_locale": False,
        "tls": {"mode": "providery"},
    }
    body = create_body("--providery-enabled", "true", "--providery-country", "US")
    assert body["providery"] == {"enabled": True, "country": "US"}


@pytest.mark.parametrize(
    "argv",
    [
        ["proxy", "create", "--alias", "a", "--upstream-host", "h"],  # no port
        ["proxy", "create", *ALIAS_ARGS, "--upstream-port", "0"],
        ["proxy", "create", *ALIAS_ARGS, "--tls", "system", "--ca-cert", "x.pem"],
        ["proxy", "create", *ALIAS_ARGS, "--tls", "custom"],
        ["proxy", "create", *ALIAS_ARGS, "--providerx-enabled", "yes"],
        ["proxy", "create", *ALIAS_ARGS, "--providerx-location-parameter", "city"],
        ["proxy", "create", *ALIAS_ARGS, "--password", "x", "--password-stdin"],
        ["proxy", "create", *ALIAS_ARGS, "--clear-locale"],  # update only
        ["proxy", "update", "a", "--username", "u", "--clear-username"],
        ["proxy", "update", "a", "--password", "p", "--clear-password"],
        ["proxy", "update", "a", "--locale", "de", "--clear-locale"],
        ["proxy", "update", "a", "--alias", "b"],  # the alias is immutable
        ["proxy", "export"],
        ["proxy", "import"],
        ["proxy", "rename", "a"],
        ["profile", "export"],
        ["profile", "import", "f", "--alias", "x"],
    ],
)
def test_bad_command_lines_are_usage_errors(argv: list[str]) -> None:
    with pytest.raises(UsageError):
        parse(argv)


def test_update_needs_one_option_and_sends_explicit_nulls() -> None:
    with pytest.raises(UsageError, match="at least one option"):
        update_body()
    assert update_body("--upstream-port", "9000") == {"upstream_port": 9000}
    assert update_body(
        "--clear-username", "--clear-password", "--clear-providerx-location", "--clear-locale"
    ) == {
        "username": None,
        "password": None,
        "providerx_location_parameter": None,
        "providerx_location_value": None,
        "locale": None,
    }
    with pytest.raises(UsageError, match="clear-providerx-location"):
        update_body("--clear-providerx-location", "--providerx-location-value", "de")
    # --password-stdin alone is a change (the password is read after the checks)
    assert update_body("--password-stdin") == {}


def test_provider_y_keeps_what_is_not_given() -> None:
    current = {"enabled": True, "country": "us", "state": "ca", "city": None, "asn": None}
    assert not wants_providery(parse(["proxy", "update", "a", "--locale", "de"]))
    args = parse(["proxy", "update", "a", "--providery-city", "sanjose"])
    assert wants_providery(args)
    assert update_body("--providery-city", "sanjose", current=current)["providery"] == {
        "enabled": True,
        "country": "us",
        "state": "ca",
        "city": "sanjose",
    }
    assert update_body("--providery-enabled", "false", current=current)["providery"] == {
        "enabled": False,
        "country": "us",
        "state": "ca",
    }
    assert update_body("--clear-providery-location", current=current)["providery"] == {
        "enabled": True
    }
    with pytest.raises(UsageError):
        update_body("--clear-providery-location", "--providery-asn", "7", current=current)
    with pytest.raises(UsageError, match="--providery-enabled"):
        create_body("--providery-country", "us")


def test_password_from_standard_input() -> None:
    assert read_password(io.StringIO("s3cret pw\n"), io.StringIO()) == "s3cret pw"
    assert read_password(io.StringIO("crlf\r\nrest\n"), io.StringIO()) == "crlf"
    with pytest.raises(UsageError, match="no password"):
        read_password(io.StringIO(""), io.StringIO())


# --- transfer files ------------------------------------------------------------------------------


def test_export_path_default_output_and_refusals(tmp_path: Path) -> None:
    assert files.export_path("de-1.svcproxy", None, tmp_path) == tmp_path / "de-1.svcproxy"
    exact = tmp_path / "any name.bin"
    assert files.export_path("de-1.svcproxy", str(exact)) == exact
    (tmp_path / "taken.svcproxy").write_bytes(b"old")
    with pytest.raises(UsageError, match="refusing to overwrite"):
        files.export_path("taken.svcproxy", None, tmp_path)
    with pytest.raises(UsageError, match="refusing to overwrite"):
        files.export_path("x", str(tmp_path))  # a folder is not an exact file path
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling")
    with pytest.raises(UsageError, match="refusing to overwrite"):
        files.export_path("x", str(tmp_path / "dangling"))
    with pytest.raises(UsageError, match="does not exist"):
        files.export_path("x", str(tmp_path / "missing" / "f.svcproxy"))
    with pytest.raises(UsageError):
        files.export_path("../escape.svcproxy", None, tmp_path)


def test_write_new_is_owner_only_atomic_and_never_overwrites(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        target = tmp_path / "p.svcprofile"
        files.write_new(target, b"SQLite format 3\x00body")
    finally:
        os.umask(old)
    assert target.read_bytes() == b"SQLite format 3\x00body"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    # a file that appeared in between is kept, and no temporary file is left behind
    with pytest.raises(UsageError, match="refusing to overwrite"):
        files.write_new(target, b"new")
    assert target.read_bytes() == b"SQLite format 3\x00body"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.svcprofile"]


def test_read_archive_rules(tmp_path: Path) -> None:
    good = tmp_path / "ok.svcproxy"
    good.write_bytes(files.SQLITE_MAGIC + b"\0" * 100)
    assert files.read_archive(str(good), "proxy").startswith(files.SQLITE_MAGIC)
    legacy = tmp_path / "old.svcproxy"
    legacy.write_text('  {"alias": "de-1", "upstream_host": "h"}')
    with pytest.raises(UsageError, match="legacy JSON transfer file"):
        files.read_archive(str(legacy), "proxy")
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    with pytest.raises(UsageError, match=r"not a \.svcprofile transfer archive"):
        files.read_archive(str(other), "profile")
    largest = tmp_path / "largest.svcprofile"
    largest.write_bytes(files.SQLITE_MAGIC.ljust(files.MAX_TRANSFER_FILE, b"\0"))
    assert len(files.read_archive(str(largest), "profile")) == 12 * 1024 * 1024
    big = tmp_path / "big.svcprofile"
    big.write_bytes(files.SQLITE_MAGIC.ljust(files.MAX_TRANSFER_FILE + 1, b"\0"))
    with pytest.raises(UsageError, match="limited to 12 MiB"):
        files.read_archive(str(big), "profile")
    with pytest.raises(UsageError, match="cannot read"):
        files.read_archive(str(tmp_path / "absent.svcproxy"), "proxy")


def protected_archive() -> bytes:
    archive = transfers.Archive(kind="proxy", version=6, credentials_included=True)
    sealed = transfers.seal_credentials("passphrase", "Sealed", "user", "password")
    archive.proxies.append(
        {
            "alias": "Sealed",
            "upstream_host": "h.example",
            "upstream_port": 1,
            "settings": {},
            "credentials": sealed,
        }
    )
    return transfers.build(archive)


def test_protected_archives_are_refused_unprotected_ones_read(tmp_path: Path) -> None:
    sealed = tmp_path / "sealed.svcproxy"
    sealed.write_bytes(protected_archive())
    with pytest.raises(UsageError, match="protected archive"):
        files.read_archive(str(sealed), "proxy")
    plain = transfers.Archive(kind="proxy", version=6, credentials_included=False)
    plain.proxies.append(
        {"alias": "Open", "upstream_host": "h.example", "upstream_port": 1, "settings": {}}
    )
    path = tmp_path / "open.svcproxy"
    path.write_bytes(transfers.build(plain))
    assert files.read_archive(str(path), "proxy") == path.read_bytes()
    # a container the client cannot read is left for the agent to judge
    assert files.credentials_included(files.SQLITE_MAGIC + b"\1" * 600) is False


def test_certificate_bundle_rules(tmp_path: Path) -> None:
    one = ca("Bundle Root").pem
    assert files.check_ca_bundle(one.encode(), "b.pem") == one
    assert files.check_ca_bundle((one * 16).encode(), "b.pem") == one * 16
    with pytest.raises(UsageError, match="holds 17 certificates"):
        files.check_ca_bundle((one * 17).encode(), "b.pem")
    with pytest.raises(UsageError, match="holds 0 certificates"):
        files.check_ca_bundle(b"just text\n", "b.pem")
    key = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
    with pytest.raises(UsageError, match="only PEM CERTIFICATE blocks"):
        files.check_ca_bundle((one + key).encode(), "b.pem")
    damaged = "-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n"
    with pytest.raises(UsageError, match="damaged"):
        files.check_ca_bundle(damaged.encode(), "b.pem")
    with pytest.raises(UsageError, match="64 KiB"):
        files.check_ca_bundle(b"x" * (64 * 1024 + 1), "b.pem")
    path = tmp_path / "root.pem"
    path.write_text(one)
    assert files.read_ca_bundle(str(path)) == one
    with pytest.raises(UsageError, match="cannot read"):
        files.read_ca_bundle(str(tmp_path / "absent.pem"))
