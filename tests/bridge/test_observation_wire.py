"""The compact wire form of observations (bridge_protocol.observation, docs/observations.md):
encoding then decoding gives the entries back; markers, implied keys and relative destinations."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge_protocol import observation as wire

URL = "http://127.0.0.1:8000/shop?x=1"
CONTENT: list[dict[str, Any]] = [
    {"k": "dialog", "t": "Leave?", "d": {"type": "confirm", "answer": "accepted"}},
    {"k": "heading", "t": "Shop", "l": 1, "c": 0},
    {"k": "paragraph", "t": "See the docs for more.", "c": 0, "e": ["e1"]},
    {"k": "table", "t": "Prices", "c": 0},
    {"k": "table_caption", "t": "Prices", "c": 2},
    {"k": "table_row", "c": 2},
    {"k": "table_cell", "t": "Item", "h": 1, "c": 2},
    {"k": "table_cell", "c": 2},
    {"k": "table_row", "c": 2},
    {"k": "table_cell", "t": "Apple", "c": 2},
    {"k": "table_cell", "t": "Apple", "c": 2},
    {"k": "table_cell", "t": "Buy Sell", "c": 2, "e": ["e4", "e5"]},
    {"k": "image", "t": "Company logo"},
]
ELEMENTS: list[dict[str, Any]] = [
    {"ref": "e1", "role": "link", "name": "docs", "dest": "http://127.0.0.1:8000/docs#a", "c": 0},
    {"ref": "e2", "role": "searchbox", "name": "Query", "value": "pears", "st": ["focused"]},
    {"ref": "e3", "role": "combobox", "value": "price", "opts": [["price", "Price"], ["n", "n"]]},
    {"ref": "e4", "role": "button", "name": "Buy", "c": 3},
    {"ref": "e5", "role": "button", "name": "Sell", "c": 3},
    {"ref": "e6", "role": "link", "name": "Elsewhere", "dest": "https://other.test/x"},
    {"ref": "e7", "role": "link", "name": "Meter", "value": "5", "dest": "http://127.0.0.1:8000/"},
    {"ref": "e8", "role": "link", "name": "Script"},
    {"ref": "e9", "role": "checkbox", "st": ["checked"], "c": 1},
]


def wire_observation() -> dict[str, Any]:
    return {
        "url": URL,
        "contexts": [
            "main",
            "main > form",
            'main > table "Prices"',
            'main > table "Prices" > row 2',
        ],
        "content": wire.encode_content(CONTENT, ELEMENTS),
        "elements": wire.encode_elements(URL, ELEMENTS),
    }


def test_round_trip() -> None:
    decoded = wire.decode(wire_observation())
    assert decoded["content"] == CONTENT
    assert decoded["elements"] == ELEMENTS


def test_the_wire_form_is_compact() -> None:
    obs = wire_observation()
    assert obs["elements"] == [
        0,
        ["e1", "link", "docs", "docs#a"],  # same origin: relative to the page's directory
        -1,
        ["e2", "searchbox", "Query", "pears", {"st": ["focused"]}],
        ["e3", "combobox", "", "price", {"opts": [["price", "Price"], "n"]}],
        3,
        ["e4", "button", "Buy"],
        ["e5", "button", "Sell"],
        -1,
        ["e6", "link", "Elsewhere", "https://other.test/x"],
        ["e7", "link", "Meter", "/", {"v": "5"}],
        ["e8", "link", "Script"],
        1,
        ["e9", "checkbox", "", "", {"st": ["checked"]}],
    ]
    assert obs["content"][:4] == [
        ["dialog", "Leave?", {"type": "confirm", "answer": "accepted"}],
        0,
        ["heading", "Shop", 1],
        ["paragraph", "See the docs for more.", ["e1"]],
    ]
    # a header cell, an empty cell, and a cell whose text is its elements' names
    assert ["table_cell", "Item", 1] in obs["content"]
    assert "" in obs["content"]  # an empty cell: a string, as every cell that is its text
    assert ["table_cell", "", ["e4", "e5"]] in obs["content"]
    assert obs["content"][-2:] == [-1, ["image", "Company logo"]]
    assert wire.count_entries(obs["content"]) == len(CONTENT)


def test_cell_text_of_adjacent_buttons_gets_spaces() -> None:
    content = [{"k": "table_cell", "t": "BuySell", "e": ["e4", "e5"]}]
    items = wire.encode_content(content, ELEMENTS)
    assert items == [["table_cell", "", ["e4", "e5"]]]
    assert wire.decode_content(items, ELEMENTS)[0]["t"] == "Buy Sell"


@pytest.mark.parametrize(
    ("url", "dest", "sent"),
    [
        # same page: the fragment alone, an empty one too (`href="#"`)
        ("http://h.test/a/b?x=1", "http://h.test/a/b?x=1#", "#"),
        ("http://h.test/a/b?x=1#top", "http://h.test/a/b?x=1#", "#"),
        ("http://h.test/a/b", "http://h.test/a/b#c", "#c"),
        # same path, another query (and fragment), an empty query too
        ("http://h.test/a/b?x=1", "http://h.test/a/b?y=2#f", "?y=2#f"),
        ("http://h.test/a/b?x=1", "http://h.test/a/b?", "?"),
        # the page itself without its query or fragment: its last segment
        ("http://h.test/a/b?x=1", "http://h.test/a/b", "b"),
        ("http://h.test/a/b#f", "http://h.test/a/b", "b"),
        # relative to the page's directory, or from / when shorter
        ("http://h.test/a/b", "http://h.test/a/c", "c"),
        ("http://h.test/ab/b/c", "http://h.test/ab/x", "../x"),
        ("http://h.test/a/b/c", "http://h.test/a/x", "/a/x"),  # as short: from / is plainer
        ("http://h.test/a/b/c/d", "http://h.test/x", "/x"),
        ("http://h.test/a/b", "http://h.test/a/", "./"),
        ("http://h.test/a/b", "http://h.test/", "/"),
        ("http://h.test/a/b", "http://h.test/a/x:y", "./x:y"),  # not read as a scheme
        ("http://h.test/shop?x=1", "http://h.test/docs#a", "docs#a"),
        # not the page's origin: in full
        ("http://h.test/a", "http://h.test:81/a", "http://h.test:81/a"),
        ("http://h.test/a", "https://h.test/a", "https://h.test/a"),
        ("http://h.test/a", "http://h.test//evil.test/", "http://h.test//evil.test/"),
        ("http://h.test/a", "mailto:a@b.test", "mailto:a@b.test"),
        ("about:blank", "http://x.test/", "http://x.test/"),
        ("about:blank", "about:blank#x", "#x"),
        ("", "http://x.test/", "http://x.test/"),
    ],
)
def test_relative_destinations(url: str, dest: str, sent: str) -> None:
    assert wire.relative_dest(url, dest) == sent
    assert wire.resolve(url, sent) == dest


def test_resolve_keeps_absolute_references_and_knows_no_page() -> None:
    assert wire.resolve("http://h.test/a", "https://o.test/#") == "https://o.test/#"
    assert wire.resolve("", "#x") == "#x"  # no URL known: left as sent
    assert wire.resolve("http://h.test/a", "") == ""


_segment = st.sampled_from(["a", "b", "", ".", "..", "x:y", "%2e", "é", "a b"])
_path = st.lists(_segment, max_size=4).map(lambda parts: "/" + "/".join(parts))
_suffix = st.tuples(
    st.sampled_from(["", "?", "?q=1", "?q=2&r"]), st.sampled_from(["", "#", "#f", "#g?h"])
).map("".join)
_origin = st.sampled_from(["http://h.test", "http://h.test:81", "https://h.test", "http://o.test"])
_absolute = st.tuples(_origin, _path, _suffix).map("".join)


@given(_absolute, _absolute)
def test_relative_destinations_resolve_back(url: str, dest: str) -> None:
    sent = wire.relative_dest(url, dest)
    assert wire.resolve(url, sent) == dest
    assert len(sent) <= len(dest)


@given(
    st.one_of(_absolute, st.sampled_from(["about:blank", "data:text/html,x", ""])),
    st.one_of(_absolute, st.text(max_size=12).map(lambda t: "x-y:" + t)),
)
def test_any_absolute_destination_resolves_back(url: str, dest: str) -> None:
    assert wire.resolve(url, wire.relative_dest(url, dest)) == dest


def test_the_url_is_sent_once_per_response() -> None:
    obs = {"id": "obs_1", "url": URL, "elements": wire.encode_elements(URL, ELEMENTS)}
    shown = wire.for_page(obs, URL)
    assert "url" not in shown
    assert shown["elements"] == obs["elements"]
    assert wire.for_page(obs, "http://127.0.0.1:8000/elsewhere") == obs  # the page moved on
    decoded = wire.decode(shown, URL)
    assert decoded["url"] == URL
    assert decoded["elements"] == ELEMENTS  # destinations absolute again
    assert wire.decode(obs, "http://127.0.0.1:8000/elsewhere")["url"] == URL


_text = st.text(alphabet='ab /#?:é"', max_size=8)


@given(
    st.lists(
        st.fixed_dictionaries(
            {"role": st.sampled_from(["link", "button", "textbox", "combobox"])},
            optional={
                "name": _text.filter(bool),
                "value": _text.filter(bool),
                "dest": st.one_of(
                    st.sampled_from(
                        ["http://127.0.0.1:8000/p", "https://x.test/q#", "http://127.0.0.1:8000/"]
                    ),
                    st.tuples(st.just("http://127.0.0.1:8000"), _path, _suffix).map("".join),
                ),
                "st": st.lists(st.sampled_from(["checked", "focused"]), min_size=1, max_size=2),
                "opts": st.lists(st.tuples(_text, _text).map(list), min_size=1, max_size=3),
                "c": st.integers(0, 3),
            },
        ),
        max_size=8,
    )
)
def test_elements_round_trip(raw: list[dict[str, Any]]) -> None:
    elements = []
    for i, fields in enumerate(raw):
        e = {"ref": f"e{i + 1}", **fields}
        if e["role"] != "link":
            e.pop("dest", None)
        elements.append(e)
    assert wire.decode_elements(URL, wire.encode_elements(URL, elements)) == elements


def test_plain_cells_are_strings_and_paths_name_their_head() -> None:
    content = wire.encode_content(CONTENT, ELEMENTS)
    # a cell that is just its text is its text; one with a header flag, refs or none keeps its form
    assert content[content.index(["table_row"], 8) + 1 :][:3] == [
        "Apple",
        "Apple",
        ["table_cell", "", ["e4", "e5"]],
    ]
    assert ["table_cell", "Item", 1] in content
    assert "" in content  # an empty cell
    paths = [
        "main",
        "main > form",
        'main > table "Prices"',
        'main > table "Prices" > row 2',
        'navigation "A > B" > list',  # ` > ` inside a name: no head of that name exists
        "x > y",  # a one-letter tail is not shorter as a reference
    ]
    encoded = wire.encode_contexts(paths)
    assert encoded == [
        "main",
        [0, "form"],
        [0, 'table "Prices"'],
        [2, "row 2"],
        'navigation "A > B" > list',
        "x > y",
    ]
    assert wire.decode_contexts(encoded) == paths
    assert wire.decode({"contexts": encoded})["contexts"] == paths


def test_context_references_a_host_never_sends_read_as_their_tail() -> None:
    assert wire.decode_contexts([[1, "a"], [0, "b"], [7, "c"], [-1, "d"], 5, "e"]) == [
        "b > a",
        "b",
        "c",
        "d",
        "",
        "e",
    ]


@given(
    st.lists(
        st.lists(
            st.sampled_from(["main", "form", "row 1", 'table "a > b"']), min_size=1, max_size=4
        ).map(" > ".join),
        unique=True,
    )
)
def test_any_paths_round_trip(paths: list[str]) -> None:
    assert wire.decode_contexts(wire.encode_contexts(paths)) == paths
