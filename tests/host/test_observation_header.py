"""The compact observation header (issue 11 "Observation economy", docs/observations.md "Top
level"): what `host_app.core.observations.build` sends, what a response shows beside its page, and
that decoding gives clients back the URL, absolute destinations and the counters. No processes."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from bridge_protocol import observation as wire
from host_app.core.observations import build
from host_app.logic.observed import Observed
from host_app.logic.page_answers import decode
from host_app.logic.page_events import PageEvent

URL = "http://127.0.0.1:8000/shop/list?page=2"
AT = "2026-05-01T12:00:00.123Z"


def raw(**extra: Any) -> Observed:
    """The observation script's answer for a small page (host_app/core/observe_js.py)."""
    answer = decode(_raw(**extra), Observed)
    assert answer is not None
    return answer


def _raw(**extra: Any) -> dict[str, Any]:
    return {
        "key": [1.5, 1],
        "u": URL,
        "ti": "Shop",
        "vp": [0, 120, 1920, 947],
        "dc": [1920, 5230],
        "cx": ["main"],
        "ct": [{"k": "heading", "t": "Shop", "l": 1, "c": 0}],
        "el": [
            {"ref": "e1", "role": "link", "name": "Top", "dest": URL + "#", "c": 0},
            {"ref": "e2", "role": "link", "name": "Next", "dest": URL[:-1] + "3", "c": 0},
            {"ref": "e3", "role": "link", "name": "Cart", "dest": "http://127.0.0.1:8000/cart"},
            {"ref": "e4", "role": "link", "name": "Item", "dest": "http://127.0.0.1:8000/shop/9"},
            {"ref": "e5", "role": "button", "name": "Buy"},
        ],
        "sg": [[1, "a|link|Top"], [2, "a|link|Next"], [3, "a|link|Cart"], [4, "a|link|Item"]],
        "om": 0,
        "cl": 0,
        **extra,
    }


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def header(obs: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obs.items() if k not in ("contexts", "content", "elements")}


def test_the_header_is_compact() -> None:
    obs, sigs = build(raw(), obs_id="obs_5f0c1a2b3c4d", seq=3, mode="semantic", captured_at=AT)
    assert header(obs) == {
        "id": "obs_5f0c1a2b3c4d",
        "seq": 3,
        "at": "20260501T120000.123Z",  # ISO 8601's basic format
        "url": URL,  # for the agent: it keeps it, a response shows page.url instead
        "title": "Shop",
        "vp": [0, 120, 1920, 947],
        "doc": [1920, 5230],
        "truncated": False,
    }
    assert obs["elements"] == [
        0,
        ["e1", "link", "Top", "#"],
        ["e2", "link", "Next", "?page=3"],
        -1,
        ["e3", "link", "Cart", "/cart"],
        ["e4", "link", "Item", "9"],
        ["e5", "button", "Buy"],
    ]
    assert sorted(sigs) == [1, 2, 3, 4]
    shown = header(wire.for_page(obs, URL))
    assert "url" not in shown
    # the header a response shows: under half of the ~300 bytes it had here before issue 11
    assert len(compact(shown)) <= 136, compact(shown)
    assert wire.decode(shown, URL)["at"] == AT


def test_mode_counters_and_truncated() -> None:
    visual, _ = build(raw(om=2, cl=1), obs_id="obs_1", seq=1, mode="visual", captured_at=AT)
    assert (visual["mode"], visual["omitted_node_count"], visual["clipped_text_count"]) == (
        "visual",
        2,
        1,
    )
    assert visual["truncated"] is True
    assert "content" not in visual
    # dropped page events count as omitted; the clipped counter stays absent at 0
    events = [PageEvent("dialog", "Leave?", {"type": "confirm"})]
    obs, _ = build(
        raw(), obs_id="obs_2", seq=1, mode="hybrid", captured_at=AT, events=events, events_dropped=3
    )
    assert (obs["mode"], obs["omitted_node_count"], obs["truncated"]) == ("hybrid", 3, True)
    assert "clipped_text_count" not in obs
    assert obs["content"][0] == ["dialog", "Leave?", {"type": "confirm"}]


def test_the_size_clip_counts_what_it_drops() -> None:
    many = [{"k": "paragraph", "t": "x" * 2000} for _ in range(300)]
    obs, _ = build(raw(ct=many), obs_id="obs_3", seq=1, mode="semantic", captured_at=AT)
    assert obs["truncated"] is True
    assert obs["omitted_node_count"] == 300 - wire.count_entries(obs["content"])
    assert len(compact(obs).encode()) <= 512 * 1024


_dest = st.tuples(
    st.sampled_from(["http://127.0.0.1:8000", "https://other.test"]),
    st.lists(st.sampled_from(["shop", "list", "a", ""]), max_size=3).map(
        lambda p: "/" + "/".join(p)
    ),
    st.sampled_from(["", "?page=2", "?"]),
    st.sampled_from(["", "#", "#x"]),
).map("".join)


@given(
    st.lists(st.one_of(_dest, st.just(URL + "#"), st.just(URL)), max_size=6),
    st.sampled_from([URL, "http://127.0.0.1:8000/elsewhere"]),
)
def test_clients_decode_what_the_host_built(dests: list[str], page_url: str) -> None:
    """host build -> agent response beside `page_url` (the page may have moved on, as in a GET)
    -> decode: the URL, absolute destinations and the counters come back."""
    elements = [
        {"ref": f"e{i + 1}", "role": "link", "name": f"L{i}", "dest": d}
        for i, d in enumerate(dests)
    ]
    obs, _ = build(raw(el=elements, cl=2), obs_id="obs_4", seq=1, mode="semantic", captured_at=AT)
    shown = wire.for_page(obs, page_url)
    assert ("url" in shown) == (page_url != URL)
    decoded = wire.decode(shown, page_url)
    assert decoded["url"] == URL
    assert decoded.get("elements", []) == elements
    assert (decoded["clipped_text_count"], decoded["truncated"]) == (2, True)
    assert decoded["title"] == "Shop"
