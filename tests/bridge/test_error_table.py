"""The error table matches spec 1 section 7 and docs/decisions.md."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec

import bridge_protocol as bp

ROOT = Path(__file__).resolve().parents[2]


def _decisions_rows() -> dict[str, tuple[int, bool, int]]:
    text = (ROOT / "docs" / "decisions.md").read_text()
    rows = re.findall(r"^\| ([A-Z_]+) \| (\d+) \| (yes|no) \| (\d{3}) \|", text, re.M)
    return {eid: (int(code), r == "yes", int(http)) for eid, code, r, http in rows}


def test_table_holds_the_thirty_ids_of_the_spec_with_unique_codes() -> None:
    assert len(bp.ERROR_TABLE) == 30
    codes = [spec.code for spec in bp.ERROR_TABLE.values()]
    assert len(set(codes)) == 30
    assert min(codes) == 10000
    assert all(bp.error_id_for_code(s.code) is eid for eid, s in bp.ERROR_TABLE.items())


def test_spec_fixed_statuses() -> None:
    assert bp.ERROR_TABLE[bp.ErrorId.PRO_REQUIRED].http_status == 403
    assert bp.ERROR_TABLE[bp.ErrorId.SESSION_NOT_FOUND].http_status == 404
    retryable = {eid.value for eid, s in bp.ERROR_TABLE.items() if s.retryable}
    assert retryable == {
        "BROWSER_BUSY",
        "REQUEST_CANCELLED",
        "RATE_LIMITED",
        "ACTION_TIMEOUT",
        "UPSTREAM_UNAVAILABLE",
        "BROWSER_UNAVAILABLE",
        "AGENT_UNHEALTHY",
        "TIMEOUT",
    }


def test_decisions_document_records_the_same_table() -> None:
    rows = _decisions_rows()
    assert rows == {
        eid.value: (s.code, s.retryable, s.http_status) for eid, s in bp.ERROR_TABLE.items()
    }


def test_envelopes_have_the_spec_shape() -> None:
    ok = msgspec.json.decode(msgspec.json.encode(bp.success("r1", {"a": 1})))
    assert ok == {"status": "ok", "request_id": "r1", "data": {"a": 1}}
    err = bp.ApiError.of(bp.ErrorId.SESSION_NOT_FOUND, "no Session9", id="Session9")
    body = msgspec.json.decode(msgspec.json.encode(bp.failure("r2", err)))
    assert body == {
        "status": "error",
        "request_id": "r2",
        "error": {
            "id": "SESSION_NOT_FOUND",
            "code": 10100,
            "message": "no Session9",
            "retryable": False,
            "details": {"id": "Session9"},
        },
    }
    no_details = bp.ApiError.of(bp.ErrorId.TIMEOUT, "late")
    assert "details" not in msgspec.json.decode(msgspec.json.encode(no_details))
    decoded = msgspec.json.decode(msgspec.json.encode(bp.failure("r2", err)), type=bp.Envelope)
    assert isinstance(decoded, bp.FailureEnvelope)
    assert decoded.error.http_status == 404
