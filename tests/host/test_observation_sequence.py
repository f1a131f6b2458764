"""Document sequence numbers (host_app.core.observations.ObservationStore): a new document gets the
next number, a document seen before keeps its own (the opener, current again after its popup)."""

from __future__ import annotations

from pathlib import Path

from host_app.core.observations import DOCUMENTS_KEPT, ObservationStore


def test_a_document_seen_before_keeps_its_sequence(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path)
    opener, popup, other = (1.0, 0), (2.0, 0), (3.0, 0)
    assert store.sequence("Session1", opener) == 1
    assert store.sequence("Session1", opener) == 1
    assert store.sequence("Session1", popup) == 2
    assert store.sequence("Session1", opener) == 1  # back on the opener: the same document
    assert store.sequence("Session1", other) == 3  # a new document still counts up
    assert store.sequence("Session1", (1.0, 1)) == 4  # replaced in place: a new document
    assert store.sequence("Session2", popup) == 1  # per session


def test_the_remembered_documents_are_bounded(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path)
    for n in range(DOCUMENTS_KEPT + 1):
        store.sequence("Session1", (float(n), 0))
    # the oldest was forgotten: seen again, it counts as new
    assert store.sequence("Session1", (0.0, 0)) == DOCUMENTS_KEPT + 2
    store.drop_session("Session1")
    assert store.sequence("Session1", (5.0, 0)) == 1
