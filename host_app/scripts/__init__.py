"""The page scripts, as `.js` files beside this module, read when the modules that send them are
imported (host_app/core/js.py and observe_js.py, host_app/engine/worker_cdp.py and memory.py keep
their names).

A file is the script's text as the page gets it, after two rules:

- its first lines that start with `//` are its description, not sent;
- a placeholder `$NAME` (a JavaScript identifier, so the file parses alone) stands for another
  script or a value that `fill` puts in its place; one that stands as a statement, `$NAME;` at a
  line's start or after `{`, `;` or `}`, takes its semicolon with it (so `$COMMON;` on a line of
  its own brings observe_common.js's lines, and nothing more).

Qt-free: tests/host/test_scripts.py checks that every file is used and parses.
"""

from __future__ import annotations

import re
from importlib import resources

# a statement's (its semicolon included), else an expression's
PLACEHOLDER = re.compile(r"(?<![^\n{;}])\$([A-Z][A-Z0-9_]*);|\$([A-Z][A-Z0-9_]*)")


def template(name: str) -> str:
    """The text of `name` (say "tick.js") without its description and final line break; its
    placeholders left for `fill`."""
    text = resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
    lines = text.removesuffix("\n").split("\n")
    while lines and lines[0].startswith("//"):
        lines.pop(0)
    return "\n".join(lines)


def fill(text: str, **parts: str) -> str:
    """`text` with each placeholder replaced by its part; every placeholder must have one, and
    every part a placeholder."""
    used: set[str] = set()

    def part(m: re.Match[str]) -> str:
        name = m[1] or m[2]
        used.add(name)
        return parts[name]

    out = PLACEHOLDER.sub(part, text)
    if used != set(parts):
        raise KeyError(f"parts without a placeholder: {sorted(set(parts) - used)}")
    return out


def load(name: str, **parts: str) -> str:
    """The script `name` with its placeholders filled: a script as the page gets it."""
    return fill(template(name), **parts)
