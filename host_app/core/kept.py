"""What the host keeps of an observation (`Kept`): its session, document and page, and the
private locators of its refs (docs/observations.md). `observations` makes and stores them
(`ObservationStore`); `frame_reads` and `ref_target` read them to find a ref's document and
element again, without importing `observations` (which imports them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..logic import frames as fl

Key = tuple[float, int]


@dataclass
class Kept:
    session_id: str
    key: Key
    seq: int
    sigs: dict[int, str]
    image: Path | None = None
    page: int = 0  # the session's page it was taken on (root page or popup)
    # the observation's documents (main frame first) and public ref -> (document, registry number)
    docs: list[fl.FrameDoc] = field(default_factory=list)
    locators: dict[int, tuple[int, int]] = field(default_factory=dict)
    # ref number -> (role, name) as the observation showed them (the activity list's words)
    labels: dict[int, tuple[str, str]] = field(default_factory=dict)

    def locate(self, n: int) -> tuple[int, int]:
        return self.locators.get(n, (0, n))
