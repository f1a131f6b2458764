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


def untypable(text: str) -> str | None:
    """The first character of `text` that no keyboard types, else None: a control character
    other than tab and line breaks (which are the Tab and Enter keys), or a lone surrogate."""
    for ch in text:
        code = ord(ch)
        if (code < 0x20 and ch not in "\t\n\r") or 0x7F <= code <= 0x9F or 0xD800 <= code <= 0xDFFF:
            return ch
    return None


def _check_text(action: object) -> None:
    text = getattr(action, "text", None)
    if isinstance(text, str) and (ch := untypable(text)) is not None:
        raise ValueError(
            f"`text`: U+{ord(ch):04X} is a control character no keyboard types "
            "(a tab and a line break are typed as the Tab and Enter keys)"
        )


class _Action(msgspec.Struct, tag_field="action", forbid_unknown_fields=True, kw_only=True):
    def __post_init__(self) -> None:
        _check_text(self)
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


# --- ref actions (spec 1 §4 observation-scoped actions) -----------------------------------

Ref = Annotated[str, msgspec.Meta(pattern=r"^e[0-9]+$")]
Delta = Annotated[int, msgspec.Meta(ge=-10000, le=10000)]


class _RefAction(msgspec.Struct, tag_field="action", forbid_unknown_fields=True, kw_only=True):
    """An action of an observation batch (POST /v1/observations/{id}/actions): its target is a
    ref of that observation, not a selector."""

    def __post_init__(self) -> None:
        _check_text(self)


class RefClick(_RefAction, tag="click"):
    ref: Ref
    mouse_move: bool = True
    scroll: bool = True


class RefHover(_RefAction, tag="hover"):
    ref: Ref
    scroll: bool = True


class RefType(_RefAction, tag="type"):
    ref: Ref
    text: NonEmpty


class RefClear(_RefAction, tag="clear"):
    ref: Ref


class RefPress(_RefAction, tag="press"):
    ref: Ref
    key: NamedKey


class RefSelect(_RefAction, tag="select"):
    ref: Ref
    value: str


class RefScroll(_RefAction, tag="scroll"):
    """At least one of delta_x and delta_y is non-zero; a scroll of neither is VALIDATION_FAILED
    with details.field `actions[<i>].delta_y`."""

    delta_x: Delta = 0
    delta_y: Delta = 0

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.delta_x == 0 and self.delta_y == 0:
            # the leading field lets the agent name it in details.field
            raise ValueError("`delta_y`: a scroll needs a non-zero delta_x or delta_y")


class RefWait(_RefAction, tag="wait"):
    seconds: Annotated[float, msgspec.Meta(ge=0, le=60)]


RefAction = RefClick | RefHover | RefType | RefClear | RefPress | RefSelect | RefScroll | RefWait
