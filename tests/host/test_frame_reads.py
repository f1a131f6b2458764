"""Finding a frame's document again and reading frames (host_app/core/frame_reads.py) over a fake
driver: no Qt, no processes. The fake answers the isolated-world scripts by the script a call
names, with structs."""

from __future__ import annotations

from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest

from bridge_protocol import ErrorId, SvcError
from host_app.core import frame_reads
from host_app.core.kept import Kept
from host_app.core.page_driver import Call, Script
from host_app.logic import aio
from host_app.logic import frames as frames_logic
from host_app.logic.frames import FrameDoc, FrameRead, HostFrame
from host_app.logic.observed import Entry, Observed, Slot
from host_app.logic.page_answers import RefCheck, SlotRead, wire

T = TypeVar("T")


@dataclass
class Doc:
    """What the fake frame's isolated world answers: its registry id and key, its iframes."""

    id: str
    key: tuple[float, int] = (1.0, 1)
    slots: list[Slot] = field(default_factory=list)
    iframes: set[int] = field(default_factory=set)  # registry numbers of iframes still there


def done(value: Any) -> aio.Future[Any]:
    fut: aio.Future[Any] = aio.Future()
    fut.set_result(value)
    return fut


class FakeDriver:
    def __init__(self, tree: HostFrame, docs: dict[str, Doc]) -> None:
        self.tree = tree
        self.docs = docs
        self.calls: list[tuple[str, str]] = []
        self.budgets: list[dict[str, Any]] = []

    def frame_tree(self) -> HostFrame:
        return self.tree

    def run(self, call: Call[T], frame: object = None) -> aio.Future[T]:
        return done(call.read(wire(self.answer(call, frame))))

    def answer(self, call: Call[Any], frame: object) -> object:
        doc = self.docs.get(str(frame))
        kind = {Script.CHECK: "check", Script.SLOT: "slot", Script.OBSERVE: "observe"}[call.script]
        self.calls.append((kind, str(frame)))
        if doc is None:
            return None
        if call.script is Script.CHECK:
            return RefCheck(doc.key, doc.id)
        if call.script is Script.SLOT:
            n, _ = call.args
            return SlotRead(0, 0, 10, 10, 10, 10, visible=True) if n in doc.iframes else None
        _, budget = call.args
        self.budgets.append(budget)
        return Observed(doc.key, frame_id=doc.id, slots=doc.slots, visited=10)


def run(coro: Coroutine[Any, None, Any]) -> Any:
    task = aio.Task(coro)
    task.start()
    assert task.done
    if task.exception is not None:
        raise task.exception
    return task.result


def kept(*docs: FrameDoc) -> Kept:
    return Kept("Session1", (1.0, 1), 1, {}, image=None, docs=list(docs))


MAIN = FrameDoc("main", (1.0, 1))
PAY = FrameDoc("pay", (2.0, 1), parent=0, slot=7, path=(0,), label="Payment")


def tree(*children: str) -> HostFrame:
    return HostFrame("", "top", -1, -1, [HostFrame("", c, 1, 1, [], c) for c in children], "main")


def test_resolve_finds_the_frame_at_its_path_or_elsewhere() -> None:
    docs = {"main": Doc("main", iframes={7}), "p": Doc("pay", (2.0, 1)), "ad": Doc("ad")}
    d = FakeDriver(tree("p", "ad"), docs)
    handle, _ = run(
        frame_reads.resolve(d, d.tree, kept(MAIN, PAY), "obs_1", 1, numbers=[3], ref="e3")
    )
    assert handle == "p"
    assert d.calls == [("check", "p")]
    # an ad frame was inserted before it: the old path holds another document
    d = FakeDriver(tree("ad", "p"), docs)
    handle, _ = run(
        frame_reads.resolve(d, d.tree, kept(MAIN, PAY), "obs_1", 1, numbers=[], ref=None)
    )
    assert handle == "p"


@pytest.mark.parametrize(
    ("docs", "cause"),
    [
        # the frame holds another document and its iframe is still in the parent
        ({"main": Doc("main", iframes={7}), "p": Doc("other")}, "navigated"),
        # the iframe left the parent document
        ({"main": Doc("main"), "p": Doc("other")}, "element_removed"),
        # same registry, another time origin: the window was reused by a navigation
        ({"main": Doc("main", iframes={7}), "p": Doc("pay", (3.0, 1))}, "navigated"),
        # same document, its root element replaced (document.open)
        ({"main": Doc("main", iframes={7}), "p": Doc("pay", (2.0, 2))}, "document_replaced"),
    ],
)
def test_resolve_tells_the_cause(docs: dict[str, Doc], cause: str) -> None:
    d = FakeDriver(tree("p"), docs)
    with pytest.raises(SvcError) as info:
        run(frame_reads.resolve(d, d.tree, kept(MAIN, PAY), "obs_1", 1, numbers=[3], ref="e9"))
    err = info.value.error
    assert err.id == ErrorId.OBSERVATION_STALE
    assert err.details is not None
    assert err.details == {"cause": cause, "observation_id": "obs_1", "ref": "e9"}
    assert "Payment" in err.message


def test_resolve_of_a_nested_frame_whose_parent_is_gone_names_the_parent() -> None:
    nested = FrameDoc("nest", (3.0, 1), parent=1, slot=4, path=(0, 0), label="Verify")
    d = FakeDriver(tree(), {"main": Doc("main")})
    with pytest.raises(SvcError) as info:
        run(
            frame_reads.resolve(
                d, d.tree, kept(MAIN, PAY, nested), "obs_1", 2, numbers=[], ref="e5"
            )
        )
    assert (info.value.error.details or {}).get("cause") == "element_removed"
    assert "Payment" in info.value.error.message


def slot(n: int, src: str) -> Slot:
    return Slot(n, "", src, 5, 6, 1, 1, "", ("main",))


def test_read_passes_what_the_bounds_leave_and_notes_frames_not_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    docs = {"a": Doc("A", slots=[slot(1, "b")]), "b": Doc("B"), "c": Doc("C")}
    a = HostFrame("", "a", 1, 1, [HostFrame("", "b", 1, 1, [], "b")], "a")
    top = HostFrame("", "top", -1, -1, [a, HostFrame("", "c", 1, 1, [], "c")], "main")
    d = FakeDriver(top, docs)
    answer = Observed(
        (1.0, 1),
        frame_id="main",
        viewport=(0, 0, 800, 600),
        visited=100,
        content=[Entry("frame", frame=2)],
        slots=[slot(2, "a"), slot(3, "c"), slot(4, "gone")],
    )
    root = FrameRead(answer, FrameDoc("main", (1.0, 1)))
    monkeypatch.setattr(frames_logic, "MAX_FRAMES", 3)
    run(frame_reads.read(d, top, root, "semantic"))
    assert [b["v"] for b in d.budgets] == [50_000 - 100, 50_000 - 110]
    assert d.budgets[0]["e"] == 5_000 - 1
    assert (d.budgets[0]["pre"], d.budgets[0]["vis"]) == (["main"], [0, 0, 1, 1])
    child = root.children[2]
    assert (child.doc.id, child.doc.path, child.doc.slot) == ("A", (0,), 2)
    assert child.children[1].doc.path == (0, 0)
    # the third document is over the bound; the last slot has no frame
    assert root.notes == {
        3: "frame c (not read: observation bounds)",
        4: "frame gone (not read: the engine has no such frame)",
    }
    assert root.answer.omitted == 1


def test_kept_locate_defaults_to_the_main_frame(tmp_path: Path) -> None:
    k = kept(MAIN)
    k.locators = {5: (1, 2)}
    assert (k.locate(5), k.locate(6)) == ((1, 2), (0, 6))
