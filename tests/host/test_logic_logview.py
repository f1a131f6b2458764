"""The Logs view's tail of an NDJSON file: partial lines wait for their newline, malformed lines
are shown, truncation and replacement start again from the top."""

from __future__ import annotations

import json
import os
from pathlib import Path

from host_app.logic.logfile import HostLog
from host_app.logic.logview import (
    FIRST_READ,
    LogEntry,
    LogTail,
    MachineIdReader,
    machine_id_from_global_log,
    matches,
    parse_line,
)


def _rec(category: str, level: str = "info", **data: object) -> str:
    obj: dict[str, object] = {"id": "x", "created_at": 1700000000123, "category": category}
    obj |= {"level": level, "message": f"{category} happened"}
    if data:
        obj["data"] = data
    return json.dumps(obj) + "\n"


def _append(path: Path, text: str | bytes) -> None:
    with path.open("ab") as f:
        f.write(text.encode() if isinstance(text, str) else text)


def test_a_partial_line_waits_for_its_newline(tmp_path: Path) -> None:
    path = tmp_path / "3.ndjson"
    tail = LogTail(path)
    assert tail.read() == (False, [])  # no file yet: nothing, no reset
    line = _rec("network.filtered", url="https://ads.example/x.js")
    _append(path, line[:20])
    assert tail.read() == (False, [])
    _append(path, line[20:])
    reset, entries = tail.read()
    assert not reset
    assert [e.category for e in entries] == ["network.filtered"]
    assert entries[0].data_json is not None
    assert "ads.example" in entries[0].data_json
    assert entries[0].time_text.endswith(".123")


def test_malformed_lines_are_shown_not_dropped(tmp_path: Path) -> None:
    path = tmp_path / "g.ndjson"
    _append(path, "not json\n[1, 2]\n" + _rec("a.b") + "\xff\xfe broken utf8\n")
    _, entries = LogTail(path).read()
    assert [e.malformed for e in entries] == [True, True, False, True]
    assert entries[0].message == "not json"
    assert entries[2].message == "a.b happened"


def test_truncation_and_replacement_start_again(tmp_path: Path) -> None:
    path = tmp_path / "1.ndjson"
    _append(path, _rec("one") + _rec("two"))
    tail = LogTail(path)
    assert len(tail.read()[1]) == 2
    path.write_text(_rec("after-truncate"))  # shorter than what was read
    reset, entries = tail.read()
    assert reset
    assert [e.category for e in entries] == ["after-truncate"]
    # replaced by another file (a new inode) that is longer than the old one
    other = tmp_path / "new"
    other.write_text(_rec("r1") + _rec("r2") + _rec("r3") + _rec("r4"))
    os.replace(other, path)
    reset, entries = tail.read()
    assert reset
    assert [e.category for e in entries] == ["r1", "r2", "r3", "r4"]
    # removed (Clear Logs): reset, then the next append recreates it
    path.unlink()
    assert tail.read() == (True, [])
    _append(path, _rec("fresh"))
    reset, entries = tail.read()
    assert [e.category for e in entries] == ["fresh"]


def test_a_large_file_is_read_from_its_last_part_on_a_line_boundary(tmp_path: Path) -> None:
    path = tmp_path / "g.ndjson"
    line = _rec("bulk", pad="x" * 200)
    _append(path, line * (FIRST_READ // len(line) + 50))
    _, entries = LogTail(path).read()
    assert entries
    assert not any(e.malformed for e in entries)
    assert len(entries) < FIRST_READ // len(line) + 50


def test_level_and_category_filters() -> None:
    warn = parse_line(_rec("network.filtered", level="warning"))
    info = parse_line(_rec("page.dialog"))
    odd = LogEntry(None, "trace", "x", "", None, None)
    assert matches(warn, min_level="warning", category="")
    assert not matches(info, min_level="warning", category="")
    assert matches(odd, min_level="error", category="")  # unknown levels always shown
    assert matches(warn, min_level=None, category="FILTER")
    assert not matches(info, min_level=None, category="filter")


def test_the_machine_id_comes_from_the_agents_last_start(tmp_path: Path) -> None:
    path = tmp_path / "global.ndjson"
    assert machine_id_from_global_log(path) is None
    _append(path, _rec("agent.started", machine_id="aaa") + "garbage\n")
    _append(path, _rec("agent.started", machine_id="bbb") + _rec("host.started"))
    assert machine_id_from_global_log(path) == "bbb"


def test_the_host_log_reads_the_machine_id_as_the_global_log_grows(tmp_path: Path) -> None:
    """Host session records carry `machine-<id>.Session<N>` (docs/decisions.md "Federated id"):
    the id of the newest agent start, read again only past what was read, from the top when the
    file is replaced; none before the agent logged one."""
    log = HostLog(tmp_path / "Logs")
    log.write("page.thing", "before the agent started", profile_id=3)
    _append(log.path, _rec("agent.started", machine_id="AAA") + '{"category": "agent.sta')
    log.write("page.thing", "after", profile_id=3)
    _append(log.path, 'rted", "data": {"machine_id": "BBB"}}\n')
    log.write("page.thing", "after a second start", profile_id=3)
    log.write("host.thing", "a global record names no session", data={"n": 1})
    last = json.loads(log.path.read_text().splitlines()[-1])
    assert (last["category"], "session_id" in last) == ("host.thing", False)
    log.path.unlink()
    _append(log.path, _rec("agent.started", machine_id="CCC"))
    log.write("page.thing", "after a new store", profile_id=3)
    records = [json.loads(x) for x in (log.sessions / "3.ndjson").read_text().splitlines()]
    assert [r.get("session_id") for r in records] == [
        None,
        "machine-AAA.Session3",
        "machine-BBB.Session3",
        "machine-CCC.Session3",
    ]
    reader = MachineIdReader(log.path)
    assert reader.current() == "CCC"
    _append(log.path, "x" * (FIRST_READ + 10) + "\n" + _rec("agent.started", machine_id="DDD"))
    assert reader.current() == "DDD"  # far more appended: its last part is read
