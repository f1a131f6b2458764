"""Downloads on the real headless app (issue 11, point 3): saved under
`{data_dir}/Downloads/<session id>/` with the server's name, numbered instead of overwritten,
waited for by the operation that caused them, and reported in the post-action observation and
the session log; a dropped connection is a failed download. Steps that navigate (a form post
answered by a redirect) wait for no download."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.host.obs_pages import observation_of

from .download_pages import MANUAL, NOTES, REPORT, ROUTES, SLOW_STALL
from .hostproc import HostApp
from .routes import Routes

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def files() -> Iterator[Routes]:
    with Routes(ROUTES) as server:
        yield server


def navigate(host: HostApp, sid: str, url: str) -> dict[str, Any]:
    data = host.ok("POST", "/v1/navigate/observe", {"url": url, "session_id": sid, "wait": 0})
    return observation_of(data)


def click(host: HostApp, obs: dict[str, Any], name: str) -> dict[str, Any]:
    ref = next(e["ref"] for e in obs["elements"] if e.get("name") == name)
    body = {"actions": [{"action": "click", "ref": ref}]}
    data = host.ok("POST", f"/v1/observations/{obs['id']}/actions", body)
    return observation_of(data)


def downloads(obs: dict[str, Any]) -> list[dict[str, Any]]:
    return [c["d"] for c in obs.get("content", []) if c["k"] == "download"]


def folder(host: HostApp, sid: str) -> Path:
    return host.data_dir / "Downloads" / sid


def log_records(host: HostApp, sid: str, category: str = "page.download") -> list[dict[str, Any]]:
    path = host.data_dir / "Logs" / "sessions" / f"{int(sid.removeprefix('Session'))}.ndjson"
    lines = path.read_text().splitlines() if path.exists() else []
    return [r for r in map(json.loads, lines) if r["category"] == category]


def page_of(obs: dict[str, Any]) -> dict[str, Any]:
    """What an observation shows of its page, without what names the observation itself."""
    return {k: obs.get(k) for k in ("url", "title", "content", "elements")}


def test_a_download_link_saves_the_file_and_reports_it(
    host: HostApp, files: Routes, session: str
) -> None:
    obs = navigate(host, session, files.url("/downloads"))
    after = click(host, obs, "Notes")
    [d] = downloads(after)
    saved = folder(host, session) / "notes.txt"
    assert d == {
        "state": "completed",
        "file_name": "notes.txt",
        "url": files.url("/files/notes.txt"),
        "output_path": str(saved),
        "bytesize": len(NOTES),
        "mime_type": "text/plain",
        "trust": "untrusted_website_content",
    }
    assert saved.read_bytes() == NOTES
    assert after["url"] == files.url("/downloads")  # the page stays

    # the same name again: numbered, the first file untouched
    again = click(host, after, "Notes")
    [d2] = downloads(again)
    assert d2["output_path"] == str(folder(host, session) / "notes (1).txt")
    assert Path(d2["output_path"]).read_bytes() == NOTES
    assert saved.read_bytes() == NOTES

    [first, second] = log_records(host, session)
    assert first["data"]["output_path"] == str(saved)
    assert (first["data"]["state"], first["data"]["session_id"]) == ("completed", session)
    assert second["data"]["file_name"] == "notes (1).txt"


def test_a_pdf_opened_by_a_link_is_a_download_in_a_fingerprinted_session(
    host: HostApp, files: Routes, session: str
) -> None:
    """The session's fingerprint turns the engine's plugins on (navigator.plugins lists a
    desktop browser's PDF viewer, docs/decisions.md "Plugins"); the viewer stays off, so a PDF a
    link opens is saved as in a native session, not rendered."""
    obs = navigate(host, session, files.url("/downloads"))
    after = click(host, obs, "Manual")
    [d] = downloads(after)
    assert (d["state"], d["file_name"], d["mime_type"]) == (
        "completed",
        "manual.pdf",
        "application/pdf",
    )
    assert Path(d["output_path"]).read_bytes() == MANUAL
    assert after["url"] == files.url("/downloads")


def test_an_attachment_is_saved_under_its_own_name_inside_the_folder(
    host: HostApp, files: Routes, session: str
) -> None:
    obs = navigate(host, session, files.url("/downloads"))
    after = click(host, obs, "Report")
    [d] = downloads(after)
    assert d["state"] == "completed"
    assert d["output_path"] == str(folder(host, session) / "report.csv")
    assert d["mime_type"] == "text/csv"
    assert Path(d["output_path"]).read_bytes() == REPORT

    after = click(host, navigate(host, session, files.url("/downloads")), "Evil")
    [evil] = downloads(after)
    path = Path(evil["output_path"])
    assert path.parent == folder(host, session)
    assert not path.name.startswith(".")
    assert all(ord(c) >= 32 for c in path.name)
    assert path.read_bytes() == b"echo no\n"


def test_a_dropped_connection_is_a_failed_download(
    host: HostApp, files: Routes, session: str
) -> None:
    obs = navigate(host, session, files.url("/downloads"))
    after = click(host, obs, "Broken")
    [d] = downloads(after)
    assert d["state"] == "failed"
    assert d["file_name"] == "broken"
    assert "output_path" not in d
    assert d["reason"]
    assert not (folder(host, session) / "broken").exists()  # no partial file is left
    [record] = log_records(host, session)
    assert record["data"]["state"] == "failed"
    assert record["level"] == "info"


def test_a_perform_click_waits_for_its_download(host: HostApp, files: Routes, session: str) -> None:
    host.ok(
        "POST", "/v1/navigate", {"url": files.url("/downloads"), "session_id": session, "wait": 0}
    )
    host.ok(
        "POST",
        "/v1/perform",
        {"session_id": session, "actions": [{"action": "click", "selector": "#notes"}], "wait": 0},
    )
    # the operation answered after the file was complete
    saved = folder(host, session) / "notes.txt"
    assert saved.read_bytes() == NOTES
    obs = observation_of(host.ok("POST", "/v1/observe", {"session_id": session}))
    [d] = downloads(obs)
    assert (d["state"], d["output_path"]) == ("completed", str(saved))


def test_a_download_still_running_at_the_deadline_fails_within_it(
    host: HostApp, files: Routes, session: str
) -> None:
    host.ok(
        "POST", "/v1/navigate", {"url": files.url("/downloads"), "session_id": session, "wait": 0}
    )
    start = time.monotonic()
    host.ok(
        "POST",
        "/v1/perform",
        {
            "session_id": session,
            "actions": [{"action": "click", "selector": "#slow"}],
            "wait": 0,
            "timeout": 3,
        },
    )
    assert time.monotonic() - start < 3  # the operation answered within its own deadline
    seen: list[dict[str, Any]] = []
    # reported in the next observation once Chromium announced it; on a loaded machine Chromium
    # may announce it only after the operation answered: then it runs on like a download a
    # person started, and fails when the server drops it after its stall
    until = time.monotonic() + SLOW_STALL + 10
    while not seen and time.monotonic() < until:
        seen = downloads(observation_of(host.ok("POST", "/v1/observe", {"session_id": session})))
    [d] = seen
    assert d["state"] == "failed"
    if d["reason"] != "did not finish within the operation's deadline":
        assert time.monotonic() - start > SLOW_STALL, d
    assert not (folder(host, session) / "slow").exists()


def test_a_form_post_answered_by_a_redirect_is_one_page_load_and_waits_for_no_download(
    host: HostApp, files: Routes, session: str
) -> None:
    """Issue 36: the redirect's second request keeps the post's navigation type, so it was
    counted as a second navigation that started no load, a download looked due, and every such
    step waited the whole announce bound (2 s) for it."""
    expected = page_of(navigate(host, session, files.url("/results")))
    obs = navigate(host, session, files.url("/forms"))
    after = click(host, obs, "Search")
    assert page_of(after) == expected
    assert after["url"] == files.url("/results")
    assert downloads(after) == []
    assert (files.hits("/search"), files.hits("/results")) == (1, 2)
    assert log_records(host, session, "page.download_wait") == []
    assert not folder(host, session).exists()


def test_a_click_onto_a_page_that_moves_on_at_load_ends_where_it_went(
    host: HostApp, files: Routes, session: str
) -> None:
    """No fixed pause after a navigating batch, and still a navigation the new document starts
    from its load handler is followed to its own document before the page is read."""
    expected = page_of(navigate(host, session, files.url("/results")))
    obs = navigate(host, session, files.url("/forms"))
    after = click(host, obs, "Hop")
    assert page_of(after) == expected
    assert files.hits("/hop") == 1


def test_a_form_post_answered_by_a_file_is_waited_for_and_reported(
    host: HostApp, files: Routes, session: str
) -> None:
    obs = navigate(host, session, files.url("/forms"))
    after = click(host, obs, "Export")
    [d] = downloads(after)
    saved = folder(host, session) / "export.csv"
    assert (d["state"], d["output_path"], d["url"]) == (
        "completed",
        str(saved),
        files.url("/export"),
    )
    assert saved.read_bytes() == REPORT
    assert after["url"] == files.url("/forms")  # the page stays


def test_a_download_link_whose_server_answers_late_is_waited_for(
    host: HostApp, files: Routes, session: str
) -> None:
    """The wait the redirect must not pay, where it is due: the engine fetches an `<a
    download>` without a load, and announces the download only when the server answered."""
    obs = navigate(host, session, files.url("/forms"))
    after = click(host, obs, "Late notes")
    [d] = downloads(after)
    assert (d["state"], d["file_name"]) == ("completed", "late.txt")
    assert (folder(host, session) / "late.txt").read_bytes() == NOTES
    [wait] = log_records(host, session, "page.download_wait")
    assert wait["data"]["announced"] is True
