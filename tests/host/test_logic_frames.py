"""Frames without Qt (host_app/logic/frames.py): slot/frame matching, merging the documents'
answers, public refs, and the wheel plan through nested frames."""

from __future__ import annotations

from typing import Any

from host_app.logic.frames import (
    Box,
    FrameDoc,
    FrameRead,
    HostFrame,
    Level,
    RefTable,
    free_point,
    match,
    merge,
    scroll_step,
    shown,
)
from host_app.logic.observed import Observed, Slot
from host_app.logic.page_answers import decode, wire


def slot(n: int, src: str = "", name: str = "", w: float = 300, h: float = 150, **kw: Any) -> Slot:
    return Slot(n=n, name=name, src=src, x=kw.pop("x", 0.0), y=kw.pop("y", 0.0), w=w, h=h, **kw)


def frame(url: str, name: str = "", w: float = 300, h: float = 150) -> HostFrame:
    return HostFrame(name=name, url=url, w=w, h=h)


def test_match_by_name_then_url_then_size_in_order() -> None:
    slots = [
        slot(5, "https://pay.example/a", name="card"),
        slot(6, "https://ads.example/x", w=728, h=90),
        slot(7, "https://b.example/", w=100, h=100),
    ]
    # the engine's order differs from the document's; the card frame navigated (URL differs)
    frames = [
        frame("https://b.example/", w=100, h=100),
        frame("https://pay.example/after", name="card"),
        frame("https://ads.example/x", w=728, h=90),
    ]
    assert match(slots, frames) == {5: 1, 6: 2, 7: 0}


def test_match_same_src_pairs_in_order_and_hidden_frames_are_left_over() -> None:
    slots = [slot(1, "https://w.example/"), slot(2, "https://w.example/")]
    frames = [
        frame("https://track.example/", w=0, h=0),  # display:none iframe: no slot
        frame("https://w.example/"),
        frame("https://w.example/"),
    ]
    assert match(slots, frames) == {1: 1, 2: 2}


def test_match_by_size_when_urls_say_nothing() -> None:
    # about:blank frames written by script, and one frame that navigated away from its src
    slots = [slot(1, "about:blank", w=200, h=50), slot(2, "https://x.example/", w=400, h=300)]
    frames = [frame("https://y.example/moved", w=400, h=300), frame("about:blank", w=200, h=50)]
    assert match(slots, frames) == {1: 1, 2: 0}


def test_match_never_guesses_a_frame_of_another_size_or_claimed_url() -> None:
    slots = [slot(1, "https://a.example/", w=300, h=150)]
    assert match(slots, [frame("https://a.example/", w=640, h=480)]) == {}
    # the frame at b's URL belongs to slot 2 even though slot 1 comes first and sizes agree
    slots = [slot(1, "https://gone.example/"), slot(2, "https://b.example/")]
    assert match(slots, [frame("https://b.example/")]) == {2: 0}
    assert match([], [frame("https://a.example/")]) == {}


def test_match_with_unknown_engine_size() -> None:
    assert match([slot(1, "about:srcdoc")], [frame("about:srcdoc", w=-1, h=-1)]) == {1: 0}


def raw(
    fid: str,
    *,
    cx: list[str] | None = None,
    ct: list[dict[str, Any]] | None = None,
    el: list[dict[str, Any]] | None = None,
    fr: list[dict[str, Any]] | None = None,
    om: int = 0,
) -> Observed:
    el = el or []
    answer = decode(
        {
            "key": [1.0, 1],
            "u": f"https://{fid}.example/",
            "ti": fid,
            "vp": [0, 0, 800, 600],
            "dc": [800, 600],
            "cx": cx or [],
            "ct": ct or [],
            "el": el,
            "sg": [[int(e["ref"][1:]), f"button|button|{e.get('name', '')}"] for e in el],
            "om": om,
            "cl": 0,
            "fid": fid,
            "fr": fr or [],
        },
        Observed,
    )
    assert answer is not None
    return answer


def doc(fid: str, slot_n: int = 0) -> FrameDoc:
    return FrameDoc(fid, (1.0, 1), slot=slot_n)


def test_merge_splices_frames_in_document_order_with_public_refs() -> None:
    top = raw(
        "top",
        cx=["main"],
        ct=[{"k": "paragraph", "t": "before", "c": 0}, {"k": "frame", "f": 9, "c": 0},
            {"k": "paragraph", "t": "after", "e": ["e2"]}, {"k": "frame", "f": 10}],
        el=[{"ref": "e1", "role": "button", "name": "A", "c": 0},
            {"ref": "e2", "role": "link", "name": "B"}],
        fr=[{"n": 9, "ei": 1}, {"n": 10, "ei": 2}],
    )  # fmt: skip
    pay = raw(
        "pay",
        cx=['main > frame "Pay"', 'main > frame "Pay" > form "Card"'],
        ct=[{"k": "text", "t": "inside", "c": 0}],
        el=[{"ref": "e1", "role": "textbox", "name": "Card", "c": 1}],
    )
    root = FrameRead(top, doc("top"))
    root.children[9] = FrameRead(pay, doc("pay", 9))
    root.notes[10] = "frame https://gone.example/ (not read: the engine has no such frame)"
    table = RefTable(1)
    m = merge(root, table)
    r = wire(m.answer)
    assert sorted(r["cx"]) == ["main", 'main > frame "Pay"', 'main > frame "Pay" > form "Card"']

    def path(e: dict[str, Any]) -> str | None:
        return r["cx"][e.pop("c")] if "c" in e else None

    assert [(e["ref"], e["name"], path(e)) for e in r["el"]] == [
        ("e1", "A", "main"),
        ("e2", "Card", 'main > frame "Pay" > form "Card"'),
        ("e3", "B", None),
    ]
    assert [(path(e), e) for e in r["ct"]] == [
        ("main", {"k": "paragraph", "t": "before"}),
        ('main > frame "Pay"', {"k": "text", "t": "inside"}),
        (None, {"k": "paragraph", "t": "after", "e": ["e3"]}),
        (
            None,
            {
                "k": "frame",
                "t": "frame https://gone.example/ (not read: the engine has no such frame)",
            },
        ),
    ]
    assert m.locators == {1: (0, 1), 2: (1, 1), 3: (0, 2)}
    assert [(d.id, d.parent, d.slot) for d in m.docs] == [("top", -1, 0), ("pay", 0, 9)]
    assert sorted(n for n, _ in r["sg"]) == [1, 2, 3]
    assert (r["u"], r["ti"]) == ("https://top.example/", "top")
    assert not {"fid", "fr", "vs"} & r.keys()
    # the same documents again: the same numbers
    assert merge(root, table).locators == m.locators


def test_merge_applies_the_entry_bound_across_frames() -> None:
    top = raw(
        "top",
        ct=[{"k": "text", "t": "a"}, {"k": "frame", "f": 3}, {"k": "text", "t": "z"}],
        el=[{"ref": "e1", "role": "button"}],
        fr=[{"n": 3, "ei": 1}],
        om=2,
    )
    child = raw(
        "c",
        ct=[{"k": "text", "t": "b"}, {"k": "text", "t": "c"}],
        el=[{"ref": "e1", "role": "button"}],
    )
    root = FrameRead(top, doc("top"))
    root.children[3] = FrameRead(child, doc("c", 3))
    m = merge(root, RefTable(1), max_entries=4)
    assert [c.text for c in m.answer.content] == ["a", "b"]
    assert len(m.answer.elements) == 2
    assert m.answer.omitted == 2 + 2


def test_ref_table_is_unique_across_documents_and_stable() -> None:
    t = RefTable(1)
    assert [t.public("a", 1), t.public("b", 1), t.public("a", 2), t.public("a", 1)] == [1, 2, 3, 1]


def test_ref_table_never_reuses_numbers_when_it_starts_over(monkeypatch: Any) -> None:
    from host_app.logic import frames

    monkeypatch.setattr(frames, "MAX_REFS", 2)
    t = RefTable(1)
    assert [t.public("a", 1), t.public("a", 2), t.public("a", 3), t.public("a", 1)] == [1, 2, 3, 4]


def test_scroll_step_none_when_the_point_shows_through_every_frame() -> None:
    levels = [Level(800, 600, Box(100, 50, 400, 300)), Level(400, 300)]
    assert scroll_step(levels, 200, 150) is None
    assert shown(levels, 200, 150)


def test_scroll_step_scrolls_inside_the_frame_away_from_the_nested_iframe() -> None:
    levels = [Level(800, 600, Box(100, 50, 400, 300)), Level(400, 300)]
    # the element is 900 px down inside the frame, whose box shows whole
    w = scroll_step(levels, 200, 900)
    assert w is not None
    assert Box(100, 50, 400, 300).has(w.x, w.y)  # the wheel goes over the frame
    assert w.dy < 0  # toward the bottom
    assert w.dx == 0
    assert not shown(levels, 200, 900)


def test_scroll_step_scrolls_the_page_first_when_the_frame_is_below_the_fold() -> None:
    levels = [Level(800, 600, Box(20, 560, 400, 300)), Level(400, 300)]
    w = scroll_step(levels, 100, 250)  # inside the frame's viewport, below the page's
    assert w is not None
    assert w.dy < 0
    assert not Box(20, 560, 400, 300).has(w.x, w.y)  # not over the frame, which would take it


def test_scroll_step_nested_levels_outermost_first() -> None:
    levels = [
        Level(800, 600, Box(0, 0, 800, 600)),  # a frame filling the page
        Level(800, 600, Box(0, 700, 300, 100)),  # its nested frame, below its fold
        Level(300, 100),
    ]
    w = scroll_step(levels, 10, 10)
    assert w is not None
    assert w.dy < 0
    assert w.y < 700  # inside the middle frame, not over the nested one
    # a frame that shows nowhere gets no wheel
    hidden = [Level(800, 600, Box(0, 0, 0, 0)), Level(0, 0)]
    assert scroll_step(hidden, 5, 5) is None


def test_host_frame_walk_and_paths() -> None:
    tree = HostFrame("", "top", -1, -1, [frame("a"), HostFrame("", "b", 1, 1, [frame("c")])])
    assert [(p, f.url) for p, f in tree.walk()] == [
        ((), "top"),
        ((0,), "a"),
        ((1,), "b"),
        ((1, 0), "c"),
    ]
    leaf = tree.at((1, 0))
    assert leaf is not None
    assert leaf.url == "c"
    assert tree.at((3,)) is None


def test_free_point_stays_in_the_region() -> None:
    region = Box(10, 10, 500, 300)
    # the nested frame is far below the region: the region's center, not a strip beyond it
    assert free_point(region, Box(20, 1220, 400, 120)) == (260, 160)
    # it covers the top half: the middle of the strip below it
    assert free_point(region, Box(0, 0, 600, 160)) == (260, 235)
    assert free_point(region, None) == (260, 160)
