"""A session's browser identity on its QtWebEngine profile: the fingerprint's plain values
(`host_app.logic.identity`) handed to the profile's User-Agent, Accept-Language and client hints,
and the identity page script added to the profile's scripts. With no fingerprint the profile
keeps (or gets back) the engine's native identity.

Everything here acts on the profile, so it reaches documents created after the call; an open
document keeps the identity it was created with until it reloads (docs/decisions.md).
"""

from __future__ import annotations

from bridge_protocol.identity import FingerprintProfile

from ..logic.identity import EngineIdentity, engine_identity
from ..qt import QWebEngineClientHints, QWebEngineProfile, QWebEngineScript, QWebEngineSettings

SCRIPT_NAME = "svc-identity"


def apply_identity(profile: QWebEngineProfile, fp: FingerprintProfile | None) -> None:
    scripts = profile.scripts()
    if scripts is not None:
        for old in scripts.find(SCRIPT_NAME):
            scripts.remove(old)
    hints = profile.clientHints()
    settings = profile.settings()
    if fp is None:
        # an empty string does not bring the engine's own value back; the default profile,
        # which the app never changes, still has it
        native = QWebEngineProfile.defaultProfile()
        if native is not None:
            profile.setHttpUserAgent(native.httpUserAgent())
            profile.setHttpAcceptLanguage(native.httpAcceptLanguage())
        if hints is not None:
            hints.resetAll()
        if settings is not None:
            _plugins(settings, None)
        return
    ident = engine_identity(fp)
    profile.setHttpUserAgent(ident.user_agent)
    profile.setHttpAcceptLanguage(ident.accept_language)
    if hints is not None:
        _hints(hints, ident)
    if settings is not None:
        _plugins(settings, ident.pdf_plugins)
    if scripts is not None:
        scripts.insert(_script(ident))


_ATTR = QWebEngineSettings.WebAttribute


def _plugins(settings: QWebEngineSettings, listed: bool | None) -> None:
    """With the engine's plugins on, `navigator.plugins`/`mimeTypes` list the PDF viewer as a
    desktop Chrome does; the viewer itself stays off, so a PDF is still a download, as in every
    session (measured: plugins on and the viewer off still hands a PDF to downloadRequested).
    None: the engine's defaults (plugins off, empty lists), for the native identity."""
    if listed is None:
        settings.resetAttribute(_ATTR.PluginsEnabled)
        settings.resetAttribute(_ATTR.PdfViewerEnabled)
        return
    settings.setAttribute(_ATTR.PluginsEnabled, listed)
    settings.setAttribute(_ATTR.PdfViewerEnabled, False)


def _hints(hints: QWebEngineClientHints, ident: EngineIdentity) -> None:
    h = ident.hints
    hints.resetAll()
    hints.setAllClientHintsEnabled(h.enabled)
    hints.setPlatform(h.platform)
    hints.setPlatformVersion(h.platform_version)
    hints.setFullVersion(h.full_version)
    hints.setFullVersionList(dict(h.brands))
    hints.setArch(h.arch)
    hints.setBitness(h.bitness)
    hints.setIsMobile(h.mobile)
    hints.setModel(h.model)
    hints.setIsWow64(False)
    hints.setFormFactors(list(h.form_factors))


def _script(ident: EngineIdentity) -> QWebEngineScript:
    script = QWebEngineScript()
    script.setName(SCRIPT_NAME)
    script.setSourceCode(ident.script())
    # before any of the page's own scripts, in the page's world (the isolated world the host
    # reads pages in would not change what the page sees), in every frame
    script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentCreation)
    script.setWorldId(QWebEngineScript.ScriptWorldId.MainWorld)
    script.setRunsOnSubFrames(True)
    return script
