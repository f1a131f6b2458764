"""A WebSocket server for tests (wsproto): accepts every connection and logs when each opens and
when its client goes, on the monotonic clock (a child engine process shares it)."""

from __future__ import annotations

import socket
import time

from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, Request

from .proxy.servers import ThreadedServer

# A page holding a WebSocket open to the server (its port in the page's query); its title says
# how the socket stands.
SOCKET_PAGE = """<!doctype html><html><head><title>connecting</title></head><body><script>
const port = new URLSearchParams(location.search).get('port');
const ws = new WebSocket('ws://127.0.0.1:' + port + '/ws');
ws.onopen = function () { document.title = 'open'; };
ws.onclose = function (e) { document.title = 'closed ' + e.code; };
</script></body></html>"""


class SocketServer(ThreadedServer):
    """Accepts every WebSocket (wsproto) and logs when each opens and when its client goes."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[tuple[float, str]] = []
        self.start()

    def _note(self, what: str) -> None:
        with self._lock:
            self.log.append((time.monotonic(), what))

    def handle(self, conn: socket.socket) -> None:
        conn.settimeout(None)  # a socket is held open as long as its page wants
        ws = WSConnection(ConnectionType.SERVER)
        try:
            while True:
                data = conn.recv(65536)
                if not data:
                    break
                ws.receive_data(data)
                for event in ws.events():
                    if isinstance(event, Request):
                        conn.sendall(ws.send(AcceptConnection()))
                        self._note("open")
        finally:
            self._note("closed")

    def opened(self) -> bool:
        with self._lock:
            return any(what == "open" for _, what in self.log)

    def closed_after(self, moment: float) -> bool:
        with self._lock:
            return any(what == "closed" and at > moment for at, what in self.log)
