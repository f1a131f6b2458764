"""Rewrite docs/openapi.yaml's request and answer schemas from their structs (agent/openapi.py);
`make openapi` runs it. The rest of the file (the routes, the error envelope, the schemas of
agent/openapi.py's WRITTEN) is kept as written; the YAML is written out in one layout (PyYAML's,
100 columns)."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from agent.openapi import regenerated

OPENAPI = Path(__file__).resolve().parents[1] / "docs" / "openapi.yaml"
HEADER = """\
# OpenAPI 3.1 description of the agent's HTTP API v1 (spec 1). The schemas of the requests and of
# the answers are generated from their structs (`make openapi`: scripts/openapi.py,
# agent/openapi.py); the routes, the error envelope, Observation and ErrorObject are written here.
# tests/agent/test_openapi.py keeps the routes equal to the agent's and the spec's, and fails
# while the generated part is stale.
"""


def main() -> int:
    before = OPENAPI.read_text("utf-8")
    doc = regenerated(yaml.safe_load(before))
    text = HEADER + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)
    if text != before:
        OPENAPI.write_text(text, "utf-8")
        print(f"{OPENAPI}: schemas regenerated", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
