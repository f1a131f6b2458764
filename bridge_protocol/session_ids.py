"""The one spelling of a session id, `Session<N>` (spec 1 §5), for the agent, the host, the
proxy listeners and the clients: built by `format_session_id`, read by `session_number`."""

from __future__ import annotations

import re

PREFIX = "Session"
# The shape a request field must have (JSON Schema / msgspec pattern).
PATTERN = r"^Session[1-9][0-9]*$"
# N is a store row id (SQLite's int64): longer numbers name no session.
_NUMBER = re.compile(r"^Session([1-9][0-9]{0,17})$")


def format_session_id(number: int) -> str:
    return f"{PREFIX}{number}"


def session_number(text: str) -> int | None:
    """N of `Session<N>`, or None when `text` is not the id of any possible session."""
    match = _NUMBER.match(text)
    return int(match.group(1)) if match else None
