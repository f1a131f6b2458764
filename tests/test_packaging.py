"""The desktop entry starts an installed console script and names an icon that ships."""

from __future__ import annotations

import configparser
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
