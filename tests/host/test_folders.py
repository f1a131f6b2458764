"""The host app's folders are its architecture (issue 39 point 1): who may import whom, read from
the source (ast) without importing anything, and which modules load no Qt.

- `host_app/ui/` (the windows) is imported only by the app shell, `host_app/app.py`: the engine
  never reaches into a window.
- What each folder may import of the host is FOLDERS: `logic/` (the plain rules) only itself;
  `scripts/` (the page scripts as `.js` files, and their loader) nothing; `core/` (the Qt-free
  drivers) itself, `logic/` and `scripts/`; none of these imports Qt. `engine/` (the Qt runtime)
  imports those, itself and `qt`: never the windows or the app shell.
- Qt-free: every module of those folders, and the few Qt-free modules elsewhere (QT_FREE_ELSEWHERE),
  reach no module that imports Qt, through any import; and importing them all in a fresh
  interpreter loads no PyQt6. Only `host_app/qt.py` names PyQt6.
- What the windows use outside `ui/`, besides `qt` and `logic/`, is the engine's window port
  (`engine/window_port`, issue 39 point 2; docs/architecture.md, "The windows"): its reads are
  values and methods, so the windows change the engine's state only through its operations. No
  module of `ui/` assigns an attribute of the engine (nor deletes one), and the port declares no
  attribute a window could assign.
- What `core/`'s drivers need of a page is declared in one module, `core/page_driver`.
- No import circle among the host's modules: KNOWN_CIRCLES is empty (issue 39 point 2 broke the
  last one, engine/'s); a module that makes one fails.

Every import counts: at the top, inside a function and under TYPE_CHECKING alike (the graph is
tests/import_graph.py's, shared with tests/test_import_circles.py).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from tests import import_graph

PACKAGE = "host_app"

# What each folder's modules may import of the host (the folder itself included), and no Qt.
FOLDERS = {
    "host_app.logic": ("host_app.logic",),
    "host_app.scripts": (),
    "host_app.core": ("host_app.core", "host_app.logic", "host_app.scripts"),
    "host_app.engine": (
        "host_app.engine",
        "host_app.core",
        "host_app.logic",
        "host_app.scripts",
        "host_app.qt",
    ),
}
# the folders whose modules may import Qt (the rest of FOLDERS import none)
QT_FOLDERS = ("host_app.engine",)

# The folders whose modules load no Qt, and the Qt-free modules outside them.
QT_FREE_FOLDERS = ("host_app.core", "host_app.logic", "host_app.scripts")
QT_FREE_ELSEWHERE = {
    "host_app.config",
    "host_app.engine.asset_fetch",
    "host_app.engine.shared_assets",
}

# (module, name) pairs the windows import from the host outside ui/, qt and logic/: the engine's
# window port, and the plain state it answers with. The app shell hands the windows its adapter
# (engine/window_adapter) and the config and supervisor's values.
WINDOW_PORT = "host_app.engine.window_port"
UI_REACHES = {(WINDOW_PORT, "WindowPort"), (WINDOW_PORT, "SessionState")}

# The circles allowed in the whole product (tests/test_import_circles.py): none. The last one,
# engine/'s (runtime, session_browser, dialogs, downloads), went with issue 39 point 2: a
# session's browser and its parts see the engine through `engine/browser_host`'s protocols.
# A circle may never appear again; the mechanism stays for the record.
KNOWN_CIRCLES: list[set[str]] = []


def _modules() -> Mapping[str, Path]:
    return import_graph.modules((PACKAGE,))


def _host_module(module: str, name: str | None) -> str | None:
    """The host module an import loads: a submodule when the name is one."""
    return import_graph.loaded(module, name, _modules())


def _graph() -> Mapping[str, frozenset[str]]:
    return import_graph.graph((PACKAGE,))


def _inside(module: str, folder: str) -> bool:
    return module == folder or module.startswith(folder + ".")


def _imports_qt(name: str) -> bool:
    return any(m.split(".")[0] == "PyQt6" for m, _ in import_graph.imported(name, _modules()[name]))


def _qt_free() -> list[str]:
    """Every module that must load no Qt: those of the Qt-free folders, and the others named."""
    return sorted(
        name
        for name in _modules()
        if name in QT_FREE_ELSEWHERE or any(_inside(name, f) for f in QT_FREE_FOLDERS)
    )


def test_only_the_app_shell_imports_the_windows() -> None:
    importers = {
        name
        for name, targets in _graph().items()
        if not _inside(name, "host_app.ui") and any(_inside(t, "host_app.ui") for t in targets)
    }
    assert importers == {"host_app.app"}


def test_each_folder_imports_only_what_it_may_of_the_host_and_no_qt() -> None:
    offenders = {}
    for name, path in _modules().items():
        folder = next((f for f in FOLDERS if _inside(name, f)), None)
        if folder is None:
            continue
        bad = sorted(
            module if target is None else target
            for module, imported in import_graph.imported(name, path)
            for target in [_host_module(module, imported)]
            if (module.split(".")[0] == "PyQt6" and folder not in QT_FOLDERS)
            or (target is not None and not any(_inside(target, f) for f in FOLDERS[folder]))
        )
        if bad:
            offenders[name] = bad
    assert offenders == {}
    # each folder has modules (a folder renamed or gone fails here, not silently)
    assert all(any(_inside(name, f) for name in _modules()) for f in FOLDERS)


def test_the_qt_free_modules_reach_no_qt_through_any_import() -> None:
    graph = _graph()
    qt = {name for name in _modules() if _imports_qt(name)}
    offenders = {}
    for start in _qt_free():
        reached, todo = {start}, [start]
        while todo:
            for nxt in graph[todo.pop()] - reached:
                reached.add(nxt)
                todo.append(nxt)
        if reached & qt:
            offenders[start] = sorted(reached & qt)
    assert offenders == {}
    assert _modules().keys() >= QT_FREE_ELSEWHERE


def test_the_qt_free_modules_load_no_qt() -> None:
    code = (
        "import importlib, sys\n"
        f"for m in {_qt_free()!r}: importlib.import_module(m)\n"
        "bad = sorted(m for m in sys.modules if m.startswith('PyQt6'))\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_only_qt_module_imports_pyqt() -> None:
    root = Path(__file__).resolve().parents[2] / "host_app"
    offenders = [
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if p.name != "qt.py" and "PyQt6" in p.read_text()
    ]
    assert offenders == []


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


def test_the_page_driver_protocols_are_in_one_module() -> None:
    # what core/'s drivers need of a page is declared in core/page_driver only; dispatch's Host
    # is what the commands need of the engine, not of a page
    declared = {
        (name, node.name)
        for name, path in _modules().items()
        if _inside(name, "host_app.core")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ClassDef)
        and any(
            (isinstance(b, ast.Name) and b.id == "Protocol")
            or (isinstance(b, ast.Subscript) and getattr(b.value, "id", None) == "Protocol")
            for b in node.bases
        )
    }
    assert {(m, c) for m, c in declared if m != "host_app.core.page_driver"} == {
        ("host_app.core.dispatch", "Host")
    }
    assert {c for m, c in declared if m == "host_app.core.page_driver"} >= {
        "Renderer",
        "PageDriver",
        "ObsDriver",
        "Session",
    }


def test_no_new_import_circle_in_the_host() -> None:
    new = [
        sorted(circle)
        for circle in import_graph.circles(_graph())
        if not any(circle <= known for known in KNOWN_CIRCLES)
    ]
    assert new == []


def _port_names(tree: ast.Module) -> tuple[set[str], set[str]]:
    """The names a module of the windows holds the engine under: its parameters and variables
    typed with the port, or called `engine`; and the attributes it keeps them in."""
    names = {"engine"}
    for node in ast.walk(tree):
        if isinstance(node, ast.arg | ast.AnnAssign) and node.annotation is not None:
            held = node.arg if isinstance(node, ast.arg) else getattr(node.target, "id", None)
            if held is not None and "WindowPort" in ast.unparse(node.annotation):
                names.add(held)
    attrs = {"engine", "_engine"}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Name)
            and node.value.id in names
        ):
            attrs |= {t.attr for t in node.targets if isinstance(t, ast.Attribute)}
    return names, attrs


def _through(target: ast.expr, names: set[str], attrs: set[str]) -> bool:
    """Whether an assigned `target` (an attribute or an item) belongs to the engine: one of the
    objects it is reached through is held under a name or attribute of `_port_names`."""
    node = target
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
        if (isinstance(node, ast.Name) and node.id in names) or (
            isinstance(node, ast.Attribute) and node.attr in attrs
        ):
            return True
    return False


def _assigned(tree: ast.Module) -> list[tuple[int, ast.expr]]:
    """Every target a module assigns or deletes, with its line; setattr and delattr too."""
    out: list[tuple[int, ast.expr]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt | ast.expr):
            continue
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.Delete):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("setattr", "delattr")
            and node.args
        ):
            # setattr(obj, "x", v) assigns an attribute of obj
            targets = [ast.Attribute(value=node.args[0], attr="?", ctx=ast.Store())]
        while targets:
            target = targets.pop()
            if isinstance(target, ast.Tuple | ast.List):
                targets.extend(target.elts)
            elif isinstance(target, ast.Starred):
                targets.append(target.value)
            else:
                out.append((node.lineno, target))
    return sorted(out, key=lambda found: (found[0], ast.unparse(found[1])))


def engine_assignments(source: str) -> list[str]:
    """The lines of `source` (a module of the windows) that assign, or delete, an attribute or
    an item of the engine."""
    tree = ast.parse(source)
    names, attrs = _port_names(tree)
    return [
        f"{line}: {ast.unparse(target)}"
        for line, target in _assigned(tree)
        if _through(target, names, attrs)
    ]


def test_the_windows_change_the_engine_only_through_its_operations() -> None:
    offenders = {
        name: found
        for name, path in _modules().items()
        if _inside(name, "host_app.ui")
        for found in [engine_assignments(path.read_text())]
        if found
    }
    assert offenders == {}
    # what the check finds (the browser window assigned the engine's visible session before the
    # window port; a setattr, a deletion or an item of a held engine count alike)
    assert engine_assignments(
        "class W:\n"
        "    def __init__(self, engine: WindowPort) -> None:\n"
        "        self.engine = engine\n"
        "        self.port = engine\n"
        "    def show(self, sid: str, e: WindowPort) -> None:\n"
        "        self.engine.visible_session = sid\n"
        "        self.port.sessions[sid].paused = True\n"
        "        setattr(e, 'x', 1)\n"
        "        del self.engine.settings\n"
        "        self.current, self.engine.x = sid, 1\n"
        "        self.engine = None\n"
        "        self.rows = {}\n"
    ) == [
        "6: self.engine.visible_session",
        "7: self.port.sessions[sid].paused",
        "8: e.?",
        "9: self.engine.settings",
        "10: self.engine.x",
    ]


def test_the_window_port_declares_no_attribute_a_window_could_assign() -> None:
    # its reads are methods and read-only properties: mypy refuses an assignment through it
    tree = ast.parse(_modules()[WINDOW_PORT].read_text())
    port = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "WindowPort")
    members = [n for n in port.body if not isinstance(n, ast.Expr)]  # the docstring
    assert members
    assert all(isinstance(n, ast.FunctionDef) for n in members), [
        ast.unparse(n) for n in members if not isinstance(n, ast.FunctionDef)
    ]
    decorators = {ast.unparse(d) for n in members for d in n.decorator_list}  # type: ignore[attr-defined]
    assert decorators <= {"property"}
