"""The renderer-collection policy (Qt-free)."""

from __future__ import annotations

from host_app.logic.memory import GROWTH_KIB, RETRY_GROWTH_KIB, RendererMemory, pss_kib


def test_a_collection_is_due_after_the_growth_bound() -> None:
    m = RendererMemory()
    assert not m.due(10, 100_000)  # first sight: the baseline
    assert not m.due(10, 100_000 + GROWTH_KIB - 1)
    assert m.due(10, 100_000 + GROWTH_KIB)
    m.collected(100_000 + GROWTH_KIB, 110_000)
    assert not m.due(10, 110_000 + GROWTH_KIB - 1)
    assert m.due(10, 110_000 + GROWTH_KIB)


def test_a_collection_that_freed_little_waits_longer() -> None:
    m = RendererMemory()
    m.due(10, 500_000)
    m.collected(500_000 + GROWTH_KIB, 500_000 + GROWTH_KIB - 1000)
    base = 500_000 + GROWTH_KIB - 1000
    assert not m.due(10, base + GROWTH_KIB)
    assert m.due(10, base + RETRY_GROWTH_KIB)


def test_a_new_renderer_process_starts_over() -> None:
    m = RendererMemory()
    m.due(10, 100_000)
    assert not m.due(11, 100_000 + 10 * GROWTH_KIB)
    assert m.due(11, 100_000 + 11 * GROWTH_KIB)


def test_pss_is_read_from_smaps_rollup() -> None:
    text = "00400000-7fff rw-p 00000000 00:00 0  [rollup]\nRss: 2048 kB\nPss: 1536 kB\n"
    assert pss_kib(text) == 1536
    assert pss_kib("") == 0


def test_only_new_documents_are_measured() -> None:
    m = RendererMemory()
    assert m.loaded_since(0)
    assert not m.loaded_since(0)
    assert m.loaded_since(3)
    assert not m.loaded_since(3)
