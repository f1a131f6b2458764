"""Observation size and speed: svc's semantic observation (POST /v1/observe) beside Playwright's
ARIA snapshot (`page.locator("body").aria_snapshot()`) of the same local pages, in one run.

Pages: two small real-world ones (a sign-in form; a landing page whose menus are `href="#"`
links), where an observation's fixed header and repeated destinations weigh most, and three
large ones. Per page: median time of 5 reads of the already-loaded page, size in bytes (svc: the
observation JSON as served, `data.observation`, compact, and its header alone; Playwright: the
YAML text), tokens of the same texts (cl100k_base, benchmarks/tokens.py), and how many actionable
elements each exposes.

Counting rule, the same on both sides: every element with one of the INTERACTIVE roles, plus every
option of a select. Playwright lists a select's options as `- option` lines under its combobox
(counted by their role); svc lists them in the select element's `opts`, where the select ref
action takes them, so each counts once. svc elements with another role (generic tabindex
elements, scrollbars) are not counted, as Playwright's would not be.
Playwright drives Debian's chromium (/usr/bin/chromium, headless, --no-sandbox).

Real pages nobody here wrote follow (issue 36: an observation stays at most half of Playwright's
snapshot on them): Debian's documentation as installed (python3-doc's asyncio page and library
index, the Node.js API's stream page, SQLite's SELECT page), served under /doc/ with their assets.
"""

from __future__ import annotations

import asyncio
import json
import re
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
from .tokens import compact, tokens

READS = 5
INTERACTIVE = {
    "link",
    "button",
    "textbox",
    "searchbox",
    "checkbox",
    "radio",
    "combobox",
    "listbox",
    "slider",
    "spinbutton",
    "switch",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "treeitem",
    "option",
}


def _elements_page() -> str:
    rows = "".join(
        f"<li>Product {i} <a href='/item/{i}'>Details {i}</a> <button>Add {i}</button></li>"
        for i in range(2500)
    )
    return (
        "<!doctype html><html><head><title>Catalogue</title></head><body>"
        f"<h1>Catalogue</h1><ul>{rows}</ul></body></html>"
    )


def _article_page() -> str:
    sections = []
    for s in range(40):
        paras = "".join(
            f"<p>Paragraph {p} of section {s}: the quick brown fox jumps over the lazy dog, "
            f"and then considers <a href='/ref/{s}/{p}'>reference {s}.{p}</a> before resting "
            "under a tree while the afternoon passes slowly over the meadow.</p>"
            for p in range(6)
        )
        sections.append(f"<h2>Section {s}</h2>{paras}<blockquote>Quote {s}</blockquote>")
    return (
        "<!doctype html><html><head><title>Article</title></head><body><header><nav>"
        "<a href='/'>Home</a> <a href='/blog'>Blog</a></nav></header><main><article>"
        f"<h1>A long article</h1>{''.join(sections)}</article></main>"
        "<footer><p>Footer</p></footer></body></html>"
    )


def _form_page() -> str:
    fields = []
    for i in range(60):
        fields.append(
            f"<label>Field {i} <input name=f{i} value='v{i}'></label>"
            f"<label><input type=checkbox name=c{i}> Option {i}</label>"
            f"<select name=s{i}><option>one</option><option>two</option></select>"
        )
    rows = "".join(
        f"<tr><td>Order {i}</td><td>{i * 7} EUR</td><td><button>Edit</button>"
        f"<button>Delete</button></td></tr>"
        for i in range(80)
    )
    return (
        "<!doctype html><html><head><title>Admin</title></head><body>"
        "<nav aria-label=Main>"
        + "".join(f"<a href='/s/{i}'>Section {i}</a>" for i in range(20))
        + "</nav><main><form aria-label=Settings>"
        + "".join(fields)
        + "<textarea aria-label=Notes></textarea><button type=submit>Save</button></form>"
        "<table><caption>Orders</caption><tr><th>Order</th><th>Total</th><th>Actions</th></tr>"
        f"{rows}</table></main></body></html>"
    )


def _signin_page() -> str:
    """A small sign-in page, as most sites have one."""
    return (
        "<!doctype html><html><head><title>Sign in - Example</title></head><body>"
        "<header><a href='/'>Example</a></header><main><h1>Sign in</h1>"
        "<form action='/account/session' method=post>"
        "<label>Email address <input type=email name=email required autocomplete=email></label>"
        "<label>Password <input type=password name=password required></label>"
        "<label><input type=checkbox name=remember> Keep me signed in</label>"
        "<button type=submit>Sign in</button></form>"
        "<p><a href='/account/password/new'>Forgot your password?</a></p>"
        "<p>New here? <a href='/account/signup'>Create an account</a></p></main>"
        "<footer><a href='/terms'>Terms</a> <a href='/privacy'>Privacy</a></footer></body></html>"
    )


def _placeholder_links_page() -> str:
    """A small landing page whose menus are `href="#"` links (templates, mock-ups, script-driven
    menus), plus in-page anchors."""
    menu = "".join(
        f"<li><a href='#'>{name}</a></li>"
        for name in ("Home", "Products", "Solutions", "Pricing", "Docs", "Blog", "Company")
    )
    cards = "".join(
        f"<section><h2>{name}</h2><p>{name} for teams of every size, set up in minutes.</p>"
        f"<a href='#'>Learn more</a></section>"
        for name in ("Analytics", "Automation", "Security")
    )
    footer = "".join(
        f"<a href='#'>{name}</a> "
        for name in ("About", "Careers", "Press", "Support", "Status", "Terms", "Privacy")
    )
    return (
        "<!doctype html><html><head><title>Acme - Home</title></head><body>"
        f"<header><nav aria-label=Main><ul>{menu}</ul></nav></header><main>"
        "<h1>Build faster with Acme</h1><p>One platform for your whole team.</p>"
        "<a href='#pricing'>See pricing</a> <button>Start free trial</button>"
        f"{cards}<h2 id=pricing>Pricing</h2><p>Free for small teams.</p>"
        f"<a href='#top'>Back to top</a></main><footer>{footer}</footer></body></html>"
    )


PAGES = {
    "/account/signin": ("small sign-in form", _signin_page()),
    "/landing": ('small page of href="#" links', _placeholder_links_page()),
    "/elements": ("5,000 actionable elements", _elements_page()),
    "/article": ("long article", _article_page()),
    "/form": ("form-heavy app page", _form_page()),
}
ENTRIES = ("contexts", "content", "elements")
DOC = Path("/usr/share/doc")
# real pages: their documentation as Debian installs it (the Makefile's packages)
REAL = {
    "/doc/python3/html/library/asyncio-task.html": "python3-doc: asyncio-task",
    "/doc/python3/html/library/index.html": "python3-doc: library index",
    "/doc/nodejs/api/stream.html": "Node.js API: stream",
    "/doc/sqlite3/lang_select.html": "SQLite: SELECT",
}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        path = self.path.partition("?")[0].partition("#")[0]
        kind = "text/html; charset=utf-8"
        if path.startswith("/doc/"):
            file = (DOC / path[5:]).resolve()
            body = file.read_bytes() if file.is_file() else b""
            kind = _TYPES.get(file.suffix, "application/octet-stream")
        else:
            body = PAGES.get(path, ("", "<html><body>missing</body></html>"))[1].encode()
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css",
    ".js": "text/javascript",
    ".png": "image/png",
    ".svg": "image/svg+xml",
    ".gif": "image/gif",
}


def labels() -> dict[str, str]:
    """Every page measured: the bench's own, then the real ones installed here."""
    out = {path: label for path, (label, _) in PAGES.items()}
    out.update({path: label for path, label in REAL.items() if (DOC / path[5:]).is_file()})
    return out


def actionable(observation: dict[str, Any]) -> int:
    """The counting rule (module docstring) on a decoded svc observation."""
    return sum(
        (e.get("role") in INTERACTIVE) + len(e.get("opts", []))
        for e in observation.get("elements", [])
    )


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def bench_svc(base: str, work: Path) -> dict[str, dict[str, float]]:
    svc = Svc(work)
    out: dict[str, dict[str, float]] = {}
    try:
        sid = svc.session()
        for path in labels():
            r = svc.client.post(
                "/v1/navigate/observe", json={"url": base + path, "session_id": sid, "wait": 0}
            )
            assert r.status_code == 200, r.text
            times, text, header, count = [], "", 0, 0
            for _ in range(READS):
                t0 = time.perf_counter()
                r = svc.client.post("/v1/observe", json={"session_id": sid, "wait": 0})
                times.append(time.perf_counter() - t0)
                data = r.json()["data"]
                obs = data["observation"]
                text = compact(obs)
                header = _size({k: v for k, v in obs.items() if k not in ENTRIES})
                count = actionable(wire.decode(obs, data["page"]["url"]))
            out[path] = {
                "ms": statistics.median(times) * 1000,
                "bytes": len(text.encode()),
                "tokens": tokens(text),
                "header": header,
                "actionable": count,
            }
    finally:
        svc.close()
    return out


_ROLE = re.compile(r"^\s*- ([a-z]+)\b")


async def _pw(base: str) -> dict[str, dict[str, float]]:
    from playwright.async_api import async_playwright

    out: dict[str, dict[str, float]] = {}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = await browser.new_page(viewport={"width": 1920, "height": 947})
        for path in labels():
            await page.goto(base + path)
            times, text = [], ""
            for _ in range(READS):
                t0 = time.perf_counter()
                text = await page.locator("body").aria_snapshot()
                times.append(time.perf_counter() - t0)
            count = 0
            for line in text.splitlines():
                m = _ROLE.match(line)
                if m and m.group(1) in INTERACTIVE:
                    count += 1
            out[path] = {
                "ms": statistics.median(times) * 1000,
                "bytes": len(text.encode()),
                "tokens": tokens(text),
                "actionable": count,
            }
        await browser.close()
    return out


def main() -> None:
    if not Path(CHROMIUM).exists():
        print(f"observation_bench: {CHROMIUM} is missing; skipped")
        return
    work = Path(tempfile.mkdtemp(prefix="svc-observation-bench-"))
    try:
        with serving(_Handler) as base:
            svc = bench_svc(base, work)
            pw = asyncio.run(_pw(base))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"median of {READS} reads of a loaded page; bytes and cl100k tokens per observation")
    print(
        f"{'page':30}{'svc ms':>8}{'pw ms':>8}{'svc header':>11}{'svc bytes':>11}"
        f"{'pw bytes':>10}{'size':>7}{'svc tok':>9}{'pw tok':>9}{'tokens':>8}{'svc act':>9}"
        f"{'pw act':>8}"
    )
    for path, label in labels().items():
        a, b = svc[path], pw[path]
        print(
            f"{label:30}{a['ms']:8.1f}{b['ms']:8.1f}{a['header']:11,.0f}{a['bytes']:11,.0f}"
            f"{b['bytes']:10,.0f}{a['bytes'] / b['bytes']:7.2f}{a['tokens']:9,.0f}"
            f"{b['tokens']:9,.0f}{a['tokens'] / b['tokens']:8.2f}{a['actionable']:9,.0f}"
            f"{b['actionable']:8,.0f}"
        )
    a_tok, b_tok = (sum(side[p]["tokens"] for p in labels()) for side in (svc, pw))
    print(f"{'all pages':30}{'':56}{a_tok:9,.0f}{b_tok:9,.0f}{a_tok / b_tok:8.2f}")
    print(
        "(svc ms include the HTTP API, agent scheduling and the bridge; Playwright's go over CDP "
        "directly; svc header = the observation without contexts, content and elements (the "
        "page reference beside it is not counted; it is on every response); size = svc bytes / "
        "Playwright bytes, tokens = svc tok / pw tok; target: both <= 0.50, svc act >= pw act, "
        "svc ms <= pw ms)"
    )


if __name__ == "__main__":
    main()
