"""The window as a screen reader reads it: the accessibility bus (AT-SPI, at-spi2-core) of the
window tests' session bus, read by Debian's python3 through GObject introspection (Atspi 2.0;
the virtualenv has no GObject bindings). Turning accessibility on is what a screen reader does
(`org.a11y.Status.IsEnabled` on the session bus): Qt's AT-SPI bridge follows it while running."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

DEBIAN_PYTHON = "/usr/bin/python3"

# argv: the application's pid, the list's accessible name. Prints the list's rows (their
# accessible names, top first) as JSON, or null while there is no such list. Web content and
# terminals are not walked: only the window's own widgets are looked for.
READ_LIST = r"""
import json, sys
import gi
gi.require_version("Atspi", "2.0")
from gi.repository import Atspi
pid, wanted = int(sys.argv[1]), sys.argv[2]
SKIP = {Atspi.Role.DOCUMENT_WEB, Atspi.Role.DOCUMENT_FRAME, Atspi.Role.TERMINAL}
def find(node, depth):
    if node is None or depth > 30:
        return None
    role = node.get_role()
    if role == Atspi.Role.LIST and node.get_name() == wanted:
        return node
    if role in SKIP:
        return None
    for i in range(node.get_child_count()):
        hit = find(node.get_child_at_index(i), depth + 1)
        if hit is not None:
            return hit
    return None
rows = None
desktop = Atspi.get_desktop(0)
for i in range(desktop.get_child_count()):
    app = desktop.get_child_at_index(i)
    try:
        if app is None or app.get_process_id() != pid:
            continue
        found = find(app, 0)
        if found is not None:
            items = [found.get_child_at_index(j) for j in range(found.get_child_count())]
            rows = [item.get_name() for item in items]
            break
    except Exception:  # an object that went away while it was read (the list was rewritten):
        rows = None  # nothing this time, the caller reads again
        break
print(json.dumps(rows))
"""


def _env(bus: dict[str, str]) -> dict[str, str]:
    return {**os.environ, **bus}


def set_enabled(bus: dict[str, str], on: bool) -> None:
    """Accessibility on or off for the bus's applications, as a screen reader turns it on."""
    subprocess.run(
        ["dbus-send", "--session", "--print-reply", "--dest=org.a11y.Bus", "/org/a11y/bus",
         "org.freedesktop.DBus.Properties.Set", "string:org.a11y.Status", "string:IsEnabled",
         f"variant:boolean:{'true' if on else 'false'}"],
        env=_env(bus), capture_output=True, text=True, timeout=30, check=True,
    )  # fmt: skip


def list_rows(bus: dict[str, str], pid: int, name: str) -> list[str] | None:
    """The rows of the list named `name` in the application of process `pid`, as the
    accessibility tree gives them (top first); None while it has no such list."""
    assert Path(DEBIAN_PYTHON).exists(), "Debian's python3 is missing: `make setup` installs it"
    read = subprocess.run(
        [DEBIAN_PYTHON, "-c", READ_LIST, str(pid), name],
        env=_env(bus), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert read.returncode == 0, (
        f"reading the accessibility tree failed ({read.stderr.strip()[-400:]}): `make setup` "
        "installs gir1.2-atspi-2.0, python3-gi and at-spi2-core"
    )
    rows = json.loads(read.stdout)
    return None if rows is None else [str(r) for r in rows]
