"""The host app's folders are its architecture (issue 39 point 1): who may import whom, read from
the source (ast) without importing anything.

- `host_app/ui/` (the windows) is imported only by the app shell, `host_app/app.py`: the engine
  never reaches into a window.
- `host_app/logic/` (the plain rules) imports nothing of the host outside itself, and no Qt.
- What the windows use outside `ui/`, besides `qt` and `logic/`, is the list below, the
  interface issue 39 point 2 narrows (docs/architecture.md, "The windows").
- No new import circle among the host's modules: the two known ones are listed; a module that
  joins one, or any other circle, fails.

Every import counts: at the top, inside a function and under TYPE_CHECKING alike.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "host_app"

# (module, name) pairs the windows import from the host outside ui/, qt and logic/.
UI_REACHES = {
    ("host_app.config", "HostConfig"),
    ("host_app.engine", "Engine"),
    ("host_app.session_browser", "SessionBrowser"),
    ("host_app.supervisor", "Supervisor"),
}

# The circles of today (issue 39 names them); point 2 breaks them. A circle may shrink or go,
# never grow or appear.
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


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in (ROOT / PACKAGE).rglob("*.py")}


def _imported(name: str, path: Path) -> Iterator[tuple[str, str | None]]:
    """(module, imported name or None) for every import statement of the module, absolute."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[: len(parts) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            for alias in node.names:
                yield module, alias.name


def _host_module(module: str, name: str | None) -> str | None:
    """The host module an import loads: a submodule when the name is one."""
    modules = _modules()
    if name is not None and f"{module}.{name}" in modules:
        return f"{module}.{name}"
    while module and module not in modules:
        module = module.rpartition(".")[0]
    return module or None


@cache
def _graph() -> Mapping[str, frozenset[str]]:
    graph = {}
    for name, path in _modules().items():
        targets = {_host_module(m, n) for m, n in _imported(name, path)}
        graph[name] = frozenset(t for t in targets if t is not None and t != name)
    return graph


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
            for module, _ in _imported(name, path)
            if module.split(".")[0] == "PyQt6"
            or (_inside(module, PACKAGE) and not _inside(module, "host_app.logic"))
        )
        if bad:
            offenders[name] = bad
    assert offenders == {}


def test_the_windows_use_of_the_rest_of_the_host_is_the_listed_interface() -> None:
    reaches = set()
    for name, path in _modules().items():
        if not _inside(name, "host_app.ui"):
            continue
        for module, imported in _imported(name, path):
            target = _host_module(module, imported)
            if target is None or any(
                _inside(target, f) for f in ("host_app.ui", "host_app.qt", "host_app.logic")
            ):
                continue
            reaches.add((target, imported or "*"))
    # a change here is a change of the windows' interface: update docs/architecture.md with it
    assert reaches == UI_REACHES


def _circles(graph: Mapping[str, frozenset[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node] & graph.keys()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set(stack[stack.index(node) :])
            del stack[stack.index(node) :]
            if len(component) > 1:
                found.append(component)

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_the_circle_finder_finds_circles() -> None:
    graph = {
        "a": frozenset({"b"}),
        "b": frozenset({"c"}),
        "c": frozenset({"a", "d"}),
        "d": frozenset({"e"}),
        "e": frozenset({"d"}),
        "f": frozenset({"a"}),
    }
    assert sorted(map(sorted, _circles(graph))) == [["a", "b", "c"], ["d", "e"]]
    assert _circles({"a": frozenset({"b"}), "b": frozenset()}) == []


def test_no_new_import_circle_in_the_host() -> None:
    new = [
        sorted(circle)
        for circle in _circles(_graph())
        if not any(circle <= known for known in KNOWN_CIRCLES)
    ]
    assert new == []
