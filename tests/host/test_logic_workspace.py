"""The browser window's plain data: the address bar's reading of what a person types, session
rows and the Info view's lines."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from host_app.logic.workspace import (
    Lifetime,
    Live,
    ProxyLocation,
    SessionRow,
    address_url,
    folder_size,
    human_size,
    info_lines,
    list_order,
    session_line,
)


@pytest.mark.parametrize(
    ("typed", "loaded"),
    [
        ("localhost:8000", "http://localhost:8000"),
        ("localhost", "http://localhost"),
        ("app.localhost/x?y=1", "http://app.localhost/x?y=1"),
        ("127.0.0.1:5000/path", "http://127.0.0.1:5000/path"),
        ("[::1]:8080/", "http://[::1]:8080/"),
        ("192.168.1.1", "http://192.168.1.1"),
        ("example.com", "https://example.com"),
        ("docs.python.org/3/library/", "https://docs.python.org/3/library/"),
        ("example.com:8443/a#b", "https://example.com:8443/a#b"),
        ("http://example.com", "http://example.com"),
        ("https://example.com/a b".replace(" ", "%20"), "https://example.com/a%20b"),
        ("file:///usr/share/doc/index.html", "file:///usr/share/doc/index.html"),
        ("about:blank", "about:blank"),
        ("  example.org  ", "https://example.org"),
    ],
)
def test_addresses(typed: str, loaded: str) -> None:
    assert address_url(typed) == loaded


@pytest.mark.parametrize(
    "typed",
    ["python docs", "asyncio", "what is 1.5", "1.5", "foo.123", "", "   ", "example.com:99999"],
)
def test_search_like_text_is_not_an_address(typed: str) -> None:
    assert address_url(typed) is None


def test_session_line_and_info() -> None:
    row = SessionRow(
        id="Session4",
        name="Shop",
        profile="Custom",
        group="eu",
        proxy_alias="de-res",
        image_blocking_mode="over_limit",
        image_size_limit_kb=300,
        lifetime=Lifetime("inactivity", 900),
        network_paused=True,
    )
    assert session_line(row) == "Shop  (Session4)  [eu]  · paused\nno page open  · via de-res"
    live = Live(title="Cart", host="shop.example", running="actions", needs_person="two_factor",
                failed="TIMEOUT")  # fmt: skip
    assert session_line(msgspec.structs.replace(row, proxy_country="DE"), live) == (
        "Shop  (Session4)  [eu]  · NEEDS YOU (two factor) · agent: actions · paused · failed: "
        "TIMEOUT\nCart — shop.example  · via de-res (DE)"
    )
    plain = SessionRow(id="Session5", name="Plain")
    assert session_line(plain) == "Plain  (Session5)\nno page open  · direct"
    # ungrouped first, then each group together, by id within
    rows = [
        row,
        plain,
        SessionRow(id="Session2", name="A", group="EU"),
        SessionRow(id="Session9", name="B", group="ab"),
    ]
    assert [r.id for r in sorted(rows, key=list_order)] == [
        "Session5",
        "Session9",
        "Session2",
        "Session4",
    ]
    lines = dict(
        info_lines(
            row, machine_id="m-1", location=ProxyLocation("DE", "Europe/Berlin"), data_bytes=3 << 20
        )
    )
    assert lines["Federated id"] == "machine-m-1.Session4"
    assert lines["Proxy"] == "de-res, exit country DE"
    assert lines["Filtering"] == "adblock on, images over 300 KB blocked"
    assert lines["Lifetime"] == "closed after 900 s without use"
    assert lines["Data folder"] == "3.0 MiB"
    direct = dict(
        info_lines(
            SessionRow(id="Session1", name="a"), machine_id=None, location=None, data_bytes=10
        )
    )
    assert direct["Federated id"] == "not known yet"
    assert direct["Proxy"] == "none (direct)"
    assert direct["Lifetime"] == "kept until deleted"
    assert direct["Data folder"] == "10 bytes"


def test_folder_size_counts_files_not_links(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "f").write_bytes(b"x" * 1000)
    (tmp_path / "g").write_bytes(b"y" * 24)
    (tmp_path / "link").symlink_to(tmp_path / "a" / "f")
    assert folder_size(tmp_path) == 1024
    assert folder_size(tmp_path / "missing") == 0
    assert human_size(1536) == "1.5 KiB"
