"""Roundup, a real issue tracker nobody on the team wrote (issue 36 point 6): a person's whole
task through refs only, checked at the end in the tracker's own database with `roundup-admin`.

The fixture installs the classic tracker (anydbm) in a temp folder, `roundup-admin install` and
`initialise` with the admin's password on the command line (no prompt), and serves it with
`roundup-server` in its own process group; one svc app for the module. The task: log in through
the sidebar's form, create an issue (title, priority, a message), see it on its page, change its
status, find it by a word of its message with the search box."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.ports import free_port

from .appserver import app_server
from .hostproc import HostApp
from .test_e2e_datasette import in_entry, table_rows
from .test_e2e_popups import act, navigate, ref, texts

pytestmark = pytest.mark.e2e

BIN = Path(sys.executable).parent
ADMIN_PASSWORD = "correct horse battery"
TITLE = "Seed trays leak water"
NOTE = "The trays crack along the rim after a week in the greenhouse."


@dataclass
class Tracker:
    base: str
    home: Path

    def admin(self, *args: str) -> str:
        done = subprocess.run(
            [str(BIN / "roundup-admin"), "-i", str(self.home), *args],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout


@pytest.fixture(scope="module")
def tracker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tracker]:
    folder = tmp_path_factory.mktemp("roundup")
    port = free_port()
    base = f"http://127.0.0.1:{port}/garden/"
    home = folder / "garden"
    t = Tracker(base, home)
    # the tracker's web address is its own: Roundup refuses a form posted from another (CSRF)
    t.admin("install", "classic", "anydbm", f"tracker_web={base},mail_domain=localhost")
    t.admin("initialise", ADMIN_PASSWORD)
    command = [str(BIN / "roundup-server"), "-n", "127.0.0.1", "-p", str(port)]
    if os.getuid() == 0:
        # roundup-server refuses to run as root unless told which user to be
        command += ["-u", "0"]
    with app_server([*command, f"garden={home}"], folder, base):
        yield t


def field(obs: dict[str, Any], label: str) -> dict[str, Any]:
    """The control of a form laid out as a table: the first element of the cell after the row
    header cell `label` (Roundup's fields have no labels of their own)."""
    by_ref = {e["ref"]: e for e in obs.get("elements", [])}
    content = obs.get("content", [])
    for i, c in enumerate(content[:-1]):
        if c["k"] == "table_cell" and c.get("h") == 2 and c.get("t") == label:
            after = content[i + 1]
            if after["k"] == "table_cell" and after.get("e"):
                return dict(by_ref[after["e"][0]])
    raise AssertionError(f"no field {label!r}")


def option(control: dict[str, Any], label: str) -> str:
    values = [value for value, text in control.get("opts", []) if text == label]
    assert len(values) == 1, (label, control)
    return str(values[0])


def test_an_issue_created_changed_and_found_is_in_the_tracker(
    host: HostApp, tracker: Tracker, session: str
) -> None:
    obs = navigate(host, session, tracker.base)["observation"]
    # the sidebar's login form: two nameless fields in the entry of its "Login" button
    login = in_entry(obs, "Login")
    boxes = [e["ref"] for e in login if e["role"] == "textbox"]
    assert len(boxes) == 2
    obs = act(
        host,
        obs["id"],
        {"action": "type", "ref": boxes[0], "text": "admin"},
        {"action": "type", "ref": boxes[1], "text": ADMIN_PASSWORD},
        {"action": "click", "ref": ref(obs, "Login")},
    )["observation"]
    assert "Welcome admin! clear this message" in texts(obs)
    assert any(t.startswith("Hello, admin") for t in texts(obs))

    # "Create New" of the Issues part of the sidebar (the keywords part has one too)
    create = [e for e in in_entry(obs, "Issues") if e.get("name") == "Create New"]
    obs = act(host, obs["id"], {"action": "click", "ref": create[0]["ref"]})["observation"]
    assert obs["title"] == "New Issue - Roundup issue tracker"
    priority = field(obs, "Priority")
    assert priority["role"] == "combobox"
    obs = act(
        host,
        obs["id"],
        {"action": "type", "ref": field(obs, "Title")["ref"], "text": TITLE},
        {"action": "select", "ref": priority["ref"], "value": option(priority, "bug")},
        {"action": "type", "ref": field(obs, "Change Note")["ref"], "text": NOTE},
        {"action": "click", "ref": ref(obs, "Submit New Entry")},
    )["observation"]
    # the issue's page shows what was given
    assert obs["url"].startswith(f"{tracker.base}issue1?")
    assert obs["title"] == f"Issue 1: {TITLE} - Roundup issue tracker"
    assert "msg 1 created issue 1 created clear this message" in texts(obs)
    assert field(obs, "Title")["value"] == TITLE
    shown = field(obs, "Priority")
    assert dict(shown["opts"])[shown["value"]] == "bug"
    status = field(obs, "Status")
    assert dict(status["opts"])[status["value"]] == "unread"
    assert [c["t"] for c in obs["content"] if c["k"] == "code"] == [NOTE]

    obs = act(
        host,
        obs["id"],
        {"action": "select", "ref": status["ref"], "value": option(status, "in-progress")},
        {"action": "click", "ref": ref(obs, "Submit Changes")},
    )["observation"]
    assert "issue 1 status edited ok clear this message" in texts(obs)
    status = field(obs, "Status")
    assert dict(status["opts"])[status["value"]] == "in-progress"

    # the search box of the page's banner; "rim" is only in the message
    box = [e for e in obs["elements"] if e["role"] == "textbox" and e.get("c") == 0]
    assert obs["contexts"][0] == "banner > search > form"
    assert len(box) == 1
    found = act(
        host,
        obs["id"],
        {"action": "type", "ref": box[0]["ref"], "text": "rim"},
        {"action": "press", "ref": box[0]["ref"], "key": "Enter"},
    )["observation"]
    # ID, Activity, Title, Status, Creator, Assigned To
    rows = table_rows(found)
    assert [[r[0], r[2], r[3], r[4]] for r in rows] == [["1", TITLE, "in-progress", "admin"]]
    assert [e["dest"] for e in found["elements"] if e.get("name") == TITLE] == [
        f"{tracker.base}issue1"
    ]

    # the tracker's own database
    assert tracker.admin("list", "issue").split("\n")[0].strip() == f"1: {TITLE}"
    issue = dict(
        line.split(": ", 1) for line in tracker.admin("display", "issue1").splitlines() if line
    )
    assert issue["title"] == TITLE
    assert tracker.admin("get", "name", f"priority{issue['priority']}").strip() == "bug"
    assert tracker.admin("get", "name", f"status{issue['status']}").strip() == "in-progress"
    assert issue["messages"] == "['1']"
    assert tracker.admin("get", "content", "msg1").strip() == NOTE
    creator = tracker.admin("get", "creator", "issue1").strip()
    assert tracker.admin("get", "username", f"user{creator}").strip() == "admin"
