"""A local geolocation service on a real loopback socket (threads of the test process), plain or
TLS, for the exit-location lookup: it answers every GET with `answer` (status and body), counts
what it got, and can stall (never answer) to exercise the lookup's deadline. `stop()` releases
stalled requests and closes the server.
"""

from __future__ import annotations

import json
import ssl
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from ..certs import ca, leaf
from ..httpserver import QUICK_SHUTDOWN
from .servers import _Running

BERLIN = json.dumps({"ip": "203.0.113.7", "country": "DE", "timezone": "Europe/Berlin"}).encode()


@dataclass
class Seen:
    path: str
    headers: dict[str, str]


class GeoService(_Running):
    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.answer: tuple[int, bytes] = (200, BERLIN)
        self.stall = False
        self.seen: list[Seen] = []
        self._release = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                outer.seen.append(Seen(self.path, {k.lower(): v for k, v in self.headers.items()}))
                if outer.stall:
                    outer._release.wait(30)
                    return
                status, body = outer.answer
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(body)
                self.close_connection = True

            def log_message(self, format: str, *args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.port = int(self.server.server_address[1])
        self.scheme = "https" if tls is not None else "http"
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs=QUICK_SHUTDOWN, daemon=True
        )

    def url(self, path: str = "/json") -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}{path}"

    def start(self) -> GeoService:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(5)


def tls_for_localhost(folder: Path) -> tuple[ssl.SSLContext, str]:
    """A server context for 127.0.0.1 signed by a fresh CA, and that CA's PEM (to trust)."""
    root = ca("svc test CA")
    served = leaf(root, ["127.0.0.1"])
    cert_file, key_file = folder / "geo-cert.pem", folder / "geo-key.pem"
    cert_file.write_text(served.pem)
    key_file.write_text(served.key_pem)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_file, key_file)
    return context, root.pem
