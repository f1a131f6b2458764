"""host_app.logic.page_answers and host_app.logic.observed: the isolated-world scripts' answers
decoded once into structs with readable names (the scripts' short keys on the wire); a missing or
malformed answer gives what the hand-written reads gave. Every struct's wire names (or, for an
answer that is a list, its length) are checked against the script that sends it, and every call
the drivers send (`page_driver.Call`) names its script and reads no answer without failing."""

from __future__ import annotations

import re
from typing import Any

import msgspec

from host_app import scripts
from host_app.core import js, observe_js
from host_app.core.page_driver import Call, Focused, Script
from host_app.logic.actionability import Cover
from host_app.logic.observed import Element, Entry, Observed, Slot
from host_app.logic.page_answers import (
    TICK_LENGTH,
    AriaOption,
    ConformanceReading,
    ElementInfo,
    Loads,
    OptionRow,
    RefCheck,
    SlotRead,
    SnapshotAnswer,
    SnapshotNode,
    Tick,
    decode,
    wire,
)
from host_app.logic.readiness import Probe

# an element's answer as _ELEMENT_INFO sends it: flags as 0 or 1 where the script counts them
ELEMENT = {
    "x": 10,
    "y": 20.5,
    "w": 100,
    "h": 30,
    "vw": 800,
    "vh": 600,
    "de": 3,
    "vis": True,
    "dis": False,
    "ro": False,
    "ed": True,
    "f": True,
    "hit": False,
    "cov": ["", "Close"],
    "v": "abc",
    "o": [["a", False], ["b", True]],
    "si": 1,
    "m": True,
    "tag": "select",
    "op": [[10, 20, 100, 15, 0], [10, 35, 100, 15, 1]],
    "cb": [10, 20, 100, 30],
    "ao": [["One", 1, 0, 1, 2, 3, 4]],
    "an": 1,
    "cl": [0, 0, 400, 300],
    "pt": [50, 25],
    "sk": 0,
}


def test_an_element_answer_decodes_to_readable_fields() -> None:
    info = decode(ELEMENT, ElementInfo)
    assert info is not None
    assert info.box == (10.0, 20.5, 100.0, 30.0)
    assert (info.vw, info.vh, info.doc_end) == (800.0, 600.0, 3)
    assert (info.visible, info.disabled, info.readonly, info.editable) == (True, False, False, True)
    assert (info.focused, info.hit, info.value, info.selected) == (True, False, "abc", 1)
    assert (info.multiple, info.animating, info.sink) == (True, True, False)
    assert info.cover == Cover("generic", "Close")
    assert info.options == [("a", False), ("b", True)]
    assert info.rows == [OptionRow(10, 20, 100, 15, False), OptionRow(10, 35, 100, 15, True)]
    assert info.rows[1].box == (10.0, 35.0, 100.0, 15.0)
    assert info.client == (10.0, 20.0, 100.0, 30.0)
    assert info.aria_options == [AriaOption("One", True, False, 1, 2, 3, 4)]
    assert info.aria_options[0].box == (1.0, 2.0, 3.0, 4.0)
    assert info.clip == (0.0, 0.0, 400.0, 300.0)
    assert (info.cx, info.cy) == (50.0, 25.0)
    assert info.tag == "select"


def test_an_element_answer_without_its_optional_keys_takes_the_old_defaults() -> None:
    required = ("x", "y", "w", "h", "vw", "vh", "vis", "dis", "ro", "ed", "f", "hit")
    info = decode({k: ELEMENT[k] for k in required}, ElementInfo)
    assert info is not None
    assert (info.value, info.options, info.selected, info.multiple) == (None, None, -1, False)
    assert (info.cover, info.rows, info.client, info.aria_options) == (None, None, None, None)
    assert (info.animating, info.clip, info.point, info.sink, info.doc_end) == (
        False,
        None,
        None,
        False,
        0,
    )
    assert (info.cx, info.cy) == (60.0, 35.5)


def test_no_element_answer_is_none() -> None:
    # the script's 'null' (the element left the document), no answer, a malformed one
    assert decode(None, ElementInfo) is None
    assert decode([1, 2], ElementInfo) is None
    assert decode({"x": 1}, ElementInfo) is None
    assert decode({**ELEMENT, "x": "left"}, ElementInfo) is None


def test_the_wire_form_is_the_scripts() -> None:
    info = decode(ELEMENT, ElementInfo)
    assert info is not None
    out = wire(info)
    assert set(out) == set(ELEMENT)
    assert decode(out, ElementInfo) == info
    assert wire(Tick(2.0, 1, 0, 0, 0, False)) == [
        2.0,
        1,
        0,
        0,
        0,
        False,
        False,
        -1,
        False,
        0,
        False,
    ]
    assert wire(Loads(frozenset({"u"}), 5.0, 1)) == {"p": ["u"], "q": 5.0, "n": 1}


def _keys(script: str) -> set[str]:
    """The keys of the object a script answers with (its last `JSON.stringify({...})`)."""
    body = script[script.rindex("JSON.stringify({") + len("JSON.stringify(") :]
    return set(re.findall(r"[{,]\s*([a-z]+):", body))


def _names(kind: type[msgspec.Struct]) -> set[str]:
    return {f.encode_name for f in msgspec.structs.fields(kind)}


def test_the_structs_name_every_key_the_scripts_send() -> None:
    assert _names(ElementInfo) == _keys(observe_js._ELEMENT_INFO)
    assert _names(SlotRead) == _keys(observe_js._SLOT)
    assert _names(Probe) == _keys(js.PROBE.code)
    assert _names(Loads) == _keys(js.PENDING_LOADS.code)
    assert _names(RefCheck) == _keys(observe_js._CHECK)
    assert _names(SnapshotAnswer) == _keys(js.SNAPSHOT.code)
    assert _names(ConformanceReading) == _literal(observe_js._PROBE, "out.push({")


def _arity(script: str, start: str) -> int:
    """How many items the array literal of a script that begins with `start` (`op.push([`)
    holds: its commas outside brackets and parentheses, plus one."""
    at = script.index(start) + len(start)
    depth, items = 0, 1
    for ch in script[at:]:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                return items
            depth -= 1
        elif ch == "," and depth == 0:
            items += 1
    raise AssertionError(f"{start!r} is not closed")


def _length(kind: type[msgspec.Struct]) -> int:
    return len(msgspec.structs.fields(kind))


def test_the_answers_that_are_lists_have_the_scripts_length() -> None:
    info = observe_js._ELEMENT_INFO
    assert _length(OptionRow) == _arity(info, "op.push([")
    assert _length(AriaOption) == _arity(info, "ao.push([")
    assert _length(Cover) == _arity(observe_js._COVER, "return [")
    assert _length(Tick) == TICK_LENGTH == _arity(js.TICK.code, "JSON.stringify([")
    assert _length(SnapshotNode) == _arity(js.SNAPSHOT.code, "out.push([")
    assert _arity(js.SNAPSHOT.code, "links.push([") == 2  # SnapshotAnswer.links: (index, href)
    assert _arity(observe_js._OBSERVE, "sigs.push([") == 2  # Observed.signatures: (number, sig)
    # ConformanceReading.places: (kind, where)
    assert _arity(observe_js._PROBE, "return [") == 2
    assert _arity(js.DOC_SIZE.code, "JSON.stringify([") == 4  # DOC_SIZE's tuple
    assert _arity(js.VIEWPORT.code, "JSON.stringify([") == 2
    assert js.DOC_SIZE.read([1, 2, 3, 4]) == (1, 2, 3, 4)
    assert js.VIEWPORT.read([1024, 700]) == (1024.0, 700.0)


def test_a_tick_is_read_from_its_eleven_counters() -> None:
    t = Tick.of([1.5, 3, 4, 5, 6, 1, 0, 7, 1, 8, 1])
    assert t == Tick(1.5, 3, 4, 5, 6, True, False, 7, True, 8, True)
    assert (t.document, t.frames, t.moves, t.ups, t.keys, t.turns) == (1.5, 3, 4, 5, 6, 8)
    assert (t.submitting, t.download_click, t.frame_focus, t.navigates) == (True, False, True, 7)
    assert t.settled


def test_anything_but_eleven_counters_is_a_tick_of_no_document() -> None:
    none = Tick(-1.0, 0, 0, 0, 0, False)
    assert Tick.of(None) == none
    assert Tick.of([1.5, 3, 4, 5, 6, 1]) == none
    assert Tick.of([1.5, 3, 4, 5, 6, 1, 0, 7, 1, 8]) == none
    assert Tick.of([1.5, 3, 4, 5, 6, 1, 0, 7, 1, 8, 1, 9]) == none
    assert Tick.of({"f": 1}) == none
    assert Tick.of(["x", 3, 4, 5, 6, 1, 0, 7, 1, 8]) == none


def test_pending_loads_in_seconds_and_nothing_pending_without_an_answer() -> None:
    loads = Loads.of({"p": ["http://a/x.js", "http://a/x.js"], "q": 250, "n": 2})
    assert loads.pending == frozenset({"http://a/x.js"})
    assert (loads.quiet, loads.inserted) == (0.25, 2)
    assert Loads.of({"p": [], "q": 1000}) == Loads(frozenset(), 1000.0, 0)
    bad: object
    for bad in (None, "null", [], {"p": "x"}):
        nothing = Loads.of(bad)
        assert (nothing.pending, nothing.quiet, nothing.inserted) == (frozenset(), 0.0, 0)


def test_a_probe_decodes_and_a_missing_one_is_none() -> None:
    raw = {"h": "http://a/", "r": "complete", "l": 120, "s": 200, "o": 17.5, "t": "A", "c": True}
    assert decode(raw, Probe) == Probe("http://a/", "complete", 120, 200, 17.5, "A", True)
    assert decode({**raw, "t": "", "c": False}, Probe) == Probe(
        "http://a/", "complete", 120, 200, 17.5
    )
    assert decode(None, Probe) is None
    assert decode({"h": "http://a/"}, Probe) is None


def test_a_frame_slot_read() -> None:
    raw = {"x": 5, "y": 6, "w": 300, "h": 200, "vw": 800, "vh": 600, "vis": True}
    slot = decode({**raw, "hit": None, "cov": None}, SlotRead)
    assert slot == SlotRead(5, 6, 300, 200, 800, 600, True)
    covered = decode({**raw, "hit": False, "cov": ["dialog", "Cookies"]}, SlotRead)
    assert covered is not None
    assert covered.hit is False
    assert covered.cover == Cover("dialog", "Cookies")
    assert decode(None, SlotRead) is None


def test_a_ref_check_names_the_document_and_the_signatures() -> None:
    raw = {"key": [17.5, 2], "id": "17.5:abc", "s": {"3": "button|button|OK", "4": None}}
    check = decode(raw, RefCheck)
    assert check == RefCheck((17.5, 2), "17.5:abc", {"3": "button|button|OK", "4": None})
    # the main frame's fake answers without an id; a frame's id is then no document's
    plain = decode({"key": [17.5, 2], "s": {}}, RefCheck)
    assert plain == RefCheck((17.5, 2))
    assert plain.id is None
    assert decode(wire(check), RefCheck) == check
    bad: object
    for bad in (None, "null", {"s": {}}, {"key": "x"}, {"key": [1.0]}):
        assert decode(bad, RefCheck) is None


def test_the_selector_snapshot_reads_its_nodes_and_links() -> None:
    raw = {
        "n": [["html", {}, -1], ["a", {"href": "/x", "class": "c"}, 0]],
        "k": [[1, "http://a/x"]],
    }
    snap = decode(raw, SnapshotAnswer)
    assert snap == SnapshotAnswer(
        [SnapshotNode("html", {}, -1), SnapshotNode("a", {"href": "/x", "class": "c"}, 0)],
        [(1, "http://a/x")],
    )
    assert decode({}, SnapshotAnswer) == SnapshotAnswer()
    assert decode(None, SnapshotAnswer) is None
    assert decode({"n": [["a", {}, "x"]]}, SnapshotAnswer) is None


# --- the observation's answer (host_app/logic/observed.py) ---------------------------------------


def _assigned(script: str, names: str) -> set[str]:
    """The keys a script sets on the objects it holds in the variables `names` (`el.name=`)."""
    return set(re.findall(rf"\b(?:{names})\.([a-z]+)=(?!=)", script))


def _literal(script: str, start: str) -> set[str]:
    """The keys of the object literals of a script that begin with `start` (`{k:`)."""
    found = set()
    for body in re.findall(re.escape(start) + r"[^}]*\}", script):
        found |= set(re.findall(r"[{,]\s*([a-z]+):", body))
    return found


def test_the_observation_structs_name_every_key_the_script_sends() -> None:
    script = observe_js._OBSERVE
    assert _names(Observed) == _keys(script)
    # content entries: the literals that open them, the keys set on them after
    entry_keys = _literal(script, "{k:") | _assigned(script, "e|te|te2|re|le|ie|fe")
    assert _names(Entry) == entry_keys
    assert _names(Element) == _literal(script, "var el={") | _assigned(script, "el")
    assert _names(Slot) == _literal(script, "slots.push({")


OBSERVED = {
    "key": [17.5, 2],
    "u": "http://a/",
    "ti": "A",
    "vp": [0, 120, 800, 600],
    "dc": [800, 5000],
    "cx": ["main"],
    "ct": [
        {"k": "heading", "t": "Shop", "l": 1, "c": 0},
        {"k": "table_cell", "t": "Price", "h": 1},
        {"k": "table_row", "d": {"n": "Row"}},
        {"k": "frame", "f": 3, "c": 0},
        {"k": "text", "t": "Buy now", "e": ["e2"]},
    ],
    "el": [
        {"ref": "e2", "role": "link", "name": "Buy", "dest": "http://a/buy", "c": 0},
        {"ref": "e4", "role": "combobox", "value": "S", "st": ["expanded"], "opts": [["s", "S"]]},
    ],
    "sg": [[2, "a|link|Buy"], [4, "select|combobox|"]],
    "om": 1,
    "cl": 2,
    "fid": "17.5:abc",
    "fr": [
        {"n": 3, "nm": "pay", "src": "http://b/", "x": 1, "y": 2, "w": 300, "h": 150,
         "lab": "Pay", "p": ["main"], "ei": 1},
    ],
    "vs": 40,
    "ub": 900,
    "ueb": 300,
    "np": ["captcha", "hcaptcha", "Solve it"],
}  # fmt: skip


def test_an_observation_decodes_to_readable_fields_and_back() -> None:
    obs = decode(OBSERVED, Observed)
    assert obs is not None
    assert (obs.key, obs.url, obs.title, obs.frame_id) == ((17.5, 2), "http://a/", "A", "17.5:abc")
    assert (obs.viewport, obs.document) == ((0, 120, 800, 600), (800, 5000))
    assert (obs.omitted, obs.clipped, obs.visited, obs.used_bytes, obs.used_element_bytes) == (
        1,
        2,
        40,
        900,
        300,
    )
    assert obs.content[0] == Entry("heading", "Shop", 0, level=1)
    assert (obs.content[1].header, obs.content[2].details) == (1, {"n": "Row"})
    assert (obs.content[3].frame, obs.content[4].refs) == (3, ["e2"])
    assert obs.elements == [
        Element("e2", "link", "Buy", dest="http://a/buy", context=0),
        Element("e4", "combobox", value="S", states=["expanded"], options=[("s", "S")]),
    ]
    assert obs.signatures == [(2, "a|link|Buy"), (4, "select|combobox|")]
    assert obs.slots == [Slot(3, "pay", "http://b/", 1, 2, 300, 150, "Pay", ("main",), 1)]
    assert obs.person == ["captcha", "hcaptcha", "Solve it"]
    assert msgspec.json.decode(msgspec.json.encode(obs)) == OBSERVED
    # a frame's document sends no person; a key-less answer is no observation
    frame = decode({"key": [1, 1], "np": None}, Observed)
    assert frame == Observed((1.0, 1))
    assert msgspec.json.decode(msgspec.json.encode(frame)) == {"key": [1.0, 1]}
    assert decode({"u": "http://a/"}, Observed) is None
    assert decode(None, Observed) is None


# --- the calls (host_app/core/page_driver.Call) --------------------------------------------------

CALLS: list[Call[Any]] = [
    js.PROBE,
    js.PENDING_LOADS,
    js.ANIMATIONS_LEFT,
    js.SNAPSHOT,
    js.DOC_SIZE,
    js.INNER_HEIGHT,
    js.VIEWPORT,
    js.READY_STATE,
    js.SCROLL_DRAWN,
    js.TICK,
    js.OUTER_HTML,
    js.scroll_offsets(1, 2),
    js.element(3, "a"),
    js.focus(4, "input", True),
    observe_js.observe("semantic"),
    observe_js.probe("[data-x]"),
    observe_js.check([1, 2]),
    observe_js.element(5),
    observe_js.choice(9),
    observe_js.element_at(6, "b"),
    observe_js.slot(7, (1.0, 2.0)),
    observe_js.focus(8, True, True),
    js.together(js.TICK, js.PENDING_LOADS),
]


def test_every_script_is_sent_by_a_call_that_names_it() -> None:
    assert {c.script for c in CALLS} == set(Script)
    for c in CALLS:
        name = c.script.value
        if c.script is Script.TOGETHER:
            assert c.code == js.joined(*(part.code for part in c.args))
            continue
        # a file's text up to its first placeholder, or the one-line read itself
        head = scripts.template(name).split("$", 1)[0] if name.endswith(".js") else name
        assert head in c.code, name
    # what a fake reads of a call: the arguments its builder got
    assert observe_js.slot(7, (1.0, 2.0)).args == (7, (1.0, 2.0))
    assert observe_js.focus(8, True, True).args == (8, True, True, None)
    assert observe_js.observe("visual", {"v": 1}).args == ("visual", {"v": 1})


def test_no_answer_reads_as_what_the_drivers_took_it_for() -> None:
    got = {c.script: c.read(None) for c in CALLS}
    fallbacks = {
        Script.TICK: Tick(-1.0, 0, 0, 0, 0, False),
        Script.PENDING_LOADS: Loads(),
        Script.DOC_SIZE: (0, 0, 0, 0),
        Script.VIEWPORT: (800.0, 600.0),
        Script.FOCUS: Focused.NO,
        Script.FOCUS_AT: Focused.NO,
        Script.CONFORMANCE: [],
        Script.SCROLL_DRAWN: True,
        Script.TOGETHER: (Tick(-1.0, 0, 0, 0, 0, False), Loads()),
    }
    assert got == {s: fallbacks.get(s) for s in Script}
    assert js.focus(4, "input", True).read("end") is Focused.AT_END
    assert js.INNER_HEIGHT.read(600) == 600
    assert js.scroll_offsets(1, 2).read([0, 10, 0, 0]) == [0.0, 10.0, 0.0, 0.0]
    readings = observe_js.probe("x").read(
        [{"at": {"data-x": "1"}, "rep": [["el", 2], ["cx", "a"]]}]
    )
    assert readings == [ConformanceReading({"data-x": "1"}, [("el", 2), ("cx", "a")])]
