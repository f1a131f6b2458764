"""The key strokes of a typed text, without Qt."""

from __future__ import annotations

from bridge_protocol.actions import untypable
from host_app.logic.typing_keys import Stroke, strokes


def test_line_breaks_and_tabs_are_keys_and_every_other_character_its_own_stroke() -> None:
    assert strokes("a\r\nb\n\rc\td é😀") == [
        Stroke(None, "a"),
        Stroke("Enter", "\r"),
        Stroke(None, "b"),
        Stroke("Enter", "\r"),
        Stroke("Enter", "\r"),
        Stroke(None, "c"),
        Stroke("Tab", "\t"),
        Stroke(None, "d"),
        Stroke(None, " "),
        Stroke(None, "é"),
        Stroke(None, "😀"),
    ]


def test_characters_no_keyboard_types_are_named_and_left_out() -> None:
    assert untypable("Zoë\t中\n") is None
    assert [untypable(t) for t in ("\x00", "a\x07", "\x7f", "\x9f", "\ud800")] == [
        "\x00",
        "\x07",
        "\x7f",
        "\x9f",
        "\ud800",
    ]
    assert strokes("a\x07\x1bb") == [Stroke(None, "a"), Stroke(None, "b")]
