"""The answers of the observation routes as structs (issue 39 point 3): an observation beside its
page, and what find found. docs/openapi.yaml's schemas of them are generated from them
(agent/openapi.py), but for the observation itself, whose compact wire form is written there
(its items are more than their types say; tests/agent/test_openapi.py keeps its fields the
struct's)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from bridge_protocol import Observation

from .page_responses import PageRef
from .responses import Shown

Unset = msgspec.UnsetType
UNSET = msgspec.UNSET


class ObservationResult(Shown, frozen=True):
    """An observation beside its page; its `url` only when the page has moved on since
    (docs/observations.md "Top level")."""

    page: PageRef
    observation: Observation


class FoundContent(Shown, frozen=True, kw_only=True):
    """A content entry that matched, decoded to an object (docs/observations.md)."""

    i: Annotated[
        int,
        msgspec.Meta(
            description="index of the entry among the observation's content entries (context "
            "markers not counted)"
        ),
    ]
    k: Annotated[
        str,
        msgspec.Meta(
            description="kind (heading, paragraph, list_item, text, quote, code, image, table, "
            "table_caption, table_row, table_cell, term, definition, progressbar, meter, "
            "separator, frame, a block's text role such as deletion or strong, and the page "
            "events popup, dialog, download; docs/observations.md)"
        ),
    ]
    l: int | Unset = UNSET  # noqa: E741  the wire's name
    h: (
        Annotated[
            int,
            msgspec.Meta(description="on a table_cell, 1 for a column header, 2 for a row header"),
        ]
        | Unset
    ) = UNSET
    e: list[str] | Unset = UNSET
    # open: a page event's details are the event's own
    d: (
        Annotated[
            dict[str, Any],
            msgspec.Meta(
                description="n: the entry's own name when its author gave one that differs "
                "from its text; v: a progressbar's or meter's value; a page event's details"
            ),
        ]
        | Unset
    ) = UNSET
    t: str | Unset = UNSET
    ctx: Annotated[str, msgspec.Meta(description="context path")] | Unset = UNSET


class FoundElement(Shown, frozen=True, kw_only=True):
    """An element that matched, with its ref, decoded to an object."""

    ref: Annotated[str, msgspec.Meta(pattern="^e[0-9]+$")]
    role: str
    name: str | Unset = UNSET
    value: str | Unset = UNSET
    dest: Annotated[str, msgspec.Meta(description="link destination, absolute")] | Unset = UNSET
    st: list[str] | Unset = UNSET
    opts: Annotated[list[list[str]], msgspec.Meta(description="[value, label] pairs")] | Unset = (
        UNSET
    )
    ctx: str | Unset = UNSET


class Matches(Shown, frozen=True):
    """What find found in one observation, each list cut at the limit."""

    content: list[FoundContent]
    elements: list[FoundElement]
    total_matches: Annotated[
        int, msgspec.Meta(description="matches in both lists before the limit")
    ]
    truncated: Annotated[
        bool, msgspec.Meta(description="true when either list was cut by the limit")
    ]


class FindResult(Shown, frozen=True):
    page: PageRef
    observation_id: str
    content: Annotated[
        list[FoundContent],
        msgspec.Meta(description="matching content entries, limit-capped"),
    ]
    elements: Annotated[
        list[FoundElement],
        msgspec.Meta(description="matching elements with their refs, limit-capped"),
    ]
    total_matches: Annotated[
        int, msgspec.Meta(description="matches in both lists before the limit")
    ]
    truncated: Annotated[
        bool, msgspec.Meta(description="true when either list was cut by the limit")
    ]
