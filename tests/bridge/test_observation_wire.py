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
        ["e2", "searchbox", "Query", "pears", "focused"],  # states after the value
        ["e3", "combobox", "", "price", {"opts": [["price", "Price"], "n"]}],
        3,
        ["e4", "button", "Buy"],
        ["e5", "button", "Sell"],
        -1,
        ["e6", "link", "Elsewhere", "https://other.test/x"],
        ["e7", "link", "Meter", "/", {"v": "5"}],
        ["e8", "link", "Script"],
        1,
        ["e9", "checkbox", "", "", "checked"],
    ]
    assert obs["content"][:4] == [
        ["dialog", "Leave?", {"type": "confirm", "answer": "accepted"}],
        0,
        ["h1", "Shop"],  # a heading's level is in its kind
        ["p", "See the docs for more.", ["e1"]],
    ]
    # a header cell, an empty cell, and a cell whose text is its elements' names
    assert ["Item", 1] in obs["content"]
    assert "" in obs["content"]  # an empty cell: a string, as every cell that is its text
    assert ["", ["e4", "e5"]] in obs["content"]
    assert obs["content"][-2:] == [-1, ["image", "Company logo"]]
    assert wire.count_entries(obs["content"]) == len(CONTENT)


def test_cell_text_of_adjacent_buttons_gets_spaces() -> None:
    content = [{"k": "table_cell", "t": "BuySell", "e": ["e4", "e5"]}]
    items = wire.encode_content(content, ELEMENTS)
    assert items == [["", ["e4", "e5"]]]
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
    assert content[content.index([], 8) + 1 :][:3] == [  # [] is a table row
        "Apple",
        "Apple",
        ["", ["e4", "e5"]],
    ]
    assert ["Item", 1] in content
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


def test_a_tables_rows_are_one_context_item_and_go_last() -> None:
    """Consecutive rows of one head are `[head, "row", first, last]` (the head an index, or a
    path when no context is the head), after every other context: a plain item's index is its
    position on the wire; markers point into the decoded list."""
    table = 'main > table "Plants"'
    rows = [f"{table} > row {n}" for n in (2, 3, 4, 5)]
    cut = [f"form > table > row {n}" for n in (1, 2)]
    paths = ["main", rows[0], table, rows[1], cut[0], rows[2], rows[3], cut[1], "main > form"]
    order = wire.context_order(paths)
    assert [paths[i] for i in order] == ["main", table, "main > form", *rows, *cut]
    encoded = wire.encode_contexts([paths[i] for i in order])
    assert encoded == [
        "main",
        [0, 'table "Plants"'],
        [0, "form"],
        [1, "row", 2, 5],
        ["form > table", "row", 1, 2],
    ]
    assert wire.decode_contexts(encoded) == [paths[i] for i in order]
    # a single row, and rows with a gap, stay as they were
    assert wire.encode_contexts([table, f"{table} > row 2", f"{table} > row 4"]) == [
        table,
        [0, "row 2"],
        [0, "row 4"],
    ]
    elements = [
        {"ref": f"e{i + 1}", "role": "link", "name": "x", "c": c} for i, c in enumerate([1, 3, 5])
    ]
    content = [{"k": "table", "t": "Plants", "c": 0}, {"k": "table_row", "c": 2}]
    sent = wire.encode_semantics(URL, paths, content, elements)
    assert sent["contexts"] == encoded
    assert sent["elements"][0] == order.index(1)  # the markers follow the contexts' order
    decoded = wire.decode({"url": URL, **sent})
    assert [decoded["contexts"][e["c"]] for e in decoded["elements"]] == [
        paths[c] for c in (1, 3, 5)
    ]
    assert [decoded["contexts"][e["c"]] for e in decoded["content"]] == ["main", table]
    assert elements[0]["c"] == 1  # the arguments are left as they were


def test_runs_a_host_never_sends_are_bounded() -> None:
    assert len(wire.decode_contexts(["t", [0, "row", 1, 10**9]])) == 1 + wire.MAX_RUN
    assert wire.decode_contexts([[0, "row", 3, 2]]) == []  # an empty run
    assert wire.decode_contexts([[0, "row", True, 2]]) == [""]  # not a run, not a path


def test_short_kinds_and_cells_with_extras() -> None:
    content: list[dict[str, Any]] = [
        {"k": "heading", "t": "A", "l": 2},
        {"k": "heading", "l": 6},
        {"k": "heading", "t": "deep", "l": 9},  # no h9: the level stays an extra
        {"k": "paragraph", "t": "p"},
        {"k": "list_item", "t": "li"},
        {"k": "table_cell", "t": "h1", "h": 2},  # a cell whose text is a kind
        {"k": "table_cell", "t": "p", "d": {"n": "Name"}},
        {"k": "table_cell", "t": "text"},
        {"k": "text", "t": "cell"},
    ]
    items = wire.encode_content(content, [])
    assert items == [
        ["h2", "A"],
        ["h6"],
        ["heading", "deep", 9],
        ["p", "p"],
        ["li", "li"],
        ["h1", 2],
        ["p", {"n": "Name"}],
        "text",
        ["text", "cell"],
    ]
    assert wire.decode_content(items, []) == content


def test_the_capture_time_is_sent_in_the_basic_format() -> None:
    assert wire.basic_time("2026-05-01T12:00:00.123Z") == "20260501T120000.123Z"
    assert wire.extended_time("20260501T120000.123Z") == "2026-05-01T12:00:00.123Z"
    assert wire.extended_time("2026-05-01T12:00:00.123Z") == "2026-05-01T12:00:00.123Z"
    assert wire.decode({"at": "20260501T120000Z"})["at"] == "2026-05-01T12:00:00Z"


_kinds = st.sampled_from(["heading", "paragraph", "list_item", "table_cell", "table_row", "code"])


@given(
    st.lists(
        st.fixed_dictionaries(
            {"k": _kinds},
            optional={
                "t": st.sampled_from(["x", "h2", "p", "a b"]),
                "l": st.integers(1, 8),
                "h": st.integers(1, 2),
                "e": st.just(["e1"]),
                "d": st.just({"n": "N"}),
                "c": st.integers(0, 2),
            },
        ),
        max_size=8,
    )
)
def test_content_round_trip(raw: list[dict[str, Any]]) -> None:
    content = []
    for fields in raw:
        e = dict(fields)
        if e["k"] != "heading":
            e.pop("l", None)
        if e["k"] != "table_cell":
            e.pop("h", None)
        if "e" in e:
            e["t"] = "x"  # the element's name: sent as ""
        content.append(e)
    elements = [{"ref": "e1", "role": "button", "name": "x"}]
    assert wire.decode_content(wire.encode_content(content, elements), elements) == content


@given(
    st.lists(
        st.tuples(st.sampled_from(["main", 'table "t"', "form > table"]), st.integers(1, 6)).map(
            lambda t: f"{t[0]} > row {t[1]}"
        )
        | st.sampled_from(["main", 'main > table "t"', "form", "row 3", "main > row"]),
        unique=True,
    )
)
def test_any_row_paths_round_trip_in_any_order(paths: list[str]) -> None:
    assert wire.decode_contexts(wire.encode_contexts(paths)) == paths
    ordered = [paths[i] for i in wire.context_order(paths)]
    assert sorted(ordered) == sorted(paths)
    assert wire.decode_contexts(wire.encode_contexts(ordered)) == ordered
