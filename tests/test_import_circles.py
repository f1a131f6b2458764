"""No import circle anywhere in the product (issue 39 point 1): one graph of every module of every
package the project ships (agent, bridge_protocol, clients, host_app, keyserver, proxy), read
from the source with ast (tests/import_graph.py), edges across packages included. Every import
counts: at the top, inside a function and under TYPE_CHECKING alike, relative or absolute.

The circles allowed are listed in tests/host/test_folders.py (KNOWN_CIRCLES): none since issue
39 point 2 broke the host's last one; a circle may never appear.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from tests import import_graph
from tests.host.test_folders import KNOWN_CIRCLES


def test_the_packages_read_are_the_ones_the_project_ships() -> None:
    pyproject = tomllib.loads((import_graph.ROOT / "pyproject.toml").read_text())
    shipped = pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    assert {p.removesuffix("*") for p in shipped} == set(import_graph.PRODUCT)


def test_the_circle_finder_finds_circles() -> None:
    graph = {
        "a": frozenset({"b"}),
        "b": frozenset({"c"}),
        "c": frozenset({"a", "d"}),
        "d": frozenset({"e"}),
        "e": frozenset({"d"}),
        "f": frozenset({"a"}),
    }
    assert sorted(map(sorted, import_graph.circles(graph))) == [["a", "b", "c"], ["d", "e"]]
    assert import_graph.circles({"a": frozenset({"b"}), "b": frozenset()}) == []


def test_the_graph_reads_every_kind_of_import(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "from .top import VALUE\n",
        "pkg/top.py": "VALUE = 1\n",
        "pkg/sub/__init__.py": "",
        # under TYPE_CHECKING, relative to the parent package
        "pkg/sub/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..b import B\n",
        # inside a function, absolute, a submodule named by `from package import module`
        "pkg/b.py": "def f():\n    from pkg.sub import a\n    import pkg.top, os\n",
        "other/__init__.py": "import pkg\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    graph = import_graph.graph(("pkg", "other"), tmp_path)
    assert graph == {
        "pkg": frozenset({"pkg.top"}),
        "pkg.top": frozenset(),
        "pkg.sub": frozenset(),
        "pkg.sub.a": frozenset({"pkg.b"}),
        "pkg.b": frozenset({"pkg.sub.a", "pkg.top"}),
        "other": frozenset({"pkg"}),
    }
    assert import_graph.circles(graph) == [{"pkg.sub.a", "pkg.b"}]


def test_no_import_circle_anywhere() -> None:
    graph = import_graph.graph(import_graph.PRODUCT)
    assert graph.keys() >= {"agent.main", "keyserver.store", "clients.cli", "proxy.listeners"}
    new = [
        sorted(circle)
        for circle in import_graph.circles(graph)
        if not any(circle <= known for known in KNOWN_CIRCLES)
    ]
    assert new == []
