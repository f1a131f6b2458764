"""A session's fingerprint applied in the real engine (issue 14 point 1, host side): what a page
sees in its main frame, a same-origin iframe, an iframe made by script, a dedicated worker, the
worker it starts and a service worker, and the headers the server gets, for native identity, a
custom profile and two seeds; a change of the identity on an open session reaches the next
document.

An in-process Engine runs in one child process (QtWebEngine must be imported before the
QApplication exists), for every case at once: the test reaches the engine's own objects (the
workers' channel, a garbage collection); test_e2e_identity_api.py goes through the agent."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import msgspec
import pytest

from bridge_protocol.identity import FingerprintProfile, Screen

from .identity_pages import IdentitySite
from .inengine import child_result, configure, run_child, start_engine

pytestmark = pytest.mark.e2e

WIN_UA = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/140.0.0.0 Safari/537.36"
)
NATIVE = "native"


def german(seed: str) -> FingerprintProfile:
    return FingerprintProfile(
        schema_version=1,
        seed=seed,
        platform="Win32",
        browser_brand="Google Chrome",
        browser_version="140.0.7339.225",
        user_agent=WIN_UA,
        locale="de-DE",
        timezone="Europe/Berlin",
        network_profile="broadband",
        hardware_concurrency=12,
        device_memory_gib=16,
        max_touch_points=0,
        screen=Screen(width=2560, height=1440, available_height=1400, device_scale_factor=1.25),
        graphics_profile="nvidia-windows",
        storage_quota_bytes=100 * 1024**3,
        canvas_noise_mode="seeded",
        audio_noise_mode="seeded",
    )


def phone() -> FingerprintProfile:
    return msgspec.structs.replace(
        german("0a0b0c0d"),
        platform="Linux armv81",
        user_agent=(
            "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) "
            "Chrome/140.0.0.0 Mobile Safari/537.36"
        ),
        max_touch_points=5,
        screen=Screen(width=412, height=915, available_height=915, device_scale_factor=2.625),
    )


SEED_A = "0123456789abcdef"
SEED_B = "fedcba9876543210"


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    data_dir = tmp_path_factory.mktemp("identity")
    with IdentitySite() as site:
        started = time.monotonic()
        proc = run_child(
            "tests.host.test_e2e_identity",
            str(data_dir),
            site.url("/page"),
            timeout=120,
            # SwiftShader gives the offscreen engine a WebGL context to read the strings from;
            # site isolation (Chrome's default, not this engine's) puts the other site's frame
            # in its own renderer, reached through the channel's frame target
            flags="--no-sandbox --disable-gpu --use-gl=angle --use-angle=swiftshader-webgl "
            "--site-per-process",
        )
        out = child_result(proc)
        out["seconds"] = time.monotonic() - started
        out["page_requests"] = site.seen("/page")
    for name, rep in out["reports"].items():
        assert "error" not in rep, (name, rep)
    return out


def test_native_identity_is_left_alone(reports: dict[str, Any]) -> None:
    r = reports["reports"]["native"]
    main = r["main"]
    assert "Chrome/140." in main["ua"]
    assert "QtWebEngine" in main["ua"]
    assert main["platform"] == "Linux x86_64"
    assert main["tz"] == "UTC"
    assert main["offsetJan"] == 0 == main["offsetJul"]
    assert main["brands"] == ["Not=A?Brand/24", "Chromium/140"]
    assert r["checks"]["platform"]["text"] == "function get platform() { [native code] }"
    assert r["worker"]["ua"] == main["ua"]
    # no noise: the solid rectangle reads exactly
    assert main["canvas"]["maxDiff"] == 0


def test_a_custom_profile_reaches_http_frames_and_workers(reports: dict[str, Any]) -> None:
    r = reports["reports"]["seedA"]
    for where in ("main", "frame", "made"):
        v = r[where]
        assert v["ua"] == WIN_UA, where
        assert v["platform"] == "Win32", where
        assert v["languages"] == ["de-DE", "de"], where
        assert v["language"] == "de-DE", where
        assert v["tz"] == "Europe/Berlin", where
        assert v["intlLocale"] == "de-DE", where
        # each service's default locale is the one it resolves the profile's language to
        for default, explicit in v["intlLocales"][:9]:
            assert default == explicit, (where, v["intlLocales"])
        assert (v["offsetJan"], v["offsetJul"], v["localHour"]) == (-60, -120, 12), where
        assert v["dateText"] == (
            "Mon Jul 15 2024 12:00:00 GMT+0200 (Mitteleuropäische Sommerzeit)"
        ), where
        assert (v["cores"], v["memory"], v["touch"]) == (12, 8, 0), where
        assert v["screen"] == [2560, 1440, 2560, 1400, 24, 1.25], where
        # CSS sees the same screen (the view keeps its own size)
        assert v["deviceMedia"] == [True, True], where
        assert v["orientation"] == ["landscape-primary", 0], where
        assert v["outer"][2] < 2560, where
        assert v["uaPlatform"] == "Windows", where
        assert sorted(v["brands"]) == ["Chromium/140", "Google Chrome/140", "Not=A?Brand/24"]
        outer_w, outer_h, inner_w, inner_h = v["outer"]
        assert outer_w >= inner_w, where
        assert inner_h <= outer_h <= max(inner_h, 1400), where
    for where in ("main", "frame"):
        v = r[where]
        assert v["quota"] == 100 * 1024**3, where
        assert v["webgl"] == [
            "WebKit",
            "WebKit WebGL",
            "Google Inc. (NVIDIA)",
            "ANGLE (NVIDIA, NVIDIA GeForce GTX 1650 Direct3D11 vs_5_0 ps_5_0, D3D11)",
        ], where
        h = v["headers"]
        assert h["user-agent"] == WIN_UA, where
        assert h["accept-language"] == "de-DE,de;q=0.9", where
        assert h["sec-ch-ua-platform"] == '"Windows"', where
        assert '"Google Chrome";v="140"' in h["sec-ch-ua"], where
    # a worker gets the profile's HTTP identity, and the prelude the rest (test below)
    w = r["worker"]
    assert w["ua"] == WIN_UA
    assert w["languages"] == ["de-DE", "de"]
    assert w["headers"]["user-agent"] == WIN_UA
    assert w["headers"]["accept-language"] == "de-DE,de;q=0.9"
    assert sorted(w["brands"]) == ["Chromium/140", "Google Chrome/140", "Not=A?Brand/24"]


def test_a_new_frames_window_read_at_once_has_the_identity(reports: dict[str, Any]) -> None:
    """A frame's window read the moment it exists, through `window[i]` where no getter can
    catch it (a frame made by script, by innerHTML, a srcdoc frame, an iframe of the page's
    HTML read by its next script), showed the machine's cores and memory, the engine's Intl
    locale, no chrome.loadTimes and an un-noised canvas (the same hash as a native session's):
    QtWebEngine's user script reaches such a document only later. The page script is also the
    channel's new-document script, which the engine runs as the window is made."""
    fp = reports["reports"]["seedA"]["fresh"]
    main = fp["main"]
    assert main[:4] == [12, 8, "de-DE", "Europe/Berlin"]
    for where in ("appended", "innerHTML", "srcdoc", "parsed"):
        assert fp[where] == main, where
    native = reports["reports"]["native"]["fresh"]
    for where in ("appended", "innerHTML", "srcdoc", "parsed"):
        assert native[where] == native["main"], where
    assert native["main"][4] != main[4]  # the canvas noise
    # inside another site's frame (its own renderer: the channel's out-of-process frame target)
    x = reports["reports"]["seedA"]["xframe"]
    assert "error" not in x, x
    assert x["main"] == main
    for where in ("appended", "innerHTML", "srcdoc", "parsed"):
        assert x[where] == main, ("xframe", where)
    # a session gone native has no new-document script left
    back = reports["reports"]["seedA_then_native"]["fresh"]
    assert back["parsed"] == back["main"] == native["main"]


def _hint(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)


def test_client_hint_headers_say_what_navigator_says(reports: dict[str, Any]) -> None:
    """A site that asks (Accept-CH) for the hints the engine answers from the machine got its
    memory, its display's scale and its own network estimate in the headers while navigator
    said the fingerprint's (Device-Memory 8 against deviceMemory 4, DPR 1 against
    devicePixelRatio 1.25, RTT 0 against 50). Now the headers say what navigator says; and
    the deprecated quota API answers as `estimate()`."""
    for name in ("native", "seedA", "seedB", "phone"):
        main = reports["reports"][name]["main"]
        h = main["headers"]
        assert h["device-memory"] == h["sec-ch-device-memory"] == _hint(main["memory"]), name
        assert h["dpr"] == h["sec-ch-dpr"] == _hint(main["screen"][5]), name
        assert main["webkitQuota"] == main["quota"], name
        if name != "native":  # (the engine's own estimate moves between two reads)
            assert [h["ect"], int(h["rtt"]), float(h["downlink"])] == main["net"], name
    seed_a = reports["reports"]["seedA"]["main"]
    assert (seed_a["headers"]["dpr"], seed_a["headers"]["rtt"]) == ("1.25", "50")
    assert reports["reports"]["phone"]["main"]["headers"]["dpr"] == "2.625"
    assert seed_a["webkitQuota"] == 100 * 1024**3
    # documents too: the second round's loads come to a site that asked in the first
    german_loads = [h for h in reports["page_requests"] if h["user-agent"] == WIN_UA and "dpr" in h]
    print(
        [
            (
                h["user-agent"][13:30],
                h.get("dpr"),
                h.get("rtt"),
                h.get("sec-ch-ua", "")[:20],
                h.get("sec-fetch-site"),
                h.get("referer"),
            )
            for h in reports["page_requests"]
        ]
    )
    assert german_loads
    for h in german_loads:
        assert (h["dpr"], h["sec-ch-dpr"], h["rtt"]) == ("1.25", "1.25", "50"), h


WORKER_FIELDS = ("platform", "cores", "memory", "tz", "offsetJan", "offsetJul", "quota")


def workers_of(rep: dict[str, Any], *, service: bool = True) -> dict[str, dict[str, Any]]:
    out = {"dedicated": rep["worker"], "nested": rep["worker"].get("nested")}
    if service:
        out["service"] = rep.get("service")
    for where, w in out.items():
        assert isinstance(w, dict), (where, w)
        assert "error" not in w, (where, w)
    return out


def test_workers_read_the_main_frame_identity_from_their_first_statement(
    reports: dict[str, Any],
) -> None:
    for name in ("seedA", "seedB", "seedA_reload", "native_then_seedA"):
        r = reports["reports"][name]
        main = r["main"]
        assert (main["platform"], main["cores"], main["tz"]) == ("Win32", 12, "Europe/Berlin")
        for where, w in workers_of(r, service=name in ("seedA", "seedB")).items():
            assert {k: w[k] for k in WORKER_FIELDS} == {k: main[k] for k in WORKER_FIELDS}, (
                name,
                where,
            )
            assert w["first"] == [main["platform"], main["cores"]], (name, where)
            assert w["ua"] == WIN_UA, (name, where)
            # the worker's getter looks native
            assert w["coresGetter"] == "function get hardwareConcurrency() { [native code] }", (
                name,
                where,
            )


def test_a_garbage_collection_keeps_the_workers_channel(reports: dict[str, Any]) -> None:
    """Between the two rounds Session2's renderer is collected as the engine does when it
    grew (host_app/engine/memory.py); its next workers (`seedA_reload`, asserted above) still read
    the identity."""
    assert reports["gc"] is True


def test_native_workers_keep_native_values(reports: dict[str, Any]) -> None:
    for name in ("native", "seedA_then_native"):
        r = reports["reports"][name]
        main = r["main"]
        assert main["platform"] == "Linux x86_64"
        for where, w in workers_of(r, service=name == "native").items():
            assert {k: w[k] for k in WORKER_FIELDS if k != "quota"} == {
                k: main[k] for k in WORKER_FIELDS if k != "quota"
            }, (name, where)
            assert w["tz"] == "UTC", (name, where)
            assert "[native code]" in w["coresGetter"], (name, where)
    # the native quota is the engine's own, not a profile's
    assert reports["reports"]["native"]["worker"]["quota"] != 100 * 1024**3


def test_seeds_give_stable_different_invisible_noise(reports: dict[str, Any]) -> None:
    reps = reports["reports"]
    a, again, b = reps["seedA"]["main"], reps["seedA_reload"]["main"], reps["seedB"]["main"]
    assert a["canvas"]["url"] == again["canvas"]["url"]
    assert a["canvas"]["data"] == again["canvas"]["data"]
    assert a["audio"]["hash"] == again["audio"]["hash"]
    assert a["canvas"]["url"] != b["canvas"]["url"]
    assert a["canvas"]["data"] != b["canvas"]["data"]
    assert a["audio"]["hash"] != b["audio"]["hash"]
    native = reps["native"]["main"]
    assert a["canvas"]["url"] != native["canvas"]["url"]
    for rep in (a, b, reps["seedA"]["frame"], reps["seedA"]["madeCanvas"]):
        canvas = rep.get("canvas", rep)
        assert canvas["maxDiff"] == 1
        assert 0 < canvas["changed"] < 6000 * 4 // 8
    # a frame reads the same noise as its page
    assert reps["seedA"]["frame"]["canvas"]["url"] == a["canvas"]["url"]
    assert abs(a["audio"]["sum"] - native["audio"]["sum"]) < 1e-3


def test_overrides_look_native(reports: dict[str, Any]) -> None:
    for key in ("checks", "madeChecks"):
        c = reports["reports"]["seedA"][key]
        assert c["ownPlatform"] is False
        for name, text in (
            ("platform", "function get platform() { [native code] }"),
            ("cores", "function get hardwareConcurrency() { [native code] }"),
            ("width", "function get width() { [native code] }"),
            ("dpr", "function get devicePixelRatio() { [native code] }"),
            ("estimate", "function estimate() { [native code] }"),
            ("getHours", "function getHours() { [native code] }"),
            ("toDataURL", "function toDataURL() { [native code] }"),
            ("getParameter", "function getParameter() { [native code] }"),
            ("toString", "function toString() { [native code] }"),
        ):
            assert c[name]["text"] == text, (key, name)
            assert c[name]["hasPrototype"] is False, (key, name)
            # same shape as the native ones (the native run's descriptors)
            native = reports["reports"]["native"][key][name]
            assert {k: c[name][k] for k in ("keys", "enumerable", "configurable", "name")} == {
                k: native[k] for k in ("keys", "enumerable", "configurable", "name")
            }, (key, name)
            assert c[name]["length"] == native["length"], (key, name)
        assert c["date"] == "function Date() { [native code] }"
        assert c["dtf"] == "function DateTimeFormat() { [native code] }"
        assert c["toStringOfToString"] == "function toString() { [native code] }"
        assert c["illegal"] == "TypeError"
        assert c["dateIsCtor"] is True
        # the prototype-chain tricks answer as for the untouched `vendor` getter
        expected = c["tamperNative"]
        assert expected[1:3] == ["ok false", "TypeError: Cyclic __proto__ value"], expected
        for got in c["tamper"]:
            assert got == expected, (key, got)


def test_errors_through_replaced_functions_have_native_stacks(reports: dict[str, Any]) -> None:
    """An error thrown through a replaced function (a wrong receiver, a bad locale, a page's own
    callback) reads as the native one: the same lines in `stack` (the built-in's own frame
    kept, none of the identity script's), the same call sites for the page's own
    Error.prepareStackTrace, the same count under a small Error.stackTraceLimit, and the
    options read in the engine's order. Lie detectors (CreepJS) read these."""
    native, fp = reports["reports"]["native"], reports["reports"]["seedA"]
    for key in ("checks", "madeChecks"):
        expected, got = native[key]["stacks"], fp[key]["stacks"]
        assert "svc-identity" not in json.dumps(got), key
        for case, text in expected.items():
            assert got[case] == text, (key, case)
        # what the native run shows, so the comparison compares something
        assert expected["platform"].startswith("TypeError: Illegal invocation\n    at "), expected
        assert "at Object.getHours (<anonymous>)" in expected["getHours"], expected
        assert (
            "at Function.toString (<anonymous>)\n    at PAGE\n    at you "
            in expected["toStringChain"]
        )
        assert "at new Date (<anonymous>)" in expected["dateValueOf"], expected
        assert expected["limited"].count("\n    at ") == 2, expected
    for where in ("dedicated", "nested", "service"):
        ours, theirs = workers_of(fp)[where], workers_of(native)[where]
        assert ours["stacks"] == theirs["stacks"], where
        assert "Illegal invocation" in theirs["stacks"][0], where


def test_webgl_reads_and_offscreen_blobs_carry_the_seeds_noise(reports: dict[str, Any]) -> None:
    """WebGL's readPixels of the canvas and OffscreenCanvas.convertToBlob (in a document and a
    worker) were read exactly: the same hash for every seed. Now they carry the canvas noise:
    at most 1 off, stable for a seed, different across seeds, the same pixels as the canvas read
    through a 2D copy; a framebuffer of the page's own reads exactly (GPU picking), and a canvas
    without a context still fails as natively."""
    r = reports["reports"]
    native, a, b, again = (r[k]["main"] for k in ("native", "seedA", "seedB", "seedA_reload"))
    for name, rep in (("native", native), ("seedA", a), ("seedB", b)):
        gl = rep["glPixels"]
        assert gl is not None, name
        assert gl["agree"] is True, name
        assert gl["ownExact"] is True, (name, gl)
    assert native["glPixels"]["changed"] == 0
    for rep in (a, b):
        assert rep["glPixels"]["maxDiff"] == 1
        assert rep["glPixels"]["changed"] > 0
    assert a["glPixels"]["hash"] != b["glPixels"]["hash"]
    assert again["glPixels"]["hash"] == a["glPixels"]["hash"]
    assert native["blob"][2] == "InvalidStateError"
    for rep in (native, a, b, again):
        assert rep["blob"][0] == rep["blob"][1]
        assert rep["blob"][2] == native["blob"][2]
    assert len({native["blob"][0], a["blob"][0], b["blob"][0]}) == 3
    assert again["blob"][0] == a["blob"][0]
    # a worker's drawing reads as the page's
    for name in ("native", "seedA", "seedB"):
        assert r[name]["worker"]["blob"] == r[name]["main"]["blob"], name


PDF_VIEWERS = "PDF Viewer, Chrome PDF Viewer, Chromium PDF Viewer, Microsoft Edge PDF Viewer, "
PDF_VIEWERS += "WebKit built-in PDF"


def test_every_worker_has_the_pages_client_hints(reports: dict[str, Any]) -> None:
    """The engine gave service workers its own brands (no "Google Chrome") where the page and
    its dedicated workers had the profile's."""
    for name in ("seedA", "phone"):
        rep = reports["reports"][name]
        main = rep["main"]
        workers = workers_of(rep)
        for where, w in workers.items():
            assert w["brands"] == main["brands"], (name, where)
            assert w["uaPlatform"] == main["uaPlatform"], (name, where)
            assert w["high"] == workers["dedicated"]["high"], (name, where)
        assert "Google Chrome/140" in main["brands"]
        full = {b["brand"]: b["version"] for b in workers["service"]["high"]["fullVersionList"]}
        assert full["Google Chrome"] == "140.0.7339.225"
        # Chrome's form factor: a phone's says Mobile (the engine said Desktop for any profile)
        form = ["Mobile"] if name == "phone" else ["Desktop"]
        assert workers["service"]["high"]["formFactors"] == form, name


def test_pages_see_a_mouse(reports: dict[str, Any]) -> None:
    """The offscreen platform declared no pointing device: `(pointer: none)` beside
    `(hover: hover)`, a combination no desktop shows. The engine declares Qt's core pointer."""
    for name in ("native", "seedA"):
        for where in ("main", "frame", "made"):
            assert reports["reports"][name][where]["pointer"] == [True, True, True], (name, where)


def test_plugins_are_a_desktop_browsers_and_a_phones(reports: dict[str, Any]) -> None:
    """Found with FingerprintJS's BotD (MIT, npm): every session was "headless_chrome" because
    navigator.plugins was empty, which no desktop Chrome shows. A fingerprinted desktop session
    lists the PDF viewer's five entries as every desktop browser does (while a PDF stays a
    download: test_e2e_downloads); a phone lists none; the native identity is the engine's."""
    rep = reports["reports"]
    for where in ("main", "frame", "made"):
        assert rep["seedA"][where]["plugins"] == [5, 2, True, PDF_VIEWERS], where
        assert rep["phone"][where]["plugins"] == [0, 0, False, ""], where
        assert rep["native"][where]["plugins"] == [0, 0, False, ""], where
    assert rep["phone"]["main"]["touch"] == 5
    assert rep["phone"]["main"]["orientation"] == ["portrait-primary", 0]
    assert rep["native_then_seedA"]["main"]["plugins"][:3] == [5, 2, True]
    assert rep["seedA_then_native"]["main"]["plugins"][:3] == [0, 0, False]


def test_an_identity_change_reaches_the_next_document(reports: dict[str, Any]) -> None:
    changed = reports["reports"]["native_then_seedA"]["main"]
    assert changed["ua"] == WIN_UA
    assert changed["platform"] == "Win32"
    assert changed["tz"] == "Europe/Berlin"
    # same seed, same noise, in another session
    assert changed["canvas"]["url"] == reports["reports"]["seedA"]["main"]["canvas"]["url"]
    back = reports["reports"]["seedA_then_native"]["main"]
    assert back["platform"] == "Linux x86_64"
    assert "QtWebEngine" in back["ua"]
    assert back["tz"] == "UTC"
    assert back["languages"] == reports["reports"]["native"]["main"]["languages"]
    assert back["headers"]["user-agent"] == back["ua"]
    for rep in (changed, back, reports["reports"]["native"]["main"]):
        assert rep["deviceMedia"] == [True, True]  # the screen override set and cleared
    assert back["screen"][:2] == reports["reports"]["native"]["main"]["screen"][:2]
    # the document's own request too: the load waits until the channel's user-agent override
    # is cleared (it went out with the fingerprint's User-Agent and Sec-CH-UA before)
    loads = reports["page_requests"]
    native_loads = [h for h in loads if h["user-agent"] == back["ua"]]
    assert len(native_loads) == 2, [h["user-agent"] for h in loads]  # native's, then back's
    for h in native_loads:
        assert "Google Chrome" not in h["sec-ch-ua"], h
    assert len([h for h in loads if h["user-agent"] == WIN_UA]) == 4
    assert reports["seconds"] < 60


# --- the child process ----------------------------------------------------------------------


def run(data_dir: Path, url: str) -> dict[str, Any]:
    from host_app.qt import QTimer, QWebEngineScript

    app, engine = start_engine(data_dir, "svc-identity-test")
    identities = {
        "Session1": None,
        "Session2": german(SEED_A),
        "Session3": german(SEED_B),
        "Session4": phone(),
    }

    def apply(sid: str, fp: FingerprintProfile | None) -> None:
        configure(engine, int(sid.removeprefix("Session")), identity=fp)

    for sid, fp in identities.items():
        apply(sid, fp)
    # (report name, session, identity to apply before loading or NATIVE-to-keep)
    rounds: list[list[tuple[str, str, Any]]] = [
        [
            ("native", "Session1", ...),
            ("seedA", "Session2", ...),
            ("seedB", "Session3", ...),
            ("phone", "Session4", ...),
        ],
        [
            ("native_then_seedA", "Session1", german(SEED_A)),
            ("seedA_reload", "Session2", ...),
            ("seedA_then_native", "Session3", None),
        ],
    ]
    out: dict[str, Any] = {"reports": {}}
    pending: dict[str, str] = {}

    def start(index: int) -> None:
        if index == len(rounds):
            app.quit()
            return
        if index == 1 and "gc" not in out:
            collect_then(lambda: start(index))
            return
        for name, sid, fp in rounds[index]:
            if fp is not ...:
                apply(sid, fp)
            engine.browser(sid).load(f"{url}?round={index}")
            pending[name] = sid
        poll(index)

    def poll(index: int) -> None:
        for name, sid in list(pending.items()):
            page = engine.browser(sid).page
            assert page is not None

            def got(result: Any, name: str = name) -> None:
                if isinstance(result, str) and name in pending:
                    out["reports"][name] = json.loads(result)
                    del pending[name]

            page.runJavaScript(
                "(() => { const e = document.getElementById('out');"
                f" return e && location.search === '?round={index}' ? e.textContent : null; }})()",
                QWebEngineScript.ScriptWorldId.ApplicationWorld,
                got,
            )
        if pending:
            QTimer.singleShot(100, lambda: poll(index))
        else:
            start(index + 1)

    def collect_then(go_on: Any) -> None:
        """A garbage collection in Session2's renderer as the engine makes one when it is due:
        through the page's own devtools channel (a second frontend detached it for good, and
        the next workers ran native)."""
        from host_app.engine.memory import renderer_pss
        from host_app.logic import aio
        from host_app.logic.memory import RendererMemory

        b = engine.browser("Session2")
        assert b.page is not None
        workers = b.workers
        assert workers is not None
        page = b.page
        due = RendererMemory(pid=renderer_pss(page)[0], baseline=1, threshold=1)

        async def collect() -> None:
            made = await engine.collector.collect_if_due(page, due, workers.channel(page))
            out["gc"] = made is not None

        def finished(task: aio.Task) -> None:
            if "gc" not in out:
                out["gc"] = repr(task.exception)
            go_on()

        aio.Task(collect(), finished).start()

    QTimer.singleShot(0, lambda: start(0))
    QTimer.singleShot(int(os.environ.get("_IDENTITY_LIMIT", "90000")), app.quit)
    app.exec()
    engine.shutdown()
    out["missing"] = sorted(pending)
    return out


if __name__ == "__main__":
    print(json.dumps(run(Path(sys.argv[1]), sys.argv[2])))
