"""Real fingerprinting and bot-detection libraries nobody here wrote, run in the real app's
sessions (issue 14 point 1: "undetectable by the usual checks"): FingerprintJS 5.2.0 and its
bot detector BotD 2.0.0 (both MIT, from npm, pinned; `npm pack` fetches them as the MCP test's
npx does). What a site using them would conclude about a session is what is asserted: not a
bot, the profile's values, a visitor id that is stable for a session and changes with the seed."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import tarfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from ..httpserver import reply, serving
from .hostproc import HostApp
from .test_e2e_identity_api import FINGERPRINT

pytestmark = pytest.mark.e2e

PACKAGES = {
    "fp.js": ("@fingerprintjs/fingerprintjs@5.2.0", "package/dist/fp.umd.min.js"),
    "botd.js": ("@fingerprintjs/botd@2.0.0", "package/dist/botd.esm.js"),
}

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>detectors</title></head><body>
<pre id="out"></pre>
<script src="/fp.js"></script>
<script type="module">
import { load } from '/botd.js';
const out = {};
try {
  const result = await (await FingerprintJS.load()).get();
  out.visitorId = result.visitorId;
  out.components = {};
  for (const [k, v] of Object.entries(result.components)) {
    out.components[k] = v.error ? {error: String(v.error)} : v.value;
  }
} catch (e) { out.error = 'fingerprintjs: ' + e; }
try {
  const detector = await load();
  out.bot = detector.detect();
  out.detections = Object.entries(detector.getDetections())
    .filter(([, d]) => d.bot).map(([name, d]) => name + ':' + d.botKind);
} catch (e) { out.error = 'botd: ' + e; }
document.getElementById('out').textContent = JSON.stringify(out);
const done = document.createElement('p'); done.id = 'done'; document.body.append(done);
</script></body></html>"""


@pytest.fixture(scope="module")
def scripts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    # `make test` installs nodejs; a missing npm is a setup failure, not a reason to skip
    assert shutil.which("npm") is not None, "npm missing: the Makefile installs Debian's nodejs"
    folder = tmp_path_factory.mktemp("npm")
    out: dict[str, bytes] = {}
    for name, (spec, member) in PACKAGES.items():
        packed = subprocess.run(
            ["npm", "pack", spec, "--pack-destination", str(folder), "--json"],
            check=False,
            capture_output=True,
            text=True,
            timeout=240,
        )
        assert packed.returncode == 0, packed.stderr
        tarball = folder / json.loads(packed.stdout)[0]["filename"]
        with tarfile.open(tarball) as tar:
            extracted = tar.extractfile(member)
            assert extracted is not None, (spec, member)
            out[name] = extracted.read()
    return out


@pytest.fixture(scope="module")
def site(scripts: dict[str, bytes]) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            name = self.path.lstrip("/")
            if name in scripts:
                reply(self, scripts[name], "text/javascript")
            else:
                reply(self, PAGE.encode(), "text/html; charset=utf-8")

        def log_message(self, format: str, *args: object) -> None:
            return

    with serving(Handler) as base:
        yield base


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostApp]:
    host = HostApp(tmp_path_factory.mktemp("detectors"), env={"LANG": "en_US.UTF-8"}).start()
    try:
        host.ok("POST", "/v1/profiles", {"name": "Native", "fingerprint_profile": None})
        host.ok("POST", "/v1/profiles", {"name": "Berlin", "fingerprint_profile": FINGERPRINT})
        other_seed = dict(FINGERPRINT, seed="5eed0002")
        host.ok("POST", "/v1/profiles", {"name": "Berlin 2", "fingerprint_profile": other_seed})
        yield host
    finally:
        host.stop()


def detect(app: HostApp, sid: str, site: str) -> dict[str, Any]:
    body = {
        "session_id": sid,
        "url": f"{site}/page",
        "actions": [{"action": "wait-for", "selector": "#done", "timeout": 30}],
        "wait": 0,
        "timeout": 60,
    }
    events = {e["event"]: e for e in app.stream("/v1/captures", body)}
    assert "capture.completed" in events, events
    text = Path(events["capture.completed"]["data"]["output_path"]).read_text("utf-8")
    found = re.search(r'<pre id="out">(.*?)</pre>', text, re.S)
    assert found is not None, text[:500]
    out: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    assert "error" not in out, out
    return out


def test_botd_finds_no_bot_in_fingerprinted_sessions(app: HostApp, site: str) -> None:
    """Before the plugins fix every session was `headless_chrome` (an empty navigator.plugins)."""
    for fields in ({}, {"profile": "Berlin"}):
        sid = app.new_session(**fields)
        seen = detect(app, sid, site)
        assert seen["bot"] == {"bot": False}, (fields, seen["detections"])
        assert seen["detections"] == [], fields
        app.ok("DELETE", f"/v1/sessions/{sid}")


def test_fingerprintjs_reads_the_profile_and_ties_its_visitor_id_to_the_seed(
    app: HostApp, site: str
) -> None:
    sid = app.new_session(profile="Berlin")
    first = detect(app, sid, site)
    again = detect(app, sid, site)
    c = first["components"]
    assert c["timezone"] == "Europe/Berlin"
    assert c["languages"][0] == ["de-DE"]
    assert c["dateTimeLocale"] == "de-DE"
    assert (c["platform"], c["hardwareConcurrency"], c["deviceMemory"]) == ("Win32", 4, 4)
    assert c["screenResolution"] == [2560, 1440]
    assert c["touchSupport"]["maxTouchPoints"] == 0
    assert c["vendor"] == "Google Inc."
    assert c["pdfViewerEnabled"] is True
    assert len(c["plugins"]) == 5
    assert c["userAgentData"]["brands"] == ["Google Chrome"]
    assert c["userAgentData"]["platform"] == "Windows"
    # the same session is the same visitor; another seed is another visitor, so is the machine
    assert again["visitorId"] == first["visitorId"]
    other = app.new_session(profile="Berlin 2")
    other_seen = detect(app, other, site)
    assert other_seen["visitorId"] != first["visitorId"]
    changed = {k for k in c if c[k] != other_seen["components"][k]}
    assert changed == {"canvas", "audio"}, changed  # only the seeded noise differs
    native = app.new_session(profile="Native")
    assert detect(app, native, site)["visitorId"] not in (
        first["visitorId"],
        other_seen["visitorId"],
    )
    for s in (sid, other, native):
        app.ok("DELETE", f"/v1/sessions/{s}")
