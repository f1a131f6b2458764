"""Spike (issue 14): reach CDP in-process through Qt's DevTools frontend page, no TCP port.

How it works:
- ``page.setDevToolsPage(dt)`` makes Qt load devtools://devtools/bundled/inspector.html into
  ``dt`` and attach it (as a DevToolsAgentHostClient) to ``page``'s WebContents once that
  document has loaded (DevToolsFrontendQt::DocumentOnLoadCompletedInPrimaryMainFrame).
- The devtools page's profile has a request interceptor that blocks every devtools:// request
  except inspector.html itself, so the inspector app never runs: only the embedder bindings
  that the engine injects remain (DevToolsHost native, plus the compatibility script's
  DevToolsAPI / InspectorFrontendHost).
- Python sends CDP with ``dt.runJavaScript("InspectorFrontendHost.sendMessageToBackend(...)")``;
  answers and events come back through ``DevToolsAPI.dispatchMessage`` (replaced by us) which
  logs them to the devtools page's own console, read by ``javaScriptConsoleMessage``.
- Target.setAutoAttach {autoAttach, waitForDebuggerOnStart, flatten} on the page; every attached
  target gets setAutoAttach (nested), workers get the prelude through Runtime.evaluate, then
  Runtime.runIfWaitingForDebugger.

Run: .venv/bin/python spike/cdp_workers.py [--baseline] [--profiles N] [--no-block] [--keep]
Prints one JSON line per session with what every worker reported as its first statement.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import shutil
import sys
import tempfile
import threading
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox --disable-gpu")

from PyQt6.QtCore import QTimer, QUrl  # noqa: E402
from PyQt6.QtWebEngineCore import (  # noqa: E402
    QWebEnginePage,
    QWebEngineProfile,
    QWebEngineScript,
    QWebEngineUrlRequestInterceptor,
)
from PyQt6.QtWidgets import QApplication  # noqa: E402

SITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "site")
MARK = "\x01cdp:"

# What the worker prelude does (the product would take this from identity_script.py).
PRELUDE = r"""
(() => {
  const def = (proto, name, value) => Object.defineProperty(proto, name,
      {get() { return value; }, configurable: true, enumerable: true});
  def(WorkerNavigator.prototype, 'hardwareConcurrency', %(hc)d);
  def(WorkerNavigator.prototype, 'platform', 'SpikeOS');
  if ('deviceMemory' in WorkerNavigator.prototype) def(WorkerNavigator.prototype, 'deviceMemory', 2);
  self.__svcPrelude = 1;
})();
"""

# browserContextId -> the prelude of that session (one per profile); filled as pages attach.
PRELUDES: dict[str, str] = {}
TZ = ""  # --tz: also try Emulation.setTimezoneOverride on the page and on every worker

# Installed in the devtools page: replaces the compatibility script's dispatch functions.
HOOK = r"""
(() => {
  let parts = null, size = 0;
  DevToolsAPI.dispatchMessage = m => console.log('%s' + m);
  DevToolsAPI.dispatchMessageChunk = (chunk, messageSize) => {
    if (messageSize) { parts = [chunk]; size = messageSize; } else parts.push(chunk);
    const all = parts.join('');
    if (all.length >= size) { parts = null; console.log('%s' + all); }
  };
  return Object.keys(window).filter(k => /devtools|inspector/i.test(k)).join(',');
})()
""" % (MARK, MARK)


class BlockInspectorApp(QWebEngineUrlRequestInterceptor):
    """Lets only the frontend document through; its scripts and styles are blocked."""

    def __init__(self, block: bool) -> None:
        super().__init__()
        self.block = block
        self.seen: list[str] = []

    def interceptRequest(self, info) -> None:  # noqa: N802 (Qt name)
        url = info.requestUrl().toString()
        self.seen.append(url)
        if self.block and url.startswith("devtools://") and not url.endswith("/inspector.html"):
            info.block(True)


class FrontendPage(QWebEnginePage):
    def __init__(self, profile, on_message) -> None:
        super().__init__(profile)
        self.on_message = on_message

    def javaScriptConsoleMessage(self, level, message, line, source):  # noqa: N802
        if message.startswith(MARK):
            self.on_message(json.loads(message[len(MARK):]))
        else:
            print("  [devtools page console]", message[:200], file=sys.stderr)


class Cdp:
    """One CDP connection to one page, through its devtools page."""

    def __init__(self, name: str, page: QWebEnginePage, dt_profile: QWebEngineProfile,
                 prelude: str, browser_level: bool) -> None:
        self.name = name
        self.prelude = prelude
        self.browser_level = browser_level
        self.context_id = None
        self.discovered: list[dict] = []
        self.page = page
        self.dt = FrontendPage(dt_profile, self._on_message)
        self.next_id = 0
        self.pending: dict[int, callable] = {}
        self.log: list[dict] = []
        self.targets: dict[str, dict] = {}
        self.t_created = time.perf_counter()
        self.timings: dict[str, float] = {}
        self.on_ready = None

    def open(self, on_ready) -> None:
        self.on_ready = on_ready
        self.dt.loadFinished.connect(self._frontend_loaded)
        self.page.setDevToolsPage(self.dt)

    def _frontend_loaded(self, ok: bool) -> None:
        self.timings["frontend_loaded_ms"] = (time.perf_counter() - self.t_created) * 1000
        self.dt.runJavaScript(HOOK, QWebEngineScript.ScriptWorldId.MainWorld, self._hooked)

    def _hooked(self, keys) -> None:
        self.bindings = keys
        self.send("Target.setAutoAttach",
                  {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True},
                  callback=self._auto_attach_on)

    def _auto_attach_on(self, msg) -> None:
        self.timings["auto_attach_ms"] = (time.perf_counter() - self.t_created) * 1000
        self.auto_attach_answer = msg
        self.send("Target.getTargetInfo", callback=self._own_info)

    def _own_info(self, msg) -> None:
        self.own_info = msg
        if TZ:
            self.send("Emulation.setTimezoneOverride", {"timezoneId": TZ},
                      callback=lambda m: setattr(self, "page_tz_answer", m))
        self.context_id = msg.get("result", {}).get("targetInfo", {}).get("browserContextId")
        PRELUDES[self.context_id] = self.prelude
        if not self.browser_level:
            self._ready()
            return
        # Fallback probe for shared workers: discovery from the page connection.
        self.send("Target.setDiscoverTargets", {"discover": True},
                  callback=lambda m: setattr(self, "discover_answer", m))
        # Shared workers are not related to a page: only the browser target auto-attaches them.
        self.send("Target.attachToBrowserTarget", callback=self._browser_session)

    def _browser_session(self, msg) -> None:
        self.browser_session_answer = msg
        session = msg.get("result", {}).get("sessionId")
        if not session:
            self._ready()
            return
        self.send("Target.setAutoAttach",
                  {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True,
                   "filter": [{"type": "shared_worker"}]},
                  session=session, callback=self._browser_auto_attach)

    def _browser_auto_attach(self, msg) -> None:
        self.browser_auto_attach_answer = msg
        self._ready()

    def _ready(self) -> None:
        self.timings["ready_ms"] = (time.perf_counter() - self.t_created) * 1000
        self.on_ready(self)

    def send(self, method, params=None, session=None, callback=None) -> None:
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        if callback:
            self.pending[self.next_id] = callback
        self.log.append({"out": msg if method != "Runtime.evaluate" else {**msg, "params": "…"}})
        js = "InspectorFrontendHost.sendMessageToBackend(%s)" % json.dumps(json.dumps(msg))
        self.dt.runJavaScript(js, QWebEngineScript.ScriptWorldId.MainWorld)

    def _on_message(self, msg: dict) -> None:
        self.log.append({"in": msg})
        if "id" in msg:
            cb = self.pending.pop(msg["id"], None)
            if cb:
                cb(msg)
            return
        if msg.get("method") == "Target.attachedToTarget":
            self._attached(msg["params"])
        elif msg.get("method") == "Target.targetCreated":
            info = msg["params"]["targetInfo"]
            self.discovered.append({"type": info["type"], "url": info["url"]})
            if info["type"] == "shared_worker" and info.get("browserContextId") == self.context_id:
                self.send("Target.attachToTarget", {"targetId": info["targetId"], "flatten": True},
                          callback=lambda m: setattr(self, "attach_shared_answer", m))

    def _attached(self, p: dict) -> None:
        info, session = p["targetInfo"], p["sessionId"]
        t_attach = time.perf_counter()
        rec = {"type": info["type"], "url": info["url"], "waiting": p["waitingForDebugger"],
               "context": info.get("browserContextId"), "via": self.name}
        self.targets[session] = rec
        # Nested targets (a worker's workers, an iframe's workers) need auto-attach too.
        self.send("Target.setAutoAttach",
                  {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True},
                  session=session, callback=lambda m: rec.__setitem__("auto_attach", "error" not in m))
        if TZ and info["type"] in ("worker", "shared_worker", "service_worker"):
            self.send("Emulation.setTimezoneOverride", {"timezoneId": TZ}, session=session,
                      callback=lambda m: rec.__setitem__("worker_tz_answer", m.get("error", "ok")))
        if info["type"] in ("worker", "shared_worker", "service_worker"):
            def evaluated(m, rec=rec):
                rec["prelude"] = m.get("result", m.get("error"))
            prelude = PRELUDES.get(info.get("browserContextId"))
            rec["prelude_owner_known"] = prelude is not None
            self.send("Runtime.evaluate", {"expression": prelude or "0", "returnByValue": True},
                      session=session, callback=evaluated)

        def resumed(m, rec=rec):
            rec["resumed"] = "error" not in m
            rec["held_ms"] = round((time.perf_counter() - t_attach) * 1000, 2)
        self.send("Runtime.runIfWaitingForDebugger", session=session, callback=resumed)


def serve(root: str) -> tuple[http.server.ThreadingHTTPServer, int]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a) -> None:
            pass

    handler = functools.partial(Quiet, directory=root)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, httpd.server_address[1]


def pss_kb() -> dict[str, int]:
    """PSS of this process and every QtWebEngineProcess child, in kB (Linux smaps_rollup)."""
    out = {}
    me = os.getpid()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if int(pid) != me and ppid != me:
                # zygote children: parent is a QtWebEngineProcess child of ours
                with open(f"/proc/{ppid}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) != me:
                        continue
            with open(f"/proc/{pid}/cmdline") as f:
                cmd = f.read().replace("\0", " ")
            with open(f"/proc/{pid}/smaps_rollup") as f:
                pss = next(int(line.split()[1]) for line in f if line.startswith("Pss:"))
        except (OSError, StopIteration, ValueError):
            continue
        kind = "browser" if int(pid) == me else (
            cmd.split("--type=")[1].split()[0] if "--type=" in cmd else "other")
        out[f"{pid}:{kind}"] = pss
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", action="store_true", help="no devtools page at all")
    ap.add_argument("--no-block", action="store_true", help="let the inspector app load")
    ap.add_argument("--profiles", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--no-browser-session", action="store_true",
                    help="page-level auto-attach only (no shared-worker probes)")
    ap.add_argument("--tz", default="")
    args = ap.parse_args()
    global TZ
    TZ = args.tz

    tmp = tempfile.mkdtemp(prefix="svc-spike-")
    httpd, port = serve(SITE)
    app = QApplication(sys.argv[:1])

    dt_profile = QWebEngineProfile(app)  # off the record, only for the frontend pages
    interceptor = BlockInspectorApp(block=not args.no_block)
    dt_profile.setUrlRequestInterceptor(interceptor)

    sessions = []
    t_start = time.perf_counter()
    pss_before = pss_kb()
    for i in range(args.profiles):
        # One named profile per session, as svc does; distinct origins keep SWs apart too.
        profile = QWebEngineProfile(f"spike-{i}", app)
        profile.setPersistentStoragePath(os.path.join(tmp, f"p{i}"))
        profile.setCachePath(os.path.join(tmp, f"c{i}"))
        page = QWebEnginePage(profile)
        sessions.append({"name": f"spike-{i}", "profile": profile, "page": page, "cdp": None,
                         "url": f"http://127.0.0.1:{port}/index.html"})

    def load(s):
        s["t_load"] = time.perf_counter()
        s["page"].load(QUrl(s["url"]))

    ready = []

    def one_ready(cdp):
        ready.append(cdp)
        if len(ready) == len(sessions):  # every profile's prelude is known: load the pages
            for s in sessions:
                load(s)

    for i, s in enumerate(sessions):
        if args.baseline:
            load(s)
        else:
            cdp = Cdp(s["name"], s["page"], dt_profile, PRELUDE % {"hc": 12 + i},
                      browser_level=not args.no_browser_session)
            s["cdp"] = cdp
            cdp.open(one_ready)

    done = {"n": 0}

    def poll():
        pending = 0
        for s in sessions:
            if s.get("results") or "t_load" not in s:
                pending += 0 if s.get("results") else 1
                continue
            pending += 1

            def got(r, s=s):
                if r and all(k in r for k in ("dedicated", "nested", "shared", "service", "detectors")):
                    s["results"] = r
                    s["t_results_ms"] = round((time.perf_counter() - s["t_load"]) * 1000)
            s["page"].runJavaScript("window.__results", got)
        if pending == 0 or time.perf_counter() - t_start > args.timeout:
            finish()
        else:
            QTimer.singleShot(200, poll)

    def finish():
        if done["n"]:
            return
        done["n"] = 1
        pss_after = pss_kb()
        for s in sessions:
            cdp = s["cdp"]
            report = {
                "session": s["name"],
                "mode": "baseline" if args.baseline else ("devtools-unblocked" if args.no_block else "devtools-bindings-only"),
                "results": s.get("results"),
                "page_to_results_ms": s.get("t_results_ms"),
            }
            if cdp:
                report["bindings"] = getattr(cdp, "bindings", None)
                report["timings"] = {k: round(v, 1) for k, v in cdp.timings.items()}
                report["auto_attach_answer"] = getattr(cdp, "auto_attach_answer", None)
                report["targets"] = list(cdp.targets.values())
                report["own_context"] = cdp.context_id
                report["discovered"] = cdp.discovered
                for k in ("browser_session_answer", "browser_auto_attach_answer",
                          "discover_answer", "attach_shared_answer", "page_tz_answer"):
                    if hasattr(cdp, k):
                        report[k] = getattr(cdp, k)
                report["methods_sent"] = sorted({e["out"]["method"] for e in cdp.log if "out" in e})
                report["events_seen"] = sorted({e["in"].get("method") for e in cdp.log
                                                if "in" in e and "method" in e["in"]})
            print(json.dumps(report, indent=1))
        print(json.dumps({"pss_kb_before": sum(pss_before.values()),
                          "pss_kb_after": sum(pss_after.values()),
                          "processes_after": pss_after,
                          "devtools_requests": len(interceptor.seen),
                          "devtools_requests_sample": interceptor.seen[:6]}, indent=1))
        for s in sessions:
            if s["cdp"]:
                s["cdp"].dt.deleteLater()
            s["page"].deleteLater()
        QTimer.singleShot(300, app.quit)

    QTimer.singleShot(200, poll)
    app.exec()
    httpd.shutdown()
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
