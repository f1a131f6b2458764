"""Pages that wait for a person under the vendors' real host names, mapped to loopback (issue 40
point 3): a session routed through `HostMap`, a forward proxy that answers every host name by
this machine's own servers, loads `https://www.google.com/recaptcha/api.js`,
`https://challenges.cloudflare.com/turnstile/v0/api.js` and `https://js.hcaptcha.com/1/api.js`
as a site embeds them; each script renders its widget's frame from its vendor's host
(`www.google.com/recaptcha/api2/anchor`, `challenges.cloudflare.com/cdn-cgi/challenge-platform/…`,
`newassets.hcaptcha.com/captcha/v1/…#frame=checkbox`) and its response field, as the documented
embeds do. The sites themselves (`shop.example.test`, `accounts.example.test`) are plain http
through the same proxy; Cloudflare's interstitial is served on the site's own host, as Cloudflare
serves it, its widget from `challenges.cloudflare.com`.

The vendors' hosts are https: the proxy tunnels their CONNECT to a local TLS server whose leaf
(every vendor host name) is signed by a test root, which the session's proxy names as its extra
trust (`tls.certificates`, as for a proxy that re-signs): nothing in svc is told it is a test.

A person solves a widget by clicking its frame (a block of `WIDGET_COLOR`, which the window
tests find on the screen): the frame posts its token to the page, the vendor's script fills the
response field and calls the site's callback, which submits the form; the page moves on. The
one-time-code field is that colour too, for the person to click and type into."""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from urllib.parse import urlsplit

from ..certs import Issued, ca, leaf
from ..httpserver import QUICK_SHUTDOWN
from ..proxy.servers import ThreadedServer, _pipe, _read_head

WIDGET_COLOR = "1d6fd8"  # every widget frame's face and the code field: found on the screen
SITE = "shop.example.test"
ACCOUNTS = "accounts.example.test"
VENDOR_HOSTS = (
    "www.google.com",
    "challenges.cloudflare.com",
    "js.hcaptcha.com",
    "newassets.hcaptcha.com",
)


@dataclass(frozen=True)
class Widget:
    """A vendor's embed: its script's URL, the container class it renders into, its frame's
    URL (its origin is the frame's host), the response field it adds."""

    script: str
    container: str
    frame: str
    response: str
    label: str


WIDGETS = {
    "recaptcha": Widget(
        "https://www.google.com/recaptcha/api.js",
        "g-recaptcha",
        "https://www.google.com/recaptcha/api2/anchor?ar=1&k={sitekey}&hl=en&size=normal",
        "g-recaptcha-response",
        "I'm not a robot",
    ),
    "turnstile": Widget(
        "https://challenges.cloudflare.com/turnstile/v0/api.js",
        "cf-turnstile",
        "https://challenges.cloudflare.com/cdn-cgi/challenge-platform/h/b/turnstile/if/ov2/av0"
        "/rcv0/0/{sitekey}/auto/normal",
        "cf-turnstile-response",
        "Verify you are human",
    ),
    "hcaptcha": Widget(
        "https://js.hcaptcha.com/1/api.js",
        "h-captcha",
        "https://newassets.hcaptcha.com/captcha/v1/b1c589a/static/hcaptcha.html"
        "#frame=checkbox&id=0&host=" + SITE + "&sitekey={sitekey}",
        "h-captcha-response",
        "I am human",
    ),
}

# The vendor's script: into each container a frame from the vendor's host and a hidden response
# field; the frame's token (a message from that origin only) fills the field and calls the
# container's data-callback, as the documented embeds do.
SCRIPT = """(function(){{
var W={{container:'{container}',frame:'{frame}',response:'{response}'}};
document.querySelectorAll('.'+W.container).forEach(function(box){{
  var f=document.createElement('iframe');
  f.src=W.frame.replace('{{sitekey}}',encodeURIComponent(box.dataset.sitekey||''));
  f.title='Widget containing a security challenge';
  f.width=300;f.height=72;f.style.border='0';
  box.appendChild(f);
  var t=document.createElement('textarea');t.name=W.response;t.style.display='none';
  box.appendChild(t);
  addEventListener('message',function(e){{
    if(e.source!==f.contentWindow||e.origin!==new URL(f.src).origin)return;
    t.value=String(e.data.token);
    var cb=window[box.dataset.callback];if(typeof cb==='function')cb(t.value);
  }});
}});
}})();"""

FRAME = """<!doctype html><html><head><title>{label}</title></head>
<body style="margin:0;background:#{color};font:16px sans-serif;color:#fff;cursor:pointer">
<div style="height:72px;display:flex;align-items:center;gap:10px;padding-left:14px">
<span style="display:inline-block;width:24px;height:24px;background:#fff"></span>{label}</div>
<script>document.body.addEventListener('click',function(){{
parent.postMessage({{token:'{vendor}-token-'+Date.now()}},'*');}});</script></body></html>"""


def _page(title: str, body: str) -> str:
    return f"<!doctype html><html><head><title>{title}</title></head><body>{body}</body></html>"


def widget_page(vendor: str, words: str) -> str:
    """A site's form with the vendor's widget, as the vendor's documentation embeds it."""
    w = WIDGETS[vendor]
    return _page(
        "Contact us",
        f"<script src='{w.script}' async defer></script>"
        "<script>function solved(){document.forms[0].submit();}</script>"
        f"<form action=/sent method=POST><p>{words}</p>"
        f"<div class={w.container} data-sitekey=0x4AAAAAAA-test data-callback=solved></div>"
        "<button>Send</button></form>",
    )


# Cloudflare's managed challenge, on the site's own host: its interstitial's form and the
# challenge platform's script (served on that host), which renders the widget's frame from
# challenges.cloudflare.com and posts the form once it is solved.
INTERSTITIAL = _page(
    "Just a moment...",
    "<h1>" + SITE + "</h1><h2>Verify you are human by completing the action below.</h2>"
    "<div id=turnstile-wrapper></div>"
    "<form id=challenge-form action='/account?__cf_chl_f_tk=x' method=POST>"
    "<input type=hidden name=cf-turnstile-response></form>"
    "<script src='/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1?ray=8a1'></script>",
)
ORCHESTRATE = """(function(){
var f=document.createElement('iframe');
f.src='https://challenges.cloudflare.com/cdn-cgi/challenge-platform/h/b/turnstile/if/ov2/av0/rcv0/0/managed/light/normal';
f.title='Widget containing a Cloudflare security challenge';
f.width=300;f.height=72;f.style.border='0';
document.getElementById('turnstile-wrapper').appendChild(f);
addEventListener('message',function(e){
  if(e.source!==f.contentWindow||e.origin!=='https://challenges.cloudflare.com')return;
  var form=document.getElementById('challenge-form');
  form.elements['cf-turnstile-response'].value=String(e.data.token);form.submit();
});})();"""

TWO_FACTOR = _page(
    "Two-step verification",
    "<form action=/verified method=POST><p>Enter the 6-digit code from your authenticator app."
    f"</p><label>Code <input name=otp inputmode=numeric autocomplete=one-time-code "
    f"style='background:#{WIDGET_COLOR};color:#fff;font:20px monospace;width:300px;"
    "height:60px;border:0'></label><button>Verify</button></form>",
)

# What each case is: the site's URL, its expected [kind, vendor]
CASES: dict[str, tuple[str, list[str]]] = {
    "turnstile": (f"http://{SITE}/signup", ["captcha", "turnstile"]),
    "recaptcha": (f"http://{SITE}/contact", ["captcha", "recaptcha"]),
    "hcaptcha": (f"http://{SITE}/login", ["captcha", "hcaptcha"]),
    "cloudflare": (f"http://{SITE}/account", ["bot_check", "cloudflare"]),
    "two_factor": (f"http://{ACCOUNTS}/two-step", ["two_factor", "one_time_code"]),
}
# the vendor host whose frame each case loads, and the frame's path there
FRAMES = {
    "turnstile": ("challenges.cloudflare.com", "/cdn-cgi/challenge-platform/h/b/turnstile/"),
    "recaptcha": ("www.google.com", "/recaptcha/api2/anchor"),
    "hcaptcha": ("newassets.hcaptcha.com", "/captcha/v1/b1c589a/static/hcaptcha.html"),
    "cloudflare": ("challenges.cloudflare.com", "/cdn-cgi/challenge-platform/h/b/turnstile/"),
}
DONE = _page("Thank you", "<h1>Thank you</h1><p>Your message was sent.</p>")


def _routes() -> dict[tuple[str, str], tuple[str, str]]:
    """(host, path) -> (content type, body)."""
    htm, js = "text/html; charset=utf-8", "text/javascript"
    out: dict[tuple[str, str], tuple[str, str]] = {
        (SITE, "/signup"): (htm, widget_page("turnstile", "Confirm you are a person to sign up.")),
        (SITE, "/contact"): (htm, widget_page("recaptcha", "Please tick the box to send.")),
        (SITE, "/login"): (htm, widget_page("hcaptcha", "Solve the challenge to log in.")),
        (SITE, "/sent"): (htm, DONE),
        (SITE, "/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1"): (js, ORCHESTRATE),
        (ACCOUNTS, "/two-step"): (htm, TWO_FACTOR),
        (ACCOUNTS, "/verified"): (htm, _page("Signed in", "<h1>Welcome back</h1>")),
    }
    for vendor, w in WIDGETS.items():
        script = urlsplit(w.script)
        fields = {"container": w.container, "frame": w.frame, "response": w.response}
        out[(script.hostname or "", script.path)] = (js, SCRIPT.format(**fields))
        page = FRAME.format(label=w.label, color=WIDGET_COLOR, vendor=vendor)
        out[FRAMES[vendor]] = (htm, page)  # the managed challenge's frame is Turnstile's
    return out


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        host, path = self._where()
        if (host, path) == (SITE, "/account"):  # the challenge's form: cleared, on to the page
            self._send(
                303,
                "",
                "text/plain",
                {"Location": "/account", "Set-Cookie": "cf_clearance=ok; Path=/"},
            )
            return
        self.do_GET()

    def do_GET(self) -> None:
        host, path = self._where()
        with self.server.lock:
            self.server.hits.append((host, path))
        if (host, path) == (SITE, "/account"):
            if "cf_clearance=ok" in (self.headers.get("Cookie") or ""):
                self._send(200, _page("Your account", "<h1>Your account</h1>"))
            else:  # Cloudflare answers its interstitial with 403
                self._send(403, INTERSTITIAL, headers={"cf-mitigated": "challenge"})
            return
        for (h, p), (ctype, body) in self.server.routes.items():
            if h == host and (path == p or (p.endswith("/") and path.startswith(p))):
                self._send(200, body, ctype)
                return
        self._send(404, "not found", "text/plain")

    def _where(self) -> tuple[str, str]:
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0].lower()
        return host, urlsplit(self.path).path

    def _send(
        self, status: int, body: str, ctype: str = "text/html; charset=utf-8",
        headers: dict[str, str] | None = None,
    ) -> None:  # fmt: skip
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        with contextlib.suppress(OSError):
            self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    routes: dict[tuple[str, str], tuple[str, str]]
    hits: list[tuple[str, str]]
    lock: threading.Lock

    def handle_error(self, request: object, client_address: object) -> None:
        """A connection the browser dropped, or a handshake it refused before the session's
        trust accepted the certificate (it connects again): nothing to print."""


class HostMap(ThreadedServer):
    """A forward proxy (no credentials) that maps every host name to loopback: CONNECT to
    `tls_port`, absolute-form http requests to `http_port`; `seen` lists the request targets."""

    def __init__(self, http_port: int, tls_port: int) -> None:
        super().__init__()
        self.http_port, self.tls_port = http_port, tls_port
        self.seen: list[str] = []

    def handle(self, conn: socket.socket) -> None:
        got = _read_head(conn)
        if got is None:
            return
        head, rest = got
        lines = head.decode("latin-1").split("\r\n")
        method, target, _version = lines[0].split(" ", 2)
        self.seen.append(f"{method} {target}")
        tls = method == "CONNECT"
        origin = socket.create_connection(
            ("127.0.0.1", self.tls_port if tls else self.http_port), timeout=10
        )
        self.track(origin)
        with origin:
            if tls:
                conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            else:  # the request in origin form, its Host kept, one request per connection
                url = urlsplit(target)
                path = (url.path or "/") + (f"?{url.query}" if url.query else "")
                kept = [
                    line for line in lines[1:]
                    if not line.lower().startswith(("proxy-", "connection:", "keep-alive:"))
                ]  # fmt: skip
                out = [f"{method} {path} HTTP/1.1", *kept, "Connection: close"]
                origin.sendall(("\r\n".join(out) + "\r\n\r\n").encode("latin-1"))
            if rest:
                origin.sendall(rest)
            _pipe(conn, origin)


class VendorHosts:
    """`with VendorHosts(folder) as v:` the sites and vendors (http and https listeners), the
    proxy mapping every host to them, and the root the session's proxy must trust."""

    def __init__(self, folder: Path) -> None:
        self.root: Issued = ca("svc test vendors' re-signing root")
        served = leaf(self.root, [*VENDOR_HOSTS, SITE, ACCOUNTS])
        (folder / "vendors.pem").write_text(served.pem)
        (folder / "vendors.key").write_text(served.key_pem)
        self.hits: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        self._servers = [self._server(), self._server()]
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(folder / "vendors.pem", folder / "vendors.key")
        tls = self._servers[1]
        # the handshake happens in the connection's own thread, never in the accepting one
        tls.socket = context.wrap_socket(tls.socket, server_side=True,
                                         do_handshake_on_connect=False)  # fmt: skip
        ports = [int(s.server_address[1]) for s in self._servers]
        self.proxy = HostMap(*ports)
        self._threads = [
            threading.Thread(target=s.serve_forever, kwargs=QUICK_SHUTDOWN, daemon=True)
            for s in self._servers
        ]

    def _server(self) -> _Server:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.routes = _routes()
        server.hits = self.hits
        server.lock = self._lock
        return server

    def loaded(self, host: str, path_prefix: str) -> bool:
        """Whether a request for `host` with a path starting `path_prefix` arrived."""
        with self._lock:
            return any(h == host and p.startswith(path_prefix) for h, p in self.hits)

    def __enter__(self) -> VendorHosts:
        for t in self._threads:
            t.start()
        self.proxy.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.proxy.stop()
        for s in self._servers:
            s.shutdown()
            s.server_close()
        for t in self._threads:
            t.join(5)
