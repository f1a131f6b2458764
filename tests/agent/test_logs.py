"""LogWriter keeps descriptors open between records: removed files come back, few stay open."""

from __future__ import annotations

import json
import os
from pathlib import Path

from agent.logs import OPEN_SESSION_FILES, LogWriter


def _open_fds(folder: Path) -> int:
    """This process's descriptors open on files under `folder` (the process's others come and
    go with other tests' threads in the same worker: a fresh clone's run counted one more)."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # closed since the listing
            continue
        count += target.startswith(f"{folder}/")
    return count


def test_a_removed_log_file_is_recreated_by_the_next_record(tmp_path: Path) -> None:
    logs = LogWriter(tmp_path, "M")
    try:
        logs.write("a.first", "one")
        logs.write("s.first", "one", profile_id=7)
        logs.global_path.unlink()
        logs.session_path(7).unlink()
        logs.write("a.second", "two")
        logs.write("s.second", "two", profile_id=7)
        for path in (logs.global_path, logs.session_path(7)):
            lines = path.read_text().splitlines()
            assert [json.loads(line)["message"] for line in lines] == ["two"]
    finally:
        logs.close()


def test_session_log_descriptors_are_bounded_and_closed_with_the_session(tmp_path: Path) -> None:
    logs = LogWriter(tmp_path, "M")
    before = _open_fds(tmp_path)
    try:
        for n in range(1, 3 * OPEN_SESSION_FILES):
            logs.write("s.created", f"Session{n}", profile_id=n)
        assert _open_fds(tmp_path) <= before + OPEN_SESSION_FILES
        logs.write("s.deleted", "gone", profile_id=1)
        logs.session_closed(1)
        logs.write("s.again", "after close", profile_id=1)
        records = [json.loads(x) for x in logs.session_path(1).read_text().splitlines()]
        assert [r["category"] for r in records] == ["s.created", "s.deleted", "s.again"]
        assert {r["session_id"] for r in records} == {"machine-M.Session1"}
    finally:
        logs.close()
    assert _open_fds(tmp_path) == before
