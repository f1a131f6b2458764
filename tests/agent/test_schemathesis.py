"""Issue 12: schemathesis (pinned in the dev extras) generates requests from docs/openapi.yaml
against the live agent and finds no server error but the documented 502 (UPSTREAM_UNAVAILABLE)
and 504 (TIMEOUT), and no answer outside the envelope.

The agent runs with the scripted host of the agent tests (`FakeBrowser`, answering every engine
command as docs/bridge.md says), so the run exercises the agent's own HTTP surface, validation,
store and scheduling, at a bounded example count, within a couple of minutes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from .agentproc import AgentProcess
from .fakebrowser import FakeBrowser

pytestmark = pytest.mark.e2e

SCHEMATHESIS = str(Path(sys.executable).parent / "schemathesis")
OPENAPI = Path(__file__).resolve().parents[2] / "docs" / "openapi.yaml"
DOCUMENTED_5XX = {502, 504}


@pytest.mark.timeout(600)
def test_schemathesis_finds_no_undocumented_server_error(
    make_agent: Callable[..., AgentProcess], tmp_path: Path
) -> None:
    agent = make_agent()
    assert agent.host is not None
    agent.host.answer = FakeBrowser()
    report = tmp_path / "report"
    proc = subprocess.run(
        [
            SCHEMATHESIS,
            "run",
            str(OPENAPI),
            "--url",
            agent.base_url,
            "--checks",
            "not_a_server_error,content_type_conformance",
            "--max-examples",
            "12",
            "--seed",
            "20261124",
            "--request-timeout",
            "20",
            "--workers",
            "2",
            "--no-shrink",
            "--report",
            "ndjson",
            "--report-dir",
            str(report),
        ],
        capture_output=True,
        timeout=540,
        check=False,
        cwd=tmp_path,
    )
    output = proc.stdout.decode(errors="replace")
    statuses: dict[int, int] = {}
    for path in report.glob("*.ndjson"):
        for line in path.read_text().splitlines():
            for status in _statuses(json.loads(line)):
                statuses[status] = statuses.get(status, 0) + 1
    assert statuses, output[-3000:]  # the run did send requests
    undocumented = {s for s in statuses if s >= 500 and s not in DOCUMENTED_5XX}
    assert not undocumented, (statuses, output[-6000:])
    assert agent.proc is not None
    assert agent.proc.poll() is None  # nothing brought the agent down
    assert agent.ok("GET", "/v1/health")


def _statuses(event: object) -> list[int]:
    """Every HTTP status recorded anywhere in one ndjson event of the report."""
    found: list[int] = []
    stack = [event]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            code = item.get("status_code")
            if isinstance(code, int):
                found.append(code)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found
