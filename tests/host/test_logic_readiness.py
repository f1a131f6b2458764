"""Main-frame readiness state machine (shorthand rules 6-8) over plain probes."""

from __future__ import annotations

from host_app.logic.readiness import (
    CHALLENGE_WAIT,
    HISTORY_MOVE_GRACE,
    RENDERER_GONE,
    Failed,
    Probe,
    Readiness,
    Ready,
    settle_restarts,
)

OLD = Probe("http://a/old", "complete", 100, 200, 1.0, "Old")


def test_old_document_never_ready() -> None:
    r = Readiness("url", old=OLD, previous_status=200, target="http://a/new")
    assert r.probe(OLD, 0) is None


def test_new_document_ready_after_parse_with_source() -> None:
    r = Readiness("url", old=OLD, previous_status=200, target="http://a/new")
    assert r.probe(Probe("http://a/new", "loading", 10, 200, 2.0), 0) is None
    assert r.probe(Probe("http://a/new", "interactive", 0, 200, 2.0), 0) is None
    out = r.probe(Probe("http://a/new", "interactive", 50, 200, 2.0, "New"), 0)
    assert out == Ready("http://a/new", "New", 200, 2.0)


def test_error_status_fails_at_commit_without_waiting_for_load() -> None:
    r = Readiness("url", old=OLD, previous_status=200, target="http://a/x")
    out = r.probe(Probe("http://a/x", "loading", 0, 404, 2.0), 0)
    assert isinstance(out, Failed)
    assert out.error.id == "UPSTREAM_UNAVAILABLE"
    assert out.error.details == {"url": "http://a/x", "target_http_status": 404}


def test_a_challenge_status_is_judged_once_the_document_is_parsed() -> None:
    """A 403 (429, 503) is a challenge or an error by what its document shows: a probe that
    sees it before its title and markers are parsed waits (it failed a navigation the
    challenge would have continued, when the probe came early)."""
    r = Readiness("url", old=OLD, previous_status=200, target="http://a/x")
    assert r.probe(Probe("http://a/x", "loading", 0, 403, 2.0), 0) is None
    assert r.probe(Probe("http://a/x", "interactive", 30, 403, 2.0, challenge=True), 0.1) is None
    plain = Readiness("url", old=OLD, previous_status=200, target="http://a/x")
    assert plain.probe(Probe("http://a/x", "loading", 0, 403, 2.0), 0) is None
    out = plain.probe(Probe("http://a/x", "interactive", 30, 403, 2.0), 0.1)
    assert isinstance(out, Failed)
    # without the challenge wait, at commit as any error status
    off = Readiness("url", old=OLD, previous_status=200, target="http://a/x", challenge_wait=False)
    assert isinstance(off.probe(Probe("http://a/x", "loading", 0, 403, 2.0), 0), Failed)


def test_error_status_is_data_when_not_strict() -> None:
    r = Readiness("url", old=OLD, previous_status=None, target="http://a/x", strict=False)
    out = r.probe(Probe("http://a/x", "complete", 30, 500, 2.0), 0)
    assert isinstance(out, Ready)
    assert out.status == 500


def test_fragment_move_keeps_previous_status() -> None:
    r = Readiness("same-document", old=OLD, previous_status=203, target="http://a/old#f")
    assert r.probe(OLD, 0) is None
    out = r.probe(Probe("http://a/old#f", "complete", 100, 200, 1.0), 0)
    assert out == Ready("http://a/old#f", "", 203, 1.0)


def test_history_same_document_move() -> None:
    r = Readiness("history", old=OLD, previous_status=201)
    out = r.probe(Probe("http://a/prev", "complete", 100, 200, 1.0), 0)
    assert isinstance(out, Ready)
    assert out.status == 201


def test_history_with_load_waits_for_new_document() -> None:
    r = Readiness("history", old=OLD, previous_status=201)
    r.started()
    assert r.probe(Probe("http://a/prev", "complete", 100, 200, 1.0), 0) is None
    out = r.probe(Probe("http://a/prev", "complete", 100, 200, 3.0), 0)
    assert isinstance(out, Ready)
    assert out.status == 200


def test_a_history_move_of_a_frame_only_is_taken_once_no_main_frame_load_follows() -> None:
    # back after a link in a frame: the history is at its entry, the page's document unchanged
    r = Readiness("history", old=OLD, previous_status=200)
    assert r.probe(OLD, 0.0) is None  # the move has not been seen yet
    r.history_moved(0.1)
    assert r.probe(OLD, 0.1 + HISTORY_MOVE_GRACE / 2) is None
    out = r.probe(OLD, 0.1 + HISTORY_MOVE_GRACE)
    assert out == Ready(OLD.href, OLD.title, 200, OLD.origin)


def test_a_history_move_with_a_main_frame_load_waits_for_its_document() -> None:
    r = Readiness("history", old=OLD, previous_status=200)
    r.history_moved(0.0)
    r.started()
    assert r.probe(OLD, 10 * HISTORY_MOVE_GRACE) is None
    out = r.probe(Probe("http://a/prev", "complete", 100, 200, 3.0), 10 * HISTORY_MOVE_GRACE)
    assert out == Ready("http://a/prev", "", 200, 3.0)


def test_a_load_while_settling_may_be_a_move_within_the_document() -> None:
    r = Readiness("restart", old=OLD, previous_status=200)
    r.started()
    assert r.probe(OLD, 0.0) is None  # a real navigation not committed yet
    moved = Probe(OLD.href + "#basic", "complete", 100, 0, OLD.origin, OLD.title)
    assert r.probe(moved, 0.0) == Ready(moved.href, OLD.title, 200, OLD.origin)
    # the same URL, the main frame idle for the grace: the state only
    r = Readiness("restart", old=OLD, previous_status=200)
    r.started()
    r.history_moved(0.0)
    assert r.probe(OLD, HISTORY_MOVE_GRACE / 2) is None
    assert r.probe(OLD, HISTORY_MOVE_GRACE) == Ready(OLD.href, OLD.title, 200, OLD.origin)
    # a new document is waited for as after any load
    r = Readiness("restart", old=OLD, previous_status=200)
    r.started()
    out = r.probe(Probe("http://a/next", "complete", 100, 200, 7.0), 0.0)
    assert out == Ready("http://a/next", "", 200, 7.0)


def test_an_unanswered_probe_while_settling_is_no_new_document() -> None:
    ready = Ready(OLD.href, OLD.title, 200, OLD.origin)
    assert not settle_restarts(ready, Probe(OLD.href + "#m1", "loading", 0, 0, -1.0))
    assert not settle_restarts(ready, Probe(OLD.href + "#m1", "complete", 100, 0, OLD.origin))
    assert settle_restarts(ready, Probe("http://a/next", "loading", 0, 200, 9.0))
    # nor is it a commit that a later load failure would come after
    r = Readiness("url", old=OLD, previous_status=200, target="http://a/next")
    assert r.probe(Probe("http://a/next", "loading", 0, 0, -1.0), 0.0) is None
    assert r.committed is None


def test_challenge_gets_time_then_fails() -> None:
    r = Readiness("url", old=OLD, previous_status=None, target="http://a/c")
    challenge = Probe("http://a/c", "complete", 100, 503, 2.0, "Just a moment...", True)
    assert r.probe(challenge, 10.0) is None
    assert r.probe(challenge, 10.0 + CHALLENGE_WAIT - 0.1) is None
    failed = r.probe(challenge, 10.0 + CHALLENGE_WAIT)
    assert isinstance(failed, Failed)
    assert failed.error.details == {
        "url": "http://a/c",
        "target_http_status": 503,
        "needs_person": {"kind": "bot_check"},
    }
    # a plain 503 (no challenge marker) says nothing of a person
    r = Readiness("url", old=OLD, previous_status=None, target="http://a/c")
    plain = r.probe(Probe("http://a/c", "complete", 100, 503, 2.0), 0.0)
    assert isinstance(plain, Failed)
    assert plain.error.details is not None
    assert "needs_person" not in plain.error.details


def test_challenge_that_continues_succeeds() -> None:
    r = Readiness("url", old=OLD, previous_status=None, target="http://a/c")
    assert r.probe(Probe("http://a/c", "complete", 100, 403, 2.0, "", True), 0) is None
    out = r.probe(Probe("http://a/ok", "complete", 100, 200, 4.0), 1)
    assert isinstance(out, Ready)


def test_a_capture_gives_a_challenge_its_time_then_takes_the_page() -> None:
    """Issue 16 point 5: rule 8's grace applies to captures (strict=False) too; after it the
    challenge page is what the capture reads, with its status."""
    r = Readiness("url", old=OLD, previous_status=None, target="http://a/c", strict=False)
    challenge = Probe("http://a/c", "complete", 100, 403, 2.0, "Just a moment...", True)
    assert r.probe(challenge, 10.0) is None
    assert r.probe(challenge, 10.0 + CHALLENGE_WAIT - 0.1) is None
    out = r.probe(challenge, 10.0 + CHALLENGE_WAIT)
    assert isinstance(out, Ready)
    assert out.status == 403
    r = Readiness("url", old=OLD, previous_status=None, target="http://a/c", strict=False)
    assert r.probe(challenge, 0) is None
    out = r.probe(Probe("http://a/ok", "complete", 100, 200, 4.0), 1)
    assert isinstance(out, Ready)
    assert out.status == 200
    # a plain 404 (no challenge marker) is read at once
    r = Readiness("url", old=OLD, previous_status=None, target="http://a/c", strict=False)
    out = r.probe(Probe("http://a/c", "complete", 100, 404, 2.0), 0)
    assert isinstance(out, Ready)
    assert out.status == 404
    # with the setting off, the challenge page is read at once
    r = Readiness(
        "url",
        old=OLD,
        previous_status=None,
        target="http://a/c",
        strict=False,
        challenge_wait=False,
    )
    assert isinstance(r.probe(challenge, 0), Ready)


def test_challenge_wait_off_fails_at_once() -> None:
    r = Readiness("url", old=OLD, previous_status=None, target="http://a/c", challenge_wait=False)
    assert isinstance(r.probe(Probe("http://a/c", "complete", 1, 403, 2.0, "", True), 0), Failed)


def test_blank_document_is_not_the_target() -> None:
    r = Readiness("url", old=None, previous_status=None, target="http://a/x")
    assert r.probe(Probe("about:blank", "complete", 39, 0, 5.0), 0) is None


def test_leaving_a_popups_empty_document_is_a_new_document_even_with_its_time_origin() -> None:
    # measured: a navigation that overtakes a popup's own first load commits a document with
    # the initial about:blank's performance.timeOrigin
    blank = Probe("about:blank", "complete", 39, 0, 7.0)
    r = Readiness("url", old=blank, previous_status=None, target="http://a/x")
    assert r.probe(Probe("about:blank", "complete", 39, 0, 7.0), 0) is None
    assert r.probe(Probe("http://a/x", "loading", 0, 200, 7.0), 0) is None
    assert r.probe(Probe("http://a/x", "complete", 80, 200, 7.0, "X"), 0) == Ready(
        "http://a/x", "X", 200, 7.0
    )


def test_a_fragment_move_on_an_empty_document_stays_the_same_document() -> None:
    blank = Probe("about:blank", "complete", 39, 0, 7.0)
    r = Readiness("url", old=blank, previous_status=None, target="http://a/x")
    assert r.probe(Probe("about:blank#top", "complete", 39, 0, 7.0), 0) is None


def test_settle_restart_on_new_document() -> None:
    ready = Ready("http://a/x", "", 200, 2.0)
    assert not settle_restarts(ready, Probe("http://a/x#y", "complete", 1, 200, 2.0))
    assert settle_restarts(ready, Probe("http://a/z", "loading", 0, 200, 3.0))


def test_engine_error_page_is_a_failure() -> None:
    r = Readiness("url", old=OLD, previous_status=None, target="http://a/x")
    err = Probe("chrome-error://chromewebdata/", "complete", 5000, 0, 2.0)
    assert r.probe(err, 0) is None
    out = r.probe(err, 2.0)
    assert isinstance(out, Failed)
    assert out.error.id == "UPSTREAM_UNAVAILABLE"


def test_an_unread_serialization_is_told_apart_from_an_empty_page() -> None:
    """Issue 12: toHtml() answered the bare skeleton for a page that was there."""
    from host_app.logic.readiness import html_is_unread

    skeleton = "<html><head></head><body></body></html>"
    assert html_is_unread(skeleton, 5_000)
    assert html_is_unread("", 5_000)
    assert not html_is_unread(skeleton, len(skeleton))  # the page really is empty
    assert not html_is_unread(skeleton, len(skeleton) + 30)  # doctype and such
    assert not html_is_unread("<html><head></head><body><p>x</p></body></html>", 5_000)


def test_a_renderer_that_ends_before_the_engine_names_the_url_blames_the_target() -> None:
    """Seen once under load in CI: the renderer ended while Qt's requested URL was still
    empty; the error named no URL."""
    r = Readiness("url", old=OLD, previous_status=200, target="http://a/x")
    out = r.load_failed(f"{RENDERER_GONE} (crashed, exit code 11)", "")
    assert isinstance(out, Failed)
    assert out.error.id == "BROWSER_UNAVAILABLE"
    assert out.error.details == {"url": "http://a/x", "reason": "renderer_gone"}
    assert "while loading http://a/x;" in out.error.message
