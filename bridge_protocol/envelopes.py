"""HTTP envelopes of spec 1 section 2, shared by the agent (which writes them) and the clients."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from .errors import ApiError


class SuccessEnvelope(msgspec.Struct, forbid_unknown_fields=True):
    status: Literal["ok"]
    request_id: str
    data: dict[str, Any]


class FailureEnvelope(msgspec.Struct, forbid_unknown_fields=True):
    status: Literal["error"]
    request_id: str
    error: ApiError


def success(request_id: str, data: dict[str, Any]) -> SuccessEnvelope:
    return SuccessEnvelope(status="ok", request_id=request_id, data=data)


def failure(request_id: str, error: ApiError) -> FailureEnvelope:
    return FailureEnvelope(status="error", request_id=request_id, error=error)


Envelope = SuccessEnvelope | FailureEnvelope
