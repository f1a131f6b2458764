"""The filter lists, the engine and the per-request decision, without Qt (host_app/logic)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from host_app.logic import adblock
from host_app.logic.adblock import REFRESH_AFTER, FilterStore, build, list_urls
from host_app.logic.filter_events import MAX_RECORDS, FilterEvents
from host_app.logic.policy import Filters, NetworkPolicy, Request, Verdict

LISTS = {
    "easylist.txt": "[Adblock Plus 2.0]\n! comment\n||ads.test^\n/banner/*\nsite.test##.ad\n",
    "easyprivacy.txt": "||track.test^$third-party\n",
    "ublock-filters.txt": "@@||ads.test/allowed.js\n||blocked-site.test^$document\n",
    "ublock-privacy.txt": "||pixel.test^$image\n||ads.test^\n",
}
PAGE = "http://site.test/page.html"


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def served(lists: dict[str, str]) -> adblock.Fetch:
    urls = list_urls("https://mirror.test/lists")

    def fetch(url: str) -> str:
        for name, u in urls.items():
            if u == url:
                return lists[name]
        raise AssertionError(url)

    return fetch


def test_list_urls_default_mirror_and_a_flat_one() -> None:
    assert list_urls("https://m.test/f/") == {
        name: f"https://m.test/f/{name}" for name in adblock.LISTS
    }
    default = list_urls(None)
    assert default["easylist.txt"] == "https://ublockorigin.pages.dev/thirdparties/easylist.txt"
    assert default["ublock-filters.txt"].endswith("/filters/filters.min.txt")


def test_rules_match_by_type_party_and_exceptions_and_name_their_list() -> None:
    engine = build(LISTS)
    m = engine.check("http://ads.test/x.js", PAGE, "script")
    assert m is not None
    assert (m.rule, m.list) == ("||ads.test^", "easylist.txt")  # first list wins a duplicate
    assert engine.check("http://ads.test/allowed.js", PAGE, "script") is None  # @@
    # $third-party: the tracker's own page loads it
    assert engine.check("http://track.test/p.gif", PAGE, "image") is not None
    assert engine.check("http://track.test/p.gif", "http://track.test/", "image") is None
    # $image: a script from the same host passes
    assert engine.check("http://pixel.test/a.gif", PAGE, "image") is not None
    assert engine.check("http://pixel.test/a.js", PAGE, "script") is None
    # cosmetic rules are not network rules
    assert engine.check("http://site.test/ad", PAGE, "image") is None
    blocked = engine.check("http://cdn.test/banner/1.png", PAGE, "image")
    assert blocked is not None
    assert blocked.list == "easylist.txt"


def test_a_navigation_is_blocked_only_by_a_document_rule() -> None:
    engine = build(LISTS)
    assert engine.check("http://ads.test/", "http://ads.test/", "main_frame") is None
    m = engine.check("http://blocked-site.test/", "http://blocked-site.test/", "main_frame")
    assert m is not None
    assert m.rule == "||blocked-site.test^$document"
    assert adblock.names_documents("||x^$doc,third-party")
    assert not adblock.names_documents("||x^$~document")


def test_store_round_trip_reuses_the_engine_without_a_download(tmp_path: Path) -> None:
    clock = Clock()
    store = FilterStore(tmp_path / "Filters", clock=clock)
    assert store.load() is None
    assert store.due()
    store.refresh(served(LISTS), list_urls("https://mirror.test/lists"))
    state = json.loads(store.state_path.read_text())
    assert set(state["lists"]) == set(adblock.LISTS)
    loaded = FilterStore(tmp_path / "Filters", clock=clock).load()
    assert loaded is not None
    m = loaded.check("http://track.test/p.gif", PAGE, "image")
    assert m is not None
    assert m.list == "easyprivacy.txt"
    assert loaded.check("http://ads.test/allowed.js", PAGE, "script") is None


def test_an_engine_of_another_package_version_is_rebuilt_from_the_stored_lists(
    tmp_path: Path,
) -> None:
    store = FilterStore(tmp_path, clock=Clock())
    store.refresh(served(LISTS), list_urls("https://mirror.test/lists"))
    state = json.loads(store.state_path.read_text())
    state["adblock_version"] = "0.0.1"
    store.state_path.write_text(json.dumps(state))
    store.engine_path.write_bytes(b"not an engine")
    loaded = store.load()
    assert loaded is not None
    assert loaded.check("http://ads.test/x.js", PAGE, "script") is not None


def test_refresh_is_due_after_four_days(tmp_path: Path) -> None:
    clock = Clock()
    store = FilterStore(tmp_path, clock=clock)
    store.refresh(served(LISTS), list_urls("https://mirror.test/lists"))
    assert not store.due()
    clock.now += REFRESH_AFTER - 60
    assert not store.due()
    clock.now += 60
    assert store.due()
    newer = dict(LISTS, **{"easylist.txt": "||newads.test^\n"})
    engine = store.refresh(served(newer), list_urls("https://mirror.test/lists"))
    assert not store.due()
    assert engine.check("http://newads.test/a.js", PAGE, "script") is not None


def test_a_failed_refresh_keeps_the_previous_engine(tmp_path: Path) -> None:
    clock = Clock()
    store = FilterStore(tmp_path, clock=clock)
    store.refresh(served(LISTS), list_urls("https://mirror.test/lists"))
    before = store.state_path.read_bytes()
    clock.now += REFRESH_AFTER
    broken = served(dict(LISTS, **{"easylist.txt": "||newads.test^\n"}))

    def failing(url: str) -> str:
        if url.endswith("ublock-privacy.txt"):
            raise OSError("mirror down")
        return broken(url)

    with pytest.raises(OSError, match="mirror down"):
        store.refresh(failing, list_urls("https://mirror.test/lists"))
    assert store.state_path.read_bytes() == before
    assert store.due()  # tried again later
    kept = store.load()
    assert kept is not None
    assert kept.check("http://ads.test/x.js", PAGE, "script") is not None
    assert kept.check("http://newads.test/a.js", PAGE, "script") is None


def test_https_only(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="HTTPS only"):
        adblock.https_fetch("http://mirror.test/easylist.txt")


# -- the decision -----------------------------------------------------------------------------


def req(url: str, rtype: str, source: str = PAGE) -> Request:
    return Request(url, url.split(":", 1)[0], rtype, source)


@pytest.mark.parametrize(
    ("global_on", "session_on", "blocked"),
    [(True, True, True), (True, False, False), (False, True, False), (False, False, False)],
)
def test_effective_adblock_is_both_switches(
    global_on: bool, session_on: bool, blocked: bool
) -> None:
    filters = Filters(enabled=global_on, engine=build(LISTS))
    policy = NetworkPolicy(adblock_enabled=session_on, filters=filters)
    verdict = policy.decide(req("http://ads.test/x.js", "script"))
    if blocked:
        assert verdict == Verdict("adblock", "||ads.test^", "easylist.txt")
    else:
        assert verdict is None


def test_switches_apply_to_the_next_request() -> None:
    filters = Filters(enabled=True, engine=build(LISTS))
    policy = NetworkPolicy(filters=filters)
    ad = req("http://ads.test/x.js", "script")
    assert policy.decide(ad) is not None
    filters.enabled = False
    assert policy.decide(ad) is None
    filters.enabled = True
    policy.adblock_enabled = False
    assert policy.decide(ad) is None


def test_no_engine_yet_lets_everything_through() -> None:
    policy = NetworkPolicy(filters=Filters(enabled=True))
    assert not policy.adblock_active
    assert policy.decide(req("http://ads.test/x.js", "script")) is None


def test_image_blocking_all_is_independent_of_adblock() -> None:
    policy = NetworkPolicy(
        image_blocking_mode="all", adblock_enabled=False, filters=Filters(enabled=False)
    )
    assert policy.decide(req("http://site.test/a.png", "image")) == Verdict("image_blocking")
    assert policy.decide(req("http://site.test/a.js", "script")) is None
    assert policy.decide(req("data:image/png;base64,AA", "image")) is None
    policy.image_blocking_mode = "none"
    assert policy.decide(req("http://site.test/a.png", "image")) is None


def test_pause_and_hold_are_not_filter_events() -> None:
    policy = NetworkPolicy(paused=True, filters=Filters(engine=build(LISTS)))
    verdict = policy.decide(req("http://ads.test/x.js", "script"))
    assert verdict is not None
    assert not verdict.filtered


def test_a_navigation_is_first_party_to_itself() -> None:
    """The initiator of a navigation is the page it leaves: a $third-party rule must not block
    the tracker's own site opened from another page."""
    filters = Filters(engine=build(LISTS))
    policy = NetworkPolicy(filters=filters)
    assert policy.decide(req("http://track.test/", "main_frame", PAGE)) is None


# -- filter events ----------------------------------------------------------------------------


def test_filter_events_are_one_per_url_per_load_plus_a_summary() -> None:
    events = FilterEvents()
    verdict = Verdict("adblock", "||ads.test^", "easylist.txt")
    first = events.blocked_request(req("http://ads.test/x.js", "script"), verdict)
    assert first == {
        "url": "http://ads.test/x.js",
        "resource_type": "script",
        "reason": "adblock",
        "rule": "||ads.test^",
        "list": "easylist.txt",
    }
    assert events.blocked_request(req("http://ads.test/x.js", "script"), verdict) is None
    records = 1
    for i in range(5000):
        if events.blocked_request(req(f"http://ads.test/{i}.gif", "image"), verdict):
            records += 1
    assert records == MAX_RECORDS
    assert len(events.seen) == MAX_RECORDS
    summary = events.end_load()
    assert summary == {
        "blocked": 5002,
        "recorded": MAX_RECORDS,
        "suppressed": 5002 - MAX_RECORDS,
        "reasons": {"adblock": 5002},
    }
    assert events.end_load() is None  # a load that blocked nothing has no summary
    # the next load records the same URL again
    assert events.blocked_request(req("http://ads.test/x.js", "script"), verdict) is not None
