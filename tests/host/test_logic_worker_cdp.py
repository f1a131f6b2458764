"""The workers' CDP conversation (host_app.logic.worker_cdp) against canned backend messages."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from host_app.logic.worker_cdp import (
    FRAME_TREE,
    ISOLATION_STATUS,
    UNSAFE_NONE,
    Answered,
    CdpFailed,
    FrameId,
    Ready,
    Send,
    Settled,
    UserAgentOverride,
    WorkerChannel,
    WorkerHeld,
    hold_cuts_opener,
    main_frame_id,
    opener_policy,
)

AUTO = {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True}
# the start's last commands: the page script as DevTools' new-document script
DOC = [("Page.enable", ""), ("Page.addScriptToEvaluateOnNewDocument", "")]


def sent(out: list[Any]) -> list[dict[str, Any]]:
    return [json.loads(o.text) for o in out if isinstance(o, Send)]


def calls(out: list[Any]) -> list[tuple[str, str]]:
    return [(m["method"], m.get("sessionId", "")) for m in sent(out)]


def attached(session: str, kind: str = "worker", url: str = "blob:http://x/1") -> str:
    return json.dumps(
        {
            "method": "Target.attachedToTarget",
            "sessionId": "",
            "params": {
                "sessionId": session,
                "targetInfo": {
                    "targetId": "T" + session,
                    "type": kind,
                    "url": url,
                    "attached": True,
                },
                "waitingForDebugger": True,
            },
        }
    )


def answer(msg_id: int, error: str | None = None, **result: Any) -> str:
    if error is not None:
        return json.dumps({"id": msg_id, "error": {"code": -32000, "message": error}})
    return json.dumps({"id": msg_id, "result": result})


def started(prelude: str | None = "PRELUDE", tz: str = "Europe/Berlin") -> WorkerChannel:
    ch = WorkerChannel(prelude, tz)
    out = ch.start()
    assert calls(out) == [("Target.setAutoAttach", ""), ("Emulation.setTimezoneOverride", "")] + (
        DOC if prelude is not None else DOC[:1]
    )
    assert sent(out)[0]["params"] == AUTO
    assert sent(out)[1]["params"] == {"timezoneId": tz}
    assert not ch.ready
    assert ch.receive(answer(1)) == [Ready(ok=True)]
    assert ch.ready
    assert ch.receive(answer(2)) == []
    assert ch.receive(answer(3)) == []
    if prelude is not None:
        assert sent(out)[3]["params"] == {"source": prelude}
        assert ch.receive(answer(4, identifier="1")) == []
    return ch


def test_no_zone_sends_only_the_auto_attach() -> None:
    ch = WorkerChannel("P", "")
    assert calls(ch.start()) == [("Target.setAutoAttach", ""), *DOC]


def test_a_worker_gets_auto_attach_then_the_prelude_then_its_release() -> None:
    ch = started()
    out = ch.receive(attached("S1"))
    assert calls(out) == [
        ("Target.setAutoAttach", "S1"),
        ("Runtime.evaluate", "S1"),
        ("Runtime.runIfWaitingForDebugger", "S1"),
    ]
    msgs = sent(out)
    assert msgs[0]["params"] == AUTO
    assert msgs[1]["params"]["expression"] == "PRELUDE"
    assert msgs[2]["params"] == {}
    assert out[-1] == WorkerHeld("S1", "worker", "blob:http://x/1", prelude=True)
    # ids are unique and answers to them change nothing
    ids = [m["id"] for m in msgs]
    assert len(set(ids)) == 3
    for i in ids:
        assert ch.receive(answer(i)) == []


def test_nested_and_service_workers_get_the_prelude_in_their_own_session() -> None:
    ch = started()
    ch.receive(attached("S1"))
    # the parent worker's auto-attach reports its child with the child's session
    out = ch.receive(attached("S2", url="blob:http://x/2"))
    assert [s for _, s in calls(out)] == ["S2"] * 3
    out = ch.receive(attached("S3", "service_worker", "http://127.0.0.1/sw.js"))
    assert calls(out)[1] == ("Runtime.evaluate", "S3")
    assert set(ch.sessions) == {"S1", "S2", "S3"}


def test_a_frame_target_gets_the_new_document_script_not_the_prelude() -> None:
    """An out-of-process frame (another site's) runs no prelude (its documents get the page
    script), but the new-document script, before its release, so that the frames it makes read
    the identity at once; an identity change replaces it there too, and a frame that goes
    takes its script along."""
    ch = started()
    out = ch.receive(attached("F1", "iframe", "http://other/"))
    assert calls(out) == [
        ("Target.setAutoAttach", "F1"),
        ("Page.enable", "F1"),
        ("Page.addScriptToEvaluateOnNewDocument", "F1"),
        ("Runtime.runIfWaitingForDebugger", "F1"),
    ]
    assert sent(out)[2]["params"] == {"source": "PRELUDE"}
    assert out[-1] == WorkerHeld("F1", "iframe", "http://other/", prelude=False)
    assert ch.receive(answer(sent(out)[2]["id"], identifier="f1")) == []
    changed = sent(ch.set_identity("NEW", "Europe/Berlin"))
    assert [(m["method"], m.get("sessionId", ""), m["params"]) for m in changed] == [
        ("Page.removeScriptToEvaluateOnNewDocument", "", {"identifier": "1"}),
        ("Page.removeScriptToEvaluateOnNewDocument", "F1", {"identifier": "f1"}),
        ("Page.addScriptToEvaluateOnNewDocument", "", {"source": "NEW"}),
        ("Page.addScriptToEvaluateOnNewDocument", "F1", {"source": "NEW"}),
    ]
    assert ch.receive(answer(changed[2]["id"], identifier="2")) == []
    detached = {"method": "Target.detachedFromTarget", "params": {"sessionId": "F1"}}
    assert ch.receive(json.dumps(detached)) == []
    native = sent(ch.set_identity(None, "Europe/Berlin"))
    assert [(m["method"], m.get("sessionId", ""), m["params"]) for m in native] == [
        ("Page.removeScriptToEvaluateOnNewDocument", "", {"identifier": "2"})
    ]
    # the frame's add, answered after it was superseded, removes what it added
    late = sent(ch.receive(answer(changed[3]["id"], identifier="f2")))
    assert [(m["method"], m["params"]) for m in late] == [
        ("Page.removeScriptToEvaluateOnNewDocument", {"identifier": "f2"})
    ]


def test_native_identity_releases_workers_untouched() -> None:
    ch = WorkerChannel(None, "")
    ch.start()
    out = ch.receive(attached("S1"))
    assert [m for m, _ in calls(out)] == ["Target.setAutoAttach", "Runtime.runIfWaitingForDebugger"]


def test_a_failed_prelude_still_releases_the_worker() -> None:
    ch = started()
    ids = [m["id"] for m in sent(ch.receive(attached("S1")))]
    assert ch.receive(answer(ids[0], "Not allowed")) == [
        CdpFailed("Target.setAutoAttach", "S1", -32000, "Not allowed")
    ]
    threw = json.dumps({"id": ids[1], "result": {"result": {}, "exceptionDetails": {"text": "x"}}})
    assert ch.receive(threw) == [CdpFailed("Runtime.evaluate", "S1", 0, "the prelude threw")]
    # the release was sent with the rest, before any answer: nothing waits on the prelude
    assert ch.receive(answer(ids[2])) == []


def test_a_refused_auto_attach_is_reported_ready_but_not_ok() -> None:
    ch = WorkerChannel("P", "")
    ch.start()
    out = ch.receive(answer(1, "Not allowed"))
    assert out == [CdpFailed("Target.setAutoAttach", "", -32000, "Not allowed"), Ready(ok=False)]
    assert ch.ready


def test_detach_forgets_the_session_and_a_repeated_attach_is_ignored() -> None:
    ch = started()
    ch.receive(attached("S1"))
    assert ch.receive(attached("S1")) == []
    detach = {"method": "Target.detachedFromTarget", "params": {"sessionId": "S1"}}
    assert ch.receive(json.dumps(detach)) == []
    assert ch.sessions == {}


def test_unknown_and_malformed_messages_are_ignored() -> None:
    ch = started()
    for text in (
        "not json",
        "[]",
        json.dumps({"method": "Target.targetInfoChanged", "params": {"targetInfo": {}}}),
        json.dumps({"method": "Target.attachedToTarget", "params": {"nope": 1}}),
        json.dumps({"method": "Target.detachedFromTarget", "params": []}),
        json.dumps({"id": 999, "result": {}}),
        json.dumps({"method": "Target.attachedToTarget"}),
    ):
        assert ch.receive(text) == [], text
    assert ch.sessions == {}


def test_an_identity_change_reaches_the_next_workers_and_the_zone() -> None:
    ch = started()
    out = ch.set_identity("NEW", "Asia/Tokyo")
    # the new-document script replaced (the start's, answered with identifier "1"), the zone
    assert calls(out) == [
        ("Page.removeScriptToEvaluateOnNewDocument", ""),
        ("Page.addScriptToEvaluateOnNewDocument", ""),
        ("Emulation.setTimezoneOverride", ""),
    ]
    assert [m["params"] for m in sent(out)] == [
        {"identifier": "1"},
        {"source": "NEW"},
        {"timezoneId": "Asia/Tokyo"},
    ]
    added = sent(out)[1]["id"]
    # the script changes, the zone does not: only the script is sent
    out = ch.set_identity("NEWER", "Asia/Tokyo")
    assert calls(out) == [("Page.addScriptToEvaluateOnNewDocument", "")]
    # the superseded add is answered late: the script it added goes
    assert sent(ch.receive(answer(added, identifier="2"))) == [
        {
            "id": sent(out)[0]["id"] + 1,
            "method": "Page.removeScriptToEvaluateOnNewDocument",
            "params": {"identifier": "2"},
        }
    ]
    assert ch.receive(answer(sent(out)[0]["id"], identifier="3")) == []
    assert sent(ch.receive(attached("S9")))[1]["params"]["expression"] == "NEWER"
    # native again: no new-document script, the override is cleared, workers run untouched
    out = ch.set_identity(None, "")
    assert [m["params"] for m in sent(out)] == [{"identifier": "3"}, {"timezoneId": ""}]
    assert len(sent(ch.receive(attached("S10")))) == 2


def test_a_load_waits_until_an_identity_change_is_answered() -> None:
    """The page's user-agent override is the channel's: a navigation that starts before the
    backend answered the change still carries the previous identity (measured: a session gone
    native sent the fingerprint's User-Agent and Sec-CH-UA on its next document's request)."""
    ch = started()
    out = ch.set_identity("PRELUDE", "Asia/Tokyo", user_agent=UserAgentOverride("UA/2"))
    ids = [m["id"] for m in sent(out)]
    assert len(ids) == 2
    assert not ch.ready
    assert ch.receive(answer(ids[1])) == []
    assert not ch.ready
    assert ch.receive(answer(ids[0], "not now")) == [
        CdpFailed("Emulation.setUserAgentOverride", "", -32000, "not now"),
        Settled(),
    ]
    assert ch.ready
    # nothing to send: nothing to wait for
    assert ch.set_identity("PRELUDE", "Asia/Tokyo", user_agent=UserAgentOverride("UA/2")) == []
    assert ch.ready
    # only the user agent's answer is waited for (the zone's waits for a renderer)
    ch.set_identity("PRELUDE", "Europe/Paris", user_agent=UserAgentOverride("UA/2"))
    assert ch.ready
    # answers that never come are waited for once (the app's bounded wait), not at every load
    ch.set_identity("PRELUDE", "Europe/Paris", user_agent=UserAgentOverride("UA/3"))
    assert not ch.ready
    ch.give_up_changes()
    assert ch.ready
    # before the channel started, the change goes out with the start: ready at the attach
    fresh = WorkerChannel("P", "")
    fresh.set_identity("P", "Asia/Tokyo")
    fresh.start()
    assert fresh.receive(answer(2)) == [Ready(ok=True)]
    assert fresh.ready


def test_a_request_of_another_user_of_the_channel_is_answered_by_id() -> None:
    """The garbage collection (host_app/engine/memory.py) goes through the page's one channel."""
    ch = started()
    call, send = ch.request("HeapProfiler.collectGarbage")
    assert json.loads(send.text) == {
        "id": call,
        "method": "HeapProfiler.collectGarbage",
        "params": {},
    }
    assert ch.abandoned() == [call]
    assert ch.receive(answer(call)) == [Answered(call, ok=True)]
    assert ch.abandoned() == []
    failing, _ = ch.request("HeapProfiler.collectGarbage")
    out = ch.receive(answer(failing, "not now"))
    assert Answered(failing, ok=False) in out
    assert any(isinstance(o, CdpFailed) for o in out)
    # the conversation's own answers are no caller's
    ch.request("HeapProfiler.collectGarbage")
    assert not [o for o in ch.receive(attached("W1")) if isinstance(o, Answered)]


def event(method: str, session: str, **params: Any) -> str:
    return json.dumps({"method": method, "sessionId": session, "params": params})


def test_a_paused_shared_worker_gets_the_prelude_then_goes_on_without_the_debugger() -> None:
    """The devtools page attached it and asked it to pause (host_app.engine.worker_cdp)."""
    ch = started()
    out = ch.receive(attached("W1", "shared_worker", "http://x/shw.js"))
    assert ("Runtime.evaluate", "W1") in calls(out)
    out = ch.receive(event("Debugger.paused", "W1", reason="other"))
    assert calls(out) == [
        ("Runtime.evaluate", "W1"),
        ("Debugger.resume", "W1"),
        ("Debugger.disable", "W1"),
    ]
    assert sent(out)[0]["params"]["expression"] == "PRELUDE"
    ids = [m["id"] for m in sent(out)]
    assert ch.receive(answer(ids[0], result={"type": "undefined"})) == []
    assert "W1" in ch.preluded


def test_any_pause_is_released_even_of_a_session_it_does_not_know() -> None:
    """Only the shared workers' sessions enable the debugger: a pause in a session the
    conversation lost (a new frontend document) is released all the same, never left frozen."""
    ch = started()
    out = ch.receive(event("Debugger.paused", "LOST"))
    assert calls(out) == [("Debugger.resume", "LOST"), ("Debugger.disable", "LOST")]
    assert ch.receive(event("Debugger.paused", "")) == []  # the page's own: never enabled


def test_a_restarted_shared_worker_gets_the_prelude_then_its_release() -> None:
    """A shared worker that ended while attached starts again waiting for the debugger."""
    ch = started()
    ch.receive(attached("W1", "shared_worker", "http://x/shw.js"))
    assert ch.receive(event("Inspector.targetCrashed", "W1")) == []
    assert ch.ended == {"W1"}
    out = ch.receive(event("Inspector.targetReloadedAfterCrash", "W1"))
    assert calls(out) == [("Runtime.evaluate", "W1"), ("Runtime.runIfWaitingForDebugger", "W1")]
    assert ch.ended == set()


def test_a_native_session_releases_a_restarted_or_paused_worker_untouched() -> None:
    ch = WorkerChannel(None, "")
    ch.start()
    ch.receive(attached("W1", "shared_worker"))
    assert calls(ch.receive(event("Inspector.targetReloadedAfterCrash", "W1"))) == [
        ("Runtime.runIfWaitingForDebugger", "W1")
    ]
    assert calls(ch.receive(event("Debugger.paused", "W1"))) == [
        ("Debugger.resume", "W1"),
        ("Debugger.disable", "W1"),
    ]


def test_the_screen_the_page_reports_follows_the_identity() -> None:
    """The device-width/height media queries agree with `screen.*` (the identity script's):
    the screen's size only, the view's own size, scale and desktop layout kept."""
    ch = WorkerChannel("P", "", screen=(2560, 1440))
    out = ch.start()
    assert calls(out) == [
        ("Target.setAutoAttach", ""),
        ("Emulation.setDeviceMetricsOverride", ""),
        *DOC,
    ]
    assert sent(out)[1]["params"] == {
        "screenWidth": 2560,
        "screenHeight": 1440,
        "screenOrientation": {"type": "landscapePrimary", "angle": 0},
        "width": 0,
        "height": 0,
        "deviceScaleFactor": 0,
        "mobile": False,
    }
    assert ch.receive(answer(1)) == [Ready(ok=True)]
    assert ch.set_identity("P", "", screen=(2560, 1440)) == []  # the same screen: nothing
    out = ch.set_identity("P", "", screen=(412, 915))  # a phone's
    [override] = sent(out)
    assert override["method"] == "Emulation.setDeviceMetricsOverride"
    assert override["params"]["screenWidth"] == 412
    assert override["params"]["screenOrientation"] == {"type": "portraitPrimary", "angle": 0}
    out = ch.set_identity(None, "")  # native: the real screen again
    assert calls(out) == [("Emulation.clearDeviceMetricsOverride", "")]


def test_the_viewport_is_pinned_to_the_views_size() -> None:
    """QtWebEngine sizes a cross-site navigation's renderer only after its commit (its first
    scripts read innerWidth 0): the override pins the viewport to the view, and follows it."""
    ch = WorkerChannel("P", "", screen=(2560, 1440), viewport=(1920, 947))
    assert ch.set_viewport((1920, 947)) == []  # nothing is sent before the channel starts
    out = ch.start()
    assert (sent(out)[1]["params"]["width"], sent(out)[1]["params"]["height"]) == (1920, 947)
    assert ch.set_viewport((1920, 947)) == []  # unchanged
    [resized] = sent(ch.set_viewport((1920, 5000)))  # a full-page grab's resize
    assert resized["method"] == "Emulation.setDeviceMetricsOverride"
    assert (resized["params"]["width"], resized["params"]["height"]) == (1920, 5000)
    assert resized["params"]["screenWidth"] == 2560
    native = WorkerChannel(None, "", viewport=(800, 600))
    native.start()
    assert native.set_viewport((1024, 768)) == []  # no fingerprint: nothing is overridden


def test_the_user_agent_and_its_client_hints_are_the_pages() -> None:
    """QtWebEngine gives a popup's web contents the profile's user agent without its client
    hints (no brands, no platform): each page's channel sets both."""
    from bridge_protocol.identity import FingerprintProfile, Screen
    from host_app.logic.identity import engine_identity
    from host_app.logic.worker_cdp import user_agent_override

    fp = FingerprintProfile(
        schema_version=1, seed="0123456789abcdef", platform="Win32",
        browser_brand="Google Chrome", browser_version="140.0.7339.225",
        user_agent="Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/140.0.0.0 Safari/537.36",
        locale="de-DE", timezone="Europe/Berlin", network_profile="broadband",
        hardware_concurrency=8, device_memory_gib=8, max_touch_points=0,
        screen=Screen(width=1920, height=1080, available_height=1040, device_scale_factor=1),
        graphics_profile="intel-windows", storage_quota_bytes=1, canvas_noise_mode="off",
        audio_noise_mode="off",
    )  # fmt: skip
    override = user_agent_override(engine_identity(fp), fp.platform)
    ch = WorkerChannel("P", "", user_agent=override)
    [set_ua, auto, *_] = sent(ch.start())
    # first, before the auto-attach, whose answer releases a held popup's first request
    assert (set_ua["method"], auto["method"]) == (
        "Emulation.setUserAgentOverride",
        "Target.setAutoAttach",
    )
    params = set_ua["params"]
    assert (params["userAgent"], params["platform"]) == (fp.user_agent, "Win32")
    assert "acceptLanguage" not in params  # the engine would move Accept-Language up
    meta = params["userAgentMetadata"]
    # in the order the profile's own requests carry them (QtWebEngine's)
    assert [b["brand"] for b in meta["brands"]] == ["Google Chrome", "Chromium", "Not=A?Brand"]
    assert {b["brand"]: b["version"] for b in meta["brands"]}["Google Chrome"] == "140"
    assert {b["brand"]: b["version"] for b in meta["fullVersionList"]}["Google Chrome"] == (
        "140.0.7339.225"
    )
    assert (meta["platform"], meta["platformVersion"], meta["mobile"]) == (
        "Windows",
        "10.0.0",
        False,
    )
    assert meta["formFactors"] == ["Desktop"]  # Chrome's own: a phone's would say Mobile
    assert ch.set_identity("P", "", user_agent=override) == []  # unchanged
    [cleared] = sent(ch.set_identity(None, ""))
    assert cleared == {**cleared, "method": "Emulation.setUserAgentOverride"}
    assert cleared["params"] == {"userAgent": ""}  # native again: the override is cleared
    firefox = msgspec.structs.replace(fp, browser_brand="Firefox")
    no_hints = user_agent_override(engine_identity(firefox), fp.platform)
    assert no_hints.user_agent_metadata is None  # a brand without client hints sends none


def test_a_pages_opener_policy_is_read_from_its_main_frames_isolation_status() -> None:
    """The two questions whose answers decide whether a popup's first document may be held
    (host_app.engine.worker_cdp.PageWorkers.opener_policy): the main frame's id, then its status (the
    backend answers an empty status without the id: measured, QtWebEngine 6.11)."""
    ch = started()
    tree, send = ch.request(FRAME_TREE)
    assert json.loads(send.text)["params"] == {}
    frame = {"frame": {"id": "F1", "url": "http://a.test/", "loaderId": "L"}, "childFrames": []}
    [got] = ch.receive(answer(tree, frameTree=frame))
    assert isinstance(got, Answered)
    assert got.ok
    assert main_frame_id(got.result) == "F1"
    status, send = ch.request(ISOLATION_STATUS, FrameId("F1"))
    assert json.loads(send.text) == {
        "id": status,
        "method": ISOLATION_STATUS,
        "params": {"frameId": "F1"},
    }
    coop = {"value": "SameOrigin", "reportOnlyValue": "UnsafeNone"}
    [got] = ch.receive(answer(status, status={"coop": coop, "coep": {"value": "None"}}))
    assert isinstance(got, Answered)
    assert opener_policy(got.result) == "SameOrigin"
    assert opener_policy(b'{"status":{}}') is None  # asked without the frame's id
    assert opener_policy(b"not json") is None
    assert main_frame_id(b"{}") is None


def test_only_a_known_policy_other_than_unsafe_none_stops_the_hold() -> None:
    assert hold_cuts_opener("SameOrigin")
    assert hold_cuts_opener("SameOriginAllowPopups")
    assert hold_cuts_opener("RestrictProperties")
    assert not hold_cuts_opener(UNSAFE_NONE)
    assert not hold_cuts_opener(None)  # not known (yet): held, as before


NO_BUFFERS = {"maxTotalBufferSize": 0, "maxResourceBufferSize": 0}


def test_counting_turns_the_network_domain_on_for_the_page_and_its_targets() -> None:
    """The downloaded bytes (docs/decisions.md): the Network domain is on only while an
    operation counts, on the page (whose answer is waited for) and on every frame and worker,
    a new one before its release; never on a target without requests of its own."""
    ch = started()
    assert calls(ch.receive(attached("S1"))) == [
        ("Target.setAutoAttach", "S1"),
        ("Runtime.evaluate", "S1"),
        ("Runtime.runIfWaitingForDebugger", "S1"),
    ]  # not counting: nothing more
    ch.receive(attached("F1", "iframe", "http://other/"))
    ch.receive(attached("X1", "auction_worklet", "http://x/w.js"))
    call, out = ch.count(True)
    assert calls(out) == [
        ("Network.enable", ""),
        ("Network.enable", "S1"),
        ("Network.enable", "F1"),
    ]
    assert call is not None
    assert sent(out)[0] == {"id": call, "method": "Network.enable", "params": NO_BUFFERS}
    assert ch.receive(answer(call)) == [Answered(call, ok=True)]
    assert ch.count(True) == (None, [])  # on already
    out = ch.receive(attached("S2", "service_worker", "http://x/sw.js"))
    assert calls(out) == [
        ("Target.setAutoAttach", "S2"),
        ("Runtime.evaluate", "S2"),
        ("Network.enable", "S2"),  # its fetches, from its first statement
        ("Runtime.runIfWaitingForDebugger", "S2"),
    ]
    assert calls(ch.receive(attached("X2", "auction_worklet"))) == [
        ("Target.setAutoAttach", "X2"),
        ("Runtime.runIfWaitingForDebugger", "X2"),
    ]
    call, out = ch.count(False)
    assert calls(out) == [
        ("Network.disable", ""),
        ("Network.disable", "S1"),
        ("Network.disable", "F1"),
        ("Network.disable", "S2"),
    ]
    assert call == sent(out)[0]["id"]


def test_counting_asked_before_the_start_goes_with_it() -> None:
    """(Also a new conversation, after a new frontend document, while an operation counts.)"""
    ch = WorkerChannel(None, "")
    assert ch.count(True) == (None, [])
    out = ch.start()
    assert calls(out)[-1] == ("Network.enable", "")
    call = ch.count_call
    assert call is not None
    assert call == sent(out)[-1]["id"]  # its answer is the caller's
    assert ch.receive(answer(call)) == [Answered(call, ok=True)]
    assert ("Network.enable", "") not in calls(WorkerChannel(None, "").start())
