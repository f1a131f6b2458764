"""Process checks the tests share."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def alive(pid: int) -> bool:
    """Running (an exited process nobody reaped yet is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def python_child(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -c code args...` from the repository's root, its output captured (a process of
    its own for what a test cannot undo in pytest's: PyQt's excepthook, the garbage collector)."""
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )


def overwrite_store(data_dir: Path) -> None:
    """Garbage over the agent's store and its WAL files, as another program that clobbered them
    (a disk fault, a careless restore): the next transaction finds no database."""
    store = data_dir / "svc-agent.sqlite3"
    for path in (store, store.with_name(store.name + "-wal"), store.with_name(store.name + "-shm")):
        if path.exists():
            path.write_bytes(b"\xa5" * max(path.stat().st_size, 4096))
