"""The local fixture site of the host tests, served by a thread in the test process."""

from __future__ import annotations

import select
import socket
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from ..wsserver import SOCKET_PAGE

LONG = "<div style='height:4000px'>spacer</div>"

PAGES: dict[str, str] = {
    "/socket": SOCKET_PAGE,
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
    # a select of 20 options that counts the changes the page sees in a field it submits
    "/choices": """<!doctype html><html><head><title>Choices</title></head><body>
<form action="/submitted" method="get"><select id=pick name=pick
onchange="var n=document.getElementById('changes');n.value=+n.value+1">"""
    + "".join(f"<option value=v{i}>Option {i}</option>" for i in range(20))
    + """</select><input type=hidden id=changes name=changes value=0>
<button id=send type=submit>Send</button></form></body></html>""",
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
    # sets its fragment after it loaded, as CKEditor's toolbar configurator does (here again and
    # again for 1.5 s: a probe of the page in flight as the fragment changes is not answered)
    "/selfhash": """<!doctype html><html><head><title>Self fragment</title></head><body>mode
<script>var n=0,t=setInterval(function(){n++;location.hash=n<300?'#m'+n:'#basic';
if(n>=300)clearInterval(t);},5);</script></body></html>""",
    # follows a link to a 204 once loaded: the engine starts a load that commits nothing
    "/self204": """<!doctype html><html><head><title>Self 204</title></head><body>stays
<script>setTimeout(function(){location.href='/nocontent'},300)</script></body></html>""",
    "/notify": """<!doctype html><html><head><title>Notify</title></head><body>
<script>Notification.requestPermission().then(function(p){document.title='perm '+p;
if(p==='granted'){new Notification('Hello',{body:'from the fixture',tag:'t1'});}});</script>
</body></html>""",
    # a button ~61,000 px down: the engine scrolls ~600 px per wheel event there
    "/very-far": """<!doctype html><html><head><title>Very far</title></head><body>"""
    + "".join(f"<p>Paragraph {i} of some ordinary text on the page.</p>" for i in range(30))
    + """<div style='height:60000px'>long text</div>
<button id=far type=button onclick="document.title='far clicked'">far</button></body></html>""",
    # what keys the page saw, per control: the typing of an action is key-down, input, key-up
    # per character (spec 1 "type")
    "/keys": """<!doctype html><html><head><title>Keys</title></head><body>
<input id=line value="Hello"><textarea id=area>first line
second line</textarea><div id=rich contenteditable>Rich <b>text</b></div>
<input id=mail type=email value="a@b"><pre id=log></pre><pre id=vals></pre>
<script>const $ = (id) => document.getElementById(id);
for (const id of ['line', 'area', 'rich', 'mail']) {
  $(id).addEventListener('keydown', (e) => { $('log').textContent += id + ':' + e.key + ' '; });
  $(id).addEventListener('input', () => {
    $('vals').textContent = JSON.stringify([$('line').value, $('area').value, $('mail').value]);
  });
}</script></body></html>""",
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

    def _held_until_closed(self, seconds: float, tag: str) -> bool:
        """Wait up to `seconds` before any response byte; True (and the time recorded under `tag`)
        when the client closed the connection meanwhile."""
        end = time.monotonic() + seconds
        while time.monotonic() < end and not self.server.stopping:  # type: ignore[attr-defined]
            readable, _, _ = select.select([self.connection], [], [], 0.01)
            if readable:
                try:
                    closed = self.connection.recv(1, socket.MSG_PEEK) == b""
                except OSError:
                    closed = True
                if closed:
                    self.server.aborted[tag] = time.time()  # type: ignore[attr-defined]
                    self.close_connection = True
                    return True
        return False

    def _stream(self, seconds: float, tag: str) -> None:
        """A document that commits at once and then streams its body for `seconds`."""
        # the image request tells the test that the document committed and is being parsed
        head = (
            "<!doctype html><html><head><title>Streaming</title></head><body><p id=first>first"
            f"<img src='/committed?{urlsplit(self.path).query}'>"
        ).encode()
        piece = b"<p>more</p>\n"
        tail = b"<p id=last>done</p></body></html>"
        n = max(1, round(seconds * 10))
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(head) + n * len(piece) + len(tail)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        try:
            self.wfile.write(head)
            self.wfile.flush()
            for _ in range(n):
                if self.server.stopping:  # type: ignore[attr-defined]
                    return
                time.sleep(0.1)
                self.wfile.write(piece)
                self.wfile.flush()
            self.wfile.write(tail)
        except OSError:
            self.server.aborted[tag] = time.time()  # type: ignore[attr-defined]
            self.close_connection = True

    def do_GET(self) -> None:  # noqa: PLR0911, PLR0912  one route per path
        url = urlsplit(self.path)
        path = url.path
        query = parse_qs(url.query)
        with self.server.lock:  # type: ignore[attr-defined]
            self.server.hits[self.path] += 1  # type: ignore[attr-defined]
        if path == "/hold":
            if not self._held_until_closed(float(query.get("s", ["5"])[0]), self.path):
                self._send(200, "<html><head><title>Held</title></head><body>held</body></html>")
            return
        if path == "/footer":
            h = int(query.get("h", ["8000"])[0])
            self._send(
                200,
                "<!doctype html><html><head><title>Footer</title></head><body style='margin:0'>"
                f"<div style='height:{h - 100}px;background:#0c0'>top</div>"
                "<div id=footer style='height:100px;background:#f00'>footer</div></body></html>",
            )
            return
        if path == "/later":
            to = query.get("to", ["/table"])[0]
            ms = int(query.get("ms", ["1000"])[0])
            self._send(
                200,
                "<html><head><title>Later</title></head><body>moves later<script>"
                f"setTimeout(function(){{location.href={to!r}}},{ms})</script></body></html>",
            )
            return
        if path == "/stream":
            self._stream(float(query.get("s", ["3"])[0]), self.path)
            return
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
        if path == "/login":
            # a sign-in: an HttpOnly session cookie (never readable by the page's script), then
            # the member page
            user = query.get("user", ["member"])[0]
            self.send_response(302)
            self.send_header("Set-Cookie", f"member={user}; Max-Age=86400; Path=/; HttpOnly")
            self.send_header("Location", "/member")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if path == "/member":
            member = dict(
                p.strip().split("=", 1)
                for p in self.headers.get("Cookie", "").split(";")
                if "=" in p
            ).get("member")
            if member is None:
                self.send_response(302)
                self.send_header("Location", "/signed-out")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self._send(
                200,
                f"<html><head><title>Members</title></head><body>Welcome, {member}</body></html>",
            )
            return
        if path == "/signed-out":
            self._send(200, "<html><head><title>Sign in</title></head><body>sign in</body></html>")
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
        if path == "/slow-search.js":
            # what a search box loads on its focus (rustdoc's index): it answers its keys
            time.sleep(float(query.get("s", ["0.5"])[0]))
            self._send(
                200,
                "document.getElementById('q').addEventListener('keyup',function(){"
                "document.getElementById('out').textContent='searched '+this.value;});",
                "text/javascript",
            )
            return
        if path == "/slow-dialog.js":
            # what an editor loads on the click that opens a dialog (CKEditor): it looks for the
            # dialog's stylesheet every 100 ms, and builds the dialog once that applies
            time.sleep(float(query.get("s", ["0.1"])[0]))
            # d: it sets the dialog up this long before it looks
            later = int(query.get("d", ["0"])[0])
            self._send(
                200,
                f"setTimeout(function look(){{var p=document.getElementById('probe');"
                "if(getComputedStyle(p).zIndex!=='7'){setTimeout(look,100);return;}"
                "var d=document.createElement('div');d.setAttribute('role','dialog');"
                "d.setAttribute('aria-label','Link');"
                "d.innerHTML='<label>URL <input id=url></label><button>OK</button>';"
                f"document.body.append(d);}},{later});",
                "text/javascript",
            )
            return
        if path == "/slow-dialog.css":
            time.sleep(float(query.get("s", ["0.4"])[0]))
            self._send(200, "#probe{position:relative;z-index:7}", "text/css")
            return
        if path == "/nocontent":
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()
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
        self.server.lock = threading.Lock()  # type: ignore[attr-defined]
        # requests seen per path with query, and when a held or streamed one was aborted
        self.server.hits = Counter()  # type: ignore[attr-defined]
        self.server.aborted = {}  # type: ignore[attr-defined]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def url(self, path: str) -> str:
        return self.base + path

    def hits(self, path: str) -> int:
        """How many requests for `path` (with its query) the site has seen."""
        with self.server.lock:  # type: ignore[attr-defined]
            return int(self.server.hits[path])  # type: ignore[attr-defined]

    def aborted_at(self, path: str) -> float | None:
        """time.time() when the client dropped the /hold or /stream request `path`, if it did."""
        value = self.server.aborted.get(path)  # type: ignore[attr-defined]
        return None if value is None else float(value)

    def start(self) -> Site:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.stopping = True  # type: ignore[attr-defined]
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)
