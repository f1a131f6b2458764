"""The one action executor (host_app/core/actions.py) over a fake page: a selector target
(`operations.run_action`) and a ref target (`observations.run_ref_actions`) reach the same
click, type, clear, press and select code and send the same input; refs are checked for
staleness first, selectors are looked up in the DOM snapshot. No Qt, no process."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge_protocol import ErrorId, SvcError
from bridge_protocol.actions import (
    Action,
    Clear,
    Click,
    Press,
    RefAction,
    RefClear,
    RefClick,
    RefHover,
    RefPress,
    RefScroll,
    RefSelect,
    RefType,
    RefWait,
    Select,
    Type,
)
from host_app.core import actions, observations, operations, page_driver
from host_app.core.kept import Kept
from host_app.core.observations import ObservationStore
from tests.host.fakepage import El, FakePage

OBS = "obs_1"


def page() -> FakePage:
    return FakePage(
        [
            El("html"),
            El("button", {"id": "go"}, sig="button|button|Go"),
            El("input", {"id": "name"}, editable=True, value="", sig="input|textbox|Name"),
            El(
                "select",
                {"id": "size"},
                options=[("s", False), ("m", True), ("l", False)],
                selected=0,
                sig="select|combobox|Size",
            ),
            El("textarea", {"id": "note"}, editable=True, value="", sig="textarea|textbox|Note"),
            El("div", {"id": "plain"}, sig="div|generic|"),
        ]
    )


def store_for(p: FakePage, tmp_path: Path) -> ObservationStore:
    store = ObservationStore(tmp_path)
    store.kept[OBS] = Kept("Session1", p.doc_key, 1, {i: e.sig for i, e in enumerate(p.elements)})
    return store


def by_selector(p: FakePage, action: Action) -> None:
    p._loop.run(operations.run_actions(p, [action], deadline=60.0))


def by_ref(p: FakePage, store: ObservationStore, *batch: RefAction) -> None:
    p._loop.run(
        observations.run_ref_actions(
            p,
            store,
            session_id="Session1",
            obs_id=OBS,
            actions=list(batch),
            deadline=60.0,
            mode="semantic",
        )
    )


PAIRS: list[tuple[Action, RefAction]] = [
    (Click(selector="#go"), RefClick(ref="e1")),
    (Click(selector="#go", mouse_move=False), RefClick(ref="e1", mouse_move=False)),
    (Type(selector="#name", text="hé"), RefType(ref="e2", text="hé")),
    (Type(selector="#note", text="x"), RefType(ref="e4", text="x")),
    (Clear(selector="#name"), RefClear(ref="e2")),
    (Press(selector="#name", key="Enter"), RefPress(ref="e2", key="Enter")),
    (Select(selector="#size", value="l"), RefSelect(ref="e3", value="l")),
]


@pytest.mark.parametrize(("selector_action", "ref_action"), PAIRS)
def test_selector_and_ref_targets_send_the_same_input(
    selector_action: Action, ref_action: RefAction, tmp_path: Path
) -> None:
    a = page()
    by_selector(a, selector_action)
    b = page()
    by_ref(b, store_for(b, tmp_path), ref_action)
    assert a.inputs, "the action sent no input"
    assert a.inputs == b.inputs
    assert [e.value for e in a.elements] == [e.value for e in b.elements]
    assert [e.selected for e in a.elements] == [e.selected for e in b.elements]


def test_both_kinds_go_through_the_one_executor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[str, str]] = []
    real = actions.click

    async def spy(target: page_driver.Target, **kw: object) -> None:
        seen.append((type(target).__name__, target.what))
        await real(target, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(actions, "click", spy)
    p = page()
    by_selector(p, Click(selector="#go"))
    by_ref(p, store_for(p, tmp_path), RefClick(ref="e1"))
    assert seen == [("DomTarget", "click"), ("RefTarget", "click e1")]


def test_type_sends_only_the_texts_keys_where_the_focus_put_the_caret_at_the_end(
    tmp_path: Path,
) -> None:
    """The caret of a text control goes after its text from the isolated world: the page sees
    only the typed keys (spec: key-down, input, key-up per character). An email or number
    input has no selection API: an End key goes first there (ctrl+End where multi-line)."""
    p = page()
    p.elements.append(El("input", {"type": "email"}, editable=True, value="", sig="input|t|M"))
    store = store_for(p, tmp_path)
    by_ref(p, store, RefType(ref="e2", text="a"), RefType(ref="e4", text="b"))
    assert [i for i in p.inputs if i[0] == "key"] == []
    assert (p.elements[2].value, p.elements[4].value) == ("a", "b")
    by_ref(p, store, RefType(ref="e6", text="c"))
    assert [i for i in p.inputs if i[0] == "key"] == [("key", "End", False)]
    assert p.elements[6].value == "c"


def test_select_steps_over_disabled_options() -> None:
    p = page()
    by_selector(p, Select(selector="#size", value="l"))
    assert p.elements[3].selected == 2
    assert [i for i in p.inputs if i[0] == "key"] == [("key", "ArrowDown", False)]


def test_hover_moves_the_mouse_to_the_center(tmp_path: Path) -> None:
    p = page()
    by_ref(p, store_for(p, tmp_path), RefHover(ref="e1"))
    assert p.inputs == [("move", 141.0, 111.0), ("move", 140.0, 110.0)]


def test_scroll_wheels_where_the_last_click_left_the_mouse(tmp_path: Path) -> None:
    p = page()
    by_ref(
        p, store_for(p, tmp_path), RefScroll(delta_y=-120), RefClick(ref="e1"), RefWait(seconds=1)
    )
    by_ref(p, store_for(p, tmp_path), RefClick(ref="e1"), RefScroll(delta_y=-120))
    wheels = [i for i in p.inputs if i[0] == "wheel"]
    assert wheels == [("wheel", 400, 300, 0, -120), ("wheel", 140.0, 110.0, 0, -120)]


def test_missing_selector_is_target_not_found() -> None:
    with pytest.raises(SvcError) as caught:
        by_selector(page(), Click(selector="#nowhere"))
    assert caught.value.error.id == ErrorId.ACTION_TARGET_NOT_FOUND
    assert caught.value.error.details == {"selector": "#nowhere"}


def test_selector_select_needs_a_select_element() -> None:
    with pytest.raises(SvcError) as caught:
        by_selector(page(), Select(selector="#plain", value="x"))
    assert caught.value.error.id == ErrorId.ACTION_TARGET_NOT_FOUND
    assert "not a select element" in caught.value.error.message


def test_ref_type_into_a_non_editable_names_the_ref(tmp_path: Path) -> None:
    p = page()
    with pytest.raises(SvcError) as caught:
        by_ref(p, store_for(p, tmp_path), RefType(ref="e1", text="x"))
    assert caught.value.error.id == ErrorId.ACTION_TARGET_NOT_FOUND
    assert caught.value.error.message == "type e1: the element is not editable"
    assert p.inputs == []


@pytest.mark.parametrize(
    ("change", "cause"),
    [
        ("navigated", "navigated"),
        ("replaced", "document_replaced"),
        ("renamed", "element_changed"),
        ("removed", "element_removed"),
    ],
)
def test_stale_ref_is_observation_stale_before_any_input(
    change: str, cause: str, tmp_path: Path
) -> None:
    p = page()
    store = store_for(p, tmp_path)
    if change == "navigated":
        p.doc_key = (2.0, 1)
    elif change == "replaced":
        p.doc_key = (1.0, 2)
    elif change == "renamed":
        p.elements[1].sig = "button|button|Stop"
    else:
        del p.elements[5]
    target = "e5" if change == "removed" else "e1"
    with pytest.raises(SvcError) as caught:
        by_ref(p, store, RefClick(ref="e2"), RefClick(ref=target))
    error = caught.value.error
    assert error.id == ErrorId.OBSERVATION_STALE
    assert error.details is not None
    assert error.details["cause"] == cause
    assert error.details["observation_id"] == OBS
    assert p.inputs == []  # the whole batch is checked before the first action


def test_evicted_observation_and_unknown_ref(tmp_path: Path) -> None:
    p = page()
    with pytest.raises(SvcError) as caught:
        by_ref(p, ObservationStore(tmp_path), RefClick(ref="e1"))
    assert caught.value.error.id == ErrorId.OBSERVATION_STALE
    assert caught.value.error.details == {"cause": "evicted", "observation_id": OBS, "ref": "e1"}
    with pytest.raises(SvcError) as caught:
        by_ref(p, store_for(p, tmp_path), RefClick(ref="e99"))
    assert caught.value.error.id == ErrorId.ACTION_TARGET_NOT_FOUND
    assert caught.value.error.details == {"ref": "e99"}
