"""The key strokes that type a text (no Qt here). A line break is the Enter key and a tab the
Tab key, as a person types them; every other character is one key that produces it. QTest's
own `keyClicks` maps ASCII only: any other character (a line break, "é", "中") aborted the whole
app on an assertion in Qt."""

from __future__ import annotations

from dataclasses import dataclass

from bridge_protocol.actions import untypable


@dataclass(frozen=True, slots=True)
class Stroke:
    key: str | None  # a named key (bridge_protocol.actions.NAMED_KEYS), or None: `text`'s key
    text: str


def strokes(text: str) -> list[Stroke]:
    """One stroke per character; CR LF is one line break. Characters no keyboard types (the
    agent refuses them: bridge_protocol.actions.untypable) are left out."""
    out: list[Stroke] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "\r\n":
            out.append(Stroke("Enter", "\r"))
            if text[i : i + 2] == "\r\n":
                i += 1
        elif ch == "\t":
            out.append(Stroke("Tab", "\t"))
        elif untypable(ch) is None:
            out.append(Stroke(None, ch))
        i += 1
    return out
