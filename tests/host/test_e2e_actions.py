"""Action objects end to end: real input events, selectors matched on a DOM snapshot."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from .hostproc import HostApp
from .site import PAGES, Site

pytestmark = pytest.mark.e2e

# what mouse events the page saw, in order (a button in view at the top: no scrolling)
PAGES["/pointer"] = """<!doctype html><html><head><title>Pointer</title></head><body>
<button id=target type=button style="width:200px;height:80px">target</button><pre id=log></pre>
<script>for (const type of ['mousemove', 'pointermove', 'mousedown', 'mouseup', 'click']) {
  document.addEventListener(type, (e) => {
    document.getElementById('log').textContent += type + ' ';
  }, true);
}</script></body></html>"""


def _open(host: HostApp, site: Site, session: str, path: str = "/form") -> None:
    host.ok("POST", "/v1/navigate", {"url": site.url(path), "session_id": session, "wait": 0})


def _perform(
    host: HostApp, session: str, actions: list[dict[str, Any]], wait: float = 0.0, **kw: object
) -> dict[str, Any]:
    return host.ok(
        "POST", "/v1/perform", {"session_id": session, "actions": actions, "wait": wait, **kw}
    )


def test_form_type_select_clear_click(host: HostApp, site: Site, session: str) -> None:
    _open(host, site, session)
    data = _perform(
        host,
        session,
        [
            {"action": "type", "selector": "#name", "text": "cd"},
            {"action": "select", "selector": "#color", "value": "blue"},
            {"action": "type", "selector": "form textarea", "text": "two words"},
            {"action": "clear", "selector": "#notes"},
            {"action": "type", "selector": "#notes", "text": "ok"},
            {"action": "click", "selector": "#f > button[type=submit]"},
        ],
        wait=0.5,
    )
    url = data["page"]["url"]
    assert url.startswith(site.url("/submitted?"))
    assert "name=abcd" in url
    assert "color=blue" in url
    assert "notes=ok" in url


def test_actions_run_no_page_script_and_mutate_nothing(
    host: HostApp, site: Site, session: str
) -> None:
    """/form traps the main world's DOM APIs and attribute mutations: it retitles itself when any
    of them is used. Every action kind runs on it; the title must stay."""
    _open(host, site, session)
    _perform(
        host,
        session,
        [
            {"action": "wait-for", "selector": "#appeared", "timeout": 5},
            {"action": "type", "selector": "#name", "text": "x"},
            {"action": "clear", "selector": "#notes"},
            {"action": "select", "selector": "#color", "value": "blue"},
            {"action": "press", "selector": "#notes", "key": "Tab"},
            {"action": "click", "selector": "#plain"},
            {"action": "wait", "seconds": 0.1},
        ],
    )
    html = Path(
        host.ok("POST", "/v1/capture", {"session_id": session, "wait": 0})["capture"]["output_path"]
    ).read_text()
    assert "<title>Form</title>" in html


def test_press_enter_submits(host: HostApp, site: Site, session: str) -> None:
    _open(host, site, session)
    data = _perform(
        host,
        session,
        [
            {"action": "clear", "selector": "#name"},
            {"action": "type", "selector": "#name", "text": "zz"},
            {"action": "press", "selector": "#name", "key": "Enter"},
        ],
        wait=0.5,
    )
    assert "name=zz" in data["page"]["url"]


def test_type_appends_with_the_texts_keys_only(host: HostApp, site: Site, session: str) -> None:
    """The caret goes after the control's text without a key the page would see (an End key
    before the text was one); an email input, which has no selection API, still gets End."""
    _open(host, site, session, "/keys")
    _perform(
        host,
        session,
        [
            {"action": "type", "selector": "#line", "text": " you"},
            {"action": "type", "selector": "#area", "text": "!"},
            {"action": "type", "selector": "#rich", "text": "s"},
            {"action": "type", "selector": "#mail", "text": "c"},
        ],
    )
    capture = host.ok("POST", "/v1/capture", {"session_id": session, "wait": 0})
    html = Path(capture["capture"]["output_path"]).read_text()
    assert "Rich <b>texts</b>" in html, html
    log = html.split('<pre id="log">')[1].split("</pre>")[0]
    assert log.split() == [
        "line:",
        "line:y",
        "line:o",
        "line:u",
        "area:!",
        "rich:s",
        "mail:End",
        "mail:c",
    ], log
    values = json.loads(html.split('<pre id="vals">')[1].split("</pre>")[0].replace("&quot;", '"'))
    assert values == ["Hello you", "first line\nsecond line!", "a@bc"]


def test_type_takes_any_text_a_keyboard_types(host: HostApp, site: Site, session: str) -> None:
    """Accents, other scripts, emoji and line breaks: QTest's typing knows ASCII only, and
    any other character (a line break, "é") aborted the whole app on an assertion in Qt, every
    session with it. Each character is its own key now; a line break is the Enter key."""
    _open(host, site, session, "/keys")
    text = "José\nÜber 中文 😀\r\nend"
    _perform(
        host,
        session,
        [
            {"action": "type", "selector": "#area", "text": text},
            {"action": "type", "selector": "#line", "text": " Zoë ñ"},
        ],
    )
    capture = host.ok("POST", "/v1/capture", {"session_id": session, "wait": 0})
    html = Path(capture["capture"]["output_path"]).read_text()
    values = json.loads(html.split('<pre id="vals">')[1].split("</pre>")[0].replace("&quot;", '"'))
    assert values[:2] == ["Hello Zoë ñ", "first line\nsecond lineJosé\nÜber 中文 😀\nend"]
    log = html.split('<pre id="log">')[1].split("</pre>")[0].split()
    assert log.count("area:Enter") == 2
    assert "area:中" in log


def test_select_reaches_a_far_option_in_few_changes(
    host: HostApp, site: Site, session: str
) -> None:
    """From the 2nd to the 19th of 20 options the select jumps (End, then one arrow up): the
    page sees two changes, as it would see about as many from a person, not seventeen."""
    _open(host, site, session, "/choices")
    data = _perform(
        host,
        session,
        [
            {"action": "select", "selector": "#pick", "value": "v1"},
            {"action": "select", "selector": "#pick", "value": "v18"},
            {"action": "select", "selector": "#pick", "value": "v2"},
            {"action": "click", "selector": "#send"},
        ],
        wait=0.5,
    )
    url = data["page"]["url"]
    assert url.startswith(site.url("/submitted?"))
    # v0 -> v1: one arrow; v1 -> v18: End, ArrowUp; v18 -> v2: Home, ArrowDown, ArrowDown
    assert "pick=v2&changes=6" in url


@pytest.mark.parametrize("selector", ["#ro", "#dis", "#plain"])
def test_type_refuses_non_editable(host: HostApp, site: Site, session: str, selector: str) -> None:
    _open(host, site, session)
    _, error = host.error(
        "POST",
        "/v1/perform",
        {"session_id": session, "actions": [{"action": "type", "selector": selector, "text": "x"}]},
    )
    assert error["id"] == "ACTION_TARGET_NOT_FOUND"


def test_select_refuses_disabled_option(host: HostApp, site: Site, session: str) -> None:
    _open(host, site, session)
    _, error = host.error(
        "POST",
        "/v1/perform",
        {
            "session_id": session,
            "actions": [{"action": "select", "selector": "#color", "value": "green"}],
        },
    )
    assert error["id"] == "ACTION_TARGET_NOT_FOUND"


def test_click_scrolls_to_offscreen_target(host: HostApp, site: Site, session: str) -> None:
    _open(host, site, session)
    _, error = host.error(
        "POST",
        "/v1/perform",
        {
            "session_id": session,
            "actions": [{"action": "click", "selector": "#far", "scroll": False}],
        },
    )
    assert error["id"] == "ACTION_TARGET_NOT_FOUND"
    # a batch stops at its first failure: the click after the missing target never ran
    _, error = host.error(
        "POST",
        "/v1/perform",
        {
            "session_id": session,
            "actions": [
                {"action": "click", "selector": "#nothing"},
                {"action": "click", "selector": "#far"},
            ],
        },
    )
    assert error["id"] == "ACTION_TARGET_NOT_FOUND"
    data = host.ok("POST", "/v1/capture", {"session_id": session, "wait": 0})
    assert "<title>far clicked</title>" not in Path(data["capture"]["output_path"]).read_text()
    data = _perform(host, session, [{"action": "click", "selector": "#far", "mouse_move": False}])
    html = Path(
        host.ok("POST", "/v1/capture", {"session_id": session, "wait": 0})["capture"]["output_path"]
    ).read_text()
    assert "<title>far clicked</title>" in html


def test_mouse_move_false_sends_only_down_and_up(host: HostApp, site: Site, session: str) -> None:
    """Spec 1 §4 action objects: mouse_move (default true) sends a local mouse-move before
    button-down/up; false sends only down and up."""

    def seen(click: dict[str, Any]) -> list[str]:
        _open(host, site, session, "/pointer")
        _perform(host, session, [{"action": "click", "selector": "#target", **click}])
        capture = host.ok("POST", "/v1/capture", {"session_id": session, "wait": 0})
        html = Path(capture["capture"]["output_path"]).read_text()
        return html.split('<pre id="log">')[1].split("</pre>")[0].split()

    assert seen({"mouse_move": False}) == ["mousedown", "mouseup", "click"]
    moved = seen({})  # the default
    assert moved[-3:] == ["mousedown", "mouseup", "click"]
    assert {"mousemove", "pointermove"} <= set(moved[:-3]), moved


def test_click_reaches_a_target_sixty_thousand_pixels_down(
    host: HostApp, site: Site, session: str
) -> None:
    """The wheel is bounded by reads that bring the target no nearer, not by a count from its
    first distance: at ~600 px per event the old bound ran out short of this button."""
    _open(host, site, session, "/very-far")
    _perform(host, session, [{"action": "click", "selector": "#far"}])
    html = Path(
        host.ok("POST", "/v1/capture", {"session_id": session, "wait": 0})["capture"]["output_path"]
    ).read_text()
    assert "<title>far clicked</title>" in html


def test_wait_for_presence_and_timeouts(host: HostApp, site: Site, session: str) -> None:
    _open(host, site, session)
    _perform(host, session, [{"action": "wait-for", "selector": "#late > #appeared", "timeout": 5}])
    t0 = time.monotonic()
    _, error = host.error(
        "POST",
        "/v1/perform",
        {
            "session_id": session,
            "actions": [{"action": "wait-for", "selector": "#never", "timeout": 0.5}],
        },
    )
    assert error["id"] == "ACTION_TIMEOUT"
    assert time.monotonic() - t0 < 3
    _, error = host.error(
        "POST",
        "/v1/perform",
        {
            "session_id": session,
            "timeout": 1,
            "actions": [{"action": "wait-for", "selector": "#never", "timeout": 30}],
        },
    )
    assert error["id"] == "TIMEOUT"


def test_click_link_fuzzy(host: HostApp, site: Site, session: str) -> None:
    _open(host, site, session, "/links")
    data = _perform(
        host,
        session,
        [
            {
                "action": "click-link",
                "link": site.url("/articles/second-article"),
                "match": {"type": "fuzzy-link", "threshold": 0.8},
            }
        ],
        wait=0.5,
    )
    assert data["page"]["url"] == site.url("/articles/second-article?ref=home")
    _open(host, site, session, "/links")
    _, error = host.error(
        "POST",
        "/v1/perform",
        {
            "session_id": session,
            "actions": [
                {
                    "action": "click-link",
                    "link": site.url("/articles/second-article"),
                    "match": {"type": "fuzzy-link", "threshold": 1},
                }
            ],
        },
    )
    assert error["id"] == "ACTION_TARGET_NOT_FOUND"


def test_invalid_selector_is_validation_failed(host: HostApp, site: Site, session: str) -> None:
    _open(host, site, session)
    for selector in ("a:hover", "#a\\:b", "svg|a", "p::before"):
        _, error = host.error(
            "POST",
            "/v1/perform",
            {"session_id": session, "actions": [{"action": "click", "selector": selector}]},
        )
        assert error["id"] == "VALIDATION_FAILED", selector
