"""Follow browser commands (spec §1): which browser operations select their session for the next
view of the browser window."""

from __future__ import annotations

import pytest

from host_app.logic.follow import raises_window, selects_for_view


@pytest.mark.parametrize(
    ("follow", "active", "selects"),
    [(True, False, True), (True, True, False), (False, False, False), (False, True, False)],
)
def test_an_operation_selects_its_session_only_while_the_app_is_inactive_and_following(
    follow: bool, active: bool, selects: bool
) -> None:
    assert selects_for_view(follow_browser_commands=follow, app_active=active) is selects


def test_an_operation_never_raises_the_window() -> None:
    assert raises_window() is False
