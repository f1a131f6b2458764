"""Follow browser commands (spec §1) in the real headless app (always inactive: no window has
focus): a browser operation selects its session for the next view, recorded as
`ui.session_selected` in global.ndjson, unless the setting is off; API results are the same."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from .hostproc import HostApp
from .site import Site

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module", params=[True, False], ids=["follow-on", "follow-off"])
def follow_host(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[HostApp, bool]]:
    follow = bool(request.param)
    settings = json.dumps({"follow_browser_commands": follow})
    app = HostApp(tmp_path_factory.mktemp("follow"), env={"_SETTINGS": settings}).start()
    try:
        yield app, follow
    finally:
        app.stop()


def selections(host: HostApp) -> list[str]:
    path = host.data_dir / "Logs" / "global.ndjson"
    out = []
    for line in path.read_text("utf-8").splitlines():
        rec = json.loads(line)
        if rec.get("category") == "ui.session_selected":
            out.append(str(rec["data"]["session_id"]))
    return out


def test_browser_operations_select_their_session_unless_follow_is_off(
    follow_host: tuple[HostApp, bool], site: Site
) -> None:
    host, follow = follow_host
    settings = json.loads((host.data_dir / "app-settings.json").read_text())
    assert settings["follow_browser_commands"] is follow
    first, second = host.new_session(), host.new_session()
    a = host.ok("POST", "/v1/navigate", {"url": site.url("/table"), "session_id": first, "wait": 0})
    b = host.ok("POST", "/v1/navigate", {"url": site.url("/"), "session_id": second, "wait": 0})
    host.ok("POST", "/v1/screenshot", {"session_id": first, "wait": 0})
    # the same results either way
    assert a["page"]["url"] == site.url("/table")
    assert b["page"]["url"] == site.url("/")
    if follow:
        # each operation selects its session for the next view, in order
        assert selections(host) == [first, second, first]
    else:
        assert selections(host) == []
    for sid in (first, second):
        host.client.delete(f"/v1/sessions/{sid}")
