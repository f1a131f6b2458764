"""The desktop entry starts an installed console script and names an icon that ships; the page
scripts ship."""

from __future__ import annotations

import configparser
import fnmatch
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_desktop_entry_runs_the_app_and_its_icon_ships() -> None:
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]
    entry.read(ROOT / "packaging" / "svc-app.desktop")
    desktop = entry["Desktop Entry"]
    assert desktop["Type"] == "Application"
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert desktop["Exec"].split()[0] in scripts
    icon = ROOT / "packaging" / "icons" / f"{desktop['Icon']}.svg"
    assert ET.parse(icon).getroot().tag.endswith("svg")


def test_the_page_scripts_ship() -> None:
    """The `.js` files beside host_app/scripts/__init__.py, read at import, go into the wheel
    (package data) and into the bundle (the spec's datas, from the tree being built)."""
    scripts = sorted(p.name for p in (ROOT / "host_app" / "scripts").glob("*.js"))
    assert scripts
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]
    assert all(
        any(fnmatch.fnmatch(name, pattern) for pattern in package_data["host_app.scripts"])
        for name in scripts
    )
    spec = (ROOT / "packaging" / "svc.spec").read_text()
    assert 'SCRIPTS = (str(ROOT / "host_app" / "scripts" / "*.js"), "host_app/scripts")' in spec
    assert "SCRIPTS," in spec.split("app = analysis(", 1)[1].split("\n)", 1)[0]
