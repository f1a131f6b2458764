"""The one spelling of a session id (issue 13 point 5)."""

from __future__ import annotations

import re

import pytest

from bridge_protocol.session_ids import PATTERN, format_session_id, session_number


def test_round_trip() -> None:
    for n in (1, 9, 10, 123456789012345678):
        assert session_number(format_session_id(n)) == n
        assert re.match(PATTERN, format_session_id(n))


@pytest.mark.parametrize(
    "text", ["Session0", "Session01", "session1", "Session", "Session1 ", "Session-1", "S1", ""]
)
def test_what_is_not_a_session_id(text: str) -> None:
    assert session_number(text) is None


def test_a_number_beyond_the_store_names_no_session_but_has_the_shape() -> None:
    text = "Session" + "9" * 19
    assert re.match(PATTERN, text)  # requests with it are well-formed ...
    assert session_number(text) is None  # ... and find no session (SESSION_NOT_FOUND)
