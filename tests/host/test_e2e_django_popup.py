"""Popups under Cross-Origin-Opener-Policy (issue 36 point 4; docs/decisions.md "Popups under
COOP"): a same-origin popup of a page that sends the header keeps `window.opener` and
`window.name` as in Chromium, and loses them where Chromium does (another origin, noopener).

Before the fix a fingerprinted session's popup (the default session's) lost both: its first
document, held in the asset scheme until its workers' channel was up, came through two
redirects that send no policy, and Chromium moved the popup to a new browsing context group.
Django admin sends `Cross-Origin-Opener-Policy: same-origin` on every page, so its add-related
popup stayed on "Popup closing…" and the form never got its value.

The real app, one process for the module; a Django project written by the fixture into a temp
folder and served by `manage.py runserver`; local pages served by this module; every step
through the HTTP API with refs from observations."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.httpserver import reply, serving

from .django_site import ADMIN_PASSWORD, ADMIN_USER, Django, running_django
from .hostproc import HostApp
from .obs_pages import observation_of
from .test_e2e_popups import act, log_records, navigate, popup_events, ref, texts

pytestmark = pytest.mark.e2e

MODELS = """
from django.db import models

class Category(models.Model):
    name = models.CharField(max_length=100)
    def __str__(self):
        return self.name

class Product(models.Model):
    name = models.CharField(max_length=100)
    category = models.ForeignKey(Category, on_delete=models.PROTECT)
    def __str__(self):
        return self.name
"""

ADMIN = """
from django.contrib import admin
from .models import Category, Product
admin.site.register(Category)
admin.site.register(Product)
"""


@pytest.fixture(scope="module")
def django_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Django]:
    with running_django(tmp_path_factory.mktemp("django"), models=MODELS, admin=ADMIN) as site:
        yield site


def element(obs: dict[str, Any], name: str) -> dict[str, Any]:
    for e in obs.get("elements", []):
        if e.get("name") == name:
            return dict(e)
    raise AssertionError(f"no element named {name!r} in {obs.get('elements')}")


def test_django_admins_add_related_popup_hands_the_new_object_back(
    host: HostApp, django_site: Django, session: str
) -> None:
    # the condition of the issue: Django sends the policy on its pages
    head = httpx.get(f"{django_site.base}/admin/login/", trust_env=False)
    assert head.headers["cross-origin-opener-policy"] == "same-origin"

    add_url = f"{django_site.base}/admin/shop/product/add/"
    login = navigate(
        host, session, f"{django_site.base}/admin/login/?next=/admin/shop/product/add/"
    )
    obs = login["observation"]
    form = act(
        host,
        obs["id"],
        {"action": "type", "ref": ref(obs, "Username:"), "text": ADMIN_USER},
        {"action": "type", "ref": ref(obs, "Password:"), "text": ADMIN_PASSWORD},
        {"action": "click", "ref": ref(obs, "Log in")},
    )["observation"]
    assert form["url"] == add_url

    # the green "+" beside the category: the popup is the session's current page
    opened = act(host, form["id"], {"action": "click", "ref": ref(form, "Add another category")})
    popup = opened["observation"]
    assert [e["event"] for e in popup_events(popup)] == ["opened"]
    assert popup["url"].startswith(f"{django_site.base}/admin/shop/category/add/?")
    assert "_popup=1" in popup["url"]

    # created in the popup: Django's answer hands it to the opener, which closes the popup
    done = act(
        host,
        popup["id"],
        {"action": "type", "ref": ref(popup, "Name:"), "text": "Garden tools"},
        {"action": "click", "ref": ref(popup, "Save")},
    )
    back = done["observation"]
    closed = popup_events(back)
    assert [e["event"] for e in closed] == ["closed"], texts(back)
    assert closed[0]["current"] is True
    assert back["url"] == add_url
    # the select holds the new object, chosen (its value is the object's id)
    category = element(back, "Category:")
    assert dict(category["opts"])[category["value"]] == "Garden tools"

    saved = act(
        host,
        back["id"],
        {"action": "type", "ref": ref(back, "Name:"), "text": "Rake"},
        {"action": "click", "ref": ref(back, "Save")},
    )["observation"]
    assert saved["url"] == f"{django_site.base}/admin/shop/product/"
    assert any("was added successfully" in t for t in texts(saved)), texts(saved)

    with sqlite3.connect(django_site.db) as db:
        rows = db.execute(
            "SELECT p.name, c.name FROM shop_product p JOIN shop_category c ON p.category_id = c.id"
        ).fetchall()
    assert rows == [("Rake", "Garden tools")]
    # the default session has a fingerprint: its popup's first document would have been held
    skipped = [
        r["message"]
        for r in log_records(host, "identity.workers")
        if r["data"].get("session_id") == session and "is not held" in r["message"]
    ]
    assert len(skipped) == 1
    assert "Cross-Origin-Opener-Policy SameOrigin" in skipped[0]


# -- the cases with local pages ------------------------------------------------------------------

OPENER = """<!doctype html><html><head><title>Opener</title></head><body><main>
<p id=out>no message</p>
<button type=button onclick="window.open('/popup?coop={coop}', 'pname')">Same origin</button>
<button type=button onclick="window.open('{other}/popup?coop={coop}', 'pname')">Other origin</button>
<button type=button onclick="window.open('/popup?coop={coop}', 'pname', 'noopener')">No opener</button>
<a href="/popup?coop={coop}" target=pname rel=noopener>Link without opener</a>
<button type=button onclick="hand()">Hand back</button>
</main><script>
window.addEventListener('message', function (e) {{
  document.getElementById('out').textContent = 'message ' + e.data;
}});
// Django's way: the popup calls its opener, and the opener closes the popup
window.received = function (win, value) {{
  document.getElementById('out').textContent = 'handed ' + value;
  win.close();
}};
function hand() {{ window.open('/handback?n=' + Math.random(), 'hand' + Date.now()); }}
</script></body></html>"""

POPUP = """<!doctype html><html><head><title>Popup</title></head><body><main>
<p id=r></p></main><script>
var r = 'opener ' + (window.opener !== null) + ', name ' + JSON.stringify(window.name);
document.getElementById('r').textContent = r;
if (window.opener) window.opener.postMessage(window.name, '*');
</script></body></html>"""

HANDBACK = """<!doctype html><html><head><title>Popup closing…</title></head><body>
<p>Popup closing…</p><script>window.opener.received(window, 'ok');</script></body></html>"""


def _pages(other: dict[str, str]) -> type[BaseHTTPRequestHandler]:
    class Pages(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            coop = parse_qs(parts.query).get("coop", ["same-origin"])[0]
            if parts.path == "/opener":
                body = OPENER.format(coop=coop, other=other["base"])
            elif parts.path == "/popup":
                body = POPUP
            else:
                body = HANDBACK
            headers = {"Cache-Control": "no-store"}
            if coop != "none":
                headers["Cross-Origin-Opener-Policy"] = coop
            reply(self, body.encode(), "text/html; charset=utf-8", headers)

    return Pages


@pytest.fixture(scope="module")
def pages() -> Iterator[str]:
    other: dict[str, str] = {}
    with serving(_pages(other)) as base, serving(_pages(other)) as second:
        # another host name for the same loopback address: another origin for the browser
        other["base"] = second.replace("127.0.0.1", "localhost")
        yield base


# what Chromium 156 (Debian's /usr/bin/chromium, driven by Playwright) reports for each case
CHROMIUM = [
    ("same-origin", "Same origin", 'opener true, name "pname"'),
    ("same-origin", "Other origin", 'opener false, name ""'),
    ("same-origin", "No opener", 'opener false, name ""'),
    ("same-origin", "Link without opener", 'opener false, name ""'),
    ("same-origin-allow-popups", "Same origin", 'opener true, name "pname"'),
    ("none", "Other origin", 'opener true, name "pname"'),
    ("none", "No opener", 'opener false, name "pname"'),
]


def test_a_popup_keeps_its_opener_and_name_where_chromium_does(host: HostApp, pages: str) -> None:
    seen = []
    for coop, button, _ in CHROMIUM:
        sid = host.new_session()
        try:
            obs = navigate(host, sid, f"{pages}/opener?coop={coop}")["observation"]
            popup = act(host, obs["id"], {"action": "click", "ref": ref(obs, button)})
            report = [t for t in texts(popup["observation"]) if t.startswith("opener ")]
            seen.append((coop, button, report[0] if report else texts(popup["observation"])))
        finally:
            host.client.delete(f"/v1/sessions/{sid}")
    assert seen == CHROMIUM


def test_the_opener_hears_from_its_same_origin_popup_under_coop(
    host: HostApp, pages: str, session: str
) -> None:
    obs = navigate(host, session, f"{pages}/opener?coop=same-origin")["observation"]
    popup = act(host, obs["id"], {"action": "click", "ref": ref(obs, "Same origin")})
    assert 'opener true, name "pname"' in texts(popup["observation"])
    # the popup has no history: back closes it, and the opener shows what the popup posted
    data = host.ok(
        "POST", "/v1/navigate/observe", {"session_id": session, "navigation": "back", "wait": 0}
    )
    assert "message pname" in texts(observation_of(data))


def test_popups_that_close_themselves_are_gone(host: HostApp, pages: str, session: str) -> None:
    """More open-and-close cycles than the bound of open popups (5): each popup calls its
    opener, which closes it, as Django's does; none is refused."""
    obs = navigate(host, session, f"{pages}/opener?coop=same-origin")["observation"]
    for n in range(8):
        back = act(host, obs["id"], {"action": "click", "ref": ref(obs, "Hand back")})
        back = back["observation"]
        events = [(e["event"], e.get("reason")) for e in popup_events(back)]
        assert events == [("opened", None), ("closed", None)], (n, events)
        assert "handed ok" in texts(back)
        assert back["url"] == obs["url"]
        obs = back
    records = [
        json.loads(line)
        for path in sorted((host.data_dir / "Logs" / "sessions").glob("*.ndjson"))
        for line in path.read_text().splitlines()
    ]
    popups = [
        r["data"]["popup"]
        for r in records
        if r.get("category") == "page.popup" and r["data"].get("session_id") == session
    ]
    assert popups == ["opened", "closed"] * 8
