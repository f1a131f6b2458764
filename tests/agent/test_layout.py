"""The agent's module graph (issue 13): the HTTP edge imports the routes, never the reverse."""

from __future__ import annotations

import ast
from pathlib import Path

ROUTES = Path(__file__).resolve().parents[2] / "agent" / "routes"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            out.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_routes_never_import_the_http_edge() -> None:
    offenders = {
        p.name: sorted(m for m in _imports(p) if m.endswith("http_app"))
        for p in ROUTES.glob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}
