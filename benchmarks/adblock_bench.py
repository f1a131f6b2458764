"""Adblock benchmark: the interceptor's decision (`NetworkPolicy.decide`) per request with and
without adblock, against a full-size engine, and the load time of a local ad-heavy page in the
real app with adblock on and off.

The real lists cannot be downloaded here (no network), so the engine is built from a synthetic
list of ~50k network rules shaped like EasyList's (domain anchors, third-party, path patterns,
typed rules, exceptions); the same engine is stored in the app's data folder, so the app loads
it at start without a download.
"""

from __future__ import annotations

import random
import shutil
import statistics
import tempfile
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from host_app.logic.adblock import LISTS, FilterStore, build
from host_app.logic.policy import Filters, NetworkPolicy, Request

from .engine_bench import Svc
from .local import serving

RULES = 50_000
URLS = 4_000
ROUNDS = 5
LOADS = 8
ADS = 40  # third-party scripts and images on the ad-heavy page
AD_DELAY = 0.05  # an ad server's answer time


def synthetic_lists(seed: int = 7) -> dict[str, str]:
    rng = random.Random(seed)
    words = ["ad", "ads", "banner", "track", "pixel", "analytics", "promo", "sponsor"]
    words += ["beacon", "stat", "metrics", "tag", "widget", "popup", "click", "sync"]
    tlds = ["com", "net", "io", "org", "co"]
    out: dict[str, list[str]] = {name: [f"! Title: synthetic {name}"] for name in LISTS}
    for i in range(RULES):
        name = LISTS[i % 4]
        host = f"{rng.choice(words)}{i}.{rng.choice(tlds)}"
        r = rng.random()
        if r < 0.45:
            rule = f"||{host}^"
        elif r < 0.6:
            rule = f"||{host}^$third-party"
        elif r < 0.75:
            rule = f"/{rng.choice(words)}-{i}/*"
        elif r < 0.85:
            rule = f"||{host}/{rng.choice(words)}/*.js$script"
        elif r < 0.92:
            rule = f"/{rng.choice(words)}{i}.gif$image"
        elif r < 0.97:
            rule = f"||{host}^$domain=site{i % 50}.com"
        else:
            rule = f"@@||{host}/ok^"
        out[name].append(rule)
    # the ad-heavy page's ads: every third-party request to the ad origin
    out["easylist.txt"].append("||localhost^$third-party")
    return {name: "\n".join(lines) + "\n" for name, lines in out.items()}


def urls(lists: dict[str, str], seed: int = 11) -> list[Request]:
    """Requests shaped like a news page's: mostly first-party and CDN assets, 15% to hosts the
    lists name (some of them allowed by a rule's type or party, as on a real page)."""
    rng = random.Random(seed)
    listed = [
        line[2:].split("^")[0]
        for text in lists.values()
        for line in text.splitlines()
        if line.startswith("||")
    ]
    kinds = ["script", "image", "stylesheet", "xmlhttprequest", "font", "sub_frame"]
    words = ["ad", "banner", "track", "pixel", "analytics", "promo", "stat", "metrics"]
    out = []
    for i in range(URLS):
        kind = rng.choice(kinds)
        r = rng.random()
        if r < 0.6:
            url = f"https://static.news{i % 40}.com/assets/{i}/app.{kind[:3]}?v={rng.randrange(10**6)}"
        elif r < 0.85:
            url = f"https://cdn{i % 90}.cloudcdn.net/lib/{rng.choice(words)}/{i}.js"
        else:
            url = f"https://{rng.choice(listed)}/p?id={i}&u={rng.randrange(10**9)}"
        out.append(Request(url, "https", kind, f"https://www.news{i % 40}.com/"))
    return out


def decide_cost(policy: NetworkPolicy, requests: list[Request]) -> tuple[float, int]:
    best = float("inf")
    blocked = 0
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        blocked = sum(policy.decide(r) is not None for r in requests)
        best = min(best, (time.perf_counter() - t0) / len(requests))
    return best * 1e6, blocked


def bench_decision(lists: dict[str, str]) -> None:
    t0 = time.perf_counter()
    engine = build(lists)
    print(f"engine: {engine.rules} network rules, built in {time.perf_counter() - t0:.2f} s")
    requests = urls(lists)
    on = NetworkPolicy(filters=Filters(enabled=True, engine=engine))
    off = NetworkPolicy(adblock_enabled=False, filters=Filters(enabled=True, engine=engine))
    us_on, blocked = decide_cost(on, requests)
    us_off, _ = decide_cost(off, requests)
    print(f"decide, adblock on:  {us_on:.2f} us/request ({blocked}/{len(requests)} blocked)")
    print(f"decide, adblock off: {us_off:.2f} us/request")


def ad_page(port: int, n: int) -> bytes:
    ads = "".join(
        f'<script src="http://localhost:{port}/ad/{i}.js?n={n}"></script>'
        f'<img src="http://localhost:{port}/ad/{i}.gif?n={n}">'
        for i in range(ADS // 2)
    )
    body = "".join(f"<p>paragraph {i} of the article</p>" for i in range(200))
    return f"<!doctype html><html><head><title>news</title>{ads}</head><body>{body}</body></html>".encode()


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        address = self.server.server_address
        assert isinstance(address, tuple)
        port = int(address[1])
        if self.path.startswith("/ad/"):
            time.sleep(AD_DELAY)
            ctype = "text/javascript" if ".js" in self.path else "image/gif"
            body = b"void 0;" if ".js" in self.path else b"GIF89a"
        else:
            n = int(self.path.rsplit("=", 1)[-1]) if "=" in self.path else 0
            body, ctype = ad_page(port, n), "text/html"
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)


def bench_page_load(lists: dict[str, str], work: Path) -> None:
    data_dir = work / "app"
    store = FilterStore(data_dir / "Filters")
    store.save(build(lists), lists)  # fresh: the app loads it, no download
    with serving(_Handler) as base:
        svc = Svc(data_dir)
        try:
            log = data_dir / "Logs" / "global.ndjson"
            deadline = time.monotonic() + 60
            while b"filters.ready" not in (log.read_bytes() if log.exists() else b""):
                if time.monotonic() > deadline:
                    raise RuntimeError("the app did not load the stored engine")
                time.sleep(0.1)
            on = svc.session()
            r = svc.client.post("/v1/sessions", json={"adblock_enabled": False})
            off = str(r.json()["data"]["session"]["id"])
            times: dict[str, list[float]] = {"on": [], "off": []}
            for n in range(LOADS + 1):
                for label, sid in (("on", on), ("off", off)):
                    elapsed = svc.capture(sid, f"{base}/page?n={n}", n)
                    if n:  # the first load of each session creates its browser context
                        times[label].append(elapsed)
            for label in ("on", "off"):
                print(
                    f"ad-heavy page ({ADS} ads, {AD_DELAY * 1000:.0f} ms each), adblock {label}: "
                    f"median {statistics.median(times[label]) * 1000:.0f} ms over {LOADS} loads"
                )
        finally:
            svc.close()


def main() -> None:
    lists = synthetic_lists()
    print(f"(synthetic lists: {RULES} rules; the real lists are not reachable offline)")
    bench_decision(lists)
    work = Path(tempfile.mkdtemp(prefix="svc-adblock-bench-"))
    try:
        bench_page_load(lists, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
