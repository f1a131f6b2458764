"""HTTP envelopes of spec 1 section 2, shared by the agent (which writes them) and the clients."""

from __future__ import annotations

from typing import Any

import msgspec

from .errors import ApiError


class SuccessEnvelope(msgspec.Struct, tag_field="status", tag="ok", forbid_unknown_fields=True):
    request_id: str
    data: dict[str, Any]


class FailureEnvelope(msgspec.Struct, tag_field="status", tag="error", forbid_unknown_fields=True):
    request_id: str
    error: ApiError


def success(request_id: str, data: dict[str, Any]) -> SuccessEnvelope:
    return SuccessEnvelope(request_id=request_id, data=data)


def failure(request_id: str, error: ApiError) -> FailureEnvelope:
    return FailureEnvelope(request_id=request_id, error=error)


Envelope = SuccessEnvelope | FailureEnvelope
