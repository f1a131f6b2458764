"""Issue 12 point 1: web pages cannot drive the agent.

The loopback API is reachable by every page the user opens. A real Chromium (Debian's) loads
pages of other origins (a hostname mapped to 127.0.0.1, and 127.0.0.1 on another port, which is
same-site with the agent) that try every request a page can send without a preflight: fetch
with text/plain or no body, form posts (url-encoded and text/plain), and `sendBeacon`. None of
them changes anything; each is refused and logged. The clients' own requests keep working.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from tests.chromium import run_chromium
from tests.httpserver import serving

from .agentproc import AgentProcess

pytestmark = pytest.mark.e2e

ATTACK = """<!doctype html><title>attack</title>
<iframe name="sink1"></iframe><iframe name="sink2"></iframe>
<form id="f1" method="post" action="AGENT/v1/sessions" target="sink1">
  <input name="name" value="from-a-form"></form>
<form id="f2" method="post" enctype="text/plain"
  target="sink2"><input name='{"x":"' value='"}'></form>
<script>
const A = "AGENT";
const S = A + "/v1/sessions/" + new URLSearchParams(location.search).get("s");
document.getElementById("f2").action = S + "/pause";
const tries = [
  fetch(A + "/v1/sessions", {method: "POST", mode: "no-cors",
    headers: {"Content-Type": "text/plain"}, body: JSON.stringify({name: "from-fetch"})}),
  fetch(S + "/pause", {method: "POST", mode: "no-cors"}),
  fetch(S + "/ping", {method: "POST", mode: "no-cors", body: ""}),
  fetch(A + "/v1/sessions", {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({name: "from-preflighted-fetch"})}),
];
navigator.sendBeacon(A + "/v1/sessions", JSON.stringify({name: "from-beacon"}));
navigator.sendBeacon(S + "/pause");
document.getElementById("f1").submit();
document.getElementById("f2").submit();
Promise.allSettled(tries).then(() => { document.title = "tried"; });
</script>"""


class _Pages(BaseHTTPRequestHandler):
    page = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(self.page)))
        self.end_headers()
        self.wfile.write(self.page)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def attacker(agent: AgentProcess) -> Iterator[int]:
    """A server of the attacking page, aimed at the agent; its port."""
    handler = type("Pages", (_Pages,), {"page": ATTACK.replace("AGENT", agent.base_url).encode()})
    with serving(handler) as base:
        yield int(base.rsplit(":", 1)[1])


def refusals(agent: AgentProcess) -> list[dict[str, Any]]:
    path = agent.data_dir / "Logs" / "global.ndjson"
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in records if r["category"] == "http.refused"]


@pytest.mark.parametrize("origin", ["evil.example", "127.0.0.1"])
def test_pages_of_other_origins_change_nothing(
    agent: AgentProcess, attacker: int, tmp_path: Path, origin: str
) -> None:
    sid = agent.ok("POST", "/v1/sessions", {"name": f"victim-{origin}"})["session"]["id"]
    before = {s["id"] for s in agent.ok("GET", "/v1/sessions")["sessions"]}
    seen = len(refusals(agent))
    dom = run_chromium(
        f"http://{origin}:{attacker}/attack.html?s={sid}",
        tmp_path / "chromium",
        "--host-resolver-rules=MAP evil.example 127.0.0.1",
    )
    assert "<title>tried</title>" in dom, dom[:2000]
    # nothing was created, paused or pinged
    after = agent.ok("GET", "/v1/sessions")["sessions"]
    assert {s["id"] for s in after} == before
    victim = agent.ok("GET", f"/v1/sessions/{sid}")["session"]
    assert victim["network_paused"] is False
    # ... because the requests reached the agent and were refused, each logged with its origin
    logged = refusals(agent)[seen:]
    assert len(logged) >= 6, logged
    assert all(
        r["data"]["origin"].startswith(f"http://{origin}:") for r in logged if "origin" in r["data"]
    )
    paths = {r["data"]["path"] for r in logged}
    assert {"/v1/sessions", f"/v1/sessions/{sid}/pause"} <= paths


@pytest.mark.parametrize(
    ("headers", "error_id"),
    [
        ({"Origin": "https://evil.example"}, "INVALID_REQUEST"),
        ({"Origin": "null"}, "INVALID_REQUEST"),
        ({"Origin": "http://127.0.0.1:1"}, "INVALID_REQUEST"),
        ({"Sec-Fetch-Site": "cross-site"}, "INVALID_REQUEST"),
        ({"Sec-Fetch-Site": "same-site"}, "INVALID_REQUEST"),
        ({"Content-Type": "text/plain"}, "UNSUPPORTED_MEDIA_TYPE"),
        ({"Content-Type": "application/x-www-form-urlencoded"}, "UNSUPPORTED_MEDIA_TYPE"),
        ({"Content-Type": "multipart/form-data; boundary=x"}, "UNSUPPORTED_MEDIA_TYPE"),
    ],
)
def test_browser_shaped_requests_are_refused_with_an_empty_body(
    agent: AgentProcess, headers: dict[str, str], error_id: str
) -> None:
    sid = agent.ok("POST", "/v1/sessions", {})["session"]["id"]
    r = agent.client.post(f"/v1/sessions/{sid}/pause", headers=headers, content=b"")
    assert r.json()["error"]["id"] == error_id
    assert agent.ok("GET", f"/v1/sessions/{sid}")["session"]["network_paused"] is False
    # a GET from a page is refused too (it may do network work: proxy-location)
    if "Origin" in headers or "Sec-Fetch-Site" in headers:
        r = agent.client.get(f"/v1/sessions/{sid}", headers=headers)
        assert r.json()["error"]["id"] == "INVALID_REQUEST"


@pytest.mark.parametrize(
    "headers",
    [
        {},  # curl -X POST, scripts: no body, no Content-Type
        {"Content-Type": "application/json"},
        {"Content-Type": "application/json; charset=utf-8"},
        {"Origin": "http://127.0.0.1:{port}"},
        {"Origin": "http://localhost:{port}", "Sec-Fetch-Site": "same-origin"},
        {"Sec-Fetch-Site": "none"},
    ],
)
def test_clients_and_the_agents_own_origin_still_work(
    agent: AgentProcess, headers: dict[str, str]
) -> None:
    sid = agent.ok("POST", "/v1/sessions", {})["session"]["id"]
    headers = {k: v.format(port=agent.port) for k, v in headers.items()}
    r = agent.client.post(f"/v1/sessions/{sid}/ping", headers=headers, content=b"")
    assert r.json()["status"] == "ok", r.json()


def test_a_body_without_a_content_type_is_refused(agent: AgentProcess) -> None:
    r = agent.client.post("/v1/sessions", content=b'{"name": "x"}')
    assert r.json()["error"]["id"] == "UNSUPPORTED_MEDIA_TYPE"
