"""The observation's `needs_person` from the detection script's answer (host_app.logic.person)."""

from __future__ import annotations

import pytest

from bridge_protocol import NeedsPerson
from host_app.logic.person import DETECT_JS, RULES, WORDS, needs_person


def test_the_scripts_answer_becomes_the_field() -> None:
    assert needs_person(["captcha", "hcaptcha", "Solve it"]) == NeedsPerson(
        kind="captcha", vendor="hcaptcha", text="Solve it", trust="untrusted_website_content"
    )
    assert needs_person(["two_factor", "one_time_code", "x" * 500]).text == "x" * WORDS  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "answer", [None, [], ["captcha", "x"], ["robot", "x", "y"], ["captcha", 1, "y"], "captcha"]
)
def test_anything_else_is_no_field(answer: object) -> None:
    assert needs_person(answer) is None


def test_every_rule_is_in_the_script_with_a_known_kind() -> None:
    assert {kind for kind, *_ in RULES} == {"bot_check", "captcha", "two_factor"}
    for _kind, vendor, _selector, _response in RULES:
        assert f'"{vendor}"' in DETECT_JS
