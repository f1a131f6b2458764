"""The asset fetch's request made as the engine makes it (host_app/logic/asset_request.py), and
what keeps the asset scheme out of the page's sight (host_app/logic/assets.py); plain values.
The end-to-end comparison with the engine's own requests is tests/host/test_e2e_asset_wire.py."""

from __future__ import annotations

import pytest

from host_app.logic.asset_request import engine_headers, fetch_site, trustworthy
from host_app.logic.assets import cors_script, refers_relatively, site

UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140 Safari"
GIVEN = {
    "Accept": "image/avif,image/webp,*/*;q=0.8",
    "sec-ch-ua-platform": '"Linux"',
    "sec-ch-ua-mobile": "?0",
    "sec-ch-ua": '"Chromium";v="140"',
    "User-Agent": UA,
    "Referer": "https://shop.example.co.uk/cart",
    "Accept-Encoding": "identity",  # never what goes out
    "Cookie": "from=job",  # the fetch's own Cookie argument decides
}


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("a.b.example.com", "example.com"),
        ("shop.example.co.uk", "example.co.uk"),
        ("alice.github.io", "alice.github.io"),  # a private suffix: each user is a site
        ("127.0.0.1", "127.0.0.1"),
        ("[::1]", "::1"),
        ("localhost", "localhost"),
        ("co.uk", "co.uk"),
        ("Example.COM.", "example.com"),
    ],
)
def test_sites_follow_the_public_suffix_list(host: str, expected: str) -> None:
    assert site(host) == expected


@pytest.mark.parametrize(
    ("url", "initiator", "expected"),
    [
        ("https://example.com/a.png", "https://example.com", "same-origin"),
        ("https://example.com:443/a.png", "https://example.com", "same-origin"),
        ("https://cdn.example.com/a.png", "https://www.example.com", "same-site"),
        ("http://cdn.example.com/a.png", "https://www.example.com", "cross-site"),  # schemeful
        ("https://bob.github.io/a.png", "https://alice.github.io", "cross-site"),
        ("https://img.example.co.uk/a", "https://shop.example.co.uk", "same-site"),
        ("https://other.org/a.png", "https://example.com", "cross-site"),
        ("https://example.com/a.png", "", "none"),
        # an asset URL stands for its original
        ("svcasset-https://example.com/a.png", "https://example.com", "same-origin"),
    ],
)
def test_sec_fetch_site(url: str, initiator: str, expected: str) -> None:
    assert fetch_site(url, initiator) == expected


def test_only_trustworthy_urls_get_the_sec_fetch_headers() -> None:
    assert trustworthy("https://example.com/a")
    assert trustworthy("http://127.0.0.1:8080/a")
    assert trustworthy("http://localhost/a")
    assert trustworthy("http://[::1]/a")
    assert not trustworthy("http://example.com/a")
    plain = engine_headers(
        url="http://example.com/a.png",
        kind="image",
        initiator="http://example.com",
        given=GIVEN,
        accept_language="de-DE,de;q=0.9",
        cookie=None,
    )
    assert not [k for k, _ in plain if k.lower().startswith("sec-fetch")]


def test_headers_come_in_the_engines_order_with_its_values() -> None:
    headers = engine_headers(
        url="https://img.example.co.uk/a.png",
        kind="image",
        initiator="https://shop.example.co.uk",
        given=GIVEN,
        accept_language="de-DE,de;q=0.9",
        cookie="c=1",
    )
    assert headers == [
        ("Connection", "keep-alive"),
        ("sec-ch-ua-platform", '"Linux"'),
        ("User-Agent", UA),
        ("sec-ch-ua", '"Chromium";v="140"'),
        ("sec-ch-ua-mobile", "?0"),
        ("Accept", "image/avif,image/webp,*/*;q=0.8"),
        ("Sec-Fetch-Site", "same-site"),
        ("Sec-Fetch-Mode", "no-cors"),
        ("Sec-Fetch-Dest", "image"),
        ("Referer", "https://shop.example.co.uk/cart"),
        ("Accept-Encoding", "gzip, deflate, br, zstd"),
        ("Accept-Language", "de-DE,de;q=0.9"),
        ("Cookie", "c=1"),
    ]


def test_a_cors_request_says_so_and_an_asset_referrer_is_the_real_one() -> None:
    given = {
        "Origin": "https://example.com",
        "User-Agent": UA,
        "Accept": "*/*",
        "sec-ch-ua-arch": '"x86"',  # a hint the site asked for
        "Referer": "svcasset-https://example.com/css/site.css",
    }
    headers = engine_headers(
        url="https://example.com/f.woff2",
        kind="font",
        initiator="https://example.com",
        given=given,
        accept_language="",
        cookie=None,
    )
    names = [k for k, _ in headers]
    assert names[:3] == ["Connection", "Origin", "User-Agent"]
    assert names.index("sec-ch-ua-arch") < names.index("Accept")
    assert ("Sec-Fetch-Mode", "cors") in headers
    assert ("Sec-Fetch-Dest", "font") in headers
    assert ("Referer", "https://example.com/css/site.css") in headers
    assert "Accept-Language" not in names


@pytest.mark.parametrize(
    ("css", "relative"),
    [
        (b"a{background:url(x.png)}", True),
        (b"a{background:url('/abs.png')}", True),  # resolves on the scheme's origin
        (b"a{background:url(//cdn.example.com/x.png)}", True),  # takes the scheme's
        (b'@import "more.css";', True),
        (b"@import url(more.css);", True),
        (b'a{background:image-set("a.png" 1x)}', True),
        (b'a{background:url("https://cdn.example.com/x.png")}', False),
        (b"a{background:url(data:image/png;base64,AAAA)}", False),
        (b"a{filter:url(#blur)}", False),
        (b"p{color:red}", False),
    ],
)
def test_a_stylesheet_naming_relative_urls_is_left_to_the_engine(
    css: bytes, relative: bool
) -> None:
    assert refers_relatively(css) is relative


def test_a_cors_script_is_left_to_the_engine() -> None:
    assert cors_script("script", {"Origin": "https://example.com"})
    assert not cors_script("script", {"Accept": "*/*"})
    assert not cors_script("font", {"Origin": "https://example.com"})  # fonts are shared
