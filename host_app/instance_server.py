"""The running app's side of one app per data folder (host_app/logic/instance.py): a local
socket where a later launch asks for the browser window."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable

from .logic import instance
from .qt import QLocalServer, QLocalSocket, QObject


class InstanceServer(QObject):
    """Answers SHOW with SHOWN after `show()` brought the window up, or HEADLESS when the app
    has no window (`show` is None)."""

    def __init__(self, path: str, show: Callable[[], None] | None) -> None:
        super().__init__()
        self._show = show
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._accept)
        # the folder's lock is ours: a socket file left there is a dead app's
        with contextlib.suppress(OSError):
            os.unlink(path)
        self.listening = self._server.listen(path)

    def _accept(self) -> None:
        while (conn := self._server.nextPendingConnection()) is not None:
            conn.readyRead.connect(lambda c=conn: self._read(c))
            conn.disconnected.connect(conn.deleteLater)

    def _read(self, conn: QLocalSocket) -> None:
        if not conn.canReadLine():
            if conn.bytesAvailable() > 64:
                conn.abort()
            return
        line = bytes(conn.readLine(64))
        if line != instance.SHOW:
            conn.abort()
            return
        if self._show is None:
            conn.write(instance.HEADLESS)
        else:
            self._show()
            conn.write(instance.SHOWN)
        conn.flush()
        conn.disconnectFromServer()

    def close(self) -> None:
        self._server.close()
