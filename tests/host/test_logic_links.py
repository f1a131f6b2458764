"""URL normalization and the fuzzy-link match."""

from __future__ import annotations

import pytest

from host_app.logic.links import best_link, normalize_url, same_document


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("HTTP://Example.COM", "http://example.com/"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("http://example.com:8080/a?b=1#c", "http://example.com:8080/a?b=1#c"),
        ("http://example.com/%7Euser/a%2fb", "http://example.com/~user/a%2Fb"),
        ("http://e.com/?asset=%2Fa.png%3Fkb%3D8%26cc%3Dpublic", None),  # unchanged: see below
        ("http://e.com/?q=100%", "http://e.com/?q=100%"),
        ("http://e.com/caf\u00e9?n=\u00e9#\u00e9", "http://e.com/caf%C3%A9?n=%C3%A9#%C3%A9"),
        ("http://example.com/a b", "http://example.com/a%20b"),
        ("mailto:x@example.org", None),
        ("javascript:void(0)", None),
        ("/relative", None),
    ],
)
def test_normalize(raw: str, normal: str | None) -> None:
    assert normalize_url(raw) == (
        raw if normal is None and raw.startswith("http://e.com") else normal
    )


# Issue 12: every reserved character, escaped, in the path, query and fragment keeps its escape
# (it is data there, not syntax); escapes of unreserved characters are decoded (RFC 3986 6.2.2).
RESERVED = ":/?#[]@!$&'()*+,;="


@pytest.mark.parametrize("char", [*list(RESERVED), "%", " ", '"', "<", ">", "\\", "^", "`"])
@pytest.mark.parametrize("part", ["path", "query", "fragment"])
def test_reserved_escapes_keep_their_meaning(char: str, part: str) -> None:
    esc = f"%{ord(char):02X}"
    url = {
        "path": f"http://e.com/a{esc.lower()}b",
        "query": f"http://e.com/?k=a{esc.lower()}b&z=1",
        "fragment": f"http://e.com/x#a{esc.lower()}b",
    }[part]
    assert normalize_url(url) == url.replace(esc.lower(), esc)
    assert normalize_url(url.replace(esc.lower(), "%7e")) == url.replace(esc.lower(), "~")


def test_same_document() -> None:
    assert same_document("http://a/x#1", "http://a/x#2")
    assert same_document("http://a/x", "http://a/x#2")
    assert not same_document("http://a/x", "http://a/y#2")


LINKS = [
    (3, "http://site/articles/first-article"),
    (5, "http://site/articles/second-article?ref=home"),
    (7, "mailto:x@example.org"),
]


def test_exact_threshold_needs_identical_normal_form() -> None:
    assert best_link("HTTP://SITE/articles/first-article", LINKS, 1.0) == (
        3,
        LINKS[0][1],
        1.0,
    )
    assert best_link("http://site/articles/first-articl", LINKS, 1.0) is None


def test_fuzzy_picks_best_score() -> None:
    found = best_link("http://site/articles/second-article", LINKS, 0.8)
    assert found is not None
    assert found[0] == 5
    assert 0.8 <= found[2] < 1.0


def test_below_threshold() -> None:
    assert best_link("http://other/zzz", LINKS, 0.9) is None
    assert best_link("not a url", LINKS, 0.0) is None
