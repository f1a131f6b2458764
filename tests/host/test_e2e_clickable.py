"""Issue 11 points 4 and 6 end to end: what a person would click gets a `clickable` ref that ref
actions drive; preformatted text keeps its lines (docs/observations.md "Clickable elements",
"Preformatted text"). Pages: tests/host/click_pages.py."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.host.obs_pages import observation_of

from . import click_pages
from .click_pages import LONG_PRE
from .hostproc import HostApp
from .site import Site
from .test_e2e_observations import act, decoded, observe, ref, texts

pytestmark = pytest.mark.e2e


def out_text(obs: dict[str, Any]) -> str:
    """What the page's `#out` paragraph says (the last content entry of every stress page)."""
    return texts(obs)[-1]


def after(host: HostApp, session: str, answer: dict[str, Any], want: str) -> dict[str, Any]:
    """The post-action observation once `#out` says `want`, observing again until a deadline."""
    assert "data" in answer, answer
    obs = observation_of(answer["data"])
    deadline = time.monotonic() + 10
    while out_text(obs) != want and time.monotonic() < deadline:
        obs = observation_of(host.ok("POST", "/v1/observe", {"session_id": session}))
    assert out_text(obs) == want
    return obs


def elements(obs: dict[str, Any]) -> list[tuple[str, str]]:
    return [(e["role"], e.get("name", "")) for e in decoded(obs).get("elements", [])]


def test_menu_card_and_the_two_bugs(host: HostApp, site: Site, session: str) -> None:
    data = observe(host, site, session, "/clk/menu")
    obs = data["observation"]
    assert elements(obs) == [
        ("clickable", "File"),  # pointer-styled div, listener by script
        ("clickable", "Blue shirt 12 EUR"),  # the card: one ref, its spans inherit the pointer
        ("clickable", "Star it"),  # <span tabindex=0> (was left out)
        ("clickable", "Open settings"),  # <div tabindex=0 onclick> (was a nameless generic)
        ("clickable", "Keyboard target"),
        ("button", "Inner span"),  # a pointer span inside a button gets no ref of its own
    ]
    # the texts stay in the content, in order, carried by the refs (no scroll region, no
    # `a name` target among the refs)
    content = decoded(obs)["content"]
    assert [c.get("t") for c in content[:2]] == ["File", "Blue shirt 12 EUR"]
    assert content[0]["e"] == [ref(obs, "File")]
    assert "Open settings" in texts(obs)
    assert "Old anchor" in texts(obs)
    assert "Scroll region line" in texts(obs)
    # the wire form does not send a clickable's text twice
    assert ["text", "", [ref(obs, "Open settings")]] in data["wire"]["content"]

    obs = after(
        host,
        session,
        act(host, obs["id"], {"action": "click", "ref": ref(obs, "File")}),
        "menu opened",
    )
    assert ("clickable", "New") in elements(obs)  # onclick attribute items, now shown
    obs = after(
        host,
        session,
        act(host, obs["id"], {"action": "click", "ref": ref(obs, "Open")}),
        "menu Open",
    )
    for name, said in (
        ("Blue shirt 12 EUR", "card clicked"),
        ("Star it", "starred"),
        ("Open settings", "div clicked"),
    ):
        obs = after(
            host, session, act(host, obs["id"], {"action": "click", "ref": ref(obs, name)}), said
        )
    answer = act(
        host, obs["id"], {"action": "press", "ref": ref(obs, "Keyboard target"), "key": "Enter"}
    )
    obs = after(host, session, answer, "enter pressed")
    # hover works on a clickable too (no error, the page stays)
    answer = act(host, obs["id"], {"action": "hover", "ref": ref(obs, "Blue shirt 12 EUR")})
    assert "data" in answer, answer


def test_tree_view_opens_and_leaves_are_chosen(host: HostApp, site: Site, session: str) -> None:
    obs = observe(host, site, session, "/clk/tree")["observation"]
    assert elements(obs) == [("clickable", "Beverages")]
    assert decoded(obs)["content"][0] == {
        "k": "list_item",
        "t": "Beverages",
        "e": [ref(obs, "Beverages")],
    }
    obs = after(
        host,
        session,
        act(host, obs["id"], {"action": "click", "ref": ref(obs, "Beverages")}),
        "toggled Beverages",
    )
    assert elements(obs) == [
        ("clickable", "Beverages"),
        ("clickable", "Water"),
        ("clickable", "Coffee"),
        ("clickable", "Tea"),
    ]
    obs = after(
        host,
        session,
        act(host, obs["id"], {"action": "click", "ref": ref(obs, "Tea")}),
        "toggled Tea",
    )
    obs = after(
        host,
        session,
        act(host, obs["id"], {"action": "click", "ref": ref(obs, "Green tea")}),
        "chose Green tea",
    )


def test_autocomplete_items_are_clickable(host: HostApp, site: Site, session: str) -> None:
    obs = observe(host, site, session, "/clk/autocomplete")["observation"]
    answer = act(host, obs["id"], {"action": "type", "ref": ref(obs, "City"), "text": "Pa"})
    obs = observation_of(answer["data"])
    deadline = time.monotonic() + 10
    while ("clickable", "Parma") not in elements(obs) and time.monotonic() < deadline:
        obs = observation_of(host.ok("POST", "/v1/observe", {"session_id": session}))
    # the li (pointer cursor) gets the ref; its `div tabindex=-1` does not get a second one
    assert [x for x in elements(obs) if x[0] == "clickable"] == [
        ("clickable", "Paris"),
        ("clickable", "Parma"),
    ]
    obs = after(
        host,
        session,
        act(host, obs["id"], {"action": "click", "ref": ref(obs, "Parma")}),
        "picked Parma",
    )
    assert decoded(obs)["elements"][0]["value"] == "Parma"


def test_date_picker_prev_next_and_days(host: HostApp, site: Site, session: str) -> None:
    obs = observe(host, site, session, "/clk/datepicker")["observation"]
    assert elements(obs) == [("clickable", n) for n in ("Prev", "Next", "1", "2", "3")]
    obs = decoded(
        act(host, obs["id"], {"action": "click", "ref": ref(obs, "Next")})["data"]["observation"]
    )
    assert "April 2026" in texts(obs)[0]
    obs = decoded(
        act(
            host,
            obs["id"],
            {"action": "click", "ref": ref(obs, "Prev")},
            {"action": "click", "ref": ref(obs, "Prev")},
        )["data"]["observation"]
    )
    assert "February 2026" in texts(obs)[0]
    # the days were redrawn: new elements, new refs
    after(
        host,
        session,
        act(host, obs["id"], {"action": "click", "ref": ref(obs, "2")}),
        "date 2 February 2026",
    )


def test_preformatted_text_keeps_its_lines(host: HostApp, site: Site, session: str) -> None:
    data = observe(host, site, session, "/pre/code")
    obs = data["observation"]
    code = [c for c in obs["content"] if c["k"] == "code"]
    assert [c["t"] for c in code[:4]] == [
        click_pages.CODE,
        "first  line\n  second line",  # pre-wrap keeps spaces and breaks
        "line A\n  line B",  # a pre made of line blocks
        "alpha\n  beta\ngamma",  # a textarea's lines, with its ref
    ]
    assert code[3]["e"] == [ref(obs, "Notes")]
    assert decoded(obs)["elements"][0]["value"] == "alpha\n  beta\ngamma"
    # prose that keeps its white-space but is not drawn as code keeps its lines as prose
    prose = [c.get("t") for c in obs["content"] if c["k"] == "paragraph"]
    assert "A message  that keeps\nits lines" in prose
    assert "poem line one\npoem line two" in prose  # pre-line collapses spaces
    # prose is still collapsed; a br parts words
    assert "Some prose that wraps." in texts(obs)
    assert "Break here" in texts(obs)
    # the long pre is clipped by bytes, lines intact up to the cut
    long = code[4]["t"]
    assert long.endswith("…")
    assert len(long[:-1].encode()) <= 2048
    assert long.startswith(LONG_PRE[:200])
    assert obs["clipped_text_count"] >= 1
    assert obs["truncated"]


def test_a_pointer_box_around_a_ref_of_the_same_target_gives_way(
    host: HostApp, site: Site, session: str
) -> None:
    """A list item with a pointer cursor around its link is the link's padding: one ref, the
    link's (jQuery UI's menus listed each item twice). A pointer-styled row beside its checkbox
    is another target: both keep their refs. A tab's in-page anchor is the tab's (jQuery UI's
    tabs listed each twice); a menu item's link to another page keeps its ref and destination."""
    obs = observe(host, site, session, "/clk/padding")["observation"]
    assert elements(obs) == [
        ("link", "Docs"),
        ("clickable", "Pick order Order 42 3 items"),
        ("checkbox", "Pick order"),
        ("tab", "One"),
        ("menuitem", "Prices"),
        ("link", "Prices"),
    ]


def test_a_pointer_box_that_shows_nothing_is_no_target(
    host: HostApp, site: Site, session: str
) -> None:
    """Doxygen's tree indents each leaf with a pointer-styled blank span: no ref for it, the
    row's link only. A box that shows something without text (an icon drawn by ::before, a
    colour swatch, a gradient, an image, a titled box) keeps its ref, and a click on it works."""
    obs = observe(host, site, session, "/clk/blank")["observation"]
    roles = elements(obs)
    assert roles[:2] == [("link", "Leaf page"), ("link", "Other page")]
    assert roles[-2:] == [("link", "Home"), ("link", "Blog")]
    assert len(roles) == 9, roles
    # a menu whose only text beside its links is separators is said by its links; an emoji is
    # something said
    assert "\U0001f44d" in texts(obs)
    assert not [t for t in texts(obs) if "Home" in t or "\u00bb" in t]
    clickables = [e for e in decoded(obs)["elements"] if e["role"] == "clickable"]
    for element, said in zip(clickables, ("close", "red", "gradient", "logo", "pin"), strict=True):
        answer = act(host, obs["id"], {"action": "click", "ref": element["ref"]})
        obs = after(host, session, answer, f"clicked {said}")
