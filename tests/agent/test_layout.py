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


# Plain data and rules, unit-tested without an event loop (tests/agent/test_pages.py,
# test_notification_log.py): the engine reaches them only through the orchestrator.
PURE = ("pages.py", "notification_log.py")
IO = ("trio", "quart", "quart_trio", ".bridge_client", ".engine_client", ".browser", ".store")


def test_the_page_registry_and_the_notification_log_do_no_io() -> None:
    agent = ROUTES.parent
    offenders = {
        name: sorted(m for m in _imports(agent / name) if m.split(".")[0] in IO or m in IO)
        for name in PURE
    }
    assert {k: v for k, v in offenders.items() if v} == {}
