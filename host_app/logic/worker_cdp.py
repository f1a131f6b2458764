"""The identity in workers, the protocol side (issue 14 point 1; docs/decisions.md "Identity",
"Workers"): a sans-I/O Chrome DevTools Protocol conversation with one page's agent host. It is
fed the JSON text of every message the backend sends and answers with the texts to send back;
`host_app.engine.worker_cdp` carries them over Qt's in-process devtools channel. No Qt here.

The conversation:
- `start()`: `Target.setAutoAttach {autoAttach, waitForDebuggerOnStart, flatten}` on the page,
  and `Emulation.setTimezoneOverride` with the identity's zone (the whole renderer follows it,
  shared workers included). `Ready` is reported once the backend has answered the page's
  auto-attach: a worker started before that is missed, so the page's first load waits for it.
- For every `Target.attachedToTarget` (flatten mode: each target has its own session id), in
  this order: `setAutoAttach` on the new session (a worker's own workers, nested), the prelude
  through `Runtime.evaluate` for a worker, then `Runtime.runIfWaitingForDebugger`. The release
  is sent whatever the other answers are: a failed prelude leaves a native worker, never a
  frozen one.
- A shared worker is attached by the devtools page itself, which also asks it to pause
  (`host_app.engine.worker_cdp`): on its `Debugger.paused`, the prelude, `Debugger.resume` and
  `Debugger.disable`. When it ends, its session stays (`Inspector.targetCrashed`); its next
  start waits for the debugger (`Inspector.targetReloadedAfterCrash`): the prelude and
  `Runtime.runIfWaitingForDebugger`.
- The page's screen and viewport (`Emulation.setDeviceMetricsOverride`: the screen's size and
  orientation, the viewport pinned to the view's size, `set_viewport`).
- `set_identity()`: the next workers take the new prelude, the zone is overridden again (an
  empty zone clears the override), and so is the screen (none: cleared).
- `count()`: the Network domain on (or off) for the downloaded bytes (docs/decisions.md
  "Downloaded bytes"), on the page and on every frame and worker target, and while it is on,
  on each new one before its release. Its events stay in the devtools page, which adds them up
  (`host_app.engine.worker_cdp`); none reaches the app.

Errors the backend answers are returned as `CdpFailed` for the log and change nothing else;
messages that are not understood are ignored (the backend sends events nobody asked for).
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from .identity import EngineIdentity, page_brand_lists

# targets that run the prelude; any other attached target (an out-of-process iframe) is only
# released, its documents get the page script from the profile
SHARED_WORKER = "shared_worker"
WORKER_TYPES = frozenset({"worker", "service_worker", SHARED_WORKER})
FRAME = "iframe"  # an out-of-process frame's target type
# targets whose requests the Network domain reports in their own session
NETWORK_TYPES = WORKER_TYPES | {FRAME}
PAGE_SESSION = ""  # the page's own session: commands without a sessionId


# -- what is sent ----------------------------------------------------------------------------


class SetAutoAttach(msgspec.Struct, rename="camel"):
    auto_attach: bool = True
    wait_for_debugger_on_start: bool = True
    flatten: bool = True


class Evaluate(msgspec.Struct, rename="camel"):
    expression: str
    silent: bool = True
    return_by_value: bool = True


class TimezoneOverride(msgspec.Struct, rename="camel"):
    timezone_id: str


class Orientation(msgspec.Struct, rename="camel"):
    type: str  # landscapePrimary, portraitPrimary
    angle: int = 0


class MetricsOverride(msgspec.Struct, rename="camel"):
    """The screen the renderer reports (`screen.*`, `screen.orientation` and the
    `device-width`/`device-height` media queries), and the viewport pinned to the view's own
    size (0: not pinned). The scale (0) and `mobile` stay the engine's: nothing is laid out,
    painted or hit differently (measured: scrollbars, a click's coordinates and a grab are
    unchanged)."""

    screen_width: int
    screen_height: int
    screen_orientation: Orientation
    width: int = 0
    height: int = 0
    device_scale_factor: float = 0
    mobile: bool = False


class Brand(msgspec.Struct):
    brand: str
    version: str


class UserAgentMetadata(msgspec.Struct, rename="camel"):
    """What `navigator.userAgentData` and the Sec-CH-UA headers say."""

    brands: list[Brand]
    full_version_list: list[Brand]
    full_version: str
    platform: str
    platform_version: str
    architecture: str
    model: str
    mobile: bool
    bitness: str
    wow64: bool = False
    form_factors: list[str] = []


class UserAgentOverride(msgspec.Struct, rename="camel", omit_defaults=True):
    """The page's user agent and client hints. A popup needs it: QtWebEngine gives the web
    contents a page opens the profile's user agent without its client hints, so a fingerprinted
    popup's `navigator.userAgentData` had no brands and no platform (measured: a link with
    target=_blank, with rel=opener, window.open). No metadata (a brand without client hints):
    none are sent; an empty `user_agent` clears the override."""

    user_agent: str
    accept_language: str = ""
    platform: str = ""
    user_agent_metadata: UserAgentMetadata | None = None


def user_agent_override(ident: EngineIdentity, platform: str) -> UserAgentOverride:
    """The override of an identity: its user agent and client hints (none for a brand without
    them), `platform` being `navigator.platform`. The brands go in the order the profile's own
    requests carry them (`identity.page_brand_lists`): the engine writes the override's on the
    wire after the interceptor has seen the profile's, and the asset fetch sends what it saw.
    No language: with one the engine moves Accept-Language up the header order (measured), and
    the profile's already reaches every page."""
    h = ident.hints
    meta = None
    if h.enabled:
        majors, fulls = page_brand_lists(h)
        meta = UserAgentMetadata(
            brands=[Brand(b, v) for b, v in majors],
            full_version_list=[Brand(b, v) for b, v in fulls],
            full_version=h.full_version,
            platform=h.platform,
            platform_version=h.platform_version,
            architecture=h.arch,
            model=h.model,
            mobile=h.mobile,
            bitness=h.bitness,
            form_factors=list(h.form_factors),
        )
    return UserAgentOverride(ident.user_agent, platform=platform, user_agent_metadata=meta)


class NoParams(msgspec.Struct):
    pass


class NetworkEnable(msgspec.Struct, rename="camel"):
    """The Network domain without its payload buffers: the backend keeps no response body for
    `getResponseBody` (nobody asks), only its events go out."""

    max_total_buffer_size: int = 0
    max_resource_buffer_size: int = 0


class NewDocumentScript(msgspec.Struct, rename="camel"):
    source: str


class ScriptId(msgspec.Struct):
    identifier: str


class FrameId(msgspec.Struct, rename="camel"):
    frame_id: str


Params = (
    SetAutoAttach
    | Evaluate
    | TimezoneOverride
    | MetricsOverride
    | UserAgentOverride
    | NewDocumentScript
    | ScriptId
    | FrameId
    | NetworkEnable
    | NoParams
)


class Command(msgspec.Struct, omit_defaults=True, rename={"session_id": "sessionId"}):
    id: int
    method: str
    params: Params
    session_id: str = PAGE_SESSION


# -- what is received ------------------------------------------------------------------------


class TargetInfo(msgspec.Struct, rename="camel"):
    target_id: str = ""
    type: str = ""
    url: str = ""


class AttachedToTarget(msgspec.Struct, rename="camel"):
    session_id: str
    target_info: TargetInfo
    waiting_for_debugger: bool = False


class DetachedFromTarget(msgspec.Struct, rename="camel"):
    session_id: str = ""


class ErrorBody(msgspec.Struct):
    code: int = 0
    message: str = ""


_NO_PARAMS = msgspec.Raw(b"{}")


class Incoming(msgspec.Struct, rename={"session_id": "sessionId"}):
    """Any backend message: an answer has `id`, an event has `method`."""

    id: int | None = None
    method: str | None = None
    params: msgspec.Raw = _NO_PARAMS
    result: msgspec.Raw = _NO_PARAMS
    error: ErrorBody | None = None
    session_id: str = PAGE_SESSION


class OpenerPolicyStatus(msgspec.Struct):
    value: str = ""


class IsolationStatus(msgspec.Struct):
    coop: OpenerPolicyStatus | None = None


class IsolationAnswer(msgspec.Struct):
    status: IsolationStatus


class Frame(msgspec.Struct):
    id: str


class FrameTree(msgspec.Struct):
    frame: Frame


class FrameTreeAnswer(msgspec.Struct, rename="camel"):
    frame_tree: FrameTree


_DECODE = msgspec.json.Decoder(Incoming)
_SCRIPT_ID = msgspec.json.Decoder(ScriptId)
_ATTACHED = msgspec.json.Decoder(AttachedToTarget)
_DETACHED = msgspec.json.Decoder(DetachedFromTarget)
_ISOLATION = msgspec.json.Decoder(IsolationAnswer)
_FRAME_TREE = msgspec.json.Decoder(FrameTreeAnswer)
_ENCODE = msgspec.json.Encoder()


# -- what the adapter is told ----------------------------------------------------------------


@dataclass(frozen=True)
class Send:
    text: str  # one CDP command, JSON


@dataclass(frozen=True)
class Ready:
    """The page's auto-attach is on (`ok`) or was refused (then workers stay native)."""

    ok: bool


@dataclass(frozen=True)
class CdpFailed:
    """The backend answered a command with an error (for the log)."""

    method: str
    session_id: str
    code: int
    message: str


@dataclass(frozen=True)
class WorkerHeld:
    """A worker was attached and its release sent (for the log and the tests)."""

    session_id: str
    type: str
    url: str
    prelude: bool


@dataclass(frozen=True)
class Answered:
    """The backend answered a command sent by `request` (`ok`: without an error; `result`:
    its JSON)."""

    id: int
    ok: bool
    result: bytes = b"{}"


@dataclass(frozen=True)
class Settled:
    """The backend answered every command of an identity change (`set_identity`): a
    navigation that starts now carries the new identity (the user agent's override is the
    page's, and a request made before its answer still carries the old one, measured)."""


Output = Send | Ready | CdpFailed | WorkerHeld | Answered | Settled


@dataclass(frozen=True)
class _Sent:
    method: str
    session_id: str
    answered: bool = False  # the caller waits for an `Answered`


Size = tuple[int, int]


class WorkerChannel:
    """One page's conversation. `prelude` is the worker script of the session's identity (None:
    workers are released untouched); `timezone` the zone to override ("" for none); `screen`
    the screen's (width, height) to report (None: the real one); `viewport` the view's size,
    which the override pins (see `set_viewport`)."""

    def __init__(
        self,
        prelude: str | None,
        timezone: str,
        *,
        screen: Size | None = None,
        viewport: Size | None = None,
        user_agent: UserAgentOverride | None = None,
    ) -> None:
        self.prelude = prelude
        self.timezone = timezone
        self.screen = screen
        self.user_agent = user_agent
        self.viewport = viewport
        self.started = False
        self.attached = False  # the page's auto-attach answered
        self.counting = False  # the Network domain is on (`count`)
        self.count_call: int | None = None  # the page's last Network.enable/disable
        # the new-document script's identifier in the page and in each out-of-process frame,
        # by session, and the commands adding the current ones (command id -> session)
        self._doc_scripts: dict[str, str] = {}
        self._doc_adding: dict[int, str] = {}
        self._changing: set[int] = set()  # an identity change's user agent, not answered yet
        self.sessions: dict[str, TargetInfo] = {}  # attached targets by session id
        self.preluded: set[str] = set()  # sessions whose prelude ran without an error
        self.ended: set[str] = set()  # sessions whose worker ended (a shared one may restart)
        self._next_id = 0
        self._sent: dict[int, _Sent] = {}

    @property
    def ready(self) -> bool:
        """Whether a load may start: the auto-attach is on and no identity change is on its
        way to the backend."""
        return self.attached and not self._changing

    def start(self) -> list[Output]:
        self.started = True
        out: list[Output] = []
        if self.user_agent is not None:
            # (a popup's first document gets it too late: the page script answers its hints,
            # docs/decisions.md "Popups' client hints")
            out.append(self._command("Emulation.setUserAgentOverride", self.user_agent))
        out.append(self._command("Target.setAutoAttach", SetAutoAttach()))
        if self.timezone:
            out.append(self._command("Emulation.setTimezoneOverride", self._zone()))
        if self.screen is not None:
            out.append(self._command("Emulation.setDeviceMetricsOverride", self._metrics()))
        # The page script as DevTools' own new-document script too: the engine runs it when a
        # frame's window is made, so a script-made iframe read at once through `window[i]` (no
        # getter to catch) or an iframe of the page's HTML read by its next script has the
        # identity; QtWebEngine's user script reaches those documents only later (measured:
        # the machine's cores, memory, Intl locale and an un-noised canvas before). The Page
        # domain must be on for it (its events are ignored; the page cannot tell).
        out.append(self._command("Page.enable", NoParams()))
        out.extend(self._document_script())
        if self.counting:  # asked before the start, or a new conversation while counting
            self.count_call, send = self.request("Network.enable", NetworkEnable())
            out.append(send)
        return out

    def count(self, on: bool) -> tuple[int | None, list[Output]]:
        """The Network domain on or off: on the page, whose answer comes as `Answered` with the
        returned id (the page's renderer has it then: a load may start), and on every frame
        and worker attached. Nothing to send (None): it already is, or the conversation has
        not started (`start` sends it)."""
        if on == self.counting:
            return None, []
        self.counting = on
        if not self.started:
            return None, []
        method = "Network.enable" if on else "Network.disable"
        params: Params = NetworkEnable() if on else NoParams()
        call, first = self.request(method, params)
        self.count_call = call
        out: list[Output] = [first]
        for sid, info in self.sessions.items():
            if info.type in NETWORK_TYPES and sid not in self.ended:
                out.append(self._command(method, params, sid))
        return call, out

    def set_identity(
        self,
        prelude: str | None,
        timezone: str,
        *,
        screen: Size | None = None,
        user_agent: UserAgentOverride | None = None,
    ) -> list[Output]:
        """A new identity: for the workers attached from now on; the zone, screen and user
        agent at once."""
        prelude_changed = prelude != self.prelude
        zone_changed = timezone != self.timezone
        screen_changed = screen != self.screen
        agent_changed = user_agent != self.user_agent
        self.prelude = prelude
        self.timezone = timezone
        self.screen = screen
        self.user_agent = user_agent
        out: list[Output] = []
        if prelude_changed and self.started:
            for sid, identifier in self._doc_scripts.items():
                remove = ScriptId(identifier)
                out.append(self._command("Page.removeScriptToEvaluateOnNewDocument", remove, sid))
            self._doc_scripts.clear()
            self._doc_adding.clear()
            frames = [sid for sid, info in self.sessions.items() if info.type == FRAME]
            for sid in [PAGE_SESSION, *frames]:
                out.extend(self._document_script(sid))
        if agent_changed:
            cleared = UserAgentOverride("")
            override = user_agent if user_agent is not None else cleared
            out.append(self._command("Emulation.setUserAgentOverride", override))
            if self.started:
                # what a navigation's request carries: the next load waits for its answer (the
                # browser answers it at once; the zone's and the screen's wait for a renderer,
                # which a new page gets only from its load)
                self._changing.add(self._next_id)
        if zone_changed:
            out.append(self._command("Emulation.setTimezoneOverride", self._zone()))
        if screen_changed and self.screen is None:
            out.append(self._command("Emulation.clearDeviceMetricsOverride", NoParams()))
        elif screen_changed:
            out.append(self._command("Emulation.setDeviceMetricsOverride", self._metrics()))
        return out

    def give_up_changes(self) -> None:
        """An identity change's answers that did not come in time are not waited for again: the
        next loads go at once (the channel may never answer them)."""
        self._changing.clear()

    def set_viewport(self, viewport: Size) -> list[Output]:
        """The view's new size. The override pins the viewport to it because QtWebEngine gives
        the renderer of a cross-site navigation its size only after the commit: the new
        document's first scripts read innerWidth/innerHeight 0 (measured, bare QtWebEngine
        6.11 too), and pinned they read the view's. Sent at once when the size changes."""
        changed = viewport != self.viewport
        self.viewport = viewport
        if not changed or not self.started or self.screen is None:
            return []
        return [self._command("Emulation.setDeviceMetricsOverride", self._metrics())]

    def request(self, method: str, params: Params | None = None) -> tuple[int, Send]:
        """A command of the page's own, whose answer comes as `Answered(id)`: the page's one
        devtools channel serves others too (a garbage collection, memory.py)."""
        send = self._command(method, params or NoParams(), answered=True)
        return self._next_id, send

    def abandoned(self) -> list[int]:
        """The ids of requests still unanswered (a new frontend document, or the page went)."""
        return [i for i, s in self._sent.items() if s.answered]

    # PLR0911: one return per CDP message kind
    def receive(self, text: str | bytes) -> list[Output]:  # noqa: PLR0911
        try:
            msg = _DECODE.decode(text)
        except msgspec.DecodeError:
            return []
        if msg.id is not None:
            return self._answer(msg)
        if msg.method == "Target.attachedToTarget":
            try:
                attached = _ATTACHED.decode(msg.params)
            except msgspec.DecodeError:
                return []
            return self._attached(attached)
        if msg.method == "Debugger.paused" and msg.session_id:
            return self._paused(msg.session_id)
        if msg.method == "Inspector.targetReloadedAfterCrash" and msg.session_id:
            self.ended.discard(msg.session_id)
            return self._restarted(msg.session_id)
        if msg.method == "Inspector.targetCrashed" and msg.session_id in self.sessions:
            self.ended.add(msg.session_id)
            return []
        if msg.method == "Target.detachedFromTarget":
            try:
                detached = _DETACHED.decode(msg.params)
            except msgspec.DecodeError:
                return []
            self.sessions.pop(detached.session_id, None)
            self._doc_scripts.pop(detached.session_id, None)
            self.preluded.discard(detached.session_id)
            self.ended.discard(detached.session_id)
        return []

    # -- internals -------------------------------------------------------------------------------

    def _document_script(self, sid: str = PAGE_SESSION) -> list[Output]:
        """Adding the prelude as the new-document script of the page or of an out-of-process
        frame (none for a native identity); an answer to an earlier add, superseded meanwhile,
        removes the script it added."""
        if self.prelude is None:
            return []
        script = NewDocumentScript(self.prelude)
        send = self._command("Page.addScriptToEvaluateOnNewDocument", script, sid)
        self._doc_adding[self._next_id] = sid
        return [send]

    def _script_added(self, msg_id: int, sid: str, result: msgspec.Raw) -> list[Output]:
        try:
            identifier = _SCRIPT_ID.decode(result).identifier
        except msgspec.DecodeError:
            return []
        if self._doc_adding.pop(msg_id, None) is not None:
            self._doc_scripts[sid] = identifier
            return []
        remove = ScriptId(identifier)
        return [self._command("Page.removeScriptToEvaluateOnNewDocument", remove, sid)]

    def _zone(self) -> TimezoneOverride:
        return TimezoneOverride(self.timezone)

    def _metrics(self) -> MetricsOverride:
        assert self.screen is not None
        w, h = self.screen
        # without it the real screen's orientation stays (a square offscreen one: portrait)
        turn = Orientation("landscapePrimary" if w >= h else "portraitPrimary")
        vw, vh = self.viewport or (0, 0)
        return MetricsOverride(w, h, turn, width=vw, height=vh)

    def _command(
        self, method: str, params: Params, session_id: str = PAGE_SESSION, *, answered: bool = False
    ) -> Send:
        self._next_id += 1
        self._sent[self._next_id] = _Sent(method, session_id, answered)
        cmd = Command(self._next_id, method, params, session_id)
        return Send(_ENCODE.encode(cmd).decode())

    def _answer(self, msg: Incoming) -> list[Output]:
        assert msg.id is not None
        sent = self._sent.pop(msg.id, None)
        if sent is None:
            return []
        out: list[Output] = []
        if msg.error is not None:
            out.append(CdpFailed(sent.method, sent.session_id, msg.error.code, msg.error.message))
        elif sent.method == "Runtime.evaluate" and b'"exceptionDetails"' in bytes(msg.result):
            # the prelude threw: the worker runs with what it installed before the throw
            out.append(CdpFailed(sent.method, sent.session_id, 0, "the prelude threw"))
        elif sent.method == "Runtime.evaluate":
            self.preluded.add(sent.session_id)
        elif sent.method == "Page.addScriptToEvaluateOnNewDocument":
            out.extend(self._script_added(msg.id, sent.session_id, msg.result))
        if sent.answered:
            out.append(Answered(msg.id, msg.error is None, bytes(msg.result)))
        if sent.method == "Target.setAutoAttach" and sent.session_id == PAGE_SESSION:
            self.attached = True
            out.append(Ready(msg.error is None))
        if msg.id in self._changing:
            self._changing.discard(msg.id)
            if not self._changing and self.attached:
                out.append(Settled())
        return out

    def _paused(self, sid: str) -> list[Output]:
        """A shared worker the devtools page attached paused before its first statement (or,
        attached late, at its next): the prelude, then it goes on without the debugger. Only
        those enable the debugger, so any pause is released, whatever its session."""
        out = self._prelude_for(sid)
        out.append(self._command("Debugger.resume", NoParams(), sid))
        out.append(self._command("Debugger.disable", NoParams(), sid))
        return out

    def _restarted(self, sid: str) -> list[Output]:
        """A shared worker that ended while attached is started again by the engine waiting
        for this debugger (its devtools host is kept for its next start): the prelude from its
        first statement, then the release, which nothing else would send."""
        out = self._prelude_for(sid)
        out.append(self._command("Runtime.runIfWaitingForDebugger", NoParams(), sid))
        return out

    def _prelude_for(self, sid: str) -> list[Output]:
        info = self.sessions.get(sid)
        if self.prelude is None or info is None or info.type not in WORKER_TYPES:
            return []
        return [self._command("Runtime.evaluate", Evaluate(self.prelude), sid)]

    def _attached(self, a: AttachedToTarget) -> list[Output]:
        sid, info = a.session_id, a.target_info
        if not sid or sid in self.sessions:
            return []
        self.sessions[sid] = info
        out: list[Output] = [self._command("Target.setAutoAttach", SetAutoAttach(), sid)]
        prelude = self.prelude if info.type in WORKER_TYPES else None
        if prelude is not None:
            out.append(self._command("Runtime.evaluate", Evaluate(prelude), sid))
        if info.type == FRAME:
            # an out-of-process frame (another site's): its frames made by script read the
            # identity at once too (a bot check often runs in such a frame)
            out.append(self._command("Page.enable", NoParams(), sid))
            out.extend(self._document_script(sid))
        if self.counting and info.type in NETWORK_TYPES:
            # its own requests (a worker's fetches, another site's frame) are reported in its
            # session only, from before its first statement
            out.append(self._command("Network.enable", NetworkEnable(), sid))
        out.append(self._command("Runtime.runIfWaitingForDebugger", NoParams(), sid))
        out.append(WorkerHeld(sid, info.type, info.url, prelude is not None))
        return out


# -- a document's opener policy --------------------------------------------------------------

# answers with a frame's document's Cross-Origin-Opener-Policy, given the frame's id (without
# one it answers an empty status); the Network domain need not be enabled
ISOLATION_STATUS = "Network.getSecurityIsolationStatus"
FRAME_TREE = "Page.getFrameTree"  # the main frame's id, the page's for its lifetime
UNSAFE_NONE = "UnsafeNone"


def main_frame_id(result: bytes) -> str | None:
    """The main frame's id in a `FRAME_TREE` answer."""
    try:
        return _FRAME_TREE.decode(result).frame_tree.frame.id or None
    except msgspec.DecodeError:
        return None


def opener_policy(result: bytes) -> str | None:
    """The COOP value of an `ISOLATION_STATUS` answer, as CDP names it (`SameOrigin`,
    `SameOriginAllowPopups`, `UnsafeNone`...); None when the answer has none."""
    try:
        coop = _ISOLATION.decode(result).status.coop
    except msgspec.DecodeError:
        return None
    if coop is None or not coop.value:
        return None
    return coop.value


def hold_cuts_opener(policy: str | None) -> bool:
    """Whether holding a popup's first document in the asset scheme would cut the popup from
    its opener, whose top document has the opener policy `policy` (None: not known).

    The popup's empty first document takes its opener's policy, and Chromium checks the policy
    of every response of the popup's first navigation against it, the hold's redirects too (a
    redirect of the engine's own from the interceptor, then one from the scheme's origin), none
    of which sends a policy: under any policy but `unsafe-none` a redirect without one makes
    Chromium put the popup in a new browsing context group, with no opener and no name, where
    the same navigation without the redirects keeps both (measured against Chromium 156:
    `same-origin` and `same-origin-allow-popups`). Not known: held, as before."""
    return policy is not None and policy != UNSAFE_NONE
