"""The windows' client of the agent's loopback API (spec 1 §4): the session list, pause and play,
delete, and the proxy location come from the same routes every other client uses, so the window
and the API always agree. Asynchronous (QNetworkAccessManager): the GUI thread never waits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

import msgspec

from ..logic.workspace import ProxyLocation, SessionRow
from ..qt import QByteArray, QNetworkAccessManager, QNetworkReply, QNetworkRequest, QObject, QUrl

T = TypeVar("T")
S = TypeVar("S")


class ApiError(msgspec.Struct, frozen=True):
    id: str
    message: str


class _Failure(msgspec.Struct):
    error: ApiError


class _Envelope(msgspec.Struct, Generic[T]):
    data: T


class _Sessions(msgspec.Struct):
    sessions: list[SessionRow]


class _Paused(msgspec.Struct):
    network_paused: bool


class ProfileRow(msgspec.Struct, frozen=True):
    """A saved profile as the windows need it."""

    id: str
    name: str
    includes_cookies: bool = False


class _Profiles(msgspec.Struct):
    profiles: list[ProfileRow]


class _OneProfile(msgspec.Struct):
    profile: ProfileRow


class _Deleted(msgspec.Struct):
    deleted_id: str


Done = Callable[[T | ApiError], None]


def _profile(e: _Envelope[_OneProfile]) -> ProfileRow:
    return e.data.profile


REQUEST_TIMEOUT_MS = 15_000


class UiApi:
    def __init__(self, port: int, parent: QObject | None = None) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self._nam = QNetworkAccessManager(parent)
        self._pending: set[QNetworkReply] = set()
        self._closed = False

    def close(self) -> None:
        """No answer is delivered from now on (the windows are going): pending requests are
        aborted with their callbacks cut, so none runs into a window being destroyed."""
        self._closed = True
        for reply in list(self._pending):
            reply.finished.disconnect()
            reply.abort()
            reply.deleteLater()
        self._pending.clear()

    def sessions(self, done: Done[list[SessionRow]]) -> None:
        self._call("GET", "/v1/sessions", _Envelope[_Sessions], lambda e: e.data.sessions, done)

    def profile_names(self, done: Done[list[str]]) -> None:
        def pick(e: _Envelope[_Profiles]) -> list[str]:
            return [p.name for p in e.data.profiles]

        self._call("GET", "/v1/profiles", _Envelope[_Profiles], pick, done)

    def profiles(self, done: Done[list[ProfileRow]]) -> None:
        self._call("GET", "/v1/profiles", _Envelope[_Profiles], lambda e: e.data.profiles, done)

    def create_profile(self, name: str, done: Done[ProfileRow]) -> None:
        body = msgspec.json.encode({"name": name})
        self._call("POST", "/v1/profiles", _Envelope[_OneProfile], _profile, done, body)

    def include_cookies(self, profile_id: str, done: Done[ProfileRow]) -> None:
        """The profile's `includes_cookies` on, once the app has staged its cookies."""
        body = msgspec.json.encode({"includes_cookies": True})
        path = f"/v1/profiles/{profile_id}"
        self._call("PATCH", path, _Envelope[_OneProfile], _profile, done, body)

    def set_paused(self, session_id: str, paused: bool, done: Done[bool]) -> None:
        verb = "pause" if paused else "play"
        path = f"/v1/sessions/{session_id}/{verb}"
        self._call("POST", path, _Envelope[_Paused], lambda e: e.data.network_paused, done)

    def delete(self, session_id: str, done: Done[str]) -> None:
        path = f"/v1/sessions/{session_id}"
        self._call("DELETE", path, _Envelope[_Deleted], lambda e: e.data.deleted_id, done)

    def proxy_location(self, session_id: str, done: Done[ProxyLocation]) -> None:
        path = f"/v1/sessions/{session_id}/proxy-location"
        self._call("GET", path, _Envelope[ProxyLocation], lambda e: e.data, done)

    def navigate(self, session_id: str, url: str, done: Done[None]) -> None:
        body = msgspec.json.encode({"session_id": session_id, "url": url, "wait": 0})
        self._call("POST", "/v1/navigate", _Envelope[msgspec.Raw], lambda _: None, done, body)

    def _call(  # noqa: PLR0917
        self,
        method: str,
        path: str,
        shape: type[S],
        pick: Callable[[S], T],
        done: Done[T],
        body: bytes | None = None,
    ) -> None:
        if self._closed:
            return
        request = QNetworkRequest(QUrl(self.base + path))
        request.setTransferTimeout(REQUEST_TIMEOUT_MS)
        if method != "GET":
            # the agent requires JSON on every state-changing request (browser-origin defence)
            request.setHeader(QNetworkRequest.KnownHeaders.ContentTypeHeader, "application/json")
        reply = self._nam.sendCustomRequest(
            request, method.encode(), QByteArray(body if body is not None else b"")
        )
        if reply is None:
            done(ApiError("AGENT_UNAVAILABLE", "the request could not be sent"))
            return
        self._pending.add(reply)

        def finished() -> None:
            self._pending.discard(reply)
            if self._closed:
                reply.deleteLater()
                return
            raw = bytes(reply.readAll().data())
            status = reply.attribute(QNetworkRequest.Attribute.HttpStatusCodeAttribute)
            reason = reply.errorString()
            reply.deleteLater()
            try:
                if status == 200:
                    done(pick(msgspec.json.decode(raw, type=shape)))
                    return
                if status is not None:
                    done(msgspec.json.decode(raw, type=_Failure).error)
                    return
            except (msgspec.DecodeError, msgspec.ValidationError):
                pass
            done(ApiError("AGENT_UNAVAILABLE", reason or "no answer from the agent"))

        reply.finished.connect(finished)
