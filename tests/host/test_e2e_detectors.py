"""Real fingerprinting and bot-detection libraries nobody here wrote, run in the real app's
sessions (issue 14 point 1: "undetectable by the usual checks"): FingerprintJS 5.2.0, its
bot detector BotD 2.0.0, fpscanner 1.0.2 (a bot detector that also compares the main
frame, an iframe and a worker), headless-detector 2.0.1 (automation, CDP and worker checks)
and ThumbmarkJS 1.11.0 (a fingerprint hash) (all MIT, from npm, pinned; `npm pack` fetches
them as the MCP test's npx does). What a site using them would conclude about a session is what is asserted: not a
bot, the profile's values, a visitor id that is stable for a session and changes with the seed.
And Debian's Chromium as the oracle of what a Chromium page's `window.chrome` looks like."""

from __future__ import annotations

import html
import json
import re
import tarfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from .. import npm
from ..chromium import run_chromium
from ..httpserver import reply, serving
from .hostproc import HostApp
from .test_e2e_identity_api import FINGERPRINT

pytestmark = pytest.mark.e2e

PACKAGES = {
    "fp.js": ("@fingerprintjs/fingerprintjs@5.2.0", "package/dist/fp.umd.min.js"),
    "botd.js": ("@fingerprintjs/botd@2.0.0", "package/dist/botd.esm.js"),
    "fpscanner.js": ("fpscanner@1.0.2", "package/dist/fpScanner.es.js"),
    "headless.js": ("headless-detector@2.0.1", "package/scripts/headless-detector.js"),
    "thumbmark.js": ("@thumbmarkjs/thumbmarkjs@1.11.0", "package/dist/thumbmark.umd.js"),
}

# headless-detector's verdict and the raw checks behind it, and ThumbmarkJS's hash and
# components (its sampled logging off: this machine has no internet); `?only=detector` leaves
# ThumbmarkJS out (the Chromium oracle needs the detector's verdict only)
HEADLESS_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>headless</title>
</head><body><pre id="out"></pre>
<script src="/headless.js"></script>
<script src="/thumbmark.js"></script>
<script>
(async () => {
  const out = {};
  try {
    const r = await detectHeadless();
    out.summary = r.summary;
    out.checks = {cdp: r.cdpArtifacts, advanced: r.advancedChecks, webgl: r.webglFlags,
      fingerprint: r.fingerprintChecks, worker: r.workerChecks, automation: r.automationFlags};
  } catch (e) { out.error = 'headless-detector: ' + e; }
  if (!location.search.includes('only=detector')) try {
    const res = await new ThumbmarkJS.Thumbmark({ logging: false }).get();
    out.thumbmark = res.thumbmark;
    out.components = res.components;
  } catch (e) { out.error = 'thumbmark: ' + e; }
  document.getElementById('out').textContent = JSON.stringify(out);
  const done = document.createElement('p'); done.id = 'done'; document.body.append(done);
})();
</script></body></html>"""

FPSCANNER_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>fpscanner</title>
</head><body><pre id="out"></pre>
<script type="module">
import FingerprintScanner from '/fpscanner.js';
const out = {};
try {
  const fp = await new FingerprintScanner().collectFingerprint({ encrypt: false });
  out.bot = fp.fastBotDetection;
  out.detected = Object.entries(fp.fastBotDetectionDetails).filter(([, d]) => d.detected)
    .map(([name]) => name);
  out.signals = fp.signals;
} catch (e) { out.error = 'fpscanner: ' + e; }
document.getElementById('out').textContent = JSON.stringify(out);
const done = document.createElement('p'); done.id = 'done'; document.body.append(done);
</script></body></html>"""

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


# What a page can learn of window.chrome without timing: shapes, texts, errors, value types and
# the values that do not depend on the clock, and how the clock values relate.
CHROME_PAGE = """<!doctype html><html><head><title>chrome</title></head><body><pre id="out"></pre>
<script>
function shape() {
  const d = (o, k) => { const x = Object.getOwnPropertyDescriptor(o, k);
    return x ? [x.writable, x.enumerable, x.configurable, typeof x.value, typeof x.get].join() : null; };
  const ctor = (f) => { try { new f(); return 'constructs'; } catch (e) { return e.constructor.name; } };
  const fn = (f) => [Function.prototype.toString.call(f), f.name, f.length, Reflect.ownKeys(f).join(),
    ctor(f)];
  const err = (run) => { try { const v = run(); return v === undefined ? 'undefined' : JSON.stringify(v); }
    catch (e) { return e.constructor.name + ': ' + e.message; } };
  const c = window.chrome, app = c.app, lt = c.loadTimes(), csi = c.csi();
  return {
    chrome: d(window, 'chrome'), keys: Object.keys(c), loadTimes: fn(c.loadTimes), csi: fn(c.csi),
    prototype: [Reflect.ownKeys(c.loadTimes.prototype).join(), d(c.loadTimes, 'prototype')],
    ltKeys: Object.keys(lt).map((k) => k + ':' + typeof lt[k] + ':' + d(lt, k)),
    csiKeys: Object.keys(csi).map((k) => k + ':' + typeof csi[k] + ':' + d(csi, k)),
    ltFixed: [lt.navigationType, lt.wasFetchedViaSpdy, lt.wasNpnNegotiated, lt.npnNegotiatedProtocol,
      lt.wasAlternateProtocolAvailable, lt.connectionInfo, lt.firstPaintAfterLoadTime, csi.tran],
    clock: [lt.requestTime === lt.startLoadTime, Math.abs(csi.startE - lt.requestTime * 1000) < 1,
      lt.commitLoadTime >= lt.requestTime, lt.finishDocumentLoadTime >= lt.commitLoadTime,
      lt.finishLoadTime >= lt.finishDocumentLoadTime,
      Math.abs(csi.onloadT - lt.finishDocumentLoadTime * 1000) < 1, csi.pageT > 0],
    newLoadTimes: err(() => Object.keys(new c.loadTimes()).length),
    appKeys: Reflect.ownKeys(app).map((k) => k + ':' + d(app, k)),
    appFns: ['getDetails', 'getIsInstalled', 'installState', 'runningState'].map((k) => fn(app[k])),
    appCalls: [err(() => app.getDetails()), err(() => app.getDetails(1)),
      err(() => app.getDetails.call(null)), err(() => app.getIsInstalled()),
      err(() => app.getIsInstalled(1)), err(() => app.runningState()),
      err(() => app.runningState(1)), err(() => app.installState()), err(() => app.installState(1)),
      err(() => app.installState(() => {}, 2))],
    states: [app.isInstalled, app.InstallState, app.RunningState, Object.isFrozen(app.InstallState)],
  };
}
addEventListener('load', () => setTimeout(() => {
  const out = shape();
  chrome.app.installState((state) => {
    out.installed = state;
    document.getElementById('out').textContent = JSON.stringify(out);
    const done = document.createElement('p'); done.id = 'done'; document.body.append(done);
  });
}, 50));
</script></body></html>"""


@pytest.fixture(scope="module")
def scripts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    folder = tmp_path_factory.mktemp("npm")
    out: dict[str, bytes] = {}
    for name, (spec, member) in PACKAGES.items():
        with tarfile.open(npm.pack(spec, folder)) as tar:
            extracted = tar.extractfile(member)
            assert extracted is not None, (spec, member)
            out[name] = extracted.read()
    return out


@pytest.fixture(scope="module")
def site(scripts: dict[str, bytes]) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            name = self.path.lstrip("/").partition("?")[0]
            if name in scripts:
                reply(self, scripts[name], "text/javascript")
            elif name == "chrome":
                reply(self, CHROME_PAGE.encode(), "text/html; charset=utf-8")
            elif name == "fpscanner":
                reply(self, FPSCANNER_PAGE.encode(), "text/html; charset=utf-8")
            elif name == "headless":
                reply(self, HEADLESS_PAGE.encode(), "text/html; charset=utf-8")
            else:
                reply(self, PAGE.encode(), "text/html; charset=utf-8")

        def log_message(self, format: str, *args: object) -> None:
            return

    with serving(Handler) as base:
        yield base


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostApp]:
    env = {
        "LANG": "en_US.UTF-8",
        # a desktop has a GPU: SwiftShader gives this GPU-less machine's engine WebGL, in pages
        # and workers alike (without it, WebGL fails in a page and is null in a worker, which
        # fpscanner reads as a mismatch in any Chromium without WebGL)
        "QTWEBENGINE_CHROMIUM_FLAGS": (
            "--no-sandbox --disable-gpu --use-gl=angle --use-angle=swiftshader-webgl"
        ),
    }
    host = HostApp(tmp_path_factory.mktemp("detectors"), env=env).start()
    try:
        host.ok("POST", "/v1/profiles", {"name": "Native", "fingerprint_profile": None})
        host.ok("POST", "/v1/profiles", {"name": "Berlin", "fingerprint_profile": FINGERPRINT})
        other_seed = dict(FINGERPRINT, seed="5eed0002")
        host.ok("POST", "/v1/profiles", {"name": "Berlin 2", "fingerprint_profile": other_seed})
        yield host
    finally:
        host.stop()


def report_of(html_text: str) -> dict[str, Any]:
    found = re.search(r'<pre id="out">(.*?)</pre>', html_text, re.S)
    assert found is not None, html_text[:500]
    out: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    return out


def detect(app: HostApp, sid: str, site: str, path: str = "/page") -> dict[str, Any]:
    body = {
        "session_id": sid,
        "url": f"{site}{path}",
        "actions": [{"action": "wait-for", "selector": "#done", "timeout": 30}],
        "wait": 0,
        "timeout": 60,
    }
    events = {e["event"]: e for e in app.stream("/v1/captures", body)}
    assert "capture.completed" in events, events
    out = report_of(Path(events["capture.completed"]["data"]["output_path"]).read_text("utf-8"))
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


def test_fpscanner_finds_no_bot_and_every_context_agrees(app: HostApp, site: str) -> None:
    """fpscanner's rules (automation markers, CDP, property descriptors, platform and GPU
    consistency, languages, and the same reads in an iframe and a worker) on a fingerprinted
    session: nothing detected, and the iframe and the worker say what the page says."""
    sid = app.new_session(profile="Berlin")
    seen = detect(app, sid, site, "/fpscanner")
    assert (seen["bot"], seen["detected"]) == (False, [])
    s = seen["signals"]
    main = {
        "userAgent": FINGERPRINT["user_agent"],
        "platform": "Win32",
        "memory": 4,
        "cpuCount": 4,
        "language": "de-DE",
    }
    for context in ("iframe", "webWorker"):
        values = s["contexts"][context]
        assert {k: values[k] for k in main} == main, context
    assert s["contexts"]["iframe"]["webdriver"] is False
    assert s["contexts"]["webWorker"]["renderer"] == s["graphics"]["webGL"]["renderer"]
    assert s["locale"]["internationalization"]["timezone"] == "Europe/Berlin"
    assert s["automation"]["cdp"] is False  # the workers' devtools channel is not seen
    # a session of the Custom template takes the machine's zone: UTC here, which fpscanner
    # counts against a browser (servers run UTC; a desktop rarely does)
    default = app.new_session()
    assert set(detect(app, default, site, "/fpscanner")["detected"]) <= {"hasUTCTimezone"}
    for x in (sid, default):
        app.ok("DELETE", f"/v1/sessions/{x}")


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


def test_window_chrome_is_a_chromiums(app: HostApp, site: str, tmp_path: Path) -> None:
    """QtWebEngine's window.chrome is empty, where every Chromium page has loadTimes, csi and
    app (what stealth plugins fake and detectors check the shape of). A fingerprinted session's
    answers what Debian's Chromium answers, property by property (its timings aside)."""
    real = report_of(run_chromium(f"{site}/chrome", tmp_path / "chromium"))
    assert real["keys"] == ["loadTimes", "csi", "app"], real
    sid = app.new_session(profile="Berlin")
    seen = detect(app, sid, site, "/chrome")
    for key, value in real.items():
        assert seen[key] == value, key
    assert seen["installed"] == "not_installed"
    app.ok("DELETE", f"/v1/sessions/{sid}")


def test_headless_detector_sees_a_normal_browser_and_thumbmark_the_profile(
    app: HostApp, site: str, tmp_path: Path
) -> None:
    """headless-detector (2026: CDP stack and console leaks, Playwright and Selenium markers,
    WebGL software renderers, emoji rendering against the platform, the user agent and platform
    a worker reads) on a fingerprinted session: "Normal Browser", flagged only for what it
    flags on every Chromium page (no `chrome.runtime`, as Debian's Chromium shows). ThumbmarkJS:
    the profile's values, one hash for the session's every load, another for another session
    (each session has a seed of its own, docs/decisions.md "Seed") that only the seeded noise
    tells apart."""
    # the detector's checks wait on timers and a worker: a generous virtual-time budget (at
    # 5 s Debian's Chromium once wrote the page before the verdict, in a loaded suite)
    oracle = run_chromium(f"{site}/headless?only=detector", tmp_path / "chromium", budget_ms=20000)
    real = report_of(oracle)
    chromium_flags = {d["checkId"] for d in real["summary"]["detections"]}
    assert "adv-runtime" in chromium_flags, chromium_flags
    sid = app.new_session(profile="Berlin")
    seen = detect(app, sid, site, "/headless")
    flags = {d["checkId"] for d in seen["summary"]["detections"]}
    assert (seen["summary"]["classification"], flags) == ("Normal Browser", {"adv-runtime"})
    checks = seen["checks"]
    assert checks["cdp"]["detected"] is False
    assert checks["advanced"]["stackTrace"]["cdpDetected"] is False
    assert checks["advanced"]["consoleDebug"]["detected"] is False
    assert checks["webgl"]["isSoftwareRenderer"] is False
    assert checks["fingerprint"]["canvas"]["emojiCheck"]["suspicious"] is False
    worker = checks["worker"]
    assert (worker["workerUserAgent"], worker["workerPlatform"]) == (
        FINGERPRINT["user_agent"],
        "Win32",
    )
    assert worker["suspicious"] is False
    c = seen["components"]
    assert c["locales"] == {"languages": "de-DE", "timezone": "Europe/Berlin"}
    assert c["system"]["useragent"] == FINGERPRINT["user_agent"]
    assert (c["system"]["platform"], c["system"]["hardwareConcurrency"]) == ("Win32", 4)
    assert c["hardware"]["deviceMemory"] == "4"
    assert c["screen"]["maxTouchPoints"] == 0
    assert len(c["plugins"]["plugins"]) == 5
    assert detect(app, sid, site, "/headless")["thumbmark"] == seen["thumbmark"]
    other = app.new_session(profile="Berlin")
    other_seen = detect(app, other, site, "/headless")
    assert other_seen["thumbmark"] != seen["thumbmark"]
    changed = {k for k in c if c[k] != other_seen["components"][k]}
    assert changed == {"audio", "canvas", "webgl"}, changed  # the canvas noise reaches WebGL's
    for s in (sid, other):
        app.ok("DELETE", f"/v1/sessions/{s}")
