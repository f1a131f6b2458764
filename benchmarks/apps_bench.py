"""Observation size on real web applications (issue 36: an observation stays at most half of
Playwright's snapshot): Django admin (the project of tests/host/test_e2e_django_admin.py: its
login page, changelist with search, filters and actions, add form with a two-list chooser, a
calendar and an inline formset) and Datasette (the garden database of
tests/host/test_e2e_datasette.py: a table page with facets, the SQL page), each page read by
svc (`POST /v1/observe`, the observation JSON as served, compact) and by Playwright
(`page.locator("body").aria_snapshot()`, Debian's chromium), logged in the same way. Bytes and
their ratio; tokens are issue 38's."""

from __future__ import annotations

import asyncio
import json
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

from bridge_protocol import observation as wire
from tests.host.appserver import app_server
from tests.host.django_site import ADMIN_PASSWORD, ADMIN_USER, running_django
from tests.host.test_e2e_datasette import _build
from tests.host.test_e2e_django_admin import ADMIN, MODELS, SETUP
from tests.ports import free_port

from .engine_bench import CHROMIUM, FLAGS, Svc

DJANGO_PAGES = {
    "/admin/login/": "Django admin: log in",
    "/admin/shop/product/": "Django admin: changelist",
    "/admin/shop/product/add/": "Django admin: add form",
}
DATASETTE_PAGES = {
    "/garden/plants": "Datasette: table with facets",
    "/garden": "Datasette: database, SQL",
}


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


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


def _svc_sizes(svc: Svc, sid: str, base: str, pages: dict[str, str]) -> dict[str, int]:
    out = {}
    for path in pages:
        r = svc.client.post(
            "/v1/navigate/observe", json={"url": base + path, "session_id": sid, "wait": 0.3}
        )
        assert r.status_code == 200, r.text
        out[path] = _size(r.json()["data"]["observation"])
    return out


async def _pw_sizes(django: str, datasette: str) -> dict[str, tuple[int, int]]:
    """Per page: the ARIA snapshot's bytes, and the AI-mode snapshot's (with refs, what Playwright
    MCP hands an agent)."""
    from playwright.async_api import Page, async_playwright

    async def sizes(page: Page) -> tuple[int, int]:
        plain = await page.locator("body").aria_snapshot()
        ai = await page.aria_snapshot(mode="ai")
        return len(plain.encode()), len(ai.encode())

    out: dict[str, tuple[int, int]] = {}
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
                login = _svc_sizes(svc, sid, dj.base, {"/admin/login/": ""})
                _svc_login(svc, sid, dj.base)
                ours = {
                    **login,
                    **_svc_sizes(svc, sid, dj.base, dict(list(DJANGO_PAGES.items())[1:])),
                }
                ours.update(_svc_sizes(svc, sid, ds, DATASETTE_PAGES))
            finally:
                svc.close()
            theirs = asyncio.run(_pw_sizes(dj.base, ds))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(
        "bytes per observation on real applications (svc: observation JSON; Playwright: ARIA snapshot)"
    )
    print(f"{'page':34}{'svc bytes':>11}{'pw bytes':>10}{'size':>7}{'pw ai bytes':>13}{'size':>7}")
    for path, label in {**DJANGO_PAGES, **DATASETTE_PAGES}.items():
        a, (b, c) = ours[path], theirs[path]
        print(f"{label:34}{a:11,}{b:10,}{a / b:7.2f}{c:13,}{a / c:7.2f}")
    a = sum(ours.values())
    b, c = (sum(t[i] for t in theirs.values()) for i in (0, 1))
    print(f"{'all pages':34}{a:11,}{b:10,}{a / b:7.2f}{c:13,}{a / c:7.2f}")
    print(
        "(pw bytes: page.locator('body').aria_snapshot(); pw ai bytes: page.aria_snapshot("
        "mode='ai'), with refs, as Playwright MCP's snapshot; size = svc / that; target <= 0.50)"
    )


if __name__ == "__main__":
    main()
