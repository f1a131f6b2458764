"""A WebSocket server for tests (wsproto): accepts every connection and logs when each opens and
when its client goes, on the monotonic clock (a child engine process shares it)."""

from __future__ import annotations

import socket
import threading
import time

from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, Request

# A page holding a WebSocket open to the server (its port in the page's query); its title says
# how the socket stands.
SOCKET_PAGE = """<!doctype html><html><head><title>connecting</title></head><body><script>
const port = new URLSearchParams(location.search).get('port');
const ws = new WebSocket('ws://127.0.0.1:' + port + '/ws');
ws.onopen = function () { document.title = 'open'; };
ws.onclose = function (e) { document.title = 'closed ' + e.code; };
</script></body></html>"""


class SocketServer:
    """A WebSocket server (wsproto) that accepts every connection and logs when each opens
    and when its client goes (monotonic clock, as the child's)."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.log: list[tuple[float, str]] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._serve, daemon=True).start()

    def _note(self, what: str) -> None:
        with self.lock:
            self.log.append((time.monotonic(), what))

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        ws = WSConnection(ConnectionType.SERVER)
        with conn:
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
            except OSError:
                pass
        self._note("closed")

    def opened(self) -> bool:
        with self.lock:
            return any(what == "open" for _, what in self.log)

    def closed_after(self, moment: float) -> bool:
        with self.lock:
            return any(what == "closed" and at > moment for at, what in self.log)

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> SocketServer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
