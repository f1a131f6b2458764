"""Widgets nobody on this team wrote, driven through refs as an agent would: jQuery UI's own
demos as Debian's `libjs-jquery-ui-docs` ships them (installed by `make setup`), served with the
jQuery UI, jQuery and RequireJS files of their Debian packages. Each test is a task a person
does with the widget; what it asserts is what the agent reads back."""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from tests.host.obs_pages import observation_of
from tests.httpserver import serving

from .hostproc import HostApp
from .test_e2e_observations import act

pytestmark = pytest.mark.e2e

DEMOS = Path("/usr/share/doc/libjs-jquery-ui-docs/examples")
# the demos load RequireJS from here; Debian's node-requirejs installs it one folder down
REQUIRE = "/usr/share/nodejs/require.js"
REQUIRE_FILE = "/usr/share/nodejs/requirejs/require.js"


class _Share(SimpleHTTPRequestHandler):
    """/usr/share only (the demos name their scripts by absolute paths under it)."""

    def log_message(self, *args: object) -> None:
        pass

    def send_head(self) -> Any:
        if not self.path.startswith("/usr/share/"):
            self.send_error(403)
            return None
        if self.path == REQUIRE:
            self.path = REQUIRE_FILE
        return super().send_head()


@pytest.fixture(scope="module")
def demos() -> Iterator[str]:
    assert (DEMOS / "menu" / "default.html").is_file(), "libjs-jquery-ui-docs: run make setup"
    with serving(functools.partial(_Share, directory="/")) as base:
        yield f"{base}{DEMOS}"


def open_demo(host: HostApp, session: str, url: str) -> dict[str, Any]:
    """The demo's first observation with elements: a demo hides its page until RequireJS has
    loaded its modules (slow on a loaded machine), so an agent observes again, as here."""
    data = host.ok("POST", "/v1/navigate/observe", {"url": url, "session_id": session})
    obs = observation_of(data)
    deadline = time.monotonic() + 15
    while not obs.get("elements") and time.monotonic() < deadline:
        time.sleep(0.2)
        obs = observation_of(host.ok("POST", "/v1/observe", {"session_id": session, "wait": 0}))
    return obs


def named(obs: dict[str, Any], name: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [e for e in obs["elements"] if e.get("name") == name]
    assert len(found) == 1, (name, obs["elements"])
    return found[0]


def after(answer: dict[str, Any]) -> dict[str, Any]:
    assert "data" in answer, answer
    return observation_of(answer["data"])


def test_a_menu_lists_each_item_once_and_says_which_are_disabled(
    host: HostApp, demos: str, session: str
) -> None:
    """jQuery UI's menu: each item is a list item with a pointer cursor around its `menuitem`.
    Both had refs (every item twice); the disabled items (aria-disabled on the list item) were
    not marked, and a click on one waited 5 s and blamed the menu for covering it."""
    obs = open_demo(host, session, f"{demos}/menu/default.html")
    items = [(e["role"], e["name"], e.get("st", [])) for e in obs["elements"]]
    assert items == [
        ("menuitem", "Toys (n/a)", ["disabled"]),
        ("menuitem", "Books", []),
        ("menuitem", "Clothing", []),
        ("menuitem", "Electronics", []),
        ("menuitem", "Movies", []),
        ("menuitem", "Music", []),
        ("menuitem", "Specials (n/a)", ["disabled"]),
    ]
    answer = act(host, obs["id"], {"action": "click", "ref": named(obs, "Toys (n/a)")["ref"]})
    assert answer["error"]["id"] == "ACTION_TIMEOUT", answer
    assert answer["error"]["details"]["reason"] == "disabled"
    assert "the element is disabled" in answer["error"]["message"]


def test_a_select_replacement_shows_its_label_and_value_and_is_chosen_from(
    host: HostApp, demos: str, session: str
) -> None:
    """jQuery UI's selectmenu hides the native select and shows a `combobox` span that its
    `<label for>` now points at. The combobox had neither name nor value: the agent could not
    tell which was the speed or what it was set to."""
    obs = open_demo(host, session, f"{demos}/selectmenu/default.html")
    boxes = [(e["role"], e.get("name"), e.get("value")) for e in obs["elements"]]
    assert boxes == [
        ("combobox", "Select a speed", "Medium"),
        ("combobox", "Select a file", "jQuery.js"),
        ("combobox", "Select a number", "2"),
        ("combobox", "Select a title", "Please pick one"),
    ]
    obs = after(
        act(host, obs["id"], {"action": "click", "ref": named(obs, "Select a speed")["ref"]})
    )
    options = [e["name"] for e in obs["elements"] if e["role"] == "option"]
    assert options == ["Slower", "Slow", "Medium", "Fast", "Faster"]
    obs = after(act(host, obs["id"], {"action": "click", "ref": named(obs, "Fast")["ref"]}))
    assert obs["elements"][0]["value"] == "Fast"
    assert "option" not in [e["role"] for e in obs["elements"]]


def test_an_autocomplete_suggestion_is_picked(host: HostApp, demos: str, session: str) -> None:
    """jQuery UI's autocomplete lists its suggestions in a list that takes focus (tabindex 0)
    around items with a pointer cursor. The list was one clickable "Java JavaScript", so no
    single suggestion could be picked; now each is its own."""
    obs = open_demo(host, session, f"{demos}/autocomplete/default.html")
    tags = named(obs, "Tags:")["ref"]
    obs = after(
        act(
            host,
            obs["id"],
            {"action": "type", "ref": tags, "text": "ja"},
            # the widget waits 300 ms after the last key before it searches
            {"action": "wait", "seconds": 0.6},
        )
    )
    deadline = time.monotonic() + 10
    while not any(e["role"] == "clickable" for e in obs["elements"]):
        assert time.monotonic() < deadline, obs["elements"]  # a loaded machine: look again
        obs = observation_of(host.ok("POST", "/v1/observe", {"session_id": session, "wait": 0}))
    suggestions = [e["name"] for e in obs["elements"] if e["role"] == "clickable"]
    assert suggestions == ["Java", "JavaScript"]
    obs = after(act(host, obs["id"], {"action": "click", "ref": named(obs, "Java")["ref"]}))
    assert named(obs, "Tags:").get("value") == "Java"


def test_a_styled_button_sets_radios_and_checkboxes_are_set_through_their_labels(
    host: HostApp, demos: str, session: str
) -> None:
    """jQuery UI's checkboxradio hides each input for the eye (1 px, clipped) and styles its
    label as the button. A click on the radio's ref waited 5 s and failed, covered by the
    fieldset: a person clicks the label, and so does the click now."""
    obs = open_demo(host, session, f"{demos}/checkboxradio/default.html")
    obs = after(
        act(
            host,
            obs["id"],
            {"action": "click", "ref": named(obs, "Paris")["ref"]},
            {"action": "click", "ref": named(obs, "3 Star")["ref"]},
            {"action": "click", "ref": named(obs, "5 Star")["ref"]},
        )
    )
    chosen = [e["name"] for e in obs["elements"] if "checked" in e.get("st", [])]
    assert chosen == ["Paris", "3 Star", "5 Star"]


def test_a_modal_dialog_leaves_only_its_own_controls_and_its_form_is_sent(
    host: HostApp, demos: str, session: str
) -> None:
    """jQuery UI's modal dialog covers the page with an overlay. The page's button stayed an
    element while the dialog was open (a click on it waited 5 s, covered); now the dialog's
    controls are the elements until it closes, and its form adds the user to the page."""
    obs = open_demo(host, session, f"{demos}/dialog/modal-form.html")
    obs = after(
        act(host, obs["id"], {"action": "click", "ref": named(obs, "Create new user")["ref"]})
    )
    names = [e["name"] for e in obs["elements"]]
    assert "Create new user" not in names
    assert {"Name", "Email", "Password", "Create an account", "Cancel"} <= set(names)
    fields = {"Name": "Ada Lovelace", "Email": "ada@example.com", "Password": "engine42"}
    steps: list[dict[str, Any]] = []
    for field, text in fields.items():
        ref = named(obs, field)["ref"]
        steps += [{"action": "clear", "ref": ref}, {"action": "type", "ref": ref, "text": text}]
    steps.append({"action": "click", "ref": named(obs, "Create an account")["ref"]})
    obs = after(act(host, obs["id"], *steps))
    cells = [c.get("t") for c in obs["content"] if c["k"] == "table_cell"]
    assert cells[-3:] == ["Ada Lovelace", "ada@example.com", "engine42"]
    assert [e["name"] for e in obs["elements"]] == ["Create new user"]


CODEMIRROR = Path("/usr/share/doc/libjs-codemirror/examples")


def test_a_code_editor_drawn_line_by_line_reads_as_one_code_block(
    host: HostApp, demos: str, session: str
) -> None:
    """CodeMirror 5 (Debian's `libjs-codemirror`, its own examples) draws each line of an
    editor as its own `pre`: the observation had one code entry per line (36 entries for two
    editors, `svc read` a fenced block per line). Lines that follow each other on screen are
    one code entry now, with the editor's text as its textarea holds it (CodeMirror draws only
    the lines near the view, so the first editor's entry is the start of its text)."""
    page = (CODEMIRROR / "complete.html").read_text()
    sources = [block.split(">", 1)[1].strip("\n").rstrip() for block in page.split("<textarea")[1:]]
    base = demos.removesuffix(str(DEMOS))
    data = host.ok(
        "POST",
        "/v1/navigate/observe",
        {"url": f"{base}{CODEMIRROR}/complete.html", "session_id": session},
    )
    code = [c["t"] for c in observation_of(data)["content"] if c["k"] == "code"]
    assert len(code) == 2
    assert code[0].count("\n") >= 20
    assert sources[0].startswith(code[0])
    assert code[1] == sources[1].split("</textarea>")[0].strip("\n").rstrip()


def test_tabs_are_listed_once_and_switched(host: HostApp, demos: str, session: str) -> None:
    """jQuery UI's tabs are `li role=tab` around an anchor to the panel: each tab was listed
    twice (the tab and a link of the same name to `#tabs-N`). One ref each now, with the
    state; a click shows the panel."""
    obs = open_demo(host, session, f"{demos}/tabs/default.html")
    tabs = [(e["role"], e["name"], e.get("st")) for e in obs["elements"]]
    assert tabs == [
        ("tab", "Nunc tincidunt", ["expanded", "selected"]),
        ("tab", "Proin dolor", ["collapsed"]),
        ("tab", "Aenean lacinia", ["collapsed"]),
    ]
    obs = after(
        act(host, obs["id"], {"action": "click", "ref": named(obs, "Aenean lacinia")["ref"]})
    )
    assert "selected" in named(obs, "Aenean lacinia")["st"]
    shown = " ".join(c.get("t", "") for c in obs["content"])
    assert "Mauris eleifend est et turpis" in shown
    assert "Proin elit arcu" not in shown  # the first panel is hidden now
