"""Observation size on real web applications (issue 36: an observation stays at most half of
Playwright's snapshot): Django admin (the project of tests/host/test_e2e_django_admin.py: its
login page, changelist with search, filters and actions, add form with a two-list chooser, a
calendar and an inline formset) and Datasette (the garden database of
tests/host/test_e2e_datasette.py: a table page with facets, the SQL page), each page read by
svc (`POST /v1/observe`, the observation JSON as served, compact) and by Playwright
(`page.locator("body").aria_snapshot()`, and the AI-mode snapshot with refs that Playwright MCP
hands an agent, Debian's chromium), logged in the same way. Bytes and cl100k tokens
(benchmarks/tokens.py) of the same texts, and their ratios (issue 38: observation tokens per step
at most 0.5 x Playwright's on the real applications)."""

from __future__ import annotations

import asyncio
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from bridge_protocol import observation as wire
from tests.host.appserver import app_server
from tests.host.django_site import ADMIN_PASSWORD, ADMIN_USER, running_django
from tests.host.test_e2e_datasette import _build
from tests.host.test_e2e_django_admin import ADMIN, MODELS, SETUP
from tests.ports import free_port

from .engine_bench import CHROMIUM, FLAGS, Svc
from .tokens import compact, tokens

DJANGO_PAGES = {
    "/admin/login/": "Django admin: log in",
    "/admin/shop/product/": "Django admin: changelist",
    "/admin/shop/product/add/": "Django admin: add form",
}
DATASETTE_PAGES = {
    "/garden/plants": "Datasette: table with facets",
    "/garden": "Datasette: database, SQL",
}


def _svc_login(svc: Svc, sid: str, base: str) -> None:
    """Django's login form, by refs as an agent fills it."""
    r = svc.client.post(
        "/v1/navigate/observe", json={"url": base + "/admin/login/", "session_id": sid}
    )
    data = r.json()["data"]
    obs = wire.decode(data["observation"], data["page"]["url"])
    ref = {e.get("name", ""): e["ref"] for e in obs["elements"]}
    actions = [
        {"action": "type", "ref": ref["Username:"], "text": ADMIN_USER},
        {"action": "type", "ref": ref["Password:"], "text": ADMIN_PASSWORD},
        {"action": "click", "ref": ref["Log in"]},
    ]
    r = svc.client.post(f"/v1/observations/{obs['id']}/actions", json={"actions": actions})
    assert r.status_code == 200, r.text


def _svc_texts(svc: Svc, sid: str, base: str, pages: dict[str, str]) -> dict[str, str]:
    """Per page: the observation JSON as served, compact."""
    out = {}
    for path in pages:
        r = svc.client.post(
            "/v1/navigate/observe", json={"url": base + path, "session_id": sid, "wait": 0.3}
        )
        assert r.status_code == 200, r.text
        out[path] = compact(r.json()["data"]["observation"])
    return out


async def _pw_texts(django: str, datasette: str) -> dict[str, tuple[str, str]]:
    """Per page: the ARIA snapshot, and the AI-mode snapshot (with refs, what Playwright MCP
    hands an agent)."""
    from playwright.async_api import Page, async_playwright

    async def sizes(page: Page) -> tuple[str, str]:
        plain = await page.locator("body").aria_snapshot()
        ai = await page.aria_snapshot(mode="ai")
        return plain, ai

    out: dict[str, tuple[str, str]] = {}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = await browser.new_page(viewport={"width": 1920, "height": 947})
        for base, pages in ((django, DJANGO_PAGES), (datasette, DATASETTE_PAGES)):
            for path in pages:
                await page.goto(base + path)
                if path == "/admin/login/":
                    out[path] = await sizes(page)
                    await page.fill("#id_username", ADMIN_USER)
                    await page.fill("#id_password", ADMIN_PASSWORD)
                    await page.click("input[type=submit]")
                    await page.wait_for_load_state()
                    continue
                await page.wait_for_timeout(300)
                out[path] = await sizes(page)
        await browser.close()
    return out


def main() -> None:
    if not Path(CHROMIUM).exists():
        print(f"apps_bench: {CHROMIUM} is missing; skipped")
        return
    work = Path(tempfile.mkdtemp(prefix="svc-apps-bench-"))
    try:
        _build(work / "garden.db")
        port = free_port()
        ds = f"http://127.0.0.1:{port}"
        datasette = str(Path(sys.executable).parent / "datasette")
        serve = [datasette, "serve", "garden.db", "--host", "127.0.0.1", "--port", str(port)]
        with (
            running_django(work / "django", models=MODELS, admin=ADMIN, setup=SETUP) as dj,
            app_server(serve, work, f"{ds}/garden/plants", stop=signal.SIGKILL),
        ):
            svc = Svc(work / "svc")
            try:
                sid = svc.session()
                login = _svc_texts(svc, sid, dj.base, {"/admin/login/": ""})
                _svc_login(svc, sid, dj.base)
                ours = {
                    **login,
                    **_svc_texts(svc, sid, dj.base, dict(list(DJANGO_PAGES.items())[1:])),
                }
                ours.update(_svc_texts(svc, sid, ds, DATASETTE_PAGES))
            finally:
                svc.close()
            theirs = asyncio.run(_pw_texts(dj.base, ds))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    pages = {**DJANGO_PAGES, **DATASETTE_PAGES}

    def measure(text: str) -> tuple[int, int]:
        return len(text.encode()), tokens(text)

    rows = {p: [measure(ours[p]), measure(theirs[p][0]), measure(theirs[p][1])] for p in pages}
    rows["all pages"] = [
        (sum(r[i][0] for r in rows.values()), sum(r[i][1] for r in rows.values())) for i in range(3)
    ]
    print(
        "per observation on real applications (svc: observation JSON; Playwright: ARIA snapshot, "
        "and the AI-mode one with refs); bytes, then cl100k tokens"
    )
    print(
        f"{'page':34}{'svc B':>8}{'pw B':>8}{'size':>6}{'pw ai B':>9}{'size':>6}"
        f"{'svc tok':>9}{'pw tok':>8}{'tok':>6}{'pw ai tok':>10}{'tok':>6}"
    )
    for key, ((a, a_tok), (b, b_tok), (c, c_tok)) in rows.items():
        label = pages.get(key, key)
        print(
            f"{label:34}{a:8,}{b:8,}{a / b:6.2f}{c:9,}{a / c:6.2f}"
            f"{a_tok:9,}{b_tok:8,}{a_tok / b_tok:6.2f}{c_tok:10,}{a_tok / c_tok:6.2f}"
        )
    print(
        "(pw: page.locator('body').aria_snapshot(); pw ai: page.aria_snapshot(mode='ai'), with "
        "refs, as Playwright MCP's snapshot; size and tok = svc / that; target <= 0.50)"
    )


if __name__ == "__main__":
    main()
