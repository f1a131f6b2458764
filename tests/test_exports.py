"""One public surface per package, and layering: what may import what."""

from __future__ import annotations

import inspect
import subprocess
import sys

import bridge_protocol


def test_bridge_protocol_exports_exactly_its_all() -> None:
    # Submodules show up as attributes once anything imported them; they are not the surface.
    public = {
        name
        for name in dir(bridge_protocol)
        if not name.startswith("_") and not inspect.ismodule(getattr(bridge_protocol, name))
    }
    assert public == set(bridge_protocol.__all__)


def _imported_after(module: str) -> set[str]:
    code = f"import sys, {module}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    return {line.split(".")[0] for line in out.splitlines()}


def test_bridge_protocol_imports_only_the_standard_library_and_msgspec() -> None:
    # Whatever the interpreter and msgspec load by themselves is the baseline.
    extra = _imported_after("bridge_protocol") - _imported_after("msgspec")
    assert extra - set(sys.stdlib_module_names) == {"bridge_protocol"}


def test_the_agent_pulls_in_no_qt() -> None:
    for module in ("agent.bridge_client", "agent.main", "agent.services"):
        loaded = _imported_after(module)
        assert not {m for m in loaded if m.startswith("PyQt")}, module
