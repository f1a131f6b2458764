"""The local fixture site of the host tests, served by a thread in the test process."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

LONG = "<div style='height:4000px'>spacer</div>"

PAGES: dict[str, str] = {
    "/": """<!doctype html><html><head><title>Fixture home</title></head><body>
<h1>Fixture site</h1>
<ul id=nav><li><a id=to-form href="/form">Form</a></li><li><a href="/table">Table</a></li>
<li><a href="/links?x=1">Links</a></li></ul></body></html>""",
    "/form": """<!doctype html><html><head><title>Form</title>
<script>(function(){var mark=function(){document.title='touched by the host';};
function trap(proto,names){names.forEach(function(n){var o=proto[n];if(!o)return;
proto[n]=function(){mark();return o.apply(this,arguments);};});}
trap(Document.prototype,['querySelector','querySelectorAll','getElementsByTagName','elementFromPoint']);
trap(Element.prototype,['querySelector','querySelectorAll','getElementsByTagName','getBoundingClientRect']);
trap(HTMLElement.prototype,['focus','click']);trap(window,['getComputedStyle']);
new MutationObserver(function(list){list.forEach(function(m){if(m.type==='attributes')mark();});})
.observe(document.documentElement,{attributes:true,subtree:true});})();</script></head><body>
<form id=f action="/submitted" method="get">
<label>Name <input id=name name=name value="ab"></label>
<input id=ro name=ro readonly value="fixed"><input id=dis name=dis disabled value="off">
<select id=color name=color><option value=red>Red</option><option value=green disabled>Green</option>
<option value=blue>Blue</option></select>
<textarea id=notes name=notes></textarea>
<div id=plain>not editable</div>
<button id=go type=submit>Send</button></form>
<p id=late></p>
<script>setTimeout(function(){var s=document.createElement('span');s.id='appeared';
document.getElementById('late').appendChild(s);},400)</script>
"""
    + LONG
    + """<button id=far type=button onclick="document.title='far clicked'">far</button>
</body></html>""",
    "/table": """<!doctype html><html><head><title>Table</title></head><body>
<table id=t><caption>Prices</caption><tr><th>Item</th><th>Price</th></tr>
<tr class="row odd"><td>Apple</td><td>1</td></tr><tr class="row even"><td>Pear</td><td>2</td></tr>
<tr class="row odd"><td>Fig</td><td>3</td></tr></table></body></html>""",
    "/links": """<!doctype html><html><head><title>Links</title></head><body>
<a id=a1 href="/articles/first-article">First</a>
<a id=a2 href="/articles/second-article?ref=home">Second</a>
<a id=a3 href="mailto:x@example.org">Mail</a></body></html>""",
    "/iframes": """<!doctype html><html><head><title>Frames</title></head><body>
<p>outer</p><iframe src="/forever-frame"></iframe><iframe src="/table"></iframe></body></html>""",
    "/background": """<!doctype html><html><head><title>Background</title></head><body>
<p>keeps loading</p><img src="/forever-image"><script>fetch('/forever-fetch')</script></body></html>""",
    "/selfnav": """<!doctype html><html><head><title>Self navigating</title></head><body>moving
<script>setTimeout(function(){location.href='/table'},300)</script></body></html>""",
    "/notify": """<!doctype html><html><head><title>Notify</title></head><body>
<script>Notification.requestPermission().then(function(p){document.title='perm '+p;
if(p==='granted'){new Notification('Hello',{body:'from the fixture',tag:'t1'});}});</script>
</body></html>""",
    "/tall": """<!doctype html><html><head><title>Tall</title></head><body>
<div style='height:20000px'>very tall</div></body></html>""",
    "/challenge": """<!doctype html><html><head><title>Just a moment...</title></head><body>
<div id=challenge-form>checking</div><script>setTimeout(function(){location.href='/table'},800)</script>
</body></html>""",
}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, status: int, body: str, ctype: str = "text/html; charset=utf-8") -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def _hang(self, ctype: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", "100000")
        self.end_headers()
        try:
            for _ in range(600):
                if self.server.stopping:  # type: ignore[attr-defined]
                    return
                time.sleep(0.1)
        except OSError:
            return

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        path = url.path
        query = parse_qs(url.query)
        if path == "/redirect":
            n = int(query.get("n", ["3"])[0])
            target = f"/redirect?n={n - 1}" if n > 1 else "/table"
            self.send_response(302)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if path == "/set-cookie":
            data = b"<html><head><title>Cookie set</title></head><body>set</body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Set-Cookie", "svc_test=kept; Max-Age=86400; Path=/")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        if path == "/show-cookie":
            cookie = self.headers.get("Cookie", "")
            self._send(
                200, f"<html><head><title>Cookie</title></head><body id=c>[{cookie}]</body></html>"
            )
            return
        if path == "/missing":
            self._send(
                404, "<html><head><title>Not here</title></head><body>404 page</body></html>"
            )
            return
        if path == "/broken":
            self._send(500, "<html><head><title>Broken</title></head><body>500 page</body></html>")
            return
        if path == "/challenge-403":
            self._send(403, PAGES["/challenge"])
            return
        if path == "/slow":
            time.sleep(float(query.get("s", ["2"])[0]))
            self._send(200, "<html><head><title>Slow</title></head><body>slow</body></html>")
            return
        if path in ("/forever-image", "/forever-fetch", "/forever-frame"):
            self._hang("image/png" if path == "/forever-image" else "text/html")
            return
        if path == "/submitted":
            items = "".join(f"<li id={k}>{v[0]}</li>" for k, v in sorted(query.items()))
            self._send(
                200,
                f"<html><head><title>Submitted</title></head><body><ul>{items}</ul></body></html>",
            )
            return
        if path.startswith("/articles/"):
            self._send(
                200, f"<html><head><title>{path[10:]}</title></head><body>article</body></html>"
            )
            return
        page = PAGES.get(path)
        if page is None:
            self._send(404, "<html><body>unknown</body></html>")
            return
        self._send(200, page)


class Site:
    def __init__(self) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.stopping = False  # type: ignore[attr-defined]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def url(self, path: str) -> str:
        return self.base + path

    def start(self) -> Site:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.stopping = True  # type: ignore[attr-defined]
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)
