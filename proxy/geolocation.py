"""The exit location of a session's upstream proxy (spec 1 §4 "GET
/v1/sessions/{id}/proxy-location", §8): one GET to a geolocation service, sent through the
upstream proxy exactly as the session's browser traffic goes (same host and port, same
Proxy-Authorization with the managed-provider username). Never a direct connection, never
retried without the proxy.

- `http://` URLs go as an absolute-form request to the upstream; `https://` URLs go through
  `CONNECT host:port`, then TLS to the service (system trust, plus the proxy's additional trust
  certificates when the agent passes them in `ssl_context`).
- The whole exchange (connect, CONNECT, TLS, request, response) has one deadline.
- The answer must be a 2xx JSON object (at most 64 KiB) naming the country and the time zone. Read
  fields (the first present wins), so the common services work unchanged:
      country   `country_code`, `countryCode`, `country` — an ISO 3166-1 alpha-2 code (any case;
                returned upper case), e.g. ipinfo.io and ipapi.co `country`, ip-api.com
                `countryCode`, ipwho.is `country_code`
      timezone  `timezone` — an IANA zone name, or an object with `id` (ipwho.is)
  The zone must be one the machine's IANA database knows (`zoneinfo.available_timezones()`).
- Failures are `LookupFailed` with `kind` "proxy" (the upstream could not be reached, refused,
  broke, or the deadline expired) or "response" (the service's answer is not a usable location),
  and a source text stripped of the credentials and bounded like the relay's diagnostics.

`LocationCache` keeps successful results per (session, upstream route) for 30 minutes; the route
is what decides the exit: alias, upstream host and port, and the username as sent (a managed
provider's username carries the location and the sticky id, so rotation changes the route).
"""

from __future__ import annotations

import functools
import json
import ssl
import time
import zoneinfo
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

import h11
import trio

from .auth import Upstream
from .diagnostics import sanitize
from .http import MAX_HEAD, Target, rejection_text, with_authorization

DEFAULT_URL = "https://ipinfo.io/json"
DEFAULT_TIMEOUT = 10.0  # seconds for the whole lookup (spec 1 §8)
CACHE_SECONDS = 30 * 60.0  # spec 1 §8
MAX_BODY = 64 * 1024
MAX_CACHE_ENTRIES = 1024
CHUNK = 64 * 1024
USER_AGENT = b"svc-agent (exit location lookup)"

# ISO 3166-1 alpha-2: the officially assigned codes, plus XK (Kosovo), the user-assigned code
# that geolocation services report for it.
_ISO_CODES = """
    AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR
    BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ
    EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW
    GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY
    KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV
    MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY
    QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG
    TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM
    ZW XK
"""
ISO_COUNTRIES = frozenset(_ISO_CODES.split())
COUNTRY_FIELDS = ("country_code", "countryCode", "country")

_PEER_GONE = (trio.BrokenResourceError, trio.ClosedResourceError, OSError)


@dataclass(frozen=True, slots=True)
class Location:
    country: str  # ISO 3166-1 alpha-2, upper case
    timezone: str  # IANA zone name

    def as_dict(self) -> dict[str, str]:
        return {"country": self.country, "timezone": self.timezone}


class LookupFailed(Exception):
    def __init__(self, kind: Literal["proxy", "response"], source: str) -> None:
        super().__init__(source)
        self.kind: Literal["proxy", "response"] = kind
        self.source = source


@dataclass(frozen=True, slots=True)
class LookupUrl:
    scheme: Literal["http", "https"]
    host: str
    port: int
    path: str  # origin-form: path and query

    @property
    def authority(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == default else f"{host}:{self.port}"

    @property
    def absolute(self) -> str:
        return f"{self.scheme}://{self.host_header}{self.path}"


def parse_url(url: str) -> LookupUrl:
    """An http(s) URL with a host and no credentials; ValueError says what is wrong."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"{url!r} is not a valid URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{url!r} is not an http:// or https:// URL with a host")
    if parts.username is not None or parts.password is not None:
        raise ValueError("the URL must not carry credentials (user:password@)")
    if not url.strip().isascii() or any(c.isspace() or ord(c) < 0x20 for c in url.strip()):
        raise ValueError(
            f"{url!r} must be ASCII without spaces (punycode hosts, percent-encoded paths)"
        )
    scheme: Literal["http", "https"] = "https" if parts.scheme == "https" else "http"
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    default = 443 if scheme == "https" else 80
    return LookupUrl(scheme, parts.hostname.lower(), port or default, path)


# --- the answer ------------------------------------------------------------------------------


@functools.cache
def _zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def valid_timezone(name: str) -> bool:
    return 0 < len(name) <= 128 and name in _zones()


def parse_location(status: int, reason: str, body: bytes) -> Location:
    """The location in a geolocation service's answer; LookupFailed("response") otherwise."""

    def bad(why: str) -> LookupFailed:
        return LookupFailed("response", f"the geolocation service's answer {why}")

    if not 200 <= status < 300:
        raise bad(f"is HTTP {status} {reason}".rstrip())
    try:
        data: Any = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise bad("is not JSON") from None
    if not isinstance(data, dict):
        raise bad("is not a JSON object")
    raw_country = next((data[k] for k in COUNTRY_FIELDS if data.get(k) is not None), None)
    if raw_country is None:
        raise bad(f"names no country (read: {', '.join(COUNTRY_FIELDS)})")
    if not isinstance(raw_country, str) or raw_country.strip().upper() not in ISO_COUNTRIES:
        raise bad(f"has country {_short(raw_country)}, not an ISO 3166-1 alpha-2 code")
    raw_zone = data.get("timezone")
    if isinstance(raw_zone, dict):
        raw_zone = raw_zone.get("id")
    if raw_zone is None:
        raise bad("names no timezone (read: timezone)")
    if not isinstance(raw_zone, str) or not valid_timezone(raw_zone.strip()):
        raise bad(f"has timezone {_short(raw_zone)}, not an IANA time zone")
    return Location(raw_country.strip().upper(), raw_zone.strip())


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:80] + "…"


# --- the exchange ----------------------------------------------------------------------------


async def fetch_location(
    upstream: Upstream,
    url: str | LookupUrl,
    *,
    seconds: float = DEFAULT_TIMEOUT,
    ssl_context: ssl.SSLContext | None = None,
) -> Location:
    """GET `url` through `upstream` and read the location from the answer."""
    target = url if isinstance(url, LookupUrl) else parse_url(url)
    stage = [f"connecting to upstream proxy {upstream.address}"]
    try:
        try:
            with trio.fail_after(seconds):
                status, reason, body = await _get(upstream, target, ssl_context, stage)
        except trio.TooSlowError:
            raise LookupFailed(
                "proxy",
                f"the location lookup through upstream proxy {upstream.address} did not finish "
                f"within {seconds:g} s ({stage[-1]})",
            ) from None
        return parse_location(status, reason, body)
    except LookupFailed as exc:
        raise LookupFailed(exc.kind, sanitize(exc.source, upstream.secrets())) from None


class _Client:
    """One HTTP/1.1 exchange at a time over a stream (h11, client side)."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.conn = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD)

    async def send(self, *events: Any) -> None:
        for event in events:
            data = self.conn.send(event)
            if data:
                await self.stream.send_all(data)

    async def next_event(self) -> Any:
        while True:
            event = self.conn.next_event()
            if event is h11.NEED_DATA:
                self.conn.receive_data(bytes(await self.stream.receive_some(CHUNK)))
                continue
            return event

    async def response(self) -> h11.Response | None:
        event = await self.next_event()
        while isinstance(event, h11.InformationalResponse):
            event = await self.next_event()
        return event if isinstance(event, h11.Response) else None

    async def body(self, limit: int) -> bytes | None:
        """The response body, or None when it is longer than `limit`."""
        out = bytearray()
        while True:
            event = await self.next_event()
            if isinstance(event, h11.Data):
                out += event.data
                if len(out) > limit:
                    return None
            elif isinstance(event, h11.EndOfMessage):
                return bytes(out)
            else:
                raise h11.RemoteProtocolError("the connection closed before the end of the body")


def _proxy_refusal(response: h11.Response) -> bool:
    """An absolute-form answer that is the upstream proxy's, not the service's."""
    return response.status_code == 407 or any(
        name.lower() == b"proxy-status" for name, _ in response.headers
    )


async def _get(
    upstream: Upstream, url: LookupUrl, ssl_context: ssl.SSLContext | None, stage: list[str]
) -> tuple[int, str, bytes]:
    try:
        sock = await trio.open_tcp_stream(upstream.host, upstream.port)
    except OSError as exc:
        raise LookupFailed(
            "proxy", f"cannot connect to upstream proxy {upstream.address}: {exc}"
        ) from None
    stream: trio.abc.Stream = sock
    where = f"upstream proxy {upstream.address}"
    try:
        headers = [
            (b"host", url.host_header.encode("ascii")),
            (b"user-agent", USER_AGENT),
            (b"accept", b"application/json"),
            (b"connection", b"close"),
        ]
        if url.scheme == "https":
            stream = await _tunnel(sock, upstream, url, ssl_context, stage)
            request = h11.Request(method=b"GET", target=url.path.encode("ascii"), headers=headers)
        else:
            request = h11.Request(
                method=b"GET",
                target=url.absolute.encode("ascii"),
                headers=with_authorization(headers, upstream.authorization()),
            )
        stage.append(f"waiting for the answer of {url.authority} through {where}")
        client = _Client(stream)
        try:
            await client.send(request, h11.EndOfMessage())
            response = await client.response()
            if response is None:
                raise LookupFailed(
                    "proxy", f"the connection through {where} closed without an answer"
                )
            if url.scheme == "http" and _proxy_refusal(response):
                raise LookupFailed(
                    "proxy", rejection_text(b"GET", Target(url.host, url.port), response)
                )
            body = await client.body(MAX_BODY)
        except (*_PEER_GONE, h11.ProtocolError) as exc:
            cause = exc.__cause__ or exc
            raise LookupFailed(
                "proxy", f"the exchange with {url.authority} through {where} broke: {cause}"
            ) from None
        if body is None:
            raise LookupFailed(
                "response", f"the geolocation service's answer is longer than {MAX_BODY} bytes"
            )
        return response.status_code, response.reason.decode("latin-1"), body
    finally:
        await trio.aclose_forcefully(stream)


async def _tunnel(
    sock: trio.SocketStream,
    upstream: Upstream,
    url: LookupUrl,
    ssl_context: ssl.SSLContext | None,
    stage: list[str],
) -> trio.SSLStream[trio.SocketStream]:
    """CONNECT through the upstream, then TLS with the service inside the tunnel."""
    where = f"upstream proxy {upstream.address}"
    stage.append(f"waiting for the answer of {where} to CONNECT {url.authority}")
    tunnel = _Client(sock)
    authority = url.authority.encode("ascii")
    try:
        await tunnel.send(
            h11.Request(
                method=b"CONNECT",
                target=authority,
                headers=with_authorization([(b"host", authority)], upstream.authorization()),
            ),
            h11.EndOfMessage(),
        )
        answer = await tunnel.response()
    except (*_PEER_GONE, h11.ProtocolError) as exc:
        raise LookupFailed("proxy", f"{where} failed during CONNECT: {exc}") from None
    if answer is None:
        raise LookupFailed(
            "proxy", f"{where} closed the connection without answering CONNECT {url.authority}"
        )
    if not 200 <= answer.status_code < 300:
        raise LookupFailed("proxy", rejection_text(b"CONNECT", Target(url.host, url.port), answer))
    stage.append(f"TLS handshake with {url.authority} through {where}")
    context = ssl_context or ssl.create_default_context()
    tls = trio.SSLStream(sock, context, server_hostname=url.host, https_compatible=True)
    try:
        await tls.do_handshake()
    except _PEER_GONE as exc:
        cause = exc.__cause__ or exc
        raise LookupFailed(
            "proxy", f"TLS with {url.authority} through {where} failed: {cause}"
        ) from None
    return tls


# --- the cache -------------------------------------------------------------------------------

RouteKey = tuple[str, str, str, int, str | None]


def route_key(session: str, upstream: Upstream) -> RouteKey:
    """What decides a session's exit: its id, the alias, the upstream and the username as sent."""
    alias, host = upstream.alias.casefold(), upstream.host.lower()
    return session, alias, host, upstream.port, upstream.username


class LocationCache:
    """Successful lookups for `ttl` seconds, at most `max_entries` (the oldest go first)."""

    def __init__(
        self,
        ttl: float = CACHE_SECONDS,
        max_entries: int = MAX_CACHE_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ttl = ttl
        self._max = max_entries
        self._clock = clock
        self._entries: OrderedDict[RouteKey, tuple[float, Location]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: RouteKey) -> Location | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        if entry[0] <= self._clock():
            del self._entries[key]
            return None
        return entry[1]

    def put(self, key: RouteKey, location: Location) -> None:
        now = self._clock()
        self._entries.pop(key, None)
        self._entries[key] = (now + self._ttl, location)
        for old in [k for k, (expires, _) in self._entries.items() if expires <= now]:
            del self._entries[old]
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)

    def forget_session(self, session: str) -> None:
        for key in [k for k in self._entries if k[0] == session]:
            del self._entries[key]
