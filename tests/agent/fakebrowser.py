"""A scripted host that answers every engine command as docs/bridge.md says (a test double of the
host only), plus helpers for concurrent HTTP from sync tests.

`FakeBrowser` is a `PipeHost.answer`: it keeps each session's URL and settings, refuses work for a
session it has no settings for (BROWSER_CREATION_FAILED, as the real host must), and records every
operation with its arrival time. `script[op]` replaces the answer of one operation; with
`sleep_waits` the host takes `wait` seconds to answer, so tests steer durations per request.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

import bridge_protocol as bp

from .agentproc import AgentProcess

Answer = tuple[float, bp.Answer | bp.ApiError]
NEEDS_SETTINGS = {
    "capture",
    "browser_attach",
    "navigate",
    "screenshot",
    "observe",
    "pause",
    "play",
    "observation-actions",
}


@dataclass
class Op:
    name: str
    params: Any  # the operation's struct
    at: float  # time.monotonic() on arrival
    request_id: str

    @property
    def session_id(self) -> str | None:
        return getattr(self.params, "session_id", None)


def op_of(request: bp.HostRequest) -> tuple[str, Any]:
    if isinstance(request, bp.CaptureRequest):
        return "capture", request.params
    if isinstance(request, bp.AttachRequest):
        return "browser_attach", request.params
    command = request.command
    return str(type(command).__struct_config__.tag), command


def error(error_id: bp.ErrorId, message: str = "scripted", **details: Any) -> bp.ApiError:
    return bp.ApiError.of(error_id, message, **details)


class FakeBrowser:
    def __init__(self) -> None:
        self.urls: dict[str, str] = {}
        self.settings: dict[str, bp.SessionSettings] = {}
        self.ops: list[Op] = []
        self.script: dict[str, Callable[[Any], Answer | None]] = {}
        self.notifications: list[bp.Notification] = []
        self.sleep_waits = False
        self.status = 200
        self._observations = itertools.count(1)
        self._lock = threading.Lock()

    def reset(self) -> None:
        self.script.clear()
        self.sleep_waits = False
        self.status = 200

    def named(self, name: str, session_id: str | None = None) -> list[Op]:
        with self._lock:
            return [
                o
                for o in self.ops
                if o.name == name and (session_id is None or o.session_id == session_id)
            ]

    def names(self, session_id: str) -> list[str]:
        with self._lock:
            return [o.name for o in self.ops if o.session_id == session_id]

    def __call__(self, request: bp.HostRequest) -> Answer:
        name, params = op_of(request)
        with self._lock:
            self.ops.append(Op(name, params, time.monotonic(), request.id))
        scripted = self.script.get(name)
        if scripted is not None:
            answer = scripted(params)
            if answer is not None:
                return answer
        sid = getattr(params, "session_id", None)
        if name in NEEDS_SETTINGS and sid not in self.settings:
            return 0.0, error(bp.ErrorId.BROWSER_CREATION_FAILED, f"no settings for {sid}")
        delay = float(getattr(params, "wait", 0.0)) if self.sleep_waits else 0.0
        return delay, self.default(name, params)

    def observation(self, sid: str, mode: str) -> bp.Observation:
        n = next(self._observations)
        return bp.Observation(
            id=f"obs_{n}",
            seq=1,
            at="2026-05-01T12:00:00.123Z",
            url=self.urls.get(sid, "about:blank"),
            title="Fake",
            mode=None if mode == "semantic" else mode,  # type: ignore[arg-type]
            vp=[0, 0, 1920, 947],
            doc=[1920, 947],
            content=[["text", "hello"]],  # the wire form of docs/observations.md
            elements=[["e1", "button", "Go"], ["e2", "link", "Top", "#"]],
            truncated=False,
        )

    # PLR0911, PLR0912: one answer per operation
    def default(self, name: str, p: Any) -> bp.Answer:  # noqa: PLR0911, PLR0912
        sid = getattr(p, "session_id", "")
        url = self.urls.get(sid, "about:blank")
        timings = bp.Timings(page_ready_ms=10, rendered_ms=11, written_ms=12)
        if name == "apply-session-settings":
            self.settings[sid] = p.settings
            return bp.Done()
        if name == "capture":
            if p.url is not None:
                url = self.urls[sid] = p.url
            return bp.CaptureAnswer(
                url=url,
                title="Fake",
                target_http_status=self.status,
                traffic_bytes=1000,
                bytesize=4321,
                output_path=p.output_path,
                timings=timings,
            )
        if name == "browser_attach":
            if p.navigate:
                url = self.urls[sid] = p.url
            written = p.output_path is not None
            return bp.AttachAnswer(
                url=url,
                title="Fake",
                target_http_status=self.status,
                traffic_bytes=1000,
                bytesize=4321 if written else None,
                output_path=p.output_path,
                timings=timings,
            )
        if name == "navigate":
            if p.url is not None:
                url = self.urls[sid] = p.url
            return bp.PageAnswer(url=url, title="Fake", target_http_status=self.status)
        if name == "screenshot":
            return bp.ScreenshotAnswer(
                url=url,
                output_path=p.output_path,
                bytesize=2048,
                format=p.format,
                mime_type=f"image/{p.format}",
                width=1920,
                height=3000 if p.full_page else 947,
            )
        if name in ("observe", "observation-actions"):
            return self.observation(sid, p.mode)
        if name == "pause":
            return bp.PauseAnswer(network_paused=True)
        if name == "play":
            return bp.PlayAnswer(network_paused=False, reloaded=False)
        if name == "notifications":
            return bp.NotificationsAnswer(notifications=list(self.notifications))
        if name == "close-session":
            self.settings.pop(sid, None)
            self.urls.pop(sid, None)
        return bp.Done()


def until(condition: Callable[[], object], timeout: float = 5.0, what: str = "condition") -> None:
    """Poll `condition` until true or fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


class Call(threading.Thread):
    """One HTTP request on its own connection in a thread; `.response` or `.exc` when done."""

    def __init__(
        self, agent: AgentProcess, method: str, path: str, body: Any = None, timeout: float = 30
    ) -> None:
        super().__init__(daemon=True)
        self.agent, self.method, self.path, self.body = agent, method, path, body
        self.timeout = timeout
        self.response: httpx.Response | None = None
        self.exc: BaseException | None = None
        self.finished_at: float | None = None

    def run(self) -> None:
        try:
            with httpx.Client(
                base_url=self.agent.base_url, timeout=self.timeout, trust_env=False
            ) as client:
                self.response = client.request(self.method, self.path, json=self.body)
        except BaseException as exc:
            self.exc = exc
        finally:
            self.finished_at = time.monotonic()

    def go(self) -> Call:
        self.start()
        return self

    def result(self, timeout: float = 15) -> httpx.Response:
        self.join(timeout)
        assert not self.is_alive(), f"{self.method} {self.path} did not finish"
        if self.exc is not None:
            raise self.exc
        assert self.response is not None
        return self.response

    def error_id(self, timeout: float = 15) -> str:
        envelope = self.result(timeout).json()
        assert envelope["status"] == "error", envelope
        return str(envelope["error"]["id"])


def new_session(agent: AgentProcess, **fields: Any) -> str:
    return str(agent.ok("POST", "/v1/sessions", fields)["session"]["id"])


def active_count(agent: AgentProcess) -> int:
    return int(agent.ok("GET", "/v1/health")["worker"]["active_count"])
