"""The host app's folders are its architecture (issue 39 point 1): who may import whom, read from
the source (ast) without importing anything.

- `host_app/ui/` (the windows) is imported only by the app shell, `host_app/app.py`: the engine
  never reaches into a window.
- `host_app/logic/` (the plain rules) imports nothing of the host outside itself, and no Qt.
- `host_app/scripts/` (the page scripts as `.js` files, and their loader) imports nothing of the
  host and no Qt.
- What the windows use outside `ui/`, besides `qt` and `logic/`, is the list below, the
  interface issue 39 point 2 narrows (docs/architecture.md, "The windows").
- No new import circle among the host's modules: the two known ones are listed; a module that
  joins one, or any other circle, fails.

Every import counts: at the top, inside a function and under TYPE_CHECKING alike (the graph is
tests/import_graph.py's, shared with tests/test_import_circles.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from tests import import_graph

PACKAGE = "host_app"

# (module, name) pairs the windows import from the host outside ui/, qt and logic/.
UI_REACHES = {
    ("host_app.config", "HostConfig"),
    ("host_app.engine", "Engine"),
    ("host_app.session_browser", "SessionBrowser"),
    ("host_app.supervisor", "Supervisor"),
}

# The circles of today (issue 39 names them); point 2 breaks them. A circle may shrink or go,
# never grow or appear. These are the only circles allowed in the whole product
# (tests/test_import_circles.py).
KNOWN_CIRCLES = [
    {
        "host_app.engine",
        "host_app.session_browser",
        "host_app.dialogs",
        "host_app.downloads",
    },
    {
        "host_app.observations",
        "host_app.frame_reads",
        "host_app.ref_target",
    },
]


def _modules() -> Mapping[str, Path]:
    return import_graph.modules((PACKAGE,))


def _host_module(module: str, name: str | None) -> str | None:
    """The host module an import loads: a submodule when the name is one."""
    return import_graph.loaded(module, name, _modules())


def _graph() -> Mapping[str, frozenset[str]]:
    return import_graph.graph((PACKAGE,))


def _inside(module: str, folder: str) -> bool:
    return module == folder or module.startswith(folder + ".")


def test_only_the_app_shell_imports_the_windows() -> None:
    importers = {
        name
        for name, targets in _graph().items()
        if not _inside(name, "host_app.ui") and any(_inside(t, "host_app.ui") for t in targets)
    }
    assert importers == {"host_app.app"}


def test_logic_imports_nothing_of_the_host_outside_it_and_no_qt() -> None:
    offenders = {}
    for name, path in _modules().items():
        if not _inside(name, "host_app.logic"):
            continue
        bad = sorted(
            module
            for module, _ in import_graph.imported(name, path)
            if module.split(".")[0] == "PyQt6"
            or (_inside(module, PACKAGE) and not _inside(module, "host_app.logic"))
        )
        if bad:
            offenders[name] = bad
    assert offenders == {}


def test_the_page_scripts_import_nothing_of_the_host_and_no_qt() -> None:
    offenders = {
        name: sorted(
            module
            for module, _ in import_graph.imported(name, path)
            if module.split(".")[0] in (PACKAGE, "PyQt6")
        )
        for name, path in _modules().items()
        if _inside(name, "host_app.scripts")
    }
    assert offenders == {"host_app.scripts": []}


def test_the_windows_use_of_the_rest_of_the_host_is_the_listed_interface() -> None:
    reaches = set()
    for name, path in _modules().items():
        if not _inside(name, "host_app.ui"):
            continue
        for module, imported in import_graph.imported(name, path):
            target = _host_module(module, imported)
            if target is None or any(
                _inside(target, f) for f in ("host_app.ui", "host_app.qt", "host_app.logic")
            ):
                continue
            reaches.add((target, imported or "*"))
    # a change here is a change of the windows' interface: update docs/architecture.md with it
    assert reaches == UI_REACHES


def test_no_new_import_circle_in_the_host() -> None:
    new = [
        sorted(circle)
        for circle in import_graph.circles(_graph())
        if not any(circle <= known for known in KNOWN_CIRCLES)
    ]
    assert new == []
