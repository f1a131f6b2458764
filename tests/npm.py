"""Pinned npm packages for tests of pages nobody here wrote (`npm pack`: the tarball only, no
install scripts run)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path


def pack(spec: str, folder: Path) -> Path:
    """The tarball of `spec` (name@version) fetched into `folder`."""
    # `make test` installs nodejs; a missing npm is a setup failure, not a reason to skip
    assert shutil.which("npm") is not None, "npm missing: the Makefile installs Debian's nodejs"
    packed = subprocess.run(
        ["npm", "pack", spec, "--pack-destination", str(folder), "--json"],
        check=False,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert packed.returncode == 0, packed.stderr
    return folder / str(json.loads(packed.stdout)[0]["filename"])
