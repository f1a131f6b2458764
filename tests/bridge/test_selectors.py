"""Selector subset parsing and matching against a DOM snapshot (no Qt, no browser)."""

from __future__ import annotations

import pytest

from bridge_protocol.selectors import (
    DomNode,
    SelectorError,
    build_tree,
    parse_selector,
    query_all,
    query_first,
)


def dom() -> list[DomNode]:
    # <html><body><form id=f class="main wide"><input name=q type=text><input name=go type=submit>
    # <label lang=en-US>x</label></form><div class=row><a href="/a">a</a><span/></div>
    # <div class="row last"><a href="/b" data-x="hello world">b</a></div></body></html>
    spec = [
        ("html", {}, -1),
        ("body", {}, 0),
        ("form", {"id": "f", "class": "main wide"}, 1),
        ("input", {"name": "q", "type": "text"}, 2),
        ("input", {"name": "go", "type": "submit"}, 2),
        ("label", {"lang": "en-US"}, 2),
        ("div", {"class": "row"}, 1),
        ("a", {"href": "/a"}, 6),
        ("span", {}, 6),
        ("div", {"class": "row last"}, 1),
        ("a", {"href": "/b", "data-x": "hello world"}, 9),
    ]
    nodes = [DomNode(i, t, a, p) for i, (t, a, p) in enumerate(spec)]
    build_tree(nodes)
    return nodes


def ids(selector: str) -> list[int]:
    return [n.index for n in query_all(dom(), parse_selector(selector))]


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("input", [3, 4]),
        ("*", list(range(11))),
        ("#f", [2]),
        (".row", [6, 9]),
        (".row.last", [9]),
        ("div.row > a", [7, 10]),
        ("form input", [3, 4]),
        ("body > input", []),
        ("input + input", [4]),
        ("input ~ label", [5]),
        ("a + span", [8]),
        ("[href]", [7, 10]),
        ("a[href='/b']", [10]),
        ('a[href="/a"]', [7]),
        ("[data-x~=world]", [10]),
        ("[lang|=en]", [5]),
        ("[href^='/']", [7, 10]),
        ("[href$=b]", [10]),
        ("[data-x*='lo wo']", [10]),
        ("input[type=submit], #f", [2, 4]),
        ("FORM INPUT[name=q]", [3]),
        ("  form   >   input  ", [3, 4]),
    ],
)
def test_matching(selector: str, expected: list[int]) -> None:
    assert ids(selector) == expected


def test_first_match_in_document_order() -> None:
    node = query_first(dom(), parse_selector("a, input"))
    assert node is not None
    assert node.index == 3


@pytest.mark.parametrize(
    "selector",
    [
        "a:hover",
        "a::before",
        "input:not(.x)",
        "svg|rect",
        "*|a",
        "[xlink|href]",
        "#a\\:b",
        ".x\\31",
        "",
        "   ",
        "a >",
        "> a",
        "a,",
        "[href",
        "[href=]",
        "[href='x' i]",
        "a $ b",
    ],
)
def test_rejected(selector: str) -> None:
    with pytest.raises(SelectorError):
        parse_selector(selector)
