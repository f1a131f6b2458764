"""HTTP/1.1 exactly as the contract says (spec 1 §4: one HTTP/1.1 request per connection), on
hypercorn: no `Upgrade: h2c` and no prior-knowledge HTTP/2 on the plain socket, and malformed
HTTP answered with the spec's envelope instead of hypercorn's empty 400.

Hypercorn has no setting for either, so its HTTP/1.1 protocol class is replaced by a subclass
that overrides the two hooks (`_check_protocol`, `_send_error_response`); `install()` does it
once at start-up. tests/agent/test_transport.py pins both behaviours, so a hypercorn release
that renames the hooks fails the suite rather than silently bringing h2c back.
"""

from __future__ import annotations

import uuid
from itertools import chain
from typing import Any

import h11
import hypercorn.protocol
import msgspec
from hypercorn.protocol.h11 import H11Protocol

from bridge_protocol import ApiError, ErrorId, failure

_encoder = msgspec.json.Encoder()


class StrictH11Protocol(H11Protocol):
    async def _check_protocol(self, event: Any) -> None:
        """Never switch protocols: an `Upgrade: h2c` header is ignored (the request is served
        over HTTP/1.1), and an HTTP/2 preface is just a request no route matches."""

    async def _send_error_response(self, status_code: int) -> None:
        error = (
            ApiError.of(ErrorId.PAYLOAD_TOO_LARGE, "request head too large")
            if status_code in (413, 431)
            else ApiError.of(ErrorId.INVALID_REQUEST, "malformed HTTP request")
        )
        request_id = "req_" + uuid.uuid4().hex
        body = _encoder.encode(failure(request_id, error))
        await self._send_h11_event(
            h11.Response(
                status_code=error.http_status,
                headers=list(
                    chain(
                        [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close"),
                            (b"x-request-id", request_id.encode()),
                        ],
                        self.config.response_headers("h11"),
                    )
                ),
            )
        )
        await self._send_h11_event(h11.Data(data=body))
        await self._send_h11_event(h11.EndOfMessage())


def install() -> None:
    """Make hypercorn build every HTTP/1.1 connection with StrictH11Protocol."""
    setattr(hypercorn.protocol, "H11Protocol", StrictH11Protocol)  # noqa: B010 (not exported)
