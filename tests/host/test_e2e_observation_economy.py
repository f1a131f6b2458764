"""Observation economy end to end (issue 11 point 8, docs/observations.md "Top level"): on small
pages the header is compact, the URL is sent once (in page.url), destinations are relative to the
page, and what decodes them (find, GET, bridge_protocol.observation.decode) still gets the URL and
absolute destinations."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urljoin

import pytest

from bridge_protocol import observation as wire

from . import obs_pages  # noqa: F401  (registers /obs/long)
from .economy_pages import LINKS, MENU, SIGNIN
from .hostproc import HostApp
from .site import Site

pytestmark = pytest.mark.e2e

ENTRIES = ("contexts", "content", "elements")


def compact(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def navigate_observe(host: HostApp, site: Site, sid: str, path: str) -> dict[str, Any]:
    body = {"url": site.url(path), "session_id": sid, "wait": 0.3}
    return host.ok("POST", "/v1/navigate/observe", body)


def test_small_pages_have_the_compact_header(host: HostApp, site: Site, session: str) -> None:
    data = navigate_observe(host, site, session, SIGNIN)
    page, obs = data["page"], data["observation"]
    assert page["url"] == site.url(SIGNIN)
    header = {k: v for k, v in obs.items() if k not in ENTRIES}
    # the URL once (page.url), no semantic mode, no zero counters, geometry as arrays
    assert set(header) == {"id", "seq", "at", "title", "vp", "doc", "truncated"}
    assert re.fullmatch(r"obs_[0-9a-f]{12}", obs["id"])
    assert obs["seq"] >= 1
    assert re.fullmatch(r"\d{8}T\d{6}\.\d{3}Z", obs["at"])  # ISO 8601's basic format
    assert obs["title"] == "Sign in"
    assert len(obs["vp"]) == 4
    assert min(obs["vp"][2:]) > 0
    assert len(obs["doc"]) == 2
    assert obs["doc"][1] > 0
    assert obs["truncated"] is False
    assert compact(header) <= 136  # ~327 bytes before (issue 11), 140 before issue 38
    elements = {e[2]: e for e in obs["elements"] if isinstance(e, list)}
    assert elements["Forgot password?"][3] == "forgot"
    assert elements["Help"][3] == "#"
    decoded = wire.decode(obs, page["url"])
    assert decoded["url"] == site.url(SIGNIN)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", decoded["at"])
    by_name = {e["name"]: e for e in decoded["elements"]}
    assert by_name["Forgot password?"]["dest"] == site.url("/econ/account/forgot")
    assert by_name["Help"]["dest"] == site.url(SIGNIN) + "#"
    assert by_name["Email"]["role"] == "textbox"

    # the same observation read back: identical while the page stays
    assert host.ok("GET", f"/v1/observations/{obs['id']}") == data


def test_destinations_are_relative_and_decode_absolute(
    host: HostApp, site: Site, session: str
) -> None:
    data = navigate_observe(host, site, session, LINKS)
    page_url, obs = data["page"]["url"], data["observation"]
    assert page_url == site.url(LINKS)
    links = [e for e in obs["elements"] if isinstance(e, list) and e[1] == "link"]
    assert [(e[2], e[3]) for e in links] == [(name, sent) for name, _, sent in MENU]
    # a same-page `href="#"` costs one byte of destination, not a URL
    assert next(e for e in links if e[2] == "Home") == [links[0][0], "link", "Home", "#"]
    absolute = {name: urljoin(page_url, href) for name, href, _ in MENU}
    absolute["Home"] = absolute["Products"] = absolute["Pricing"] = absolute["Blog"] = (
        page_url + "#"
    )
    decoded = wire.decode(obs, page_url)
    assert {e["name"]: e["dest"] for e in decoded["elements"]} == absolute

    # find searches and returns absolute destinations
    found = host.ok("POST", f"/v1/observations/{obs['id']}/find", {"query": "links?lang=en#"})
    assert [(e["name"], e["dest"]) for e in found["elements"]] == [
        (name, page_url + "#") for name in ("Home", "Products", "Pricing", "Blog")
    ] + [("Contact", page_url + "#contact")]
    found = host.ok("POST", f"/v1/observations/{obs['id']}/find", {"query": "/econ/menu/sitemap"})
    assert [e["dest"] for e in found["elements"]] == [site.url("/econ/menu/sitemap")]

    # the page moves on: the retained observation now carries its own URL, and still decodes
    navigate_observe(host, site, session, SIGNIN)
    got = host.ok("GET", f"/v1/observations/{obs['id']}")
    assert got["page"]["url"] == site.url(SIGNIN)
    assert got["observation"]["url"] == page_url
    assert {k: v for k, v in got["observation"].items() if k != "url"} == obs
    again = wire.decode(got["observation"], got["page"]["url"])
    assert {e["name"]: e["dest"] for e in again["elements"]} == absolute
    found = host.ok("POST", f"/v1/observations/{obs['id']}/find", {"query": "sitemap"})
    assert [e["dest"] for e in found["elements"]] == [site.url("/econ/menu/sitemap")]


def test_counters_appear_when_not_zero(host: HostApp, site: Site, session: str) -> None:
    obs = navigate_observe(host, site, session, "/obs/long")["observation"]
    assert (obs["clipped_text_count"], obs["truncated"]) == (3, True)
    assert "omitted_node_count" not in obs
    hybrid = host.ok("POST", "/v1/observe", {"session_id": session, "mode": "hybrid", "wait": 0})
    assert hybrid["observation"]["mode"] == "hybrid"
    vp, image = hybrid["observation"]["vp"], hybrid["observation"]["image"]
    assert image["width"] == round(vp[2] * image["scale_x"])
    assert image["height"] == round(vp[3] * image["scale_y"])
