"""What a session's pages may do beyond their document: a certificate the engine rejected
accepted only when it chains to the extra roots of the session's route (`logic.trust`), and web
notifications shown and permitted as the app's settings say."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, Protocol

from ..logic import trust
from ..logic.notifications import NotificationQueue
from ..logic.policy import Route
from ..logic.settings import AppSettings
from ..qt import QWebEngineCertificateError, QWebEngineNotification, QWebEnginePage
from .session_log import SessionLog


class PermissionsHost(Protocol):
    @property
    def settings(self) -> AppSettings: ...
    @property
    def notifications(self) -> NotificationQueue: ...


class PagePermissions:
    def __init__(self, host: PermissionsHost, log: SessionLog, route: Callable[[], Route]) -> None:
        self._host = host
        self._log = log
        self._route = route  # what the session's current context was built on

    def connect(self, page: QWebEnginePage) -> None:
        """`page`'s permission requests and certificate errors come here."""
        with contextlib.suppress(AttributeError):
            page.permissionRequested.connect(self.permission)
        page.certificateError.connect(self.certificate_error)

    def certificate_error(self, error: QWebEngineCertificateError) -> None:
        """Accept a certificate the engine rejected only when it chains to the extra roots of
        the route this context was built on (`logic.trust`): an unknown issuer is the one error
        extra roots can answer; every other error (name, dates, weak key...) stays an error."""
        _, extra = self._route()
        unknown_issuer = error.type() == QWebEngineCertificateError.Type.CertificateAuthorityInvalid
        roots = trust.roots_of(extra, trust.read_providery_ca()) if unknown_issuer else []
        chain = [bytes(c.toDer().data()) for c in error.certificateChain()]
        host = error.url().host()
        if roots and error.isOverridable() and trust.chain_verifies(chain, host, roots):
            error.acceptCertificate()
            verdict = "accepted"
        else:
            error.rejectCertificate()
            verdict = "rejected"
        self._log.log(
            "page.certificate",
            f"certificate for {host} {verdict} ({error.type().name})",
            host=host,
            error=error.type().name,
            verdict=verdict,
        )

    def notification(self, note: QWebEngineNotification | None) -> None:
        if note is None:
            return
        self._host.notifications.add(
            enabled=self._host.settings.send_notifications,
            session_id=self._log.session_id,
            origin=note.origin().toString(),
            title=note.title(),
            body=note.message(),
            tag=note.tag(),
            persistent=False,
        )
        note.show()

    def permission(self, permission: Any) -> None:
        try:
            kind = permission.permissionType()
            notifications = kind == type(kind).Notifications
        except AttributeError:
            return
        if notifications and self._host.settings.send_notifications:
            permission.grant()
        else:
            permission.deny()
