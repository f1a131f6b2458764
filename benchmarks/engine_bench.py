"""Engine benchmark: svc (svc-app --headless over the HTTP API) against Playwright for Python
driving Debian's chromium headless, on the same local pages in the same run.

Figures: capture latency with wait 0, cold (a session's first capture, browser context created)
and warm (the same session again), median ratio svc / Playwright; eight-way concurrent capture
throughput ratio; memory (PSS) per extra session. Playwright never downloads a browser: it runs
/usr/bin/chromium (`make bench` installs Debian's package).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks.local import page_handler, process_tree, pss_mib, serving
from tests.ports import free_port, listener_base

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
COLD = 5
WARM = 20
CONCURRENT = 8
ROUNDS = 5
EXTRA_SESSIONS = 4

ROWS = "".join(
    f"<tr><td>item {i}</td><td>{i * 3}</td><td>note {i % 7}</td></tr>" for i in range(300)
)
PAGE = (
    "<!doctype html><html><head><title>Bench</title></head><body><h1>Bench page</h1>"
    f"<table>{ROWS}</table></body></html>"
).encode()


# --- svc ------------------------------------------------------------------------------------


class Svc:
    def __init__(self, data_dir: Path, extra_env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("SVC_")}
        env.update(
            SVC_DATA_DIR=str(data_dir),
            SVC_AGENT_PORT=str(self.port),
            SVC_BROWSER_PROXY_PORT=str(listener_base()),
            SVC_PLAN="pro",
            QT_QPA_PLATFORM="offscreen",
            QTWEBENGINE_CHROMIUM_FLAGS="--no-sandbox --disable-gpu",
            # no filter-list download from the real mirror during a benchmark (it would be
            # measured); a refused local port fails at once
            SVC_FILTER_LISTS_URL="https://127.0.0.1:9/lists",
        )
        env.update(extra_env or {})
        self.proc = subprocess.Popen(
            [str(Path(sys.executable).parent / "svc-app"), "--headless"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.client = httpx.Client(
            base_url=f"http://127.0.0.1:{self.port}", timeout=120, trust_env=False
        )
        self.out = data_dir / "out"
        deadline = time.monotonic() + 90
        while True:
            with contextlib.suppress(httpx.TransportError):
                if self.client.get("/v1/health").status_code == 200:
                    break
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("svc-app did not start")
            time.sleep(0.1)

    def session(self) -> str:
        r = self.client.post("/v1/sessions", json={})
        return str(r.json()["data"]["session"]["id"])

    def capture(self, sid: str, url: str, n: int, client: httpx.Client | None = None) -> float:
        c = client or self.client
        t0 = time.perf_counter()
        r = c.post(
            "/v1/navigate",
            json={
                "url": url,
                "session_id": sid,
                "wait": 0,
                "output": str(self.out / f"{sid}-{n}.html"),
            },
        )
        elapsed = time.perf_counter() - t0
        assert r.status_code == 200, r.text
        return elapsed

    def close(self) -> None:
        self.client.close()
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(15)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)


def bench_svc(url: str, work: Path) -> dict[str, Any]:
    svc = Svc(work / "svc")
    try:
        # warm the runtime itself (first profile ever), not counted
        svc.capture(svc.session(), url, 0)
        cold = [svc.capture(svc.session(), url, 0) for _ in range(COLD)]
        sid = svc.session()
        svc.capture(sid, url, 0)
        warm = [svc.capture(sid, url, i) for i in range(WARM)]
        sessions = [svc.session() for _ in range(CONCURRENT)]
        for s in sessions:
            svc.capture(s, url, 0)

        def run(s: str) -> None:
            with httpx.Client(base_url=str(svc.client.base_url), timeout=120, trust_env=False) as c:
                for i in range(ROUNDS):
                    svc.capture(s, url, i, c)

        threads = [threading.Thread(target=run, args=(s,)) for s in sessions]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        throughput = CONCURRENT * ROUNDS / (time.perf_counter() - t0)
        time.sleep(1)
        before = pss_mib(process_tree(svc.proc.pid))
        for _ in range(EXTRA_SESSIONS):
            svc.capture(svc.session(), url, 0)
        time.sleep(2)
        after = pss_mib(process_tree(svc.proc.pid))
        return {
            "cold": cold,
            "warm": warm,
            "throughput": throughput,
            "mem_per_session": (after - before) / EXTRA_SESSIONS,
        }
    finally:
        svc.close()


# --- Playwright -----------------------------------------------------------------------------


async def _pw(url: str, work: Path) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    out = work / "pw"
    out.mkdir(parents=True, exist_ok=True)
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)

        async def capture(page: Any, name: str) -> float:
            t0 = time.perf_counter()
            await page.goto(url, wait_until="domcontentloaded")
            html = await page.content()
            (out / name).write_text(html, "utf-8")
            return time.perf_counter() - t0

        async def cold_one(i: int) -> float:
            t0 = time.perf_counter()
            ctx = await browser.new_context(viewport={"width": 1920, "height": 947})
            page = await ctx.new_page()
            await capture(page, f"cold-{i}.html")
            elapsed = time.perf_counter() - t0
            await ctx.close()
            return elapsed

        await cold_one(-1)
        cold = [await cold_one(i) for i in range(COLD)]
        ctx = await browser.new_context(viewport={"width": 1920, "height": 947})
        page = await ctx.new_page()
        await capture(page, "warm.html")
        warm = [await capture(page, f"warm-{i}.html") for i in range(WARM)]
        await ctx.close()

        pages = []
        contexts = []
        for _ in range(CONCURRENT):
            c = await browser.new_context(viewport={"width": 1920, "height": 947})
            contexts.append(c)
            pg = await c.new_page()
            await capture(pg, "pre.html")
            pages.append(pg)

        async def run(k: int) -> None:
            for i in range(ROUNDS):
                await capture(pages[k], f"c{k}-{i}.html")

        t0 = time.perf_counter()
        await asyncio.gather(*(run(k) for k in range(CONCURRENT)))
        throughput = CONCURRENT * ROUNDS / (time.perf_counter() - t0)
        for c in contexts:
            await c.close()

        root = _chromium_root()
        await asyncio.sleep(1)
        before = pss_mib(process_tree(root)) if root else 0.0
        extra = []
        for _ in range(EXTRA_SESSIONS):
            c = await browser.new_context(viewport={"width": 1920, "height": 947})
            pg = await c.new_page()
            await capture(pg, "extra.html")
            extra.append(c)
        await asyncio.sleep(2)
        after = pss_mib(process_tree(root)) if root else 0.0
        await browser.close()
        return {
            "cold": cold,
            "warm": warm,
            "throughput": throughput,
            "mem_per_session": (after - before) / EXTRA_SESSIONS,
        }


def _chromium_root() -> int | None:
    """The browser process Playwright launched (a child of this process's driver)."""
    me = os.getpid()
    for pid in process_tree(me):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if cmd and cmd[0].endswith(b"chromium") and not any(a.startswith(b"--type=") for a in cmd):
            return pid
    return None


def main() -> None:
    if not Path(CHROMIUM).exists():
        print(
            f"engine_bench: {CHROMIUM} is missing (make bench installs Debian's chromium); skipped"
        )
        return
    work = Path(tempfile.mkdtemp(prefix="svc-engine-bench-"))
    try:
        with serving(page_handler(PAGE, no_store=True)) as base:
            url = f"{base}/page"
            svc = bench_svc(url, work)
            pw = asyncio.run(_pw(url, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def ms(xs: list[float]) -> float:
        return statistics.median(xs) * 1000

    print(
        f"page: {len(PAGE):,} bytes of HTML from a loopback server; wait 0; capture written to disk"
    )
    print(f"{'':34}{'svc':>12}{'playwright':>12}{'ratio':>10}")
    for label, key in (
        ("capture latency cold, median ms", "cold"),
        ("capture latency warm, median ms", "warm"),
    ):
        a, b = ms(svc[key]), ms(pw[key])
        print(f"{label:34}{a:12.1f}{b:12.1f}{a / b:10.2f}")
    a, b = svc["throughput"], pw["throughput"]
    print(f"{'8-way captures per second':34}{a:12.1f}{b:12.1f}{a / b:10.2f}")
    a, b = svc["mem_per_session"], pw["mem_per_session"]
    print(
        f"{'PSS per extra session, MiB':34}{a:12.1f}{b:12.1f}{a / b if b else float('nan'):10.2f}"
    )
    print(
        "(latency: svc includes the HTTP API, agent scheduling and the bridge; Playwright drives "
        "the browser over CDP directly; svc readiness = parsed document, Playwright = DOMContentLoaded)"
    )


if __name__ == "__main__":
    main()
