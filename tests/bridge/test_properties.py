"""Property tests of the bridge: round trips, arbitrary input, every split, mutated frames."""

from __future__ import annotations

import itertools
from typing import Any, get_args

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bridge_protocol as bp

from .strategies import ANSWER_STRATEGIES, answer_for, host_inbound, operations, responses

ENC = bp.MessageEncoder()


def frame_of(message: Any) -> bytes:
    return bytes(ENC.frame(message))


def raw_frame(obj: Any) -> bytes:
    return bp.encode_frame(msgspec.json.encode(obj))


def decode_all(decoder: bp.FrameDecoder) -> list[bytes]:
    out = []
    while (payload := decoder.next_frame()) is not None:
        out.append(bytes(payload))
    return out


@given(host_inbound)
def test_every_host_bound_message_round_trips(message: Any) -> None:
    decoder = bp.FrameDecoder()
    decoder.feed(frame_of(message))
    (payload,) = decode_all(decoder)
    assert bp.decode_host_inbound(payload) == message


@given(responses)
def test_every_response_round_trips(message: Any) -> None:
    decoder = bp.FrameDecoder()
    decoder.feed(frame_of(message))
    (payload,) = decode_all(decoder)
    received = bp.decode_agent_inbound(payload)
    if isinstance(message, bp.ErrorResponse):
        assert received == message
        return
    assert isinstance(received, bp.RawOkResponse)
    assert (received.version, received.id) == (message.version, message.id)
    assert msgspec.json.decode(received.data, type=type(message.data)) == message.data


def test_every_operation_names_its_answer_type() -> None:
    """The one table: every operation struct there is, each with the answer type it names, and
    each answer type has a strategy (so the round trips below cover it)."""
    everything = {*bp.Command.__subclasses__(), *bp.Params.__subclasses__()}
    assert set(bp.ANSWERS) == everything
    assert set(bp.ANSWERS) == {*get_args(bp.EngineCommand), bp.CaptureParams, bp.AttachParams}
    assert set(bp.ANSWERS.values()) == set(ANSWER_STRATEGIES)
    assert bp.ANSWERS[bp.Navigate] is bp.PageAnswer
    assert bp.ANSWERS[bp.CaptureParams] is bp.CaptureAnswer
    assert bp.ANSWERS[bp.ObservationAction] is bp.Observation


@given(operations, st.data())
def test_an_answer_of_another_type_fails_its_request_only(op: Any, data: st.DataObject) -> None:
    agent = bp.AgentConnection()
    rid, _ = agent.send_request(op)
    expected = bp.ANSWERS[type(op)]
    wrong = data.draw(st.one_of([s for t, s in ANSWER_STRATEGIES.items() if t is not expected]))
    try:
        msgspec.json.decode(msgspec.json.encode(wrong), type=expected)
    except msgspec.ValidationError:
        pass
    else:
        return  # this one happens to be a valid answer of the expected type too
    agent.receive_data(frame_of(bp.OkResponse(version=4, id=rid, data=wrong)))
    with pytest.raises(bp.MalformedMessage) as info:
        agent.next_event()
    assert info.value.request_id == rid
    assert not info.value.fatal
    assert agent.in_flight == 0


@given(st.lists(operations, min_size=1, max_size=5), st.data())
def test_requests_and_answers_round_trip_through_both_connections(
    ops: list[Any], data: st.DataObject
) -> None:
    agent, host = bp.AgentConnection(), bp.HostConnection()
    sent = []
    for op in ops:
        rid, frame = agent.send_request(op)
        sent.append(rid)
        host.receive_data(frame)
    received = []
    while (event := host.next_event()) is not None:
        received.append(event)
    assert [r.id for r in received] == sent
    given_answers = []
    for request, op in zip(received, ops, strict=True):
        assert bp.make_request(request.id, op) == request
        given_answers.append(data.draw(answer_for(op)))
        answer_frame = host.send_ok(request.id, given_answers[-1])
        assert answer_frame is not None
        agent.receive_data(answer_frame)
    answers = []
    while (answer := agent.next_event()) is not None:
        assert isinstance(answer, bp.OkResponse)
        answers.append(answer)
    assert [a.id for a in answers] == sent
    # each answer decoded straight from its frame as the type its operation names
    assert [a.data for a in answers] == given_answers
    assert [type(a.data) for a in answers] == [bp.ANSWERS[type(op)] for op in ops]
    assert agent.in_flight == host.in_flight == 0


def _drain_expecting_only_protocol_errors(conn: bp.AgentConnection | bp.HostConnection) -> None:
    for _ in range(10_000):
        try:
            if conn.next_event() is None:
                return
        except bp.BridgeProtocolError as exc:
            if exc.fatal:
                return


def _feed_all(conn: bp.AgentConnection | bp.HostConnection, chunks: list[bytes]) -> None:
    for chunk in chunks:
        try:
            conn.receive_data(chunk)
        except bp.BridgeProtocolError as exc:
            assert exc.fatal
            return
        _drain_expecting_only_protocol_errors(conn)


small_header = st.integers(0, 64).map(lambda n: n.to_bytes(4, "big"))
junk_frames = st.builds(lambda h, body: h + body, small_header, st.binary(max_size=64))
json_like = st.sampled_from(
    [b"{}", b"[]", b'{"version":4}', b'{"version":4,"id":"1","op":"x"}', b'"s"', b"\xff", b"{"]
)
# Nesting far past the interpreter's recursion limit, in every place a frame can hold it.
deep_json = st.builds(
    lambda depth, opener, prefix: prefix + opener * depth,
    st.integers(500, 200_000),
    st.sampled_from([b"[", b"{", b'{"a":', b"[{"]),
    st.sampled_from(
        [
            b"",
            b'{"version":4,"id":"1","status":"ok","data":',
            b'{"version":4,"id":"1","op":"browser_action","command":',
            b'{"version":4,"id":"1","status":"error","error":',
        ]
    ),
)
junk_json_frames = (json_like | deep_json).map(bp.encode_frame)
streams = st.lists(st.binary(max_size=40) | junk_frames | junk_json_frames, max_size=12).map(
    b"".join
)


@given(streams, st.lists(st.integers(0, 400), max_size=8))
@settings(max_examples=300)
def test_arbitrary_bytes_in_arbitrary_splits_raise_only_protocol_errors(
    data: bytes, cuts: list[int]
) -> None:
    bounds = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
    chunks = [data[a:b] for a, b in itertools.pairwise(bounds)]
    _feed_all(bp.HostConnection(), chunks)
    _feed_all(bp.AgentConnection(), chunks)


def test_valid_stream_split_at_every_boundary_decodes_to_the_same_frames() -> None:
    messages = [
        bp.make_request("1", bp.Navigate(session_id="Session1", url="https://example.test/é")),
        bp.Cancel(version=4, id="1"),
        bp.make_request("2", bp.CaptureParams(session_id="Session2", output_path="/tmp/x")),
        bp.make_request("3", bp.Pause(session_id="Session3")),
    ]
    stream = b"".join(frame_of(m) for m in messages)
    expected = [msgspec.json.encode(m) for m in messages]
    for i in range(len(stream) + 1):
        decoder = bp.FrameDecoder()
        decoder.feed(stream[:i])
        got = decode_all(decoder)
        decoder.feed(stream[i:])
        got += decode_all(decoder)
        assert got == expected, f"split at {i}"
        assert decoder.buffered == 0


@given(st.lists(host_inbound, min_size=1, max_size=4), st.data())
def test_valid_stream_in_random_chunks_decodes_to_the_same_messages(
    messages: list[Any], data: st.DataObject
) -> None:
    stream = b"".join(frame_of(m) for m in messages)
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=10))
    bounds = sorted({*cuts, 0, len(stream)})
    decoder = bp.FrameDecoder()
    got = []
    for a, b in itertools.pairwise(bounds):
        decoder.feed(stream[a:b])
        got += [bp.decode_host_inbound(p) for p in decode_all(decoder)]
    assert got == messages


# --- mutated frames -----------------------------------------------------------------------------


def _host_decode(frame: bytes) -> Any:
    conn = bp.HostConnection()
    conn.receive_data(frame)
    return conn.next_event()


def _valid_request_obj() -> dict[str, Any]:
    obj: dict[str, Any] = msgspec.to_builtins(bp.make_request("7", bp.Pause(session_id="Session1")))
    return obj


@given(st.integers() | st.text() | st.none() | st.floats(allow_nan=False))
def test_changed_version_is_rejected(version: Any) -> None:
    if version == 4:
        return
    obj = _valid_request_obj() | {"version": version}
    with pytest.raises(bp.WrongVersion) as info:
        _host_decode(raw_frame(obj))
    assert info.value.request_id == "7"


def test_changed_version_of_a_response_is_rejected() -> None:
    agent = bp.AgentConnection()
    rid, _ = agent.send_request(bp.Pause(session_id="Session1"))
    agent.receive_data(raw_frame({"version": 3, "id": rid, "status": "ok", "data": {}}))
    with pytest.raises(bp.WrongVersion):
        agent.next_event()
    assert agent.in_flight == 0  # the broken answer still ends the request


@given(st.text(min_size=1, max_size=8))
def test_swapped_response_id_is_rejected(other: str) -> None:
    agent = bp.AgentConnection()
    rid, _ = agent.send_request(bp.Pause(session_id="Session1"))
    if other == rid:
        return
    agent.receive_data(
        frame_of(bp.OkResponse(version=4, id=other, data=bp.PauseAnswer(network_paused=True)))
    )
    with pytest.raises(bp.UnknownId):
        agent.next_event()
    assert agent.in_flight == 1


def test_duplicate_request_id_is_rejected_and_cancel_for_unknown_id_too() -> None:
    host = bp.HostConnection()
    frame = frame_of(bp.make_request("9", bp.Pause(session_id="Session1")))
    host.receive_data(frame + frame)
    assert host.next_event() is not None
    with pytest.raises(bp.DuplicateId):
        host.next_event()
    host.receive_data(frame_of(bp.Cancel(version=4, id="nope")))
    with pytest.raises(bp.UnknownId):
        host.next_event()


def test_cancel_crossing_the_answer_is_not_an_error() -> None:
    host = bp.HostConnection()
    host.receive_data(frame_of(bp.make_request("9", bp.Pause(session_id="Session1"))))
    assert host.next_event() is not None
    assert host.send_ok("9", bp.PauseAnswer(network_paused=True)) is not None
    host.receive_data(frame_of(bp.Cancel(version=4, id="9")))
    assert host.next_event() is None


@given(st.data())
def test_truncated_json_is_rejected(data: st.DataObject) -> None:
    payload = msgspec.json.encode(_valid_request_obj())
    cut = data.draw(st.integers(1, len(payload) - 1))
    with pytest.raises(bp.MalformedJson):
        _host_decode(bp.encode_frame(payload[:cut]))


@given(st.integers(bp.MAX_FRAME + 1, 2**32 - 1))
def test_header_over_the_cap_is_rejected_from_the_header_alone(size: int) -> None:
    decoder = bp.FrameDecoder()
    with pytest.raises(bp.FrameTooLarge):
        decoder.feed(size.to_bytes(4, "big") + b"{" * 100)
    assert decoder.buffered == 0  # nothing of the payload was kept
    with pytest.raises(bp.FrameTooLarge):
        decoder.feed(b"more")  # the stream stays broken


def test_header_over_the_cap_split_across_chunks() -> None:
    decoder = bp.FrameDecoder()
    header = (bp.MAX_FRAME + 1).to_bytes(4, "big")
    decoder.feed(header[:2])
    with pytest.raises(bp.FrameTooLarge):
        decoder.feed(header[2:])


def test_encoder_refuses_an_oversized_frame() -> None:
    with pytest.raises(bp.FrameTooLarge):
        bp.encode_frame(b" " * (bp.MAX_FRAME + 1))


@pytest.mark.parametrize(
    ("payload", "error"),
    [
        (b'{"version":4,"id":"1","op":"teleport"}', bp.UnknownOperation),
        (b'{"version":4,"id":"1","op":"capture"}', bp.MalformedMessage),
        (
            b'{"version":4,"id":"1","op":"browser_action","command":{"type":"fly"}}',
            bp.MalformedMessage,
        ),
        (
            b'{"version":4,"id":"1","op":"browser_action",'
            b'"command":{"type":"pause","session_id":"S","extra":1}}',
            bp.MalformedMessage,
        ),
        (b'{"version":4,"id":"1","op":"cancel","x":1}', bp.MalformedMessage),
        (b'{"version":4,"id":1,"op":"cancel"}', bp.MalformedMessage),
        (b"[1,2]", bp.NotAnObject),
        (b'"text"', bp.NotAnObject),
        (b"null", bp.NotAnObject),
        (b'{"version":4,"id":"\xff","op":"cancel"}', bp.InvalidEncoding),
        (b"\xfe\xff{}", bp.InvalidEncoding),
        (b"", bp.MalformedJson),
        (b"{,}", bp.MalformedJson),
        (b'{"version":4}{}', bp.MalformedJson),
    ],
)
def test_host_rejects_each_bad_frame_with_its_own_error(payload: bytes, error: type) -> None:
    with pytest.raises(error):
        _host_decode(bp.encode_frame(payload))


@pytest.mark.parametrize(
    "body",
    [
        {"status": "ok", "data": []},
        {"status": "ok"},
        {"status": "maybe", "data": {}},
        {"status": "error", "error": {"id": "NOPE", "code": 1, "message": "", "retryable": False}},
        {
            "status": "error",
            "error": {"id": "TIMEOUT", "code": 10000, "message": "", "retryable": True},
        },
        {
            "status": "error",
            "error": {"id": "TIMEOUT", "code": 10303, "message": "", "retryable": False},
        },
        {"status": "error", "error": {"id": "TIMEOUT", "code": 10303, "retryable": True}},
        {"status": "error", "error": "TIMEOUT"},
        {"status": "ok", "data": {}, "error": None},
    ],
)
def test_agent_rejects_malformed_success_and_error_payloads(body: dict[str, Any]) -> None:
    agent = bp.AgentConnection()
    rid, _ = agent.send_request(bp.Pause(session_id="Session1"))
    agent.receive_data(raw_frame({"version": 4, "id": rid, **body}))
    with pytest.raises(bp.MalformedMessage) as info:
        agent.next_event()
    assert info.value.request_id == rid
    assert agent.in_flight == 0


def test_a_bad_frame_does_not_hide_the_good_one_after_it() -> None:
    host = bp.HostConnection()
    good = frame_of(bp.make_request("2", bp.Play(session_id="Session1")))
    host.receive_data(bp.encode_frame(b"[]") + good)
    with pytest.raises(bp.NotAnObject):
        host.next_event()
    event = host.next_event()
    assert isinstance(event, bp.ActionRequest)
    assert event.id == "2"


@pytest.mark.parametrize("closed", [False, True])
@pytest.mark.parametrize(
    "prefix",
    [b"", b'{"version":4,"id":"1","status":"ok","data":', b'{"version":4,"id":"1","op":"capture",'],
)
def test_deep_nesting_is_a_protocol_error_on_both_ends(prefix: bytes, closed: bool) -> None:
    depth = 100_000
    payload = prefix + b"[" * depth + (b"]" * depth + b"}" if closed and prefix else b"")
    for decode in (bp.decode_host_inbound, bp.decode_agent_inbound):
        with pytest.raises(bp.BridgeProtocolError):
            decode(payload)
    _feed_all(bp.HostConnection(), [bp.encode_frame(payload)])
    _feed_all(bp.AgentConnection(), [bp.encode_frame(payload)])
