"""The import graph of the product's packages, read from the source (ast) without importing
anything: tests/host/test_folders.py (the host's folders) and tests/test_import_circles.py (no
circle anywhere) share it.

Every import counts: at the top, inside a function and under TYPE_CHECKING alike; relative ones
are made absolute. An edge goes to the module an import loads: `from pkg import mod` to
`pkg.mod` when that is a module, else to the nearest enclosing module (`pkg`, its __init__).
Imports of anything outside the packages read are no edges.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The packages the project ships (pyproject.toml's packages.find; tests/test_import_circles.py
# holds the two lists equal).
PRODUCT = ("agent", "bridge_protocol", "clients", "host_app", "keyserver", "proxy")


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules(packages: tuple[str, ...], root: Path = ROOT) -> Mapping[str, Path]:
    """Every module of the packages, by dotted name."""
    return {
        _module_name(p, root): p for package in packages for p in (root / package).rglob("*.py")
    }


def imported(name: str, path: Path) -> Iterator[tuple[str, str | None]]:
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


def loaded(module: str, name: str | None, known: Mapping[str, Path]) -> str | None:
    """The module of `known` an import loads: a submodule when the name is one; None when the
    import is of nothing known."""
    if name is not None and f"{module}.{name}" in known:
        return f"{module}.{name}"
    while module and module not in known:
        module = module.rpartition(".")[0]
    return module or None


@cache
def graph(packages: tuple[str, ...], root: Path = ROOT) -> Mapping[str, frozenset[str]]:
    """Each module of the packages and the modules of the packages it imports (itself left out)."""
    known = modules(packages, root)
    edges = {}
    for name, path in known.items():
        targets = {loaded(m, n, known) for m, n in imported(name, path)}
        edges[name] = frozenset(t for t in targets if t is not None and t != name)
    return edges


def circles(edges: Mapping[str, frozenset[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(edges[node] & edges.keys()):
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

    for node in edges:
        if node not in index:
            visit(node)
    return found
