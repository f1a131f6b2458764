"""Probe: what does Qt 6.11's DevTools frontend page get, and does the interceptor see devtools://?"""
import json, os, sys, time
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox --disable-gpu")
from PyQt6.QtCore import QUrl, QTimer
from PyQt6.QtWidgets import QApplication
from PyQt6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile, QWebEngineUrlRequestInterceptor

BLOCK = "--block" in sys.argv

class Icpt(QWebEngineUrlRequestInterceptor):
    def interceptRequest(self, info):
        u = info.requestUrl().toString()
        blocked = BLOCK and u.startswith("devtools://") and not u.endswith("inspector.html")
        print("REQ", u, "BLOCK" if blocked else "", flush=True)
        if blocked:
            info.block(True)

app = QApplication(sys.argv)
prof = QWebEngineProfile("probe-dt")  # named? no: use OTR for frontend
dtprof = QWebEngineProfile()  # off the record
icpt = Icpt()
dtprof.setUrlRequestInterceptor(icpt)
page = QWebEnginePage(prof)
dt = QWebEnginePage(dtprof)
dt.loadFinished.connect(lambda ok: print("dt loadFinished", ok, dt.url().toString(), flush=True))
page.setHtml("<p>hi</p>", QUrl("http://example.invalid/"))
page.setDevToolsPage(dt)

def probe():
    js = """(function(){var k=Object.getOwnPropertyNames(window).filter(function(n){return /devtools|inspector|host/i.test(n)});
    var r={keys:k,url:location.href};
    if (window.DevToolsHost) r.dth=Object.getOwnPropertyNames(Object.getPrototypeOf(DevToolsHost)).concat(Object.keys(DevToolsHost));
    r.scripts=[].map.call(document.scripts,function(s){return s.src});
    return JSON.stringify(r);})()"""
    dt.runJavaScript(js, 0, lambda r: (print("PROBE", r, flush=True), app.quit()))
QTimer.singleShot(6000, probe)
QTimer.singleShot(15000, app.quit)
app.exec()
