"""The proxy side of HTTP/1.1 (sans-I/O): what a browser asks a forward proxy, and what we send on.

h11 parses and frames the messages; this module decides what they mean for a proxy:

- `classify(request)`: a CONNECT with an authority target (`host:port`) opens a tunnel; any other
  method needs an absolute-form `http://` target. Everything else is `ProxyRequestError` with
  the status the client gets (400, or 405 for methods a proxy does not relay).
- `upstream_headers(...)`: the request headers relayed upstream: hop-by-hop headers, every
  header named by `Connection`, and the client's own Proxy-Authorization are dropped, ours
  (built from stored credentials) is added. `Content-Length` and `Transfer-Encoding` stay: they
  frame the request body on the upstream connection too.
- `client_headers(...)`: response headers relayed to the client, without hop-by-hop headers and
  without `Transfer-Encoding` (h11 frames the body again for the client).
- `refused_status(...)` / `rejection_text(...)`: what the client and the diagnostics get when the
  upstream refuses: the client never sees a 407 (the browser would ask for credentials that only
  the agent holds) and never sees upstream headers; the diagnostics keep the status line and
  the Proxy-Status and provider diagnostic headers only.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass

import h11

MAX_HEAD = 64 * 1024  # request or response head, bytes
HOP_BY_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-connection",
        b"proxy-authorization",
        b"proxy-authenticate",
        b"te",
        b"trailer",
        b"upgrade",
    }
)
# Headers kept in a refused tunnel's diagnostics: RFC 9209 Proxy-Status, and the two
# provider-specific families (docs/decisions.md "Proxy listeners").
DIAGNOSTIC_HEADERS = frozenset({b"proxy-status"})
DIAGNOSTIC_PREFIXES = (b"x-providerx-", b"x-providery-")
RELAYED_METHODS = frozenset(
    {b"GET", b"HEAD", b"POST", b"PUT", b"DELETE", b"OPTIONS", b"PATCH", b"TRACE"}
)

Headers = list[tuple[bytes, bytes]]
HeaderSeq = Sequence[tuple[bytes, bytes]]


class ProxyRequestError(Exception):
    """The client asked for something this proxy does not relay (the client's fault)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True, slots=True)
class Target:
    host: str
    port: int

    @property
    def authority(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


@dataclass(frozen=True, slots=True)
class ProxyRequest:
    method: bytes
    target: Target
    # What the upstream gets as the request target: the authority for CONNECT, else the
    # absolute-form URL (an upstream proxy needs it too).
    request_target: bytes
    headers: Headers

    @property
    def is_connect(self) -> bool:
        return self.method == b"CONNECT"


def parse_authority(raw: str, default_port: int | None = None) -> Target:
    """`host:port` or `[v6]:port` (the port may be omitted when there is a default)."""
    if raw.startswith("["):
        end = raw.find("]")
        if end < 0:
            raise ProxyRequestError(400, "malformed IPv6 authority")
        host, rest = raw[1:end], raw[end + 1 :]
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise ProxyRequestError(400, "malformed IPv6 authority") from None
        if rest and not rest.startswith(":"):
            raise ProxyRequestError(400, "malformed authority")
        port_text = rest[1:] if rest else None
    else:
        host, sep, port_text_ = raw.rpartition(":")
        if not sep:
            host, port_text = raw, None
        else:
            port_text = port_text_
    if port_text is None or port_text == "":
        if default_port is None:
            raise ProxyRequestError(400, "the authority needs a port")
        port = default_port
    else:
        if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
            raise ProxyRequestError(400, "the authority's port is not 1-65535")
        port = int(port_text)
    if not host or any(c in host for c in "@/?#\\ \t") or (":" in host and not raw.startswith("[")):
        raise ProxyRequestError(400, "malformed host in the request target")
    return Target(host.lower(), port)


def classify(request: h11.Request) -> ProxyRequest:
    target_text = request.target.decode("ascii", "replace")
    if request.method == b"CONNECT":
        target = parse_authority(target_text)
        headers = upstream_headers(request.headers.raw_items())
        # an HTTP/1.0 client may leave Host out; the upstream gets an HTTP/1.1 CONNECT,
        # which must carry one
        if not any(name.lower() == b"host" for name, _ in headers):
            headers.insert(0, (b"Host", target.authority.encode()))
        return ProxyRequest(request.method, target, target.authority.encode(), headers)
    if request.method not in RELAYED_METHODS:
        raise ProxyRequestError(405, f"method {request.method.decode('ascii', 'replace')}")
    if not target_text.lower().startswith("http://"):
        raise ProxyRequestError(
            400, "a forward proxy needs an absolute http:// target (https goes through CONNECT)"
        )
    rest = target_text[len("http://") :]
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    target = parse_authority(rest[:end], 80)
    path = rest[end:].split("#", 1)[0] or "/"
    if not path.startswith("/"):
        path = "/" + path
    authority = rest[:end].lower()
    headers = upstream_headers(request.headers.raw_items())
    if not any(name.lower() == b"host" for name, _ in headers):
        headers.insert(0, (b"Host", authority.encode()))
    return ProxyRequest(request.method, target, f"http://{authority}{path}".encode(), headers)


def _connection_tokens(headers: Headers) -> set[bytes]:
    tokens: set[bytes] = set()
    for name, value in headers:
        if name.lower() in (b"connection", b"proxy-connection"):
            tokens.update(t.strip().lower() for t in value.split(b",") if t.strip())
    return tokens


def _relayable(headers: Headers, also_drop: frozenset[bytes]) -> Headers:
    named = _connection_tokens(headers) - {b"content-length", b"transfer-encoding"}
    drop = HOP_BY_HOP | named | also_drop
    return [(n, v) for n, v in headers if n.lower() not in drop]


def upstream_headers(headers: HeaderSeq) -> Headers:
    """The client's request headers as the upstream may see them (before our authorization),
    named as the client named them (h11's `raw_items()`): a plain-HTTP request reaches the site
    with the browser's own header casing (Chrome's `Host`, `User-Agent` beside its lowercase
    `sec-ch-ua`), which HTTP/1.1 fingerprinting reads; h11's lowercased names were a sign of a
    non-browser client on every request of a proxied session."""
    return _relayable(list(headers), frozenset())


def with_authorization(headers: Headers, authorization: bytes | None) -> Headers:
    if authorization is None:
        return headers
    return [*headers, (b"Proxy-Authorization", authorization)]


def client_headers(headers: HeaderSeq) -> Headers:
    """An upstream response's headers as the client may see them."""
    return _relayable(list(headers), frozenset({b"transfer-encoding"}))


def refused_status(upstream_status: int) -> int:
    """What the client hears when the upstream refuses a tunnel or a relayed request with
    `upstream_status`: never 407 (the credentials are the agent's), 502 for anything odd."""
    if upstream_status == 407 or not 400 <= upstream_status <= 599:
        return 502
    return upstream_status


def diagnostic_headers(headers: HeaderSeq) -> Headers:
    out = []
    for name, value in headers:
        low = name.lower()
        if low in DIAGNOSTIC_HEADERS or low.startswith(DIAGNOSTIC_PREFIXES):
            out.append((name, value))
    return out


def rejection_text(method: bytes, target: Target, response: h11.Response) -> str:
    """The diagnostic source text of a refusal: the upstream's status line and the diagnostic
    headers it sent (nothing else: no body, no unrelated headers)."""
    version = response.http_version.decode("ascii", "replace")
    reason = response.reason.decode("latin-1")
    line = f"HTTP/{version} {response.status_code} {reason}".rstrip()
    text = f"upstream proxy refused {method.decode('ascii')} {target.authority}: {line}"
    for name, value in diagnostic_headers(response.headers):
        text += f"\n{_header_name(name)}: {value.decode('latin-1')}"
    return text


def _header_name(raw: bytes) -> str:
    return "-".join(p.capitalize() for p in raw.decode("latin-1").split("-"))


def simple_response(status: int, text: str) -> tuple[h11.Response, bytes]:
    """A short plain-text answer of the proxy itself; the connection closes after it."""
    body = (text.rstrip("\n") + "\n").encode("utf-8")
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
        (b"cache-control", b"no-store"),
    ]
    return h11.Response(status_code=status, headers=headers), body
