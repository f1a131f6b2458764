"""Application shells (issue 36 point 3): Jupyter Notebook 7, installed from PyPI by the dev
extras, observed and driven like any other page.

Its pages are JupyterLab's Lumino shell: a `body` with `overflow: hidden` whose panels are all
absolutely placed, so it is 0 px high (docs/decisions.md "The body's overflow is the viewport's"; before
that fix the whole application read empty). The test does what an agent would, through the
HTTP API only, acting by refs from observations: on the tree page New > Python 3 (a Lumino
menu, whose item is chosen by the mousemove before the click), in the notebook it opens (a
popup of the tree page) the code typed into the first cell's CodeMirror 6 editor, run with the
toolbar's run button, its output read from the observation, the notebook saved with the
toolbar's save button; and at the end the `.ipynb` on disk holds the cell and its output.

What it took: a click's mouse-move did not reach the page (QTest.mouseMove moves the cursor),
so Lumino's menu, which takes its item from the mousemove, ignored the click on "Python 3";
and each <jp-button> with aria-pressed or tabindex was a `clickable` beside the <button> of its
shadow root, two refs of one name in a toolbar.

The real app, one process for the module; `jupyter notebook` started by a fixture on a free
loopback port, with a temporary root folder and its own config, data and runtime folders
(~11 s for the module)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from tests.ports import free_port

from .appserver import app_server
from .hostproc import HostApp
from .obs_pages import observation_of
from .test_e2e_popups import act, navigate, popup_events

pytestmark = pytest.mark.e2e

TOKEN = "svc-test-token"
CODE = "print(6 * 7)"


@dataclass
class Jupyter:
    base: str
    root: Path


def _kernels_stopped(runtime: Path) -> None:
    """A kernel runs in a session of its own (jupyter_client starts it so), out of the server's
    group, which `app_server` stops (the server shuts its kernels down on SIGTERM): one still
    running, known by its connection file in this fixture's runtime folder, is killed by its
    group."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if str(runtime).encode() in (proc / "cmdline").read_bytes():
                os.killpg(int(proc.name), signal.SIGKILL)


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Jupyter]:
    folder = tmp_path_factory.mktemp("jupyter")
    root, runtime = folder / "root", folder / "runtime"
    for sub in (root, runtime, folder / "config", folder / "data", folder / "ipython"):
        sub.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
    env.update(
        JUPYTER_CONFIG_DIR=str(folder / "config"),
        JUPYTER_DATA_DIR=str(folder / "data"),
        JUPYTER_RUNTIME_DIR=str(runtime),
        JUPYTER_PLATFORM_DIRS="1",
        IPYTHONDIR=str(folder / "ipython"),
    )
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = [
        sys.executable,
        "-m",
        "notebook",
        "--no-browser",
        "--allow-root",  # a container's tests run as root; the server refuses it otherwise
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root}",
        f"--IdentityProvider.token={TOKEN}",
    ]
    probe = f"{base}/api/status?token={TOKEN}"
    try:
        with app_server(command, folder, probe, env=env, log="notebook.log"):
            yield Jupyter(base, root)
    finally:
        _kernels_stopped(runtime)


# -- helpers -------------------------------------------------------------------------------------


def observe_until(
    host: HostApp, session: str, done: Callable[[dict[str, Any]], bool], what: str
) -> dict[str, Any]:
    """Observe again until `done(observation)` holds; each observation's page events are kept
    in its `events` (an observation reports those since the one before)."""
    deadline = time.monotonic() + 30
    events: list[dict[str, Any]] = []
    while True:
        obs = observation_of(host.ok("POST", "/v1/observe", {"session_id": session, "wait": 0}))
        events += popup_events(obs)
        if done(obs):
            return {**obs, "events": events}
        assert time.monotonic() < deadline, f"timed out waiting for {what}: {obs}"
        time.sleep(0.2)


def context(obs: dict[str, Any], item: dict[str, Any]) -> str:
    return str(obs["contexts"][item["c"]]) if "c" in item else ""


def elements(obs: dict[str, Any], role: str, within: str = "") -> list[dict[str, Any]]:
    """The elements of `role` whose context path holds `within`."""
    return [e for e in obs.get("elements", []) if e["role"] == role and within in context(obs, e)]


def named(obs: dict[str, Any], role: str, start: str, within: str = "") -> dict[str, Any]:
    found = [e for e in elements(obs, role, within) if e.get("name", "").startswith(start)]
    assert found, f"no {role} named {start!r}… in {obs.get('elements')}"
    return found[0]


def kernel_asked(obs: dict[str, Any]) -> dict[str, Any] | None:
    """The accepting button of Jupyter's kernel dialog, when one shows: "Select" when the
    notebook opened before it read the server's kernel specs, "Select Kernel" when a cell is run
    before its session's kernel is known (both seen on a loaded machine only)."""
    return next(
        (
            e
            for e in elements(obs, "button", "dialog")
            if e.get("name") in {"Select", "Select Kernel"}
        ),
        None,
    )


def once(obs: dict[str, Any]) -> None:
    """Each control of a toolbar has one ref: a <jp-button> (a web component whose shadow root
    holds the <button>) with aria-pressed or tabindex is not a second target of the same name."""
    by_toolbar: dict[str, list[str]] = {}
    for e in obs["elements"]:
        if "toolbar" in context(obs, e):
            by_toolbar.setdefault(context(obs, e), []).append(e.get("name", ""))
    assert by_toolbar
    for where, names in by_toolbar.items():
        assert len(names) == len(set(names)), (where, names)


def content(obs: dict[str, Any], kind: str, within: str = "") -> list[str]:
    return [
        c.get("t", "")
        for c in obs.get("content", [])
        if c["k"] == kind and within in context(obs, c)
    ]


# -- the test ------------------------------------------------------------------------------------

NOTEBOOK_TOOLBAR = 'toolbar "main area toolbar"'
CELLS = 'feed "Cells"'


def test_create_run_and_save_a_notebook(host: HostApp, jupyter: Jupyter, session: str) -> None:
    # the tree page: the file browser and its toolbar, read (the shell draws after its scripts
    # load, and its toolbar's buttons one by one as their components upgrade: observed again
    # until the New menu and the toolbar's buttons are there; a fresh clone's first run drew
    # the buttons after the menu)
    navigate(host, session, f"{jupyter.base}/tree?token={TOKEN}")

    def drawn(o: dict[str, Any]) -> bool:
        names = {e.get("name") for e in elements(o, "button", 'toolbar "file browser"')}
        return (
            bool(elements(o, "menuitem", "file browser"))
            and {"Upload", "Refresh File List"} <= names
        )

    tree = observe_until(host, session, drawn, "the file browser")
    assert tree["title"] == "Home"
    assert {"Name", "Last Modified", "File Size"} <= set(content(tree, "text"))
    toolbar = elements(tree, "button", 'toolbar "file browser"')
    assert {"Upload", "Refresh File List"} <= {e.get("name") for e in toolbar}
    assert all(e.get("name") for e in toolbar), toolbar
    once(tree)

    # New > Python 3 (ipykernel): a Lumino menu, its items under a `menu` context
    menu = act(host, tree["id"], {"action": "click", "ref": named(tree, "menuitem", "New")["ref"]})
    kernel = named(menu["observation"], "menuitem", "Python 3", "menu")
    act(host, menu["observation"]["id"], {"action": "click", "ref": kernel["ref"]})

    # the notebook opens in a new window, a popup of the tree page, once the server made the
    # file: the session's current page. Its shell draws its parts as they load, the toolbar's
    # buttons one by one as their components upgrade: observed again until the cell's editor,
    # the toolbar's run button and the rest of its buttons are there (a fresh clone's run read
    # the toolbar with 6 of its buttons), and its save button once the file is known writable
    # (a loaded machine read 'Document is read-only. "Save" is disabled' before that)
    def notebook_ready(o: dict[str, Any]) -> bool:
        buttons = elements(o, "button", NOTEBOOK_TOOLBAR)
        toolbar = {e.get("name", "")[:13] for e in buttons}
        return (
            "/notebooks/" in o["url"]
            and bool(elements(o, "textbox", CELLS))
            and "Run this cell" in toolbar
            and any(name.startswith("Save") for name in toolbar)
            and len(buttons) >= 8
        )

    nb = observe_until(host, session, notebook_ready, "the notebook's first cell")
    # a 0 px body with overflow hidden, read
    assert nb["content"]
    assert nb["elements"]
    name = unquote(urlsplit(nb["url"]).path.rsplit("/", 1)[1])
    assert name.endswith(".ipynb")
    assert [(e["event"], e["url"]) for e in nb["events"]] == [("opened", nb["url"])]
    if pick := kernel_asked(nb):
        # Notebook 7 may ask for a kernel although the menu item named one, when the new window
        # opens before it read the server's kernel specs (a loaded machine: once in a helper's
        # run); an agent takes the kernel it offers, Python 3, which the saved file shows below
        act(host, nb["id"], {"action": "click", "ref": pick["ref"]})
        nb = observe_until(
            host,
            session,
            lambda o: notebook_ready(o) and not elements(o, "button", "dialog"),
            "the notebook once its kernel is chosen",
        )
    # no other dialog: a notebook made from the kernel's menu item has its kernel
    assert not elements(nb, "button", "dialog"), nb["elements"]
    assert nb["title"] == name.removesuffix(".ipynb")

    # what an agent sees: the menu bar, a named toolbar, the cell's editor
    assert {"File", "Edit", "View", "Run", "Kernel"} <= {
        e.get("name") for e in elements(nb, "menuitem", "menubar")
    }
    buttons = elements(nb, "button", NOTEBOOK_TOOLBAR)
    assert len(buttons) >= 8, buttons
    assert all(e.get("name") for e in buttons), buttons
    once(nb)
    run = named(nb, "button", "Run this cell", NOTEBOOK_TOOLBAR)
    save = named(nb, "button", "Save", NOTEBOOK_TOOLBAR)
    cell = elements(nb, "textbox", CELLS)[0]
    assert "value" not in cell  # an empty cell

    # the code typed into CodeMirror 6 (a contenteditable textbox; its closing bracket typed
    # over the one it inserts)
    typed = act(host, nb["id"], {"action": "type", "ref": cell["ref"], "text": CODE})
    typed_cell = next(e for e in typed["observation"]["elements"] if e["ref"] == cell["ref"])
    assert typed_cell.get("value") == CODE
    assert "focused" in typed_cell.get("st", [])

    # run with the toolbar's button (it moves on to a new cell below); the output, when the
    # kernel sends it, is read: the cell's text and its output, each a code entry
    def ran(o: dict[str, Any]) -> bool:
        return {CODE, "42"} <= set(content(o, "code", CELLS))

    clicked = act(host, typed["observation"]["id"], {"action": "click", "ref": run["ref"]})
    out = clicked["observation"]
    if not ran(out):
        out = observe_until(host, session, lambda o: ran(o) or bool(kernel_asked(o)), "the output")
    if pick := kernel_asked(out):
        # the run asked for the kernel (a fresh clone's loaded run, once: the session's kernel
        # was not known yet when the button ran the cell); Jupyter runs the cell once the agent
        # takes the kernel it offers
        act(host, out["id"], {"action": "click", "ref": pick["ref"]})
        out = observe_until(host, session, ran, "the cell's output")
    codes = content(out, "code", CELLS)
    assert codes.index(CODE) < codes.index("42"), out["content"]
    assert "[1]:" in content(out, "text", CELLS)
    source = next(c for c in out["content"] if c["k"] == "code" and c.get("t") == CODE)
    assert source.get("e") == [cell["ref"]]  # the entry points to the editor's ref

    # saved with the toolbar's button: the file on disk holds the cell and its output
    act(host, out["id"], {"action": "click", "ref": save["ref"]})
    path = jupyter.root / name
    deadline = time.monotonic() + 20
    while True:
        try:
            saved = json.loads(path.read_text()) if path.is_file() else {"cells": []}
        except json.JSONDecodeError:  # caught while Jupyter writes it (a loaded run read "")
            saved = {"cells": []}
        cells = saved["cells"]
        if cells and "".join(cells[0]["source"]) == CODE and cells[0]["outputs"]:
            break
        assert time.monotonic() < deadline, f"not saved: {saved}"
        time.sleep(0.1)
    first = cells[0]
    assert first["cell_type"] == "code"
    assert first["execution_count"] == 1
    assert [(o["output_type"], "".join(o["text"])) for o in first["outputs"]] == [
        ("stream", "42\n")
    ]
    assert saved["metadata"]["kernelspec"]["name"] == "python3"
