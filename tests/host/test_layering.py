"""The host app's logic and operations import no Qt (STYLE.md: Qt code translates and delegates)."""

from __future__ import annotations

import subprocess
import sys

QT_FREE = [
    "host_app.logic.aio",
    "host_app.logic.links",
    "host_app.logic.readiness",
    "host_app.logic.settings",
    "host_app.logic.notifications",
    "host_app.logic.images",
    "host_app.logic.logfile",
    "host_app.logic.supervision",
    "host_app.logic.policy",
    "host_app.logic.assets",
    "host_app.logic.asset_request",
    "host_app.asset_fetch",
    "host_app.shared_assets",
    "host_app.logic.trust",
    "host_app.logic.frames",
    "host_app.logic.identity",
    "host_app.logic.worker_cdp",
    "host_app.logic.traffic",
    "host_app.logic.cookie_files",
    "host_app.logic.activity",
    "host_app.logic.person",
    "host_app.logic.page_answers",
    "host_app.frame_reads",
    "host_app.observations",
    "host_app.operations",
    "host_app.actions",
    "host_app.ref_target",
    "host_app.progress",
    "host_app.dispatch",
    "host_app.config",
    "host_app.js",
]


def test_logic_imports_no_qt() -> None:
    code = (
        "import importlib, sys\n"
        f"for m in {QT_FREE!r}: importlib.import_module(m)\n"
        "bad = sorted(m for m in sys.modules if m.startswith('PyQt6'))\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_only_qt_module_imports_pyqt() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "host_app"
    offenders = [
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if p.name != "qt.py" and "PyQt6" in p.read_text()
    ]
    assert offenders == []
