"""Date work in a page (issue 14: a fingerprint's `timezone` is applied by the identity script,
which reimplements `Date`'s local-time methods; docs/decisions.md "Time zone").
`make bench BENCH=dates`.

One page times 200,000 calls of each kind (a calendar's or a chart's work: local fields of
many instants, `toString`, `toLocaleDateString()`) in: a native svc session (the engine's own
`Date`), a fingerprinted svc session in Europe/Berlin (the script's), and Playwright driving
Debian's Chromium with `timezone_id="Europe/Berlin"` (the DevTools override: the engine's own
`Date` in another zone), in the same run. Printed: the median of ROUNDS page loads, in ms.
"""

from __future__ import annotations

import html
import json
import re
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.local import page_handler, serving
from tests.host.hostproc import HostApp
from tests.host.test_e2e_identity_api import FINGERPRINT

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-component-update"]
ROUNDS = 3

PAGE = b"""<!doctype html><html><head><title>dates</title></head><body><pre id="out"></pre>
<script>
function time(f) {
  const t0 = performance.now(); let x = 0;
  for (let i = 0; i < 200000; i++) x += f(i);
  return Math.round(performance.now() - t0);
}
const base = Date.UTC(2024, 0, 1);
const out = {
  'getHours, a new hour each': time((i) => new Date(base + i * 3600000).getHours()),
  'getHours, one instant': time(() => new Date(base).getHours()),
  'toString, a new minute each': time((i) => new Date(base + i * 60000).toString().length),
  'toLocaleDateString()': time((i) => new Date(base + i * 86400000).toLocaleDateString().length),
};
document.getElementById('out').textContent = JSON.stringify(out);
const done = document.createElement('p'); done.id = 'done'; document.body.append(done);
</script></body></html>"""


def _svc_round(host: HostApp, sid: str, url: str) -> dict[str, float]:
    host.ok("POST", "/v1/navigate", {"url": url, "session_id": sid, "wait": 0, "timeout": 120})
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        capture = host.ok("POST", "/v1/capture", {"session_id": sid, "wait": 0})
        text = Path(capture["capture"]["output_path"]).read_text("utf-8")
        if 'id="done"' in text:
            found = re.search(r'<pre id="out">(.*?)</pre>', text, re.S)
            assert found is not None
            figures: dict[str, float] = json.loads(html.unescape(found.group(1)))
            return figures
        time.sleep(0.2)
    raise TimeoutError("the dates page did not finish")


def _svc(url: str) -> dict[str, list[dict[str, float]]]:
    host = HostApp(Path(tempfile.mkdtemp(prefix="svc-dates-"))).start()
    try:
        host.ok("POST", "/v1/profiles", {"name": "Native", "fingerprint_profile": None})
        host.ok("POST", "/v1/profiles", {"name": "Berlin", "fingerprint_profile": FINGERPRINT})
        out: dict[str, list[dict[str, float]]] = {}
        for label, profile in (("svc native", "Native"), ("svc Berlin", "Berlin")):
            sid = host.new_session(profile=profile)
            out[label] = [_svc_round(host, sid, url) for _ in range(ROUNDS)]
            host.ok("DELETE", f"/v1/sessions/{sid}")
        return out
    finally:
        host.stop()


def _playwright(url: str) -> list[dict[str, float]]:
    from playwright.sync_api import sync_playwright

    rounds = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = browser.new_context(timezone_id="Europe/Berlin").new_page()
        for _ in range(ROUNDS):
            page.goto(url)
            page.wait_for_selector("#done", state="attached")
            rounds.append(json.loads(page.inner_text("#out")))
        browser.close()
    return rounds


def main() -> None:
    with serving(page_handler(PAGE)) as base:
        runs = _svc(base + "/")
        runs["Playwright Berlin"] = _playwright(base + "/")
    kinds = list(next(iter(runs.values()))[0])
    labels = list(runs)
    print(
        f"{'ms per 200,000 calls (median of ' + str(ROUNDS) + ')':<34}"
        + "".join(f"{label:>20}" for label in labels)
    )
    for kind in kinds:
        row = [statistics.median(r[kind] for r in runs[label]) for label in labels]
        print(f"{kind:<34}" + "".join(f"{v:>20.0f}" for v in row))
