"""When a session's renderer gets a garbage collection (docs/decisions.md "Renderer memory").

QtWebEngine's renderers, measured here, never collect the documents a page navigated away from
(Chromium headless does): a session's renderer grew by about the size of each page it left, so a
session that navigates all day grows without bound. The host therefore asks for a collection
itself, at a price (~0.4 s): only once the renderer's PSS has grown by GROWTH_KIB since the last
collection (or since it was first measured), so a session that stays on a page never pays.
"""

from __future__ import annotations

from dataclasses import dataclass

GROWTH_KIB = 192 * 1024
# after a collection that freed little (the page itself holds the memory), wait for this much
# more growth before the next one, so a large live page is not collected again and again
RETRY_GROWTH_KIB = 2 * GROWTH_KIB


@dataclass
class RendererMemory:
    """One renderer process's PSS history, in KiB, as the host measures it."""

    pid: int = 0
    baseline: int | None = None
    threshold: int = GROWTH_KIB
    collections: int = 0
    loads: int = -1  # the session's load starts at the last measurement

    def loaded_since(self, load_starts: int) -> bool:
        """Whether the session's page started a load since the last measurement (only new
        documents leave old ones behind: without one, nothing is measured)."""
        if load_starts == self.loads:
            return False
        self.loads = load_starts
        return True

    def due(self, pid: int, pss: int) -> bool:
        """Whether a collection is due at `pss` of process `pid` (a new process starts over)."""
        if pid != self.pid or self.baseline is None:
            self.pid, self.baseline, self.threshold = pid, pss, GROWTH_KIB
            return False
        return pss - self.baseline >= self.threshold

    def collected(self, before: int, after: int) -> None:
        """A collection took the process from `before` to `after`."""
        self.collections += 1
        freed = before - after
        self.baseline = after
        self.threshold = GROWTH_KIB if freed >= GROWTH_KIB // 2 else RETRY_GROWTH_KIB


def pss_kib(smaps_rollup: str) -> int:
    """The `Pss:` line of /proc/<pid>/smaps_rollup, in KiB (0 when absent)."""
    for line in smaps_rollup.splitlines():
        if line.startswith("Pss:"):
            parts = line.split()
            if len(parts) >= 2 and parts[1].isdigit():
                return int(parts[1])
    return 0
