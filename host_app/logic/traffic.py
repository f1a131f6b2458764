"""A capture's downloaded bytes (spec 1 §1; docs/decisions.md "Downloaded bytes"), Qt-free.

A session keeps counters that only grow: one per page's devtools channel (what the engine's
requests of the page, its frames and workers took from the network) and one for the asset
scheme's own fetches. An operation reads them at its start and at its end; its traffic is what
they grew by.
"""

from __future__ import annotations

from collections.abc import Mapping

# ("page", page serial, frontend document) or ("assets", browser context, 0)
CounterKey = tuple[str, int, int]
Counters = Mapping[CounterKey, int]


def grown(before: Counters, after: Counters) -> int:
    """What the counters read `after` grew by since `before`. A counter new since (a page opened
    meanwhile, a page's new frontend document, a new browser context) counts from 0; one gone
    (a page closed meanwhile) counts nothing."""
    return sum(max(0, n - before.get(key, 0)) for key, n in after.items())
