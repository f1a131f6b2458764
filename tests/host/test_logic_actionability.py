"""host_app.logic.actionability: when a pointer action may fire, the wait bound, the error rule."""

from __future__ import annotations

from host_app.logic.actionability import (
    ACTIONABILITY_WAIT,
    COVERED,
    DEADLINE_MARGIN,
    DISABLED,
    MOVING,
    NOT_VISIBLE,
    Cover,
    Sample,
    WaitBound,
    arrow_keys,
    blocker,
    not_actionable,
    wheel_into,
)

BOX = (10.0, 20.0, 100.0, 30.0)


def test_blocker_order_visible_then_hit_then_still() -> None:
    assert blocker(Sample(BOX, False, True), None) == NOT_VISIBLE
    assert blocker(Sample((10, 20, 0, 30), True, True), None) == NOT_VISIBLE
    cover = Cover("dialog", "Choose a date")
    assert blocker(Sample(BOX, True, False, cover), Sample(BOX, True, False, cover)) == COVERED
    # the first read cannot tell stillness; a box that moved between two frames is moving
    assert blocker(Sample(BOX, True, True), None) == MOVING
    assert blocker(Sample(BOX, True, True), Sample((12, 20, 100, 30), True, True)) == MOVING
    assert blocker(Sample(BOX, True, True), Sample(BOX, True, True)) is None


def test_a_disabled_target_of_a_click_waits_before_its_cover_is_named() -> None:
    # a disabled menu item takes no pointer input (its hit lands on the menu): disabled is why
    cover = Cover("menu", "")
    off = Sample(BOX, True, False, cover, disabled=True)
    assert blocker(off, off) == DISABLED
    assert blocker(Sample(BOX, False, True, disabled=True), None) == NOT_VISIBLE
    err = not_actionable("click e1", DISABLED, off, 5.0, WaitBound(5.0, False), ref="e1").error
    assert (err.id, err.retryable) == ("ACTION_TIMEOUT", True)
    assert err.message.startswith("click e1: the element is disabled (waited 5.0 s")
    assert err.details == {"ref": "e1", "reason": "disabled", "waited_s": 5.0}


def test_wait_bound_is_its_own_or_the_deadline_minus_a_margin() -> None:
    assert WaitBound.of(100.0, None) == WaitBound(100.0 + ACTIONABILITY_WAIT, False)
    assert WaitBound.of(100.0, 200.0) == WaitBound(100.0 + ACTIONABILITY_WAIT, False)
    assert WaitBound.of(100.0, 102.0) == WaitBound(102.0 - DEADLINE_MARGIN, True)
    assert WaitBound.of(100.0, 100.1) == WaitBound(100.0, True)


def test_errors_name_the_cover_and_are_retryable() -> None:
    cover = Cover("alertdialog", "Cookie consent")
    last = Sample(BOX, True, False, cover)
    err = not_actionable("click e3", COVERED, last, 5.02, WaitBound(5.0, False), ref="e3").error
    assert (err.id, err.retryable) == ("ACTION_TIMEOUT", True)
    assert 'covered by alertdialog "Cookie consent"' in err.message
    assert err.details == {
        "ref": "e3",
        "reason": "covered",
        "waited_s": 5.02,
        "covered_by": {"role": "alertdialog", "name": "Cookie consent"},
    }
    err = not_actionable("click", COVERED, last, 1.7, WaitBound(1.7, True), selector="#b").error
    assert (err.id, err.retryable) == ("TIMEOUT", True)
    assert err.details is not None
    assert err.details["selector"] == "#b"
    err = not_actionable("click", MOVING, Sample(BOX, True, True), 5, WaitBound(5, False)).error
    assert "kept moving" in err.message
    assert err.details is not None
    assert "covered_by" not in err.details
    assert Cover.from_js(["", "Close"]) == Cover("generic", "Close")
    assert Cover.from_js(None) is None
    assert Cover("generic", "").describe() == "generic"


def test_arrow_keys_step_over_enabled_options() -> None:
    enabled = [0, 1, 3, 4]
    assert arrow_keys(enabled, 0, 3) == ["ArrowDown"] * 2
    assert arrow_keys(enabled, 4, 1) == ["ArrowUp"] * 2
    assert arrow_keys(enabled, 2, 0) == ["Home"]
    assert arrow_keys(enabled, 3, 3) == []


def test_arrow_keys_take_the_fewest_keys() -> None:
    """Home and End jump to the first and last enabled options: from the 2nd to the 19th of 20
    options two keys, not 17 (each a change event the page sees); arrows where as short."""
    twenty = list(range(20))
    assert arrow_keys(twenty, 1, 18) == ["End", "ArrowUp"]
    assert arrow_keys(twenty, 18, 1) == ["Home", "ArrowDown"]
    assert arrow_keys(twenty, 0, 1) == ["ArrowDown"]
    assert arrow_keys(twenty, 1, 0) == ["ArrowUp"]  # as short as Home: no jump
    assert arrow_keys([0, 1, 3, 4], 0, 4) == ["End"]
    # no enabled option selected: a jump first
    assert arrow_keys([0, 1, 3, 4], -1, 3) == ["End", "ArrowUp"]
    assert arrow_keys([1, 2, 3], 0, 1) == ["Home"]


def test_wheel_into_brings_a_row_into_the_client_area() -> None:
    client = (0.0, 100.0, 80.0, 60.0)  # rows 100..160 are visible
    assert wheel_into((0, 120, 80, 17), client) == 0
    assert wheel_into((0, 200, 80, 17), client) < 0  # below: scroll down
    assert wheel_into((0, 40, 80, 17), client) > 0  # above: scroll up
    assert wheel_into((0, 90000, 80, 17), client) == -1200


def test_a_running_geometry_animation_is_moving_even_with_equal_boxes() -> None:
    still = Sample(BOX, True, True)
    assert blocker(Sample(BOX, True, True, None, True), still) == MOVING


def test_a_far_target_is_wheeled_to_in_one_run_of_full_events_and_the_rest() -> None:
    from host_app.logic.actionability import BURST_MAX, WHEEL_PX, wheel_burst, wheel_rest

    assert wheel_burst(0) == 1
    assert wheel_burst(500) == 1  # near: one event of its size
    assert wheel_burst(-2500) == 4
    assert wheel_burst(4000) == 6
    assert wheel_rest(4000, 6, WHEEL_PX) == 400  # the run's last event moves the rest
    assert wheel_rest(-2500, 4, WHEEL_PX) == -100
    assert wheel_rest(1200, 2, WHEEL_PX) == 0  # covered by full events
    # the full events never pass the target; with the rest they reach it
    for distance in range(0, 40_000, 250):
        n = wheel_burst(distance)
        assert n * WHEEL_PX <= max(WHEEL_PX, distance)
        if n < BURST_MAX and distance >= WHEEL_PX:
            assert n * WHEEL_PX + wheel_rest(distance, n, WHEEL_PX) == distance
    assert wheel_burst(1_000_000) == BURST_MAX
    assert wheel_rest(1_000_000, BURST_MAX, WHEEL_PX) == 0  # cut: read, then the next run


def test_runs_are_sized_by_what_the_last_one_scrolled() -> None:
    from host_app.logic.actionability import (
        MAX_WHEEL_PX,
        MIN_WHEEL_PX,
        WHEEL_PX,
        per_wheel_event,
        wheel_burst,
    )

    # the engine scrolled 500 px per full event: the next run is sized by that; a run's partial
    # last event counts by its share
    per = per_wheel_event(4500.0, 3000.0, 3, WHEEL_PX)
    assert per == 500
    assert per_wheel_event(4500.0, 2750.0, 3.5, WHEEL_PX) == 500
    assert wheel_burst(3000, per) == 6
    assert wheel_burst(1000, per) == 2
    # a run that brought the target no nearer, or past its goal, teaches nothing
    assert per_wheel_event(4800.0, 4800.0, 3, per) == per
    assert per_wheel_event(4800.0, 5400.0, 3, per) == per
    assert per_wheel_event(-300.0, 200.0, 1, per) == per
    assert per_wheel_event(-3000.0, -1200.0, 3, WHEEL_PX) == 600
    # bounded both ways: a page that moved the target meanwhile cannot make runs huge
    assert per_wheel_event(5000.0, 4990.0, 10, per) == MIN_WHEEL_PX
    assert per_wheel_event(20000.0, 0.0, 2, per) == MAX_WHEEL_PX
