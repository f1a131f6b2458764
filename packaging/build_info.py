"""Build metadata for the bundle: `{id, configuration, worktree, branch, commit, dirty}` (spec 1,
health data `build`), read from git at build time.

Usage: `python packaging/build_info.py OUT.json [--configuration release]`. `packaging/bundle.py`
calls `collect` directly; the agent of a bundle reads the file back (`agent/build_info.py`).
This folder is not a package (`packaging` is also a PyPI distribution): run it by path.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def collect(root: Path, configuration: str, *, now: float | None = None) -> dict[str, Any]:
    """The metadata of the tree at `root` as it is now. `dirty`: any change git sees to tracked
    files, or an untracked file that is not ignored (it could be built into the bundle)."""
    worktree = _git(root, "rev-parse", "--show-toplevel")
    commit = _git(root, "rev-parse", "HEAD")
    # `HEAD` for a detached checkout (a CI clone of a commit), as git itself names it
    branch = _git(root, "rev-parse", "--abbrev-ref", "HEAD")
    dirty = bool(_git(root, "status", "--porcelain", "--untracked-files=normal"))
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(time.time() if now is None else now))
    return {
        "id": f"{stamp}-{commit[:12]}{'-dirty' if dirty else ''}",
        "configuration": configuration,
        "worktree": worktree,
        "branch": branch,
        "commit": commit,
        "dirty": dirty,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("out", type=Path)
    parser.add_argument("--configuration", default="release")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent)
    args = parser.parse_args(argv)
    info = collect(args.root, args.configuration)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(info))
    return 0


if __name__ == "__main__":
    sys.exit(main())
