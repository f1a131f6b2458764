"""The shared asset cache's files (host_app/engine/shared_assets.py): partitions, freshness, pruning by
last access, clearing, and the index rebuilt at start."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from host_app.engine.shared_assets import SharedAssets


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_partitions_are_apart_and_entries_expire(tmp_path: Path) -> None:
    clock = Clock()
    cache = SharedAssets(tmp_path, clock=clock)
    assert cache.put("direct", "https://h/a.css", "text/css", b"body", 60)
    assert cache.get("direct", "https://h/a.css") == ("text/css", b"body")
    assert cache.get("proxy:3", "https://h/a.css") is None
    clock.now += 61
    assert cache.get("direct", "https://h/a.css") is None
    assert len(cache) == 0
    assert not list(tmp_path.glob("*/*.body"))


def test_entries_over_the_entry_bound_are_not_stored(tmp_path: Path) -> None:
    cache = SharedAssets(tmp_path, max_entry=10)
    assert not cache.put("direct", "https://h/big", "image/png", b"x" * 11, 60)
    assert cache.put("direct", "https://h/ok", "image/png", b"x" * 10, 60)


def test_pruned_by_last_access(tmp_path: Path) -> None:
    clock = Clock()
    cache = SharedAssets(tmp_path, max_bytes=25, clock=clock)
    for name in ("a", "b"):
        clock.now += 1
        cache.put("direct", f"https://h/{name}", "image/png", b"x" * 10, 600)
    clock.now += 1
    assert cache.get("direct", "https://h/a") is not None  # a is now more recent than b
    clock.now += 1
    cache.put("direct", "https://h/c", "image/png", b"x" * 10, 600)
    assert cache.get("direct", "https://h/b") is None
    assert cache.get("direct", "https://h/a") is not None
    assert cache.total_bytes == 20


def test_the_index_survives_a_restart_and_clear_empties_it(tmp_path: Path) -> None:
    clock = Clock()
    cache = SharedAssets(tmp_path, clock=clock)
    cache.put("direct", "https://h/a", "image/png", b"1", 600)
    cache.put("proxy:2", "https://h/a", "image/png", b"2", 600)
    again = SharedAssets(tmp_path, clock=clock)
    assert again.get("proxy:2", "https://h/a") == ("image/png", b"2")
    again.clear("proxy:2")
    assert again.get("proxy:2", "https://h/a") is None
    assert again.get("direct", "https://h/a") == ("image/png", b"1")
    again.clear()
    assert len(again) == 0
    assert not tmp_path.exists() or not list(tmp_path.rglob("*.body"))


def test_concurrent_misses_of_one_asset_share_the_first_fetch(tmp_path: Path) -> None:
    cache = SharedAssets(tmp_path / "s", max_bytes=1 << 20, max_entry=1 << 20)
    fetched: list[int] = []
    started = threading.Barrier(4)

    def miss(n: int) -> None:
        started.wait()
        with cache.fetching("direct", "https://h/a.png"):
            if cache.get("direct", "https://h/a.png") is None:
                fetched.append(n)
                time.sleep(0.05)  # the network
                cache.put("direct", "https://h/a.png", "image/png", b"png", 600)

    threads = [threading.Thread(target=miss, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(fetched) == 1
    assert cache._fetching == {}
