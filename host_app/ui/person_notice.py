"""Telling the person a session needs them (issue 40 point 3): a desktop notification naming
the session, through the freedesktop notification service (org.freedesktop.Notifications on
the session bus) where one runs, else the tray's balloon where a tray exists; activating it
shows that session's page. The window's "NEEDS YOU" badge is there either way.

How the person was told is written to the app's log (`ui.needs_person`)."""

from __future__ import annotations

from collections.abc import Callable

from bridge_protocol import NeedsPerson

from ..qt import (
    QDBusArgument,
    QDBusConnection,
    QDBusInterface,
    QDBusMessage,
    QMetaType,
    QObject,
    QSystemTrayIcon,
    pyqtSlot,
)

SERVICE = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
TIMEOUT_MS = -1  # the server's default
KIND_TEXT = {
    "bot_check": "a bot check",
    "captcha": "a CAPTCHA",
    "two_factor": "a one-time code",
}

Show = Callable[[str], None]  # shows the session's page (its id)
Log = Callable[[str, dict[str, str]], None]


class PersonNotice(QObject):
    def __init__(self, show: Show, log: Log, tray: QSystemTrayIcon | None = None) -> None:
        super().__init__()
        self._show = show
        self._log = log
        self._tray = tray
        self._by_id: dict[int, str] = {}  # notification id -> session id
        self._last: str | None = None  # the tray balloon's session
        self._bus = QDBusConnection.sessionBus()
        if self._bus.isConnected():
            self._bus.connect(
                SERVICE,
                PATH,
                SERVICE,
                "ActionInvoked",
                self._invoked,
            )
        if tray is not None:
            tray.messageClicked.connect(self._clicked)

    def tell(self, session_id: str, name: str, person: NeedsPerson) -> str:
        """Notify; returns how ("desktop", "tray" or "window")."""
        summary = f"{name} needs you"
        body = f"The page waits for {KIND_TEXT.get(person.kind, person.kind)} ({person.vendor})."
        how = "window"
        if self._bus.isConnected():
            notifications = QDBusInterface(SERVICE, PATH, SERVICE, self._bus)
            if notifications.isValid():
                # the signature is (susssasa{sv}i): the id to replace is a uint, the actions
                # a string list (a Python list would go as a list of variants)
                reply = notifications.call(
                    "Notify",
                    "svc",
                    QDBusArgument(0, QMetaType.fromName(b"uint").id()),
                    "",
                    summary,
                    body,
                    QDBusArgument(["default", "Show"], QMetaType.fromName(b"QStringList").id()),
                    {},
                    TIMEOUT_MS,
                )
                if reply.type() == QDBusMessage.MessageType.ReplyMessage and reply.arguments():
                    self._by_id[int(reply.arguments()[0])] = session_id
                    how = "desktop"
        if how == "window" and self._tray is not None and QSystemTrayIcon.isSystemTrayAvailable():
            self._last = session_id
            self._tray.showMessage(summary, body)
            how = "tray"
        self._log(f"{name} needs a person ({person.kind}, {person.vendor}); told by {how}",
                  {"session_id": session_id, "kind": person.kind, "vendor": person.vendor,
                   "told_by": how})  # fmt: skip
        return how

    @pyqtSlot("uint", str)  # ActionInvoked is (uint id, string action key)
    def _invoked(self, notification: int, _action: str) -> None:
        sid = self._by_id.pop(notification, None)
        if sid is not None:
            self._show(sid)

    def _clicked(self) -> None:
        if self._last is not None:
            self._show(self._last)
