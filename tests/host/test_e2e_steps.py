"""Steps that end where their input took the page (issue 36 point 5): after input, a step waits
a frame for a load start only when the main document began a navigation (its `navigate` events)
or its focus went into a frame, where those events are not seen. Each case here is input whose
page handler navigates at once: the step must end on the new page, with its observation."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.host.obs_pages import observation_of

from .hostproc import HostApp
from .routes import Reply, Routes, html

pytestmark = pytest.mark.e2e

HANDLERS = """<!doctype html><html><head><title>Handlers</title></head><body><main>
<label>Jump to <input oninput="location.href='/arrived?typed'"></label>
<label>Section <select onchange="location.href='/arrived?' + this.value">
<option value=none>Choose</option><option value=news>News</option></select></label>
<iframe title="Inner" src="/inner" style="width:300px;height:100px"></iframe>
</main></body></html>"""
INNER = """<!doctype html><html><head><title>Inner</title></head><body>
<button onclick="top.location.href='/arrived?framed'">Leave</button></body></html>"""
ARRIVED = """<!doctype html><html><head><title>Arrived</title></head><body><main>
<h1>Arrived</h1><p>The step ended here.</p></main></body></html>"""

ROUTES = {
    "/handlers": lambda: html(HANDLERS),
    "/inner": lambda: html(INNER),
    "/arrived": lambda: Reply(ARRIVED.encode()),
}


@pytest.fixture(scope="module")
def pages() -> Iterator[Routes]:
    with Routes(ROUTES) as server:
        yield server


def navigate(host: HostApp, sid: str, url: str) -> dict[str, Any]:
    data = host.ok("POST", "/v1/navigate/observe", {"url": url, "session_id": sid, "wait": 0})
    return observation_of(data)


def observed_with(host: HostApp, sid: str, obs: dict[str, Any], name: str) -> dict[str, Any]:
    """`obs`, or a later observation once it shows `name` (a frame's document may load after
    the page is ready)."""
    for _ in range(50):
        if any(e.get("name") == name for e in obs["elements"]):
            return obs
        obs = observation_of(host.ok("POST", "/v1/observe", {"session_id": sid}))
    raise AssertionError(f"{name!r} never showed")


def step(host: HostApp, obs: dict[str, Any], name: str, action: dict[str, Any]) -> dict[str, Any]:
    ref = next(e["ref"] for e in obs["elements"] if e.get("name") == name)
    body = {"actions": [{"ref": ref, **action}]}
    return observation_of(host.ok("POST", f"/v1/observations/{obs['id']}/actions", body))


def page_of(obs: dict[str, Any]) -> dict[str, Any]:
    return {k: obs.get(k) for k in ("title", "content", "elements")}


@pytest.mark.parametrize(
    "case",
    [
        ("Jump to", {"action": "type", "text": "n"}, "typed"),
        ("Section", {"action": "select", "value": "news"}, "news"),
        ("Leave", {"action": "click"}, "framed"),
    ],
    ids=["type", "select", "click in a frame"],
)
def test_input_whose_handler_navigates_ends_on_the_new_page(
    host: HostApp, pages: Routes, session: str, case: tuple[str, dict[str, Any], str]
) -> None:
    name, action, query = case
    expected = page_of(navigate(host, session, pages.url("/arrived")))
    obs = observed_with(host, session, navigate(host, session, pages.url("/handlers")), name)
    after = step(host, obs, name, action)
    assert after["url"] == pages.url(f"/arrived?{query}")
    assert page_of(after) == expected
