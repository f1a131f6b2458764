"""A session's page stack (host_app.logic.page_stack): which page is current, what closing does,
the popup bound and blocker, and readiness counters that follow the current page only."""

from __future__ import annotations

from host_app.logic.page_stack import (
    BLOCKED_LIMIT,
    BLOCKED_NO_GESTURE,
    MAX_POPUPS,
    ROOT,
    Blocked,
    Closed,
    Opened,
    PageStack,
)


def opened(stack: PageStack, opener: int) -> int:
    outcome = stack.request(opener, user_gesture=True, first_load=True)
    assert isinstance(outcome, Opened)
    return outcome.page


def test_a_popup_becomes_current_and_its_close_returns_to_the_opener() -> None:
    stack = PageStack()
    assert stack.current == ROOT
    popup = opened(stack, ROOT)
    assert stack.current == popup
    assert stack.popups == 1
    assert stack.close(popup) == Closed(popup, ROOT, switched=True)
    assert stack.current == ROOT
    assert stack.pages() == [ROOT]


def test_the_root_page_never_closes() -> None:
    stack = PageStack()
    popup = opened(stack, ROOT)
    assert stack.close(ROOT) is None
    assert stack.current == popup
    assert stack.close(99) is None  # unknown or already gone


def test_closing_a_background_page_keeps_the_current_one() -> None:
    stack = PageStack()
    first = opened(stack, ROOT)
    second = opened(stack, ROOT)  # the root opened another (its activation still running)
    assert stack.current == second
    assert stack.close(first) == Closed(first, second, switched=False)
    assert stack.current == second


def test_closing_the_opener_while_its_popup_is_open_leads_back_to_the_openers_opener() -> None:
    stack = PageStack()
    login = opened(stack, ROOT)
    consent = opened(stack, login)
    assert stack.close(login) == Closed(login, consent, switched=False)
    page = stack.page(consent)
    assert page is not None
    assert page.opener == ROOT
    assert stack.close(consent) == Closed(consent, ROOT, switched=True)


def test_a_chain_of_popups_unwinds_one_opener_at_a_time() -> None:
    stack = PageStack()
    a = opened(stack, ROOT)
    b = opened(stack, a)
    assert stack.close(b) == Closed(b, a, switched=True)
    assert stack.close(a) == Closed(a, ROOT, switched=True)


def test_popups_without_a_user_gesture_are_blocked() -> None:
    stack = PageStack()
    assert stack.request(ROOT, user_gesture=False, first_load=True) == Blocked(BLOCKED_NO_GESTURE)
    assert stack.current == ROOT
    assert stack.popups == 0


def test_popups_beyond_the_bound_are_blocked() -> None:
    stack = PageStack()
    for _ in range(MAX_POPUPS):
        opened(stack, stack.current)
    current, starts = stack.current, stack.load_starts
    assert stack.request(current, user_gesture=True, first_load=True) == Blocked(BLOCKED_LIMIT)
    assert (stack.current, stack.load_starts, stack.popups) == (current, starts, MAX_POPUPS)
    stack.close(current)
    assert isinstance(stack.request(stack.current, user_gesture=True, first_load=True), Opened)


def test_a_closed_opener_opens_nothing() -> None:
    stack = PageStack()
    popup = opened(stack, ROOT)
    stack.close(popup)
    assert isinstance(stack.request(popup, user_gesture=True, first_load=True), Blocked)


def test_a_switch_counts_as_a_load_start_and_clears_the_failure() -> None:
    stack = PageStack()
    stack.load_started(ROOT)
    stack.load_finished(ROOT, ("net::ERR_CONNECTION_REFUSED", "http://x/"))
    assert stack.failure == (1, "net::ERR_CONNECTION_REFUSED", "http://x/")
    popup = opened(stack, ROOT)
    assert stack.load_starts == 2
    assert stack.failure is None
    # a popup that will load a URL is loading from the start (a probe before its first
    # loadStarted must not take the empty window for the page)
    assert stack.state.loading
    stack.load_started(popup)
    stack.url_changed(popup)
    assert stack.state.committed_in_load
    stack.load_finished(popup)
    assert not stack.state.loading
    stack.close(popup)
    assert stack.load_starts == 4


def test_an_empty_popup_is_not_loading() -> None:
    stack = PageStack()
    stack.request(ROOT, user_gesture=True, first_load=False)
    assert not stack.state.loading


def test_loads_of_a_background_page_do_not_move_the_session_counters() -> None:
    stack = PageStack()
    popup = opened(stack, ROOT)
    stack.load_started(popup)
    starts = stack.load_starts
    # the opener navigates behind its popup, and fails
    stack.load_started(ROOT)
    stack.url_changed(ROOT)
    assert stack.load_starts == starts
    assert stack.state.loading  # the popup's own load still runs
    stack.load_finished(popup)
    assert not stack.state.loading
    stack.load_finished(ROOT, ("net::ERR_FAILED", "http://opener/"))
    assert stack.failure is None
    root = stack.page(ROOT)
    assert root is not None
    assert not root.loading
    assert root.committed_in_load
    # back on the opener: its own state again
    stack.close(popup)
    assert stack.state is root
    assert stack.load_starts == starts + 1


def test_signals_of_a_closed_page_are_ignored() -> None:
    stack = PageStack()
    popup = opened(stack, ROOT)
    stack.close(popup)
    starts = stack.load_starts
    stack.load_started(popup)
    stack.url_changed(popup)
    stack.load_finished(popup, ("late", "http://gone/"))
    assert (stack.load_starts, stack.failure) == (starts, None)
