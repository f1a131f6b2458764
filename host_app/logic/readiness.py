"""Main-frame readiness (spec 1 §4 shorthand rules 6-8) as a state machine over plain events.

The engine probes the page in the isolated world (href, readyState, rendered-source length, the
navigation entry's `responseStatus`, `performance.timeOrigin`, title, a bot-challenge flag) and
feeds each probe here, together with load signals. `performance.timeOrigin` identifies a
document: a new value means a new main-frame document committed; the same value with another
href is a same-document move (fragment, history API), which keeps the previous HTTP status.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import msgspec
from msgspec import field

from bridge_protocol import ApiError, ErrorId

CHALLENGE_WAIT = 15.0
ERROR_PAGE_GRACE = 1.0
# a history move that reached its entry with no main-frame load (a subframe's move, or a state
# pushed with the same URL) is taken once this long passes without one: a main-frame move starts
# its load at once, or after the page's beforeunload answered
HISTORY_MOVE_GRACE = 0.5


class Probe(msgspec.Struct, frozen=True):
    """The page's probe (host_app/core/js.py PROBE; its short keys on the wire,
    logic/page_answers)."""

    href: str = field(name="h")
    ready_state: str = field(name="r")
    length: int = field(name="l")  # the rendered source's length
    status: int = field(name="s")  # responseStatus of the navigation entry; 0 when unknown
    origin: float = field(name="o")  # performance.timeOrigin; -1 when the page did not answer
    title: str = field(default="", name="t")
    challenge: bool = field(default=False, name="c")


@dataclass(frozen=True, slots=True)
class Ready:
    url: str
    title: str
    status: int | None
    origin: float


@dataclass(frozen=True, slots=True)
class Failed:
    error: ApiError


Outcome = Ready | Failed | None
# "restart": a main-frame load began while the page settled after its readiness; it may be a
# same-document move, which the engine reports as a load too (`location.hash = ...` as a page
# loads: CKEditor's toolbar configurator), and then the document stays
Kind = Literal["url", "same-document", "history", "reload", "restart"]


def _blank(href: str) -> bool:
    return href in ("", "about:blank") or href.startswith("about:blank#")


def http_status(status: int) -> int | None:
    return status if 100 <= status <= 599 else None


class Readiness:
    """Waits for the navigation started after `old` (the probe taken just before it)."""

    def __init__(
        self,
        kind: Kind,
        *,
        old: Probe | None,
        previous_status: int | None,
        target: str | None = None,
        strict: bool = True,
        challenge_wait: bool = True,
    ) -> None:
        self.kind = kind
        self.old = old
        self.previous_status = previous_status
        self.target = target
        self.strict = strict
        self.challenge_wait = challenge_wait
        self.load_started = False
        self.challenge_since: float | None = None
        self.committed: Probe | None = None
        self.error_page_since: float | None = None
        self.moved_since: float | None = None

    def started(self) -> None:
        """A main-frame load began (Qt's loadStarted)."""
        self.load_started = True

    def history_moved(self, now: float) -> None:
        """The main frame loads nothing, and for a history move the session history is at the
        move's entry."""
        if self.moved_since is None:
            self.moved_since = now

    def is_new_document(self, p: Probe) -> bool:
        if self.old is None or p.origin != self.old.origin:
            return True
        # a popup's initial empty document and the document that replaces it can share their
        # time origin (measured on QtWebEngine 6.11 when a navigation overtakes the popup's own
        # first load): no same-document move leaves about:blank for another URL
        return _blank(self.old.href) and not _blank(p.href)

    # PLR0911, PLR0912: the readiness rules in order, each its outcome
    def probe(self, p: Probe, now: float) -> Outcome:  # noqa: PLR0911, PLR0912
        if p.origin < 0:
            return None  # the page did not answer: nothing is known of its document
        if not self.is_new_document(p):
            # same document: only a same-document move completes here
            assert self.old is not None
            if self.kind == "same-document" and self.target is not None and p.href == self.target:
                return Ready(p.href, p.title, self.previous_status, p.origin)
            if (self.kind == "history" and not self.load_started) or self.kind == "restart":
                if p.href != self.old.href:
                    return Ready(p.href, p.title, self.previous_status, p.origin)
                # the move changed a subframe (back after a frame's link) or only the state
                if self.moved_since is not None and now - self.moved_since >= HISTORY_MOVE_GRACE:
                    return Ready(p.href, p.title, self.previous_status, p.origin)
            return None
        if _blank(p.href) and self.target not in (None, "about:blank"):
            return None
        if p.href.startswith("chrome-error:"):
            # the engine's own error page: the load failed below HTTP; its cause arrives as a
            # load failure (see load_failed), this is the fallback when it does not
            if self.error_page_since is None:
                self.error_page_since = now
            if now - self.error_page_since < ERROR_PAGE_GRACE:
                return None
            return self.load_failed("the browser showed its error page", self.target or p.href)
        self.committed = p
        status = http_status(p.status)
        if status is not None and status >= 400:
            # a bot challenge gets its time to continue, for captures (not strict) too (rule 8)
            if self.challenge_wait and p.challenge:
                if self.challenge_since is None:
                    self.challenge_since = now
                if now - self.challenge_since < CHALLENGE_WAIT:
                    return None
            if self.challenge_wait and status in CHALLENGE_STATUSES and p.ready_state == "loading":
                # the markers are read once the document is parsed: a probe that sees a
                # challenge page before its title is not the answer (it failed a navigation
                # that the challenge would have continued, as timing allowed)
                return None
            if self.strict:
                return Failed(upstream_error(p.href, status, challenge=p.challenge))
        if p.ready_state != "loading" and p.length > 0:
            return Ready(p.href, p.title, status, p.origin)
        return None

    def load_failed(self, message: str, url: str) -> Outcome:
        """A main-frame load failed below HTTP (connection, DNS, TLS), or the page's renderer
        ended under it (the engine failed, not the site: retryable, another load gets a new
        renderer). `url` is empty when the engine had not told it yet: the one asked for."""
        url = url or self.target or ""
        if message.startswith(RENDERER_GONE):
            return Failed(
                ApiError.of(
                    ErrorId.BROWSER_UNAVAILABLE,
                    f"{message} while loading {url}; the page is blank until it loads again",
                    url=url,
                    reason="renderer_gone",
                )
            )
        return Failed(
            ApiError.of(
                ErrorId.UPSTREAM_UNAVAILABLE,
                f"navigation to {url} failed: {message}",
                url=url,
            )
        )


# the start of a load failure's message when the page's renderer process ended under it
RENDERER_GONE = "the page's renderer process ended"


def upstream_error(url: str, status: int, *, challenge: bool = False) -> ApiError:
    """Rule 8's failure. A page that still shows a bot challenge when the failure is told (it
    had its wait, or the setting is off) says a person is needed, as an observation of it would
    (`needs_person`, docs/agents.md): the agent learns it without reading the page."""
    if challenge:
        return ApiError.of(
            ErrorId.UPSTREAM_UNAVAILABLE,
            f"the target answered HTTP {status} with a bot check that needs a person",
            url=url,
            target_http_status=status,
            needs_person={"kind": "bot_check"},
        )
    return ApiError.of(
        ErrorId.UPSTREAM_UNAVAILABLE,
        f"the target answered HTTP {status}",
        url=url,
        target_http_status=status,
    )


def settle_restarts(ready: Ready, p: Probe) -> bool:
    """During the settle wait: does this probe show another main-frame document? A probe the
    page did not answer (origin -1: the engine drops a script in flight when the document
    moves within itself, as a page setting its fragment does) shows none."""
    return p.origin >= 0 and p.origin != ready.origin


# The bot-challenge detection rule (docs/decisions.md "Host app"): the document answered 403,
# 429 or 503 and shows a known interstitial marker.
CHALLENGE_JS = (
    "(function(){var t=(document.title||'').toLowerCase();"
    "if(/just a moment|attention required|checking your browser|verify you are human|"
    "ddos-guard|please wait/.test(t))return true;"
    "return !!document.querySelector('#challenge-form,#cf-challenge-running,#challenge-running,"
    '#cf-wrapper .cf-browser-verification,script[src*="challenge-platform"],'
    'script[src*="captcha-delivery"],#px-captcha\')})()'
)
CHALLENGE_STATUSES = (403, 429, 503)


# What QWebEnginePage.toHtml() gives for a document it did not read (seen in captures of busy
# pages while other sessions were busy too: issue 12): the bare skeleton, no attributes.
_SKELETON = "<html><head></head><body></body></html>"
# the rendered source may differ from the serialization a little (doctype, entities): only a
# document this much longer than the skeleton proves the skeleton wrong
_SKELETON_SLACK = 64


def is_skeleton(html: str) -> bool:
    """`html` is empty or the bare skeleton (cheap: no page read needed to tell)."""
    return html.strip().replace("\n", "") in ("", _SKELETON)


def html_is_unread(html: str, rendered_length: int) -> bool:
    """True when `html` is the empty skeleton although the page's own rendered source
    (`documentElement.outerHTML.length`, read in the isolated world) is clearly longer: the
    serialization missed the document, and a capture must not write it (spec 1 §4 rule 6)."""
    return is_skeleton(html) and rendered_length > len(_SKELETON) + _SKELETON_SLACK
