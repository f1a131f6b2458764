"""The activity list's words (host_app.logic.activity): steps of captures and page actions by
their selectors, typed text never kept, a bounded list per session that tells its listeners."""

from __future__ import annotations

from bridge_protocol.actions import Click, ClickLink, FuzzyLink, Press, RefScroll, RefWait, Type
from host_app.logic.activity import KEPT, Activities, Activity, Step, ref_steps, selector_steps


def test_selector_steps_say_the_selector_and_never_the_text() -> None:
    steps = selector_steps(
        [
            Click(selector="#go"),
            Type(selector="input[name=q]", text="my secret"),
            Press(selector="input[name=q]", key="Enter"),
            ClickLink(link="Next page", match=FuzzyLink(type="fuzzy-link", threshold=0.8)),
        ]
    )
    assert [s.text() for s in steps] == [
        "click #go",
        "type input[name=q], 9 characters",
        "press Enter in input[name=q]",
        "click-link “Next page”",
    ]
    assert "secret" not in repr(steps)


def test_ref_steps_name_what_the_observation_showed() -> None:
    long = "x" * 100
    steps = ref_steps([RefScroll(delta_y=300), RefWait(seconds=0.5)], {1: ("link", long)})
    assert [s.text() for s in steps] == ["scroll +0,+300", "wait 0.5 s"]
    assert Step("click", "link", long).text() == f"click link “{'x' * 59}…”"


def test_a_sessions_list_is_bounded_and_heard() -> None:
    heard: list[Activity] = []
    activities = Activities(listeners=[heard.append])
    for n in range(KEPT + 5):
        activities.add(Activity("Session1", "observe", (), "ok", None, n))
    activities.add(
        Activity("Session2", "navigate", (Step("open", detail="u"),), "failed", "TIMEOUT", 9)
    )
    assert len(activities.of("Session1")) == KEPT
    assert activities.of("Session1")[0].ms == 5  # the oldest went
    assert len(heard) == KEPT + 6
    assert heard[-1].line().endswith("open u — failed TIMEOUT, 9 ms")
    activities.drop("Session1")
    assert activities.of("Session1") == []
