"""The asset scheme's rules without Qt: routing, the image limit, cookies, and the shared asset
cache's eligibility and storability (host_app/logic/assets.py)."""

from __future__ import annotations

import pytest

from host_app.logic.assets import (
    AssetPolicy,
    Cookie,
    CookieJar,
    NotShared,
    Via,
    freshness_lifetime,
    over_limit,
    request_headers_eligible,
    route,
    shared_request_eligible,
    storable,
    to_asset,
    to_original,
)


def test_the_asset_url_is_the_original_with_its_scheme_renamed() -> None:
    url = "https://cdn.example.com:8443/a/b.png?x=1#f"
    assert to_asset(url) == "svcasset-https://cdn.example.com:8443/a/b.png?x=1#f"
    assert to_original(to_asset(url) or "") == url
    assert to_asset("data:image/png;base64,xx") is None
    assert to_original(url) is None


LIMIT = AssetPolicy(image_mode="over_limit", image_limit_bytes=1024)


@pytest.mark.parametrize(
    ("policy", "url", "method", "kind", "expected"),
    [
        (LIMIT, "https://h/a.png", "GET", "image", (Via.ASSET, True, False)),
        (LIMIT, "https://h/a.css", "GET", "stylesheet", (Via.NATIVE, False, False)),
        (LIMIT, "svcasset-https://h/a.png", "GET", "image", (Via.ASSET, True, False)),
        # a stylesheet-relative URL that should not go through the scheme goes back
        (LIMIT, "svcasset-https://h/f.woff2", "GET", "font", (Via.BACK, False, False)),
        (LIMIT, "data:image/png;base64,xx", "GET", "image", (Via.NATIVE, False, False)),
        (
            AssetPolicy(image_mode="none"),
            "https://h/a.png",
            "GET",
            "image",
            (Via.NATIVE, False, False),
        ),
        (
            AssetPolicy(image_mode="all"),
            "https://h/a.png",
            "GET",
            "image",
            (Via.NATIVE, False, False),
        ),
        (LIMIT, "https://h/a.png", "POST", "image", (Via.NATIVE, False, False)),
        (
            AssetPolicy(shared_cache=True),
            "https://h/a.js",
            "GET",
            "script",
            (Via.ASSET, False, True),
        ),
        (AssetPolicy(shared_cache=True), "https://h/", "GET", "other", (Via.NATIVE, False, False)),
    ],
)
def test_route(
    policy: AssetPolicy, url: str, method: str, kind: str, expected: tuple[Via, bool, bool]
) -> None:
    assert route(policy, url=url, method=method, kind=kind, has_cookie=False) == expected


def test_a_url_with_a_cookie_is_not_shared() -> None:
    policy = AssetPolicy(shared_cache=True)
    got = route(policy, url="https://h/a.js", method="GET", kind="script", has_cookie=True)
    assert got == (Via.NATIVE, False, False)


def test_a_url_whose_answer_could_not_be_shared_stays_native_for_a_while() -> None:
    policy = AssetPolicy(shared_cache=True)
    url = "https://h/private.png"
    assert route(policy, url=url, method="GET", kind="image", has_cookie=False)[0] is Via.ASSET
    got = route(policy, url=url, method="GET", kind="image", has_cookie=False, not_shared=True)
    assert got == (Via.NATIVE, False, False)
    # an over_limit image still goes through the scheme for its limit, unshared
    limited = AssetPolicy(image_mode="over_limit", image_limit_bytes=1024, shared_cache=True)
    got = route(limited, url=url, method="GET", kind="image", has_cookie=False, not_shared=True)
    assert got == (Via.ASSET, True, False)
    # the asset URL of a request that comes back is sent back to the original
    asset = to_asset(url) or ""
    got = route(policy, url=asset, method="GET", kind="image", has_cookie=False, not_shared=True)
    assert got[0] is Via.BACK


def test_not_shared_expires_is_bounded_and_per_partition() -> None:
    now = [0.0]
    memo = NotShared(ttl=10, max_entries=2, clock=lambda: now[0])
    memo.add("direct", "https://h/a")
    assert ("direct", "https://h/a") in memo
    assert ("proxy:1", "https://h/a") not in memo
    now[0] = 10.0
    assert ("direct", "https://h/a") not in memo  # expired, and forgotten
    assert len(memo) == 0
    for u in ("https://h/1", "https://h/2", "https://h/3"):
        memo.add("direct", u)
    assert ("direct", "https://h/1") not in memo  # the oldest went
    assert ("direct", "https://h/3") in memo
    memo.clear()
    assert len(memo) == 0


def test_over_limit() -> None:
    assert over_limit(1025, 0, 1024)
    assert not over_limit(1024, 1024, 1024)
    assert over_limit(None, 1025, 1024)
    assert not over_limit(None, 1024, 1024)


def _cookie(name: str, domain: str, **kw: object) -> Cookie:
    base: dict[str, object] = {
        "value": "v",
        "path": "/",
        "secure": False,
        "same_site": "",
        "expires": None,
    }
    base.update(kw)
    return Cookie(name=name, domain=domain, **base)  # type: ignore[arg-type]


def test_cookie_matching_follows_domain_path_secure_and_expiry() -> None:
    jar = CookieJar()
    jar.add(_cookie("host", "a.example.com"))
    jar.add(_cookie("dom", ".example.com", path="/img"))
    jar.add(_cookie("sec", ".example.com", secure=True))
    jar.add(_cookie("old", ".example.com", expires=10.0))

    def names(url: str) -> list[str]:
        return sorted(c.name for c in jar.matching(url, now=100.0))

    assert names("http://a.example.com/img/x.png") == ["dom", "host"]
    assert names("https://b.example.com/img/x.png") == ["dom", "sec"]
    assert names("http://b.example.com/imgs/x.png") == []
    assert names("svcasset-http://a.example.com/") == ["host"]
    jar.remove(_cookie("host", "a.example.com"))
    assert names("http://a.example.com/") == []


def test_cookie_header_withholds_lax_and_strict_cookies_across_sites() -> None:
    jar = CookieJar()
    jar.add(_cookie("lax", "cdn.example.com"))
    jar.add(_cookie("none", "cdn.example.com", same_site="none", secure=True, path="/a"))
    url = "https://cdn.example.com/a/x.png"
    assert jar.header(url, "https://www.example.com/") == "none=v; lax=v"
    assert jar.header(url, "https://other.test/") == "none=v"
    assert jar.header("http://cdn.example.com/a/x.png", "https://other.test/") is None


def test_request_eligibility() -> None:
    assert shared_request_eligible(method="GET", kind="font", has_cookie=False)
    assert not shared_request_eligible(method="GET", kind="other", has_cookie=False)
    assert not shared_request_eligible(method="HEAD", kind="image", has_cookie=False)
    assert request_headers_eligible({"Accept": "*/*", "User-Agent": "x"}) is None
    assert request_headers_eligible({"Authorization": "Basic x"}) == "authorization"
    assert request_headers_eligible({"Range": "bytes=0-"}) == "range"
    assert request_headers_eligible({"If-None-Match": '"x"'}) == "if-none-match"
    assert request_headers_eligible({"Cache-Control": "no-cache"}) == "no-cache"
    assert request_headers_eligible({"Cache-Control": "max-age=0"}) == "no-cache"
    assert request_headers_eligible({"Pragma": "no-cache"}) == "no-cache"


PUBLIC = {"cache-control": "public, max-age=600", "content-type": "text/css"}


@pytest.mark.parametrize(
    ("status", "extra", "size", "reason"),
    [
        (200, {}, 10, None),
        (200, {"vary": "Accept-Encoding"}, 10, None),
        (404, {}, 10, "status"),
        (200, {"cache-control": "max-age=600"}, 10, "not_public"),
        (200, {"cache-control": "public, private, max-age=6"}, 10, "not_public"),
        (200, {"cache-control": "public"}, 10, "not_fresh"),
        (200, {"age": "600"}, 10, "not_fresh"),
        (200, {"content-encoding": "gzip"}, 10, "encoded"),
        (200, {"vary": "Cookie"}, 10, "vary_cookie"),
        (200, {"vary": "User-Agent"}, 10, "vary"),
        (200, {"set-cookie": "a=b"}, 10, "set_cookie"),
        (200, {"content-disposition": "attachment"}, 10, "content_disposition"),
        (200, {}, 33 * 1024 * 1024, "too_large"),
    ],
)
def test_storable(status: int, extra: dict[str, str], size: int, reason: str | None) -> None:
    assert storable(status, {**PUBLIC, **extra}, size) == reason


def test_freshness_prefers_s_maxage() -> None:
    assert freshness_lifetime({"cache-control": "public, max-age=5, s-maxage=50"}) == 50
    assert freshness_lifetime({"cache-control": "public"}) is None
