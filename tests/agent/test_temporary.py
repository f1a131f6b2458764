"""The temporary directory of generated outputs (agent/temporary.py): what pruning removes, by age
and by total size, on entries and on real folders, and how often it runs. No process, no Qt."""

from __future__ import annotations

import os
from pathlib import Path

from agent.temporary import Bounds, Entry, TemporaryOutputs, plan_prune, prune

NOW = 1_000_000.0
BOUNDS = Bounds(max_age=3600.0, max_bytes=100, grace=60.0)


def entry(name: str, age: float, size: int) -> Entry:
    return Entry(name, NOW - age, size)


def names(entries: list[Entry]) -> list[str]:
    return [e.path for e in entries]


def test_files_older_than_the_age_bound_go_whatever_their_size() -> None:
    entries = [entry("old", 3601, 1), entry("young", 3599, 1), entry("new", 0, 1)]
    assert names(plan_prune(entries, NOW, BOUNDS)) == ["old"]


def test_beyond_the_size_bound_the_oldest_go_and_everything_older_than_them() -> None:
    entries = [
        entry("a", 100, 40),
        entry("b", 200, 40),
        entry("c", 300, 40),  # 120 > 100: c goes
        entry("d", 400, 1),  # it would fit, but it is older than one that went
    ]
    assert names(plan_prune(entries, NOW, BOUNDS)) == ["c", "d"]
    assert plan_prune(entries[:2], NOW, BOUNDS) == []


def test_files_within_the_grace_stay_whatever_the_size_and_count_toward_it() -> None:
    entries = [entry("fresh", 10, 90), entry("fresher", 5, 90), entry("older", 120, 5)]
    # the two fresh ones (180 bytes) stay; the older one does not fit beside them
    assert names(plan_prune(entries, NOW, BOUNDS)) == ["older"]


def test_prune_removes_regular_files_of_both_kinds_and_nothing_else(tmp_path: Path) -> None:
    root = tmp_path / "Temporary"
    captures, shots = root / "Captures", root / "Screenshots"
    captures.mkdir(parents=True)
    shots.mkdir()

    def file(path: Path, age: float, size: int) -> Path:
        path.write_bytes(b"x" * size)
        os.utime(path, (NOW - age, NOW - age))
        return path

    stale = file(captures / "r1.html", 4000, 1)
    left_over = file(captures / ".r2.html.0a1b2c.tmp", 4000, 1)  # an interrupted write
    kept_capture = file(captures / "r3.html", 100, 50)
    kept_shot = file(shots / "r4.png", 90, 50)
    over = file(shots / "r5.png", 200, 30)  # 130 bytes with the two newer ones
    outside = file(tmp_path / "elsewhere.html", 5000, 1)
    (shots / "link.png").symlink_to(outside)
    os.utime(shots / "link.png", (NOW - 5000, NOW - 5000), follow_symlinks=False)
    (shots / "folder").mkdir()

    removed = prune(root, NOW, BOUNDS)
    assert sorted(removed) == sorted(str(p) for p in (stale, left_over, over))
    assert kept_capture.exists()
    assert kept_shot.exists()
    assert outside.exists()
    assert (shots / "link.png").is_symlink()
    assert (shots / "folder").is_dir()
    # a missing folder is nothing to prune
    assert prune(tmp_path / "none", NOW, BOUNDS) == []


async def test_pruning_runs_at_most_once_a_minute_when_paths_are_handed_out(
    tmp_path: Path,
) -> None:
    now = [NOW]
    outputs = TemporaryOutputs(tmp_path, BOUNDS, every=60.0, clock=lambda: now[0])
    assert outputs.root == tmp_path / "Temporary"
    assert TemporaryOutputs.relative("Screenshots", "r.png") == "Temporary/Screenshots/r.png"
    folder = outputs.root / "Captures"
    folder.mkdir(parents=True)

    def stale(name: str) -> Path:
        path = folder / name
        path.write_bytes(b"x")
        os.utime(path, (now[0] - 4000, now[0] - 4000))
        return path

    first = stale("a.html")
    assert await outputs.handed_out() == [str(first)]
    second = stale("b.html")
    now[0] += 59
    assert await outputs.handed_out() == []  # pruned less than a minute ago
    assert second.exists()
    now[0] += 1
    assert await outputs.handed_out() == [str(second)]
