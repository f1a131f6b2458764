"""What an agent did in a session, as the person beside it reads it (issue 40 point 2;
docs/decisions.md "Activity"), Qt-free.

Each browser operation the bridge runs becomes one `Activity`: its kind, its steps (for ref
actions the target's role and name as the observation showed them), how it ended (ok, failed
with the error id, cancelled) and how long it took. The engine writes it to the session's log
(category `agent.operation`) and keeps the newest of each session for the window's activity
list (`Activities`). Typed text is never kept, a password field's or any other: a step says how
many characters were typed.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, assert_never

from bridge_protocol.actions import (
    Action,
    Clear,
    Click,
    ClickLink,
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
    Wait,
    WaitFor,
)

Outcome = Literal["ok", "failed", "cancelled"]
KEPT = 200  # activities kept per session for the window (the log has them all)
NAME_CHARS = 60  # a target's name in a line, at most


@dataclass(frozen=True, slots=True)
class Step:
    action: str
    role: str | None = None  # a ref action's target, as its observation showed it
    name: str | None = None
    detail: str | None = None  # a URL, a selector, a key, "12 characters"

    def text(self) -> str:
        parts = [self.action]
        if self.role:
            parts.append(self.role)
        if self.name:
            short = self.name if len(self.name) <= NAME_CHARS else self.name[: NAME_CHARS - 1] + "…"
            parts.append(f"“{short}”")
        if self.detail:
            parts.append(self.detail)
        return " ".join(parts)

    def data(self) -> dict[str, str]:
        out = {"action": self.action}
        for key in ("role", "name", "detail"):
            value = getattr(self, key)
            if value:
                out[key] = value
        return out


@dataclass(frozen=True, slots=True)
class Activity:
    session_id: str
    kind: str  # the operation: navigate, actions, observe, capture, attach, screenshot
    steps: tuple[Step, ...]
    outcome: Outcome
    error_id: str | None
    ms: int
    at: float = field(default_factory=time.time)

    def line(self) -> str:
        """One line of the window's activity list."""
        what = "; ".join(s.text() for s in self.steps) or self.kind
        end = {"ok": "ok", "cancelled": "cancelled", "failed": f"failed {self.error_id or ''}"}
        clock = time.strftime("%H:%M:%S", time.localtime(self.at))
        return f"{clock}  {what} — {end[self.outcome].strip()}, {self.ms} ms"

    def data(self) -> dict[str, Any]:
        """The `agent.operation` log record's data."""
        out: dict[str, Any] = {
            "session_id": self.session_id,
            "kind": self.kind,
            "steps": [s.data() for s in self.steps],
            "outcome": self.outcome,
            "ms": self.ms,
        }
        if self.error_id:
            out["error_id"] = self.error_id
        return out


def _chars(text: str) -> str:
    return f"{len(text)} character{'s' if len(text) != 1 else ''}"


def ref_steps(
    actions: Sequence[RefAction], labels: Mapping[int, tuple[str, str]]
) -> tuple[Step, ...]:
    """An observation batch's steps; `labels`: ref number -> (role, name) of its observation."""

    def target(ref: str) -> tuple[str | None, str | None]:
        role, name = labels.get(int(ref[1:]), (None, None))
        return role or ref, name

    out = []
    for a in actions:
        match a:
            case RefClick(ref=ref):
                out.append(Step("click", *target(ref)))
            case RefHover(ref=ref):
                out.append(Step("hover", *target(ref)))
            case RefClear(ref=ref):
                out.append(Step("clear", *target(ref)))
            case RefType(ref=ref, text=text):
                out.append(Step("type", *target(ref), detail=_chars(text)))
            case RefPress(ref=ref, key=key):
                out.append(Step("press", *target(ref), detail=key))
            case RefSelect(ref=ref):
                out.append(Step("select", *target(ref)))
            case RefScroll(delta_x=dx, delta_y=dy):
                out.append(Step("scroll", detail=f"{dx:+d},{dy:+d}"))
            case RefWait(seconds=s):
                out.append(Step("wait", detail=f"{s:g} s"))
            case _:
                assert_never(a)
    return tuple(out)


def selector_steps(actions: Iterable[Action]) -> tuple[Step, ...]:
    """A capture's or a page action's steps: by their selectors (no observation names them)."""
    out = []
    for a in actions:
        match a:
            case Click(selector=s):
                out.append(Step("click", detail=s))
            case Clear(selector=s):
                out.append(Step("clear", detail=s))
            case ClickLink(link=link):
                out.append(Step("click-link", name=link))
            case WaitFor(selector=s):
                out.append(Step("wait-for", detail=s))
            case Type(selector=s, text=text):
                out.append(Step("type", detail=f"{s}, {_chars(text)}"))
            case Press(selector=s, key=key):
                out.append(Step("press", detail=f"{key} in {s}"))
            case Select(selector=s):
                out.append(Step("select", detail=s))
            case Wait(seconds=sec):
                out.append(Step("wait", detail=f"{sec:g} s"))
            case _:
                assert_never(a)
    return tuple(out)


Listener = Callable[[Activity], None]


@dataclass
class Activities:
    """The newest activities of each session, for the window; listeners hear each new one."""

    kept: dict[str, deque[Activity]] = field(default_factory=dict)
    listeners: list[Listener] = field(default_factory=list)

    def add(self, activity: Activity) -> None:
        self.kept.setdefault(activity.session_id, deque(maxlen=KEPT)).append(activity)
        for listener in list(self.listeners):
            listener(activity)

    def of(self, session_id: str) -> list[Activity]:
        return list(self.kept.get(session_id, ()))

    def drop(self, session_id: str) -> None:
        self.kept.pop(session_id, None)
