"""Action objects of spec 1 section 4 ("Action objects"): closed, tagged by `action`.

The structs check types, required fields and ranges; the selector grammar is checked by the
agent before anything crosses the bridge.
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

import msgspec

from .selectors import SelectorError, parse_selector

NamedKey = Literal[
    "Enter",
    "Tab",
    "Escape",
    "Backspace",
    "Delete",
    "ArrowUp",
    "ArrowDown",
    "ArrowLeft",
    "ArrowRight",
    "Home",
    "End",
    "PageUp",
    "PageDown",
    "Space",
]
NAMED_KEYS: tuple[str, ...] = get_args(NamedKey)

NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]
# The spec bounds `wait` only as "bounded"; docs/decisions.md records one hour.
WaitSeconds = Annotated[float, msgspec.Meta(ge=0, le=3600)]
PositiveSeconds = Annotated[float, msgspec.Meta(gt=0, le=86400)]


class _Action(msgspec.Struct, tag_field="action", forbid_unknown_fields=True, kw_only=True):
    def __post_init__(self) -> None:
        # Runs as part of decoding, on both ends: a selector outside the spec's subset never
        # crosses the bridge. The leading `field` lets the agent name it in details.field.
        selector = getattr(self, "selector", None)
        if selector is not None:
            try:
                parse_selector(selector)
            except SelectorError as exc:
                raise ValueError(f"`selector`: {exc}") from None


class Click(_Action, tag="click"):
    selector: NonEmpty
    mouse_move: bool = True
    scroll: bool = True


class WaitFor(_Action, tag="wait-for"):
    selector: NonEmpty
    timeout: PositiveSeconds | None = None


class Type(_Action, tag="type"):
    selector: NonEmpty
    text: NonEmpty


class Clear(_Action, tag="clear"):
    selector: NonEmpty


class Press(_Action, tag="press"):
    selector: NonEmpty
    key: NamedKey


class Select(_Action, tag="select"):
    selector: NonEmpty
    value: str


class Wait(_Action, tag="wait"):
    seconds: WaitSeconds


class FuzzyLink(msgspec.Struct, forbid_unknown_fields=True):
    type: Literal["fuzzy-link"]
    threshold: Annotated[float, msgspec.Meta(ge=0, le=1)]


class ClickLink(_Action, tag="click-link"):
    link: NonEmpty
    match: FuzzyLink
    mouse_move: bool = True
    scroll: bool = True


Action = Click | WaitFor | Type | Clear | Press | Select | Wait | ClickLink
