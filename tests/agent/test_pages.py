"""agent.pages.PageRegistry on its own: which page an operation is about, and when an attached
page no longer is what it was attached as (spec 1 §4 shorthand rules 3-4 and 7, attached pages).

No trio and no bridge: the registry is told what the host answered. tests/agent/test_browser_routes.py
checks the same rules through HTTP and a scripted host.
"""

from __future__ import annotations

import msgspec
import pytest

from agent.pages import PageRegistry
from bridge_protocol import ErrorId, SvcError


def _error(exc: pytest.ExceptionInfo[SvcError]) -> tuple[str, dict[str, object]]:
    return exc.value.error.id, dict(exc.value.error.details or {})


def test_no_current_page_before_any_session_is_selected() -> None:
    with pytest.raises(SvcError) as exc:
        PageRegistry().select(None)
    assert exc.value.error.id == ErrorId.ACTIVE_PAGE_NOT_FOUND


def test_the_current_page_is_made_once_per_session_at_the_last_reported_url() -> None:
    pages = PageRegistry()
    pages.saw_url("Session1", "https://a.test/")  # before any page reference exists
    first = pages.current_page("Session1")
    assert (first.session_id, first.url, first.attached) == ("Session1", "https://a.test/", False)
    assert pages.current_page("Session1") is first
    assert pages.current_page("Session2").url == "about:blank"


def test_select_names_a_session_or_falls_back_to_the_most_recent_one() -> None:
    pages = PageRegistry()
    one = pages.select("Session1")
    two = pages.select("Session2")
    assert pages.last_session == "Session2"
    assert pages.select(None) is two
    assert pages.select("Session1") is one
    assert pages.select(None) is one


def test_retarget_moves_the_current_page_and_makes_the_session_most_recent() -> None:
    pages = PageRegistry()
    pages.select("Session1")
    page = pages.retarget("Session2", "https://b.test/")
    assert (page.url, pages.last_session) == ("https://b.test/", "Session2")
    assert pages.select(None) is page
    # The host has not reported it yet: only the retry target moved.
    assert pages.live_url("Session2") is None


def test_saw_url_updates_the_live_url_the_current_page_and_the_given_page() -> None:
    pages = PageRegistry()
    current = pages.current_page("Session1")
    attached = pages.attach("Session1", "https://a.test/", None)
    pages.saw_url("Session1", "https://a.test/next", attached)
    assert pages.live_url("Session1") == "https://a.test/next"
    assert current.url == attached.url == "https://a.test/next"
    pages.saw_url("Session1", None)  # an answer without a URL says nothing
    pages.saw_url("Session1", "")
    assert pages.live_url("Session1") == "https://a.test/next"


def test_attached_pages_are_found_by_id_and_unknown_ids_are_refused() -> None:
    pages = PageRegistry()
    page = pages.attach("Session3", "https://a.test/", "Exit")
    assert page.attached
    assert page.id.startswith("page_")
    assert pages.attached(page.id) is page
    assert msgspec.to_builtins(page.ref()) == {
        "id": page.id,
        "session_id": "Session3",
        "url": "https://a.test/",
    }
    with pytest.raises(SvcError) as exc:
        pages.attached("page_nope")
    assert _error(exc) == (ErrorId.PAGE_NOT_FOUND, {"page_id": "page_nope"})


def test_a_pinned_page_matches_its_proxy_by_name_key_and_its_url_when_normalized() -> None:
    pages = PageRegistry()
    page = pages.attach("Session1", "https://a.test/x", "Exit")
    pages.check_pinned(page, "EXIT")  # proxy aliases compare case-insensitively
    pages.saw_url("Session1", "HTTPS://A.test/x")
    pages.check_pinned(page, "exit")
    direct = pages.attach("Session2", "https://a.test/", None)
    pages.check_pinned(direct, None)


def test_a_pinned_page_is_refused_when_its_proxy_changed() -> None:
    pages = PageRegistry()
    page = pages.attach("Session1", "https://a.test/", "Exit")
    for now in ("Other", None):
        with pytest.raises(SvcError) as exc:
            pages.check_pinned(page, now)
        assert _error(exc) == (
            ErrorId.PAGE_MISMATCH,
            {"page_id": page.id, "field": "proxy", "attached": "Exit", "current": now},
        )
    direct = pages.attach("Session2", "https://a.test/", None)
    with pytest.raises(SvcError):
        pages.check_pinned(direct, "Exit")


def test_a_pinned_page_is_refused_once_the_session_loads_another_url() -> None:
    pages = PageRegistry()
    page = pages.attach("Session1", "https://a.test/", None)
    # Loading counts before the host answers: a failed navigation still left the document.
    pages.loading("Session1", "https://b.test/")
    with pytest.raises(SvcError) as exc:
        pages.check_pinned(page, None)
    assert _error(exc) == (
        ErrorId.PAGE_MISMATCH,
        {
            "page_id": page.id,
            "field": "url",
            "attached": "https://a.test/",
            "current": "https://b.test/",
        },
    )


def test_forget_session_drops_its_pages_and_only_its_own() -> None:
    pages = PageRegistry()
    kept = pages.attach("Session2", "https://b.test/", None)
    gone = pages.attach("Session1", "https://a.test/", None)
    pages.select("Session2")
    pages.select("Session1")
    pages.forget_session("Session1")
    assert pages.last_session is None
    assert pages.live_url("Session1") is None
    with pytest.raises(SvcError):
        pages.attached(gone.id)
    assert pages.attached(kept.id) is kept
    with pytest.raises(SvcError) as exc:
        pages.select(None)
    assert exc.value.error.id == ErrorId.ACTIVE_PAGE_NOT_FOUND
    # A new reference for the session, not the forgotten one.
    assert pages.current_page("Session1").url == "about:blank"
