"""The key server's HTTP API as a thin ASGI application (served by hypercorn on trio).

Routes (spec 3 section 4, keys.pub compatible):

    GET|POST|PUT|DELETE /vault/<kid>       signed (see auth.py); PUT is POST's earlier form
    GET                 /sigchain/<kid>
    GET|PUT             /sigchain/<kid>/<seq>
    GET                 /user/search?q=&limit=
    GET                 /user/<kid>

Errors are `{"error":{"code":<status>,"message":...}}`; a 500 body says "internal error" and the
full exception goes to the log. A store that cannot reach its database (StoreUnavailable) is
answered 503 "database unavailable" with Retry-After, and logged in one line.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import parse_qs, quote

import msgspec

from .auth import NONCE_REUSED, NONCE_TTL_MS, AuthError, AuthRequest, credentials
from .keys import X25519, InvalidKeyId, KeyId, kbx_for_kex, parse_kid, parse_signing_kid
from .sigchain import (
    MAX_INT,
    USER_TYPE,
    StatementError,
    b64decode,
    b64encode,
    check_append,
    parse_statement,
)
from .store import Store, StoredStatement, StoreUnavailable, UserRecord, VaultState
from .users import Status, UserError, parse_user

log = logging.getLogger("keyserver.app")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

MAX_VAULT_ITEMS: Final = 500
MAX_VAULT_LIST: Final = 1000
MAX_VAULT_BODY: Final = 64 * 1024 * 1024
MAX_STATEMENT_BODY: Final = 1024 * 1024
DEFAULT_SEARCH_LIMIT: Final = 100
MAX_SEARCH_LIMIT: Final = 1000

_JSON: Final = [(b"content-type", b"application/json")]


class HTTPError(Exception):
    def __init__(self, status: int, message: str, headers: list[tuple[bytes, bytes]] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or []


def _error_body(status: int, message: str) -> bytes:
    return msgspec.json.encode({"error": {"code": status, "message": message}})


class _VaultItemIn(msgspec.Struct):
    data: str


class _VaultItemOut(msgspec.Struct):
    data: str
    idx: int
    ts: int


class _VaultOut(msgspec.Struct):
    vault: list[_VaultItemOut]
    idx: int


_VAULT_DECODER: Final = msgspec.json.Decoder(list[_VaultItemIn])
_ENCODER: Final = msgspec.json.Encoder()


@dataclass(slots=True)
class Request:
    method: str
    path: str
    raw_target: str
    query_string: str
    headers: dict[str, str]
    _receive: Receive

    async def body(self, limit: int) -> bytes:
        """The body, read as it arrives and refused as soon as it passes `limit` (a declared
        Content-Length over the limit is refused before anything is read)."""
        declared = self.headers.get("content-length", "")
        if declared.isascii() and declared.isdigit() and int(declared) > limit:
            raise HTTPError(413, f"request body is larger than {limit} bytes")
        chunks = bytearray()
        while True:
            message = await self._receive()
            if message["type"] == "http.disconnect":
                raise HTTPError(400, "client disconnected")
            chunks += message.get("body", b"")
            if len(chunks) > limit:
                raise HTTPError(413, f"request body is larger than {limit} bytes")
            if not message.get("more_body", False):
                return bytes(chunks)

    def query(self) -> dict[str, list[str]]:
        return parse_qs(self.query_string, keep_blank_values=True)


@dataclass(frozen=True, slots=True)
class Response:
    status: int
    body: bytes
    headers: tuple[tuple[bytes, bytes], ...] = ()


def _ok(body: bytes = b"{}") -> Response:
    return Response(200, body)


def _int_param(query: dict[str, list[str]], name: str, default: int, minimum: int) -> int:
    values = query.get(name)
    if not values or values[0] == "":
        return default
    text = values[0]
    if not text.isascii() or not text.isdigit() or not minimum <= int(text) <= MAX_INT:
        raise HTTPError(400, f"invalid {name}")
    return int(text)


def user_json(record: UserRecord) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": record.id,
        "name": record.name,
        "kid": record.kid,
        "seq": record.seq,
        "service": record.service,
        "url": record.url,
        "status": record.status,
        "ts": record.ts,
    }
    if record.verified_at:
        out["verifiedAt"] = record.verified_at
    if record.err:
        out["err"] = record.err
    return out


class KeyServerApp:
    """ASGI callable. `public_url` may be set after construction, before the first request."""

    def __init__(
        self,
        store: Store,
        now_ms: Callable[[], int],
        schedule_check: Callable[[str], None],
        public_url: str = "",
    ) -> None:
        self.store = store
        self.now_ms = now_ms
        self.schedule_check = schedule_check
        self.public_url = public_url.rstrip("/")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        request = self._request(scope, receive)
        try:
            response = await self._dispatch(request)
        except HTTPError as exc:
            response = self._error(exc.status, exc.message, exc.headers)
        except StoreUnavailable as exc:
            log.warning("%s %s: database unavailable: %s", request.method, request.path, exc)
            response = self._error(503, "database unavailable", [(b"retry-after", b"1")])
        except Exception:
            log.exception("internal error in %s %s", request.method, request.raw_target)
            response = self._error(500, "internal error")
        await self._send(send, response)

    @staticmethod
    async def _lifespan(receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return

    @staticmethod
    def _request(scope: Scope, receive: Receive) -> Request:
        raw_path = scope.get("raw_path")
        path_text = (
            raw_path.decode("latin-1") if raw_path else quote(scope["path"], safe="/:@!$&'()*+,;=")
        )
        query = scope.get("query_string", b"").decode("latin-1")
        target = f"{path_text}?{query}" if query else path_text
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        return Request(scope["method"], scope["path"], target, query, headers, receive)

    @staticmethod
    def _error(
        status: int, message: str, headers: list[tuple[bytes, bytes]] | None = None
    ) -> Response:
        if status == 500:
            message = "internal error"
        return Response(status, _error_body(status, message), tuple(headers or ()))

    @staticmethod
    async def _send(send: Send, response: Response) -> None:
        headers = [
            *_JSON,
            (b"content-length", str(len(response.body)).encode()),
            *response.headers,
        ]
        await send({"type": "http.response.start", "status": response.status, "headers": headers})
        await send({"type": "http.response.body", "body": response.body})

    async def _dispatch(self, request: Request) -> Response:
        parts = request.path.split("/")[1:]
        match parts:
            case ["vault", kid]:
                handlers: Mapping[str, Callable[..., Awaitable[Response]]] = {
                    "GET": self.vault_get,
                    "POST": self.vault_post,
                    "PUT": self.vault_post,
                    "DELETE": self.vault_delete,
                }
                return await self._route(request, handlers, kid)
            case ["sigchain", kid]:
                return await self._route(request, {"GET": self.sigchain_get}, kid)
            case ["sigchain", kid, seq]:
                handlers = {"GET": self.statement_get, "PUT": self.statement_put}
                return await self._route(request, handlers, kid, seq)
            case ["user", "search"]:
                return await self._route(request, {"GET": self.user_search})
            case ["user", kid]:
                return await self._route(request, {"GET": self.user_get}, kid)
            case _:
                raise HTTPError(404, "resource not found")

    @staticmethod
    async def _route(
        request: Request, handlers: Mapping[str, Callable[..., Awaitable[Response]]], *args: str
    ) -> Response:
        handler = handlers.get(request.method)
        if handler is None:
            allow = ", ".join(sorted(handlers))
            raise HTTPError(405, "method not allowed", [(b"allow", allow.encode())])
        return await handler(request, *args)

    # Vault

    async def _authorized_vault(self, request: Request, kid: str) -> tuple[KeyId, bytes]:
        """The authorized key and the request's body. The headers and query are checked before
        the body is read, so an unsigned request is refused without buffering anything; the
        body is then read within the route's bound and the signature over it verified."""
        try:
            parse_signing_kid(kid)
        except InvalidKeyId as exc:
            raise HTTPError(400, f"invalid kid: {exc}") from None
        auth = AuthRequest(
            method=request.method,
            url=self.public_url + request.raw_target,
            query=request.query_string,
            authorization=request.headers.get("authorization"),
            body=b"",
        )
        now = self.now_ms()
        try:
            claimed = credentials(auth, kid, now)
        except AuthError as exc:
            raise HTTPError(403, str(exc)) from None
        body = await request.body(MAX_VAULT_BODY)
        try:
            key = claimed.check_signature(dataclasses.replace(auth, body=body))
        except AuthError as exc:
            raise HTTPError(403, str(exc)) from None
        # Last, so that a request rejected for another reason does not burn its nonce. The claim
        # is one transaction: a nonce used against any process sharing the database is refused.
        if not await self.store.claim_nonce(claimed.nonce, now, NONCE_TTL_MS):
            raise HTTPError(403, NONCE_REUSED)
        if await self.store.vault_state(kid) == VaultState.DELETED:
            raise HTTPError(404, "vault was deleted")
        return key, body

    async def vault_get(self, request: Request, kid: str) -> Response:
        _, _body = await self._authorized_vault(request, kid)
        query = request.query()
        idx = _int_param(query, "idx", 0, 0)
        limit = min(_int_param(query, "limit", MAX_VAULT_LIST, 1), MAX_VAULT_LIST)
        if await self.store.vault_state(kid) == VaultState.MISSING:
            raise HTTPError(404, "vault not found")
        items = await self.store.vault_list(kid, idx, limit)
        out = _VaultOut(
            vault=[_VaultItemOut(b64encode(i.data), i.idx, i.ts) for i in items],
            idx=items[-1].idx if items else idx,
        )
        return _ok(_ENCODER.encode(out))

    async def vault_post(self, request: Request, kid: str) -> Response:
        _, body = await self._authorized_vault(request, kid)
        if not body:
            raise HTTPError(400, "no body data")
        try:
            items = _VAULT_DECODER.decode(body)
        except msgspec.DecodeError as exc:
            raise HTTPError(400, f"invalid vault items, expected [{{data}}]: {exc}") from None
        if len(items) > MAX_VAULT_ITEMS:
            raise HTTPError(400, f"too many vault items ({len(items)}), at most {MAX_VAULT_ITEMS}")
        try:
            blobs = [b64decode(item.data) for item in items]
        except ValueError:
            raise HTTPError(400, "invalid vault item data, expected base64") from None
        # A delete through another process may have landed since the check above; the append
        # decides under the vault's row lock.
        if blobs and await self.store.vault_append(kid, blobs, self.now_ms()) is None:
            raise HTTPError(404, "vault was deleted")
        return _ok()

    async def vault_delete(self, request: Request, kid: str) -> Response:
        _, _body = await self._authorized_vault(request, kid)
        if not await self.store.vault_delete(kid):
            raise HTTPError(404, "vault not found")
        return _ok()

    # Sigchain

    @staticmethod
    def _parse_kid(kid: str, message: str) -> KeyId:
        try:
            return parse_kid(kid)
        except InvalidKeyId:
            raise HTTPError(404, message) from None

    async def sigchain_get(self, request: Request, kid: str) -> Response:
        self._parse_kid(kid, "sigchain not found")
        statements = await self.store.statements(kid)
        if not statements:
            raise HTTPError(404, "sigchain not found")
        body = b"".join(
            [
                b'{"kid":"',
                kid.encode("ascii"),
                b'","statements":[',
                b",".join(st.raw for st in statements),
                b"]}",
            ]
        )
        return _ok(body)

    async def statement_get(self, request: Request, kid: str, seq: str) -> Response:
        self._parse_kid(kid, "statement not found")
        if not seq.isascii() or not seq.isdigit():
            raise HTTPError(404, "statement not found")
        if int(seq) > MAX_INT:
            raise HTTPError(400, "invalid seq: out of range")
        st = await self.store.statement(kid, int(seq))
        if st is None:
            raise HTTPError(404, "statement not found")
        return _ok(st.raw)

    # PLR0912: the checks of a statement in order, each with its status
    async def statement_put(self, request: Request, kid: str, seq: str) -> Response:  # noqa: PLR0912
        body = await request.body(MAX_STATEMENT_BODY)
        if not body:
            raise HTTPError(400, "missing body")
        try:
            st = parse_statement(body)
        except StatementError as exc:
            raise HTTPError(400, str(exc)) from None
        if kid != st.kid:
            raise HTTPError(400, "invalid kid: the path kid is not the statement kid")
        if seq != str(st.seq):
            raise HTTPError(400, "invalid seq: the path seq is not the statement seq")
        # A chain's seqs are 1..tip: a seq at or below the tip exists. Reading the tip once (not
        # the seq, then the tip) keeps a writer that lost a race to another process a 409.
        tip = await self.store.sigchain_tip(kid)
        if tip is not None and st.seq <= tip.seq:
            raise HTTPError(409, "statement already exists")

        revoked: StoredStatement | None = None
        if st.revoke:
            revoked = await self.store.statement(kid, st.revoke)
        try:
            check_append(st, tip, revoked.revoke if revoked else 0)
        except StatementError as exc:
            raise HTTPError(400, str(exc)) from None

        user = None
        if st.type == USER_TYPE:
            try:
                user = parse_user(st.data, kid, st.seq)
            except UserError as exc:
                raise HTTPError(400, str(exc)) from None
            for other in await self.store.users_with_id(user.id, Status.OK.value):
                if other.kid != kid:
                    raise HTTPError(
                        409,
                        f"user already exists with key {other.kid}, if you removed or revoked the"
                        " previous statement you may need to wait briefly for search to update",
                    )

        kbx = kbx_for_kex(parse_signing_kid(kid))
        stored = StoredStatement(
            seq=st.seq,
            raw=body,
            hash=st.hash(),
            revoke=st.revoke,
            type=st.type,
        )
        # The seq is decided here, in one transaction: of concurrent writers of one seq (through
        # any process) exactly one stores it and the others get 409.
        if not await self.store.statement_append(kid, kbx, stored):
            raise HTTPError(409, "statement already exists")

        if user is not None:
            await self.store.user_put(
                UserRecord(
                    kid=kid,
                    kbx=kbx,
                    name=user.name,
                    service=user.service,
                    seq=user.seq,
                    url=user.url,
                    status=Status.UNKNOWN.value,
                    ts=self.now_ms(),
                    verified_at=0,
                    err="",
                )
            )
            self.schedule_check(kid)
        elif revoked is not None and revoked.type == USER_TYPE:
            await self.store.user_delete(kid, revoked.seq)
        return _ok()

    # Users

    async def _resolve(self, kid: KeyId, text: str) -> str | None:
        if kid.type == X25519:
            return await self.store.kid_for_kbx(text)
        return text

    async def user_search(self, request: Request) -> Response:
        query = request.query()
        q = query.get("q", [""])[0]
        limit = min(_int_param(query, "limit", DEFAULT_SEARCH_LIMIT, 1), MAX_SEARCH_LIMIT)
        try:
            kid = parse_kid(q)
        except InvalidKeyId:
            records = await self.store.users_search(q, Status.OK.value, limit)
        else:
            resolved = await self._resolve(kid, q)
            record = await self.store.user_get(resolved) if resolved else None
            records = [record] if record is not None and record.status == Status.OK else []
        return _ok(_ENCODER.encode({"users": [user_json(r) for r in records]}))

    async def user_get(self, request: Request, kid_text: str) -> Response:
        kid = self._parse_kid(kid_text, "kid not found")
        resolved = await self._resolve(kid, kid_text)
        record = await self.store.user_get(resolved) if resolved else None
        if record is None:
            raise HTTPError(404, "user not found")
        return _ok(_ENCODER.encode({"user": user_json(record)}))
