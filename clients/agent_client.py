"""The one agent client of `svc` and `svc-mcp`: finds the agent, speaks API v1, maps failures.

The agent listens on 127.0.0.1:$SVC_AGENT_PORT (default 17319). Everything here goes through its
HTTP API; nothing reads the app's data directly.

Every failure becomes one `AgentError` carrying an error object of the one table
(`bridge_protocol.errors`), by who is at fault:

    AgentError                  `.error` (the API error object as a dict), `.request_id`
        ApiFailure              the agent answered a failure envelope; kept exactly as sent
        TransportFailure        no complete HTTP exchange (BROWSER_UNAVAILABLE, or TIMEOUT)
            AgentUnavailable    nothing accepts connections on the port: the cold-start trigger
        ProtocolFailure         the peer answered something that is not API v1 (INTERNAL_ERROR)

The decoding of answers is sans-I/O (`decode_response`, `decode_stream_line`). Two adapters own
the I/O and translate their foreign exceptions in exactly one place each: `AgentClient` on the
standard library's `http.client` for the command line, where a whole `svc` process must stay
under 150 ms (importing httpx and building its client alone costs ~190 ms here), and
`AsyncAgentClient` on httpx for the trio-based `svc-mcp`.

Imports are lazy: the warm path of `svc session list` loads only json and http.client.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import http.client

    import httpx

DEFAULT_PORT = 17319
HOST = "127.0.0.1"
CONNECT_TIMEOUT = 5.0


class AgentError(Exception):
    """A failure of one agent call, as an error object of the one table."""

    kind = "agent"

    def __init__(self, error: dict[str, Any], request_id: str | None = None) -> None:
        super().__init__(f"{error.get('id')}: {error.get('message')}")
        self.error = error
        self.request_id = request_id

    @property
    def message(self) -> str:
        return str(self.error.get("message", ""))

    def envelope(self) -> dict[str, Any]:
        """The failure envelope of spec 1 §2 (request_id only when the agent gave one)."""
        out: dict[str, Any] = {"status": "error"}
        if self.request_id is not None:
            out["request_id"] = self.request_id
        out["error"] = self.error
        return out


class ApiFailure(AgentError):
    kind = "api"


class TransportFailure(AgentError):
    kind = "transport"


class AgentUnavailable(TransportFailure):
    pass


class ProtocolFailure(AgentError):
    kind = "protocol"


def make_error(error_id: str, message: str, **details: Any) -> dict[str, Any]:
    """An error object of the table (imported only on this, the failure path)."""
    from bridge_protocol.errors import ERROR_TABLE, ErrorId

    spec = ERROR_TABLE[ErrorId(error_id)]
    error: dict[str, Any] = {
        "id": error_id,
        "code": spec.code,
        "message": message,
        "retryable": spec.retryable,
    }
    if details:
        error["details"] = details
    return error


def unavailable(base_url: str, cause: str) -> AgentUnavailable:
    return AgentUnavailable(
        make_error(
            "BROWSER_UNAVAILABLE",
            f"the svc agent is not running at {base_url} ({cause})",
            reason="agent_unreachable",
            agent=base_url,
        )
    )


def connection_lost(base_url: str, cause: str) -> TransportFailure:
    return TransportFailure(
        make_error(
            "BROWSER_UNAVAILABLE",
            f"the connection to the svc agent at {base_url} broke ({cause})",
            reason="connection_lost",
            agent=base_url,
        )
    )


def timed_out(base_url: str, cause: str) -> TransportFailure:
    return TransportFailure(
        make_error(
            "TIMEOUT",
            f"the svc agent at {base_url} did not answer in time ({cause})",
            reason="client_timeout",
            agent=base_url,
        )
    )


def protocol_failure(base_url: str, what: str) -> ProtocolFailure:
    return ProtocolFailure(
        make_error(
            "INTERNAL_ERROR",
            f"{base_url} did not answer as the svc agent API v1: {what}",
            reason="protocol",
            agent=base_url,
        )
    )


def agent_port(env: Mapping[str, str] | None = None) -> int:
    """The agent's port: SVC_AGENT_PORT, else 17319. Raises ValueError for a bad value."""
    env = os.environ if env is None else env
    raw = (env.get("SVC_AGENT_PORT") or "").strip()
    if not raw:
        return DEFAULT_PORT
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise ValueError(f"SVC_AGENT_PORT must be a port number 1-65535, not {raw!r}")
    return int(raw)


# --- sans-I/O decoding ---------------------------------------------------------------------------


def _valid_error(error: Any) -> str | None:
    if not isinstance(error, dict):
        return "error is not an object"
    for key, kind in (("id", str), ("code", int), ("message", str), ("retryable", bool)):
        if not isinstance(error.get(key), kind):
            return f"error.{key} is missing or not a {kind.__name__}"
    if "details" in error and not isinstance(error["details"], dict):
        return "error.details is not an object"
    from bridge_protocol.errors import ERROR_TABLE, ErrorId

    try:
        spec = ERROR_TABLE[ErrorId(error["id"])]
    except ValueError:
        return f"unknown error id {error['id']!r}"
    if spec.code != error["code"] or spec.retryable is not error["retryable"]:
        return f"error {error['id']} has the wrong code or retryable flag"
    return None


def decode_envelope(base_url: str, status: int, body: bytes) -> tuple[str, dict[str, Any]]:
    """(request_id, data) of a success envelope; raises the matching AgentError otherwise."""
    try:
        envelope = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise protocol_failure(base_url, f"HTTP {status} with a body that is not JSON") from None
    if not isinstance(envelope, dict) or not isinstance(envelope.get("request_id"), str):
        raise protocol_failure(base_url, f"HTTP {status} without an API v1 envelope")
    request_id: str = envelope["request_id"]
    if envelope.get("status") == "ok" and status == 200:
        data = envelope.get("data")
        if not isinstance(data, dict):
            raise protocol_failure(base_url, "a success envelope without a data object")
        return request_id, data
    if envelope.get("status") == "error" and status != 200:
        problem = _valid_error(envelope.get("error"))
        if problem is not None:
            raise protocol_failure(base_url, f"a malformed failure envelope ({problem})")
        raise ApiFailure(envelope["error"], request_id)
    raise protocol_failure(
        base_url, f"HTTP {status} with envelope status {envelope.get('status')!r}"
    )


def decode_stream_line(base_url: str, line: bytes) -> dict[str, Any]:
    """One capture-stream event {status, request_id, event, data}; ProtocolFailure otherwise."""
    try:
        event = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        raise protocol_failure(base_url, "a capture stream line that is not JSON") from None
    if (
        not isinstance(event, dict)
        or event.get("status") not in ("ok", "error")
        or not isinstance(event.get("request_id"), str)
        or not isinstance(event.get("event"), str)
        or not isinstance(event.get("data"), dict)
    ):
        raise protocol_failure(base_url, "a capture stream line that is not an event object")
    return event


def _encode(body: Any) -> bytes | None:
    if body is None:
        return None
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()


# --- the command line's adapter: http.client ---------------------------------------------------


class AgentClient:
    """Blocking calls to the agent, one connection per request (spec 1 §4 transport rule 1)."""

    def __init__(self, port: int = DEFAULT_PORT, *, read_timeout: float | None = None) -> None:
        self.port = port
        self.base_url = f"http://{HOST}:{port}"
        self.read_timeout = read_timeout

    def _open(self, method: str, path: str, body: Any) -> tuple[Any, Any]:
        import http.client
        import socket

        conn = http.client.HTTPConnection(HOST, self.port, timeout=CONNECT_TIMEOUT)
        try:
            conn.connect()
        except (ConnectionRefusedError, FileNotFoundError) as exc:
            conn.close()
            raise unavailable(self.base_url, exc.strerror or "connection refused") from None
        except TimeoutError:
            conn.close()
            raise unavailable(self.base_url, "connect timed out") from None
        except OSError as exc:
            conn.close()
            raise unavailable(self.base_url, str(exc)) from None
        assert conn.sock is not None
        conn.sock.settimeout(self.read_timeout)
        conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        headers = {"Connection": "close", "Accept": "application/json, application/x-ndjson"}
        payload = _encode(body)
        if payload is not None:
            headers["Content-Type"] = "application/json"
        try:
            conn.request(method, path, body=payload, headers=headers)
            response = conn.getresponse()
        except BaseException as exc:
            conn.close()
            raise self._translate(exc) from None
        return conn, response

    def _translate(self, exc: BaseException) -> BaseException:
        """The one place where http.client's and socket's exceptions become AgentErrors."""
        import http.client

        if isinstance(exc, TimeoutError):
            return timed_out(self.base_url, "read timed out")
        if isinstance(exc, http.client.RemoteDisconnected | ConnectionError):
            return connection_lost(self.base_url, str(exc) or type(exc).__name__)
        if isinstance(exc, http.client.HTTPException):
            return protocol_failure(self.base_url, f"malformed HTTP ({type(exc).__name__})")
        if isinstance(exc, OSError):
            return connection_lost(self.base_url, str(exc))
        return exc

    def call_full(self, method: str, path: str, body: Any = None) -> tuple[str, dict[str, Any]]:
        """(request_id, data) of one request; raises AgentError."""
        conn, response = self._open(method, path, body)
        try:
            raw = response.read()
        except BaseException as exc:
            raise self._translate(exc) from None
        finally:
            conn.close()
        return decode_envelope(self.base_url, response.status, raw)

    def call(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        return self.call_full(method, path, body)[1]

    @contextmanager
    def stream(self, method: str, path: str, body: Any) -> Iterator[Iterator[dict[str, Any]]]:
        """The events of an NDJSON stream; an ordinary answer raises as `call` does."""
        conn, response = self._open(method, path, body)
        try:
            ctype = response.getheader("Content-Type", "")
            if response.status != 200 or not ctype.startswith("application/x-ndjson"):
                try:
                    raw = response.read()
                except BaseException as exc:
                    raise self._translate(exc) from None
                decode_envelope(self.base_url, response.status, raw)
                raise protocol_failure(self.base_url, "an ordinary answer where a stream belongs")
            yield self._events(response)
        finally:
            conn.close()

    def _events(self, response: http.client.HTTPResponse) -> Iterator[dict[str, Any]]:
        while True:
            try:
                line = response.readline()
            except BaseException as exc:
                raise self._translate(exc) from None
            if not line:
                return
            if line.strip():
                yield decode_stream_line(self.base_url, line)


# --- svc-mcp's adapter: httpx on trio -----------------------------------------------------------


class AsyncAgentClient:
    """Async calls to the agent over httpx (trio), one connection per request."""

    def __init__(self, port: int = DEFAULT_PORT) -> None:
        import httpx

        self.port = port
        self.base_url = f"http://{HOST}:{port}"
        self._client = httpx.AsyncClient(
            base_url=self.base_url,
            timeout=httpx.Timeout(None, connect=CONNECT_TIMEOUT),
            trust_env=False,
            headers={"Connection": "close"},
            limits=httpx.Limits(max_keepalive_connections=0),
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    def _translate(self, exc: httpx.HTTPError) -> AgentError:
        """The one place where httpx's exceptions become AgentErrors."""
        import httpx

        if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
            return unavailable(self.base_url, str(exc) or type(exc).__name__)
        if isinstance(exc, httpx.TimeoutException):
            return timed_out(self.base_url, type(exc).__name__)
        if isinstance(exc, httpx.RemoteProtocolError):
            return connection_lost(self.base_url, str(exc) or "the agent closed the connection")
        if isinstance(exc, httpx.ProtocolError | httpx.DecodingError):
            return protocol_failure(self.base_url, f"malformed HTTP ({type(exc).__name__})")
        return connection_lost(self.base_url, str(exc) or type(exc).__name__)

    async def call_full(
        self, method: str, path: str, body: Any = None
    ) -> tuple[str, dict[str, Any]]:
        import httpx

        try:
            response = await self._client.request(
                method,
                path,
                content=_encode(body),
                headers={"Content-Type": "application/json"} if body is not None else None,
            )
        except httpx.HTTPError as exc:
            raise self._translate(exc) from None
        return decode_envelope(self.base_url, response.status_code, response.content)

    async def call(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        return (await self.call_full(method, path, body))[1]

    @asynccontextmanager
    async def stream(
        self, method: str, path: str, body: Any
    ) -> AsyncIterator[AsyncIterator[dict[str, Any]]]:
        import httpx

        request = self._client.build_request(
            method, path, content=_encode(body), headers={"Content-Type": "application/json"}
        )
        try:
            response = await self._client.send(request, stream=True)
        except httpx.HTTPError as exc:
            raise self._translate(exc) from None
        try:
            ctype = response.headers.get("content-type", "")
            if response.status_code != 200 or not ctype.startswith("application/x-ndjson"):
                try:
                    raw = await response.aread()
                except httpx.HTTPError as exc:
                    raise self._translate(exc) from None
                decode_envelope(self.base_url, response.status_code, raw)
                raise protocol_failure(self.base_url, "an ordinary answer where a stream belongs")
            yield self._events(response)
        finally:
            await response.aclose()

    async def _events(self, response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
        import httpx

        try:
            async for line in response.aiter_lines():
                if line.strip():
                    yield decode_stream_line(self.base_url, line.encode())
        except httpx.HTTPError as exc:
            raise self._translate(exc) from None
