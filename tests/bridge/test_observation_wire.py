"""The compact wire form of observations (bridge_protocol.observation, docs/observations.md):
encoding then decoding gives the entries back; markers, implied keys and relative destinations."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from bridge_protocol import observation as wire

URL = "http://127.0.0.1:8000/shop?x=1"
CONTENT: list[dict[str, Any]] = [
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
        ["e1", "link", "docs", "/docs#a"],  # same origin: the path
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
    assert obs["content"][:3] == [
        0,
        ["heading", "Shop", 1],
        ["paragraph", "See the docs for more.", ["e1"]],
    ]
    # a header cell, an empty cell, and a cell whose text is its elements' names
    assert ["table_cell", "Item", 1] in obs["content"]
    assert ["table_cell"] in obs["content"]
    assert ["table_cell", "", ["e4", "e5"]] in obs["content"]
    assert obs["content"][-2:] == [-1, ["image", "Company logo"]]
    assert wire.count_entries(obs["content"]) == len(CONTENT)


def test_cell_text_of_adjacent_buttons_gets_spaces() -> None:
    content = [{"k": "table_cell", "t": "BuySell", "e": ["e4", "e5"]}]
    items = wire.encode_content(content, ELEMENTS)
    assert items == [["table_cell", "", ["e4", "e5"]]]
    assert wire.decode_content(items, ELEMENTS)[0]["t"] == "Buy Sell"


def test_relative_destinations() -> None:
    assert wire.relative_dest(URL, "http://127.0.0.1:8000/a?b#c") == "/a?b#c"
    assert wire.relative_dest(URL, "http://127.0.0.1:8001/a") == "http://127.0.0.1:8001/a"
    assert wire.relative_dest(URL, "https://127.0.0.1:8000/a") == "https://127.0.0.1:8000/a"
    assert wire.relative_dest(URL, "http://127.0.0.1:8000//evil.test/") == (
        "http://127.0.0.1:8000//evil.test/"
    )
    assert wire.relative_dest(URL, "mailto:a@b.test") == "mailto:a@b.test"
    assert wire.relative_dest("about:blank", "http://x.test/") == "http://x.test/"


_text = st.text(alphabet='ab /#?:é"', max_size=8)


@given(
    st.lists(
        st.fixed_dictionaries(
            {"role": st.sampled_from(["link", "button", "textbox", "combobox"])},
            optional={
                "name": _text.filter(bool),
                "value": _text.filter(bool),
                "dest": st.sampled_from(
                    ["http://127.0.0.1:8000/p", "https://x.test/q#", "http://127.0.0.1:8000/"]
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
