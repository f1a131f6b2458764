"""Action latency: svc's ref actions (POST /v1/observations/{id}/actions, one action per batch)
beside Playwright's locator actions on the same local pages, in one run.

Per action kind: the median of STEPS steps, the tools taking turns every CHUNK steps (`bench`). An svc step is one HTTP request holding one action and
the post-batch semantic observation it returns, so it is what an agent pays per step. Playwright's
figures are the bare action (`locator.click`, `press_sequentially`, `select_option`, `hover`:
CDP input, with its own actionability checks) and the action followed by an ARIA snapshot of the
body, the nearest Playwright equivalent of svc's step. Playwright drives Debian's chromium
(/usr/bin/chromium, headless, --no-sandbox).

The site is two pages, /a and /b, alike but for their titles: each links to the other ("link"),
and has a form posted to /post, answered by a 302 to the other page ("submit": an agent's
search or login). For those two kinds Playwright waits for the new page's load event before its
snapshot (`wait_for_load_state`), as svc's step ends on the loaded page. The select alternates
between the 2nd and the 19th of 20 options, so a selection that walked the options one key at a
time shows its cost. The far click presses a button 4,000 px down, which scrolls the page back to
the top: svc wheels to it as a person would, Playwright scrolls it into view at once.
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import tempfile
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from bridge_protocol import observation as wire

from .engine_bench import CHROMIUM, FLAGS, Svc
from .local import serving

STEPS = 40  # at 15 a kind's median moved by 10% from run to run on this machine
CHUNK = 5  # steps of one kind a tool takes before the next tool's turn
FAR = 4000
OPTIONS = "".join(f"<option value=v{i}>Option {i}</option>" for i in range(20))


def page(name: str, other: str) -> bytes:
    return (
        f"<!doctype html><html><head><title>Page {name}</title></head><body><main>"
        f"<h1>Actions {name}</h1><p id=out>nothing yet</p>"
        f"<p><a id=l href=/{other}>Next page</a></p>"
        f"<form method=post action=/post><input type=hidden name=to value={other}>"
        "<button id=f>Send</button></form>"
        "<button id=b onclick=\"document.getElementById('out').textContent='clicked '+Date.now()\">"
        "Press</button>"
        "<label>Text <input id=t></label>"
        f"<label>Choice <select id=s>{OPTIONS}</select></label>"
        "<button id=h onmouseenter=\"document.getElementById('out').textContent='hover '+"
        'Date.now()">Hover me</button>'
        + "".join(f"<p>Paragraph {i} of some ordinary text on the page.</p>" for i in range(30))
        # a button far down, which scrolls the page back to the top when pressed: each step
        # must bring it into view again (a link low on a long article)
        + f"<div style='height:{FAR}px'>long text</div>"
        "<button id=far onclick=\"document.getElementById('out').textContent='far '+Date.now();"
        'window.scrollTo(0, 0)">Far away</button>'
        "</main></body></html>"
    ).encode()


PAGES = {"/a": page("A", "b"), "/b": page("B", "a")}


class Site(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        body = PAGES.get(self.path.split("?")[0])
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        form = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        to = "a" if "to=a" in form else "b"
        self.send_response(302)
        self.send_header("Location", f"/{to}")
        self.send_header("Content-Length", "0")
        self.end_headers()


KINDS = ("link", "submit", "click", "type", "select", "hover", "far click")
NAVIGATING = ("link", "submit")


def _refs(obs: dict[str, Any]) -> dict[str, str]:
    return {str(e.get("name")): str(e["ref"]) for e in wire.decode(obs).get("elements", [])}


def _svc_action(kind: str, refs: dict[str, str], i: int) -> dict[str, Any]:
    if kind == "link":
        return {"action": "click", "ref": refs["Next page"]}
    if kind == "submit":
        return {"action": "click", "ref": refs["Send"]}
    if kind == "click":
        return {"action": "click", "ref": refs["Press"]}
    if kind == "type":
        return {"action": "type", "ref": refs["Text"], "text": "hello"}
    if kind == "select":
        return {"action": "select", "ref": refs["Choice"], "value": "v18" if i % 2 else "v1"}
    if kind == "far click":
        return {"action": "click", "ref": refs["Far away"]}
    return {"action": "hover", "ref": refs["Hover me"]}


class SvcSteps:
    """svc's side: one session on the site, its latest observation and refs."""

    def __init__(self, url: str, work: Path) -> None:
        self.svc = Svc(work)
        sid = self.svc.session()
        r = self.svc.client.post(
            "/v1/navigate/observe", json={"url": url, "session_id": sid, "wait": 0}
        )
        assert r.status_code == 200, r.text
        self.obs = r.json()["data"]["observation"]
        self.refs = _refs(self.obs)

    def step(self, kind: str, i: int) -> float:
        action = _svc_action(kind, self.refs, i)
        t0 = time.perf_counter()
        r = self.svc.client.post(
            f"/v1/observations/{self.obs['id']}/actions", json={"actions": [action]}
        )
        elapsed = time.perf_counter() - t0
        assert r.status_code == 200, r.text
        self.obs = r.json()["data"]["observation"]
        if kind in NAVIGATING:  # a new document: new refs
            page_url = str(r.json()["data"]["page"]["url"])
            assert page_url.endswith(("/a", "/b")), r.text
            self.refs = _refs(self.obs)
        return elapsed


async def _pw_act(page: Any, kind: str, i: int) -> None:
    if kind in NAVIGATING:
        await page.locator("#l" if kind == "link" else "#f").click()
        await page.wait_for_load_state()
    elif kind == "click":
        await page.locator("#b").click()
    elif kind == "type":
        await page.locator("#t").press_sequentially("hello")
    elif kind == "select":
        await page.locator("#s").select_option("v18" if i % 2 else "v1")
    elif kind == "far click":
        await page.locator("#far").click()
    else:
        await page.mouse.move(0, 0)  # leave it, so each hover enters again
        await page.locator("#h").hover()


async def _pw_step(page: Any, kind: str, i: int, *, snapshot: bool) -> float:
    t0 = time.perf_counter()
    await _pw_act(page, kind, i)
    if snapshot:
        await page.locator("body").aria_snapshot()
    return time.perf_counter() - t0


async def bench(url: str, work: Path) -> dict[str, dict[str, list[float]]]:
    """Per tool and kind, the steps' seconds. The tools take turns in chunks of CHUNK steps
    of a kind (svc, Playwright's bare action, Playwright's action and snapshot), so a machine
    that gets busier or quieter meanwhile weighs on all three alike; each kind's first step
    of each warms its code paths and is not counted."""
    from playwright.async_api import async_playwright

    out: dict[str, dict[str, list[float]]] = {
        tool: {k: [] for k in KINDS} for tool in ("svc", "bare", "observed")
    }
    svc = SvcSteps(url, work)
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
            page = await browser.new_page(viewport={"width": 1920, "height": 947})
            await page.goto(url)
            for kind in KINDS:
                svc.step(kind, 0)
                await _pw_step(page, kind, 0, snapshot=True)
                for first in range(1, STEPS + 1, CHUNK):
                    steps = range(first, min(first + CHUNK, STEPS + 1))
                    out["svc"][kind] += [svc.step(kind, i) for i in steps]
                    for tool in ("bare", "observed"):
                        for i in steps:
                            t = await _pw_step(page, kind, i, snapshot=tool == "observed")
                            out[tool][kind].append(t)
            await browser.close()
    finally:
        svc.svc.close()
    return out


def main() -> None:
    if not Path(CHROMIUM).exists():
        print(f"action_bench: {CHROMIUM} is missing; skipped")
        return
    work = Path(tempfile.mkdtemp(prefix="svc-action-bench-"))
    try:
        with serving(Site) as base:
            url = f"{base}/a"
            steps = asyncio.run(bench(url, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def ms(xs: list[float]) -> float:
        return statistics.median(xs) * 1000

    print(f"median ms of {STEPS} steps per action on a two-page local site")
    print(f"{'action':10}{'svc step':>10}{'pw action':>11}{'pw +snapshot':>14}{'ratio':>8}")
    for kind in KINDS:
        a, b, c = ms(steps["svc"][kind]), ms(steps["bare"][kind]), ms(steps["observed"][kind])
        print(f"{kind:10}{a:10.1f}{b:11.1f}{c:14.1f}{a / c:8.2f}")
    print(
        "(svc step = one HTTP request: the action and the post-batch observation, through the "
        "agent and the bridge; pw action = the bare locator action over CDP (for link and "
        "submit, until the new page's load event); pw +snapshot = that and an ARIA snapshot of "
        f"the body; ratio = svc step / pw +snapshot; link = a link to the other page, submit = "
        f"a form post answered by a 302 to it, far click = a button {FAR:,} px down)"
    )


if __name__ == "__main__":
    main()
