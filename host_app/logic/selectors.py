"""The selector subset lives in `bridge_protocol.selectors`, where the agent validates it too."""

from bridge_protocol.selectors import (
    AttrTest,
    Complex,
    Compound,
    DomNode,
    SelectorError,
    SelectorList,
    build_tree,
    matches,
    parse_selector,
    query_all,
    query_first,
)

__all__ = [
    "AttrTest",
    "Complex",
    "Compound",
    "DomNode",
    "SelectorError",
    "SelectorList",
    "build_tree",
    "matches",
    "parse_selector",
    "query_all",
    "query_first",
]
