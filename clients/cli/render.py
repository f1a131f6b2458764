"""How `svc` writes results: JSON on stdout (indented on a terminal, compact for a program), NDJSON
events and errors on stderr."""

from __future__ import annotations

import json
from typing import Any


def result(data: Any, *, terminal: bool) -> str:
    """A result on stdout: indented JSON for a person at a terminal, else compact JSON (a program
    reads it, and pays for every space), and a newline."""
    return pretty(data) if terminal else compact(data)


def pretty(data: Any) -> str:
    """Indented JSON and a newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def compact(data: Any) -> str:
    """One NDJSON line: compact JSON and a newline."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False) + "\n"


def plain_error(message: str) -> str:
    """Usage, transport and protocol failures: one plain line."""
    line = " ".join(message.split())
    return (line if line.startswith("svc") else "svc: " + line) + "\n"


def _scalar(value: Any) -> str:
    if (
        isinstance(value, str)
        and value
        and value.strip() == value
        and "\n" not in value
        and not any(c in value for c in ":#{}[],&*!|>'\"%@`")
        and value.lower() not in ("true", "false", "null", "yes", "no", "~")
        and not value[0].isdigit()
        and value[0] not in "-?"
    ):
        return value
    return json.dumps(value, ensure_ascii=False)


def front_matter(metadata: dict[str, Any]) -> str:
    """The read metadata as a front-matter block (each value a YAML scalar, JSON-quoted when
    it needs quoting)."""
    lines = ["---"]
    lines.extend(f"{key}: {_scalar(value)}" for key, value in metadata.items())
    lines.append("---")
    return "\n".join(lines) + "\n"


def read_document(markdown: str, metadata: dict[str, Any]) -> str:
    return front_matter(metadata) + "\n" + markdown + ("\n" if markdown else "")
