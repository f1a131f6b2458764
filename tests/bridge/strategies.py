"""Hypothesis strategies for every bridge message."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

import bridge_protocol as bp
from bridge_protocol.actions import untypable

ids = st.text(min_size=1, max_size=12)
texts = st.text(max_size=40)

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts
)
json_values: st.SearchStrategy[Any] = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(texts, children, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(texts, json_values, max_size=5)

seconds = st.floats(min_value=0.001, max_value=86400, allow_nan=False)
settle = st.floats(min_value=0, max_value=86400, allow_nan=False)
# Only selectors of the spec's subset decode (the structs validate them).
_idents = st.from_regex(r"[a-z][a-z0-9_-]{0,6}", fullmatch=True)
# what a keyboard types (control characters are refused: bridge_protocol.actions.untypable)
typed = st.text(min_size=1, max_size=20).filter(lambda t: untypable(t) is None)
_compounds = st.builds(
    lambda tag, ids, classes: (
        tag + "".join("#" + i for i in ids) + "".join("." + c for c in classes)
    ),
    st.sampled_from(["", "*", "div", "a", "input"]),
    st.lists(_idents, max_size=1),
    st.lists(_idents, max_size=2),
).filter(bool)
selectors = st.builds(
    lambda parts, comb: comb.join(parts),
    st.lists(_compounds, min_size=1, max_size=3),
    st.sampled_from([" ", " > ", " + ", " ~ ", ", "]),
)

actions: st.SearchStrategy[bp.Action] = st.one_of(
    st.builds(bp.Click, selector=selectors, mouse_move=st.booleans(), scroll=st.booleans()),
    st.builds(bp.WaitFor, selector=selectors, timeout=st.none() | seconds),
    st.builds(bp.Type, selector=selectors, text=typed),
    st.builds(bp.Clear, selector=selectors),
    st.builds(bp.Press, selector=selectors, key=st.sampled_from(bp.NAMED_KEYS)),
    st.builds(bp.Select, selector=selectors, value=texts),
    st.builds(bp.Wait, seconds=st.floats(min_value=0, max_value=3600)),
    st.builds(
        bp.ClickLink,
        link=st.text(min_size=1, max_size=30),
        match=st.builds(
            bp.FuzzyLink,
            type=st.just("fuzzy-link"),
            threshold=st.floats(min_value=0, max_value=1),
        ),
    ),
)

session_ids = st.integers(1, 10**6).map(lambda n: f"Session{n}")
refs = st.integers(1, 10**5).map(lambda n: f"e{n}")
ref_actions: st.SearchStrategy[bp.RefAction] = st.one_of(
    st.builds(bp.RefClick, ref=refs, mouse_move=st.booleans(), scroll=st.booleans()),
    st.builds(bp.RefHover, ref=refs),
    st.builds(bp.RefType, ref=refs, text=typed),
    st.builds(bp.RefClear, ref=refs),
    st.builds(bp.RefPress, ref=refs, key=st.sampled_from(bp.NAMED_KEYS)),
    st.builds(bp.RefSelect, ref=refs, value=texts),
    st.tuples(st.integers(-10000, 10000), st.integers(-10000, 10000))
    .filter(lambda d: d != (0, 0))  # at least one non-zero delta
    .map(lambda d: bp.RefScroll(delta_x=d[0], delta_y=d[1])),
    st.builds(bp.RefWait, seconds=st.floats(min_value=0, max_value=60)),
)
session_settings = st.builds(
    bp.SessionSettings,
    profile_id=st.integers(1, 10**6),
    name=texts,
    group=st.none() | texts,
    proxy_port=st.none() | st.integers(1, 65535),
    adblock_enabled=st.booleans(),
    image_blocking_mode=st.sampled_from(["none", "all", "over_limit"]),
    image_size_limit_kb=st.integers(1, 1_048_576),  # the API's bounds (bridge_protocol.settings)
    network_paused=st.booleans(),
    identity=st.none()
    | st.builds(
        bp.FingerprintProfile,
        schema_version=st.just(1),
        seed=st.from_regex(r"[0-9a-f]{8,64}", fullmatch=True),
        platform=st.text(min_size=1, max_size=20),
        browser_brand=st.text(min_size=1, max_size=20),
        browser_version=st.text(min_size=1, max_size=20),
        user_agent=st.text(min_size=1, max_size=60),
        locale=st.sampled_from(["en-US", "de-DE", "fr", "pt-BR"]),
        timezone=st.sampled_from(["UTC", "Europe/Berlin", "America/Sao_Paulo"]),
        network_profile=st.text(min_size=1, max_size=20),
        hardware_concurrency=st.integers(1, 256),
        device_memory_gib=st.integers(1, 1024),
        max_touch_points=st.integers(0, 32),
        screen=st.builds(
            bp.Screen,
            width=st.integers(1, 16384),
            height=st.integers(1, 16384),
            available_height=st.integers(1, 16384),
            device_scale_factor=st.floats(0.5, 8),
        ),
        graphics_profile=st.text(min_size=1, max_size=20),
        storage_quota_bytes=st.integers(0, 2**50),
        canvas_noise_mode=st.sampled_from(["off", "seeded"]),
        audio_noise_mode=st.sampled_from(["off", "seeded"]),
    ),
    trust=st.none()
    | st.builds(
        bp.ProxyTrust,
        mode=st.sampled_from(["system", "providery"]),
        certificates=st.none() | st.text(min_size=1, max_size=100),
    ),
)

commands: st.SearchStrategy[bp.EngineCommand] = st.one_of(
    st.builds(
        bp.Navigate,
        session_id=session_ids,
        url=st.none() | texts,
        navigation=st.sampled_from(["url", "back", "forward", "reload"]),
        page_id=st.none() | ids,
        timeout=seconds,
        wait=settle,
    ),
    st.builds(
        bp.Screenshot,
        session_id=session_ids,
        output_path=texts,
        format=st.sampled_from(["png", "jpeg", "webp"]),
        quality=st.none() | st.integers(0, 100),
        full_page=st.booleans(),
    ),
    st.builds(
        bp.Observe, session_id=session_ids, mode=st.sampled_from(["semantic", "hybrid", "visual"])
    ),
    st.builds(bp.Pause, session_id=session_ids),
    st.builds(bp.Play, session_id=session_ids),
    st.builds(bp.ApplySessionSettings, session_id=session_ids, settings=session_settings),
    st.builds(bp.CloseSession, session_id=session_ids),
    st.builds(bp.Notifications),
    st.builds(
        bp.ObservationAction,
        session_id=session_ids,
        observation_id=ids,
        actions=st.lists(ref_actions, min_size=1, max_size=4),
        mode=st.sampled_from(["semantic", "hybrid", "visual"]),
    ),
)

operations: st.SearchStrategy[bp.Operation] = st.one_of(
    commands,
    st.builds(
        bp.CaptureParams,
        session_id=session_ids,
        url=st.none() | texts,
        output_path=texts,
        actions=st.lists(actions, max_size=3),
        timeout=seconds,
        wait=settle,
    ),
    st.builds(
        bp.AttachParams,
        session_id=session_ids,
        url=texts,
        navigate=st.booleans(),
        output_path=st.none() | texts,
    ),
)

requests = st.builds(bp.make_request, ids, operations)
host_inbound = requests | st.builds(bp.Cancel, version=st.just(4), id=ids)

api_errors = st.builds(
    lambda eid, message, details: bp.ApiError.of(eid, message, **details),
    st.sampled_from(list(bp.ErrorId)),
    texts,
    st.dictionaries(st.from_regex(r"[a-z_]{1,10}", fullmatch=True), json_values, max_size=3),
)
# --- answers: one strategy per answer type (bp.ANSWERS) ------------------------------------------

counts = st.integers(0, 2**40)
urls = st.none() | texts
statuses = st.none() | st.integers(100, 599)
timings = st.builds(bp.Timings, page_ready_ms=counts, rendered_ms=counts, written_ms=counts)
wire_items = st.lists(
    st.integers(-1, 50) | st.lists(json_scalars | st.lists(texts, max_size=3), max_size=5),
    max_size=6,
)
ANSWER_STRATEGIES: dict[type[bp.Answer], st.SearchStrategy[Any]] = {
    bp.Done: st.builds(bp.Done),
    bp.PageAnswer: st.builds(bp.PageAnswer, url=urls, title=urls, target_http_status=statuses),
    bp.CaptureAnswer: st.builds(
        bp.CaptureAnswer,
        url=urls,
        title=urls,
        target_http_status=statuses,
        traffic_bytes=counts,
        bytesize=counts,
        output_path=texts,
        timings=timings,
    ),
    bp.AttachAnswer: st.builds(
        bp.AttachAnswer,
        url=urls,
        title=urls,
        target_http_status=statuses,
        traffic_bytes=counts,
        bytesize=st.none() | counts,
        output_path=st.none() | texts,
        timings=timings,
    ),
    bp.ScreenshotAnswer: st.builds(
        bp.ScreenshotAnswer,
        url=urls,
        output_path=texts,
        bytesize=counts,
        format=st.sampled_from(["png", "jpeg", "webp"]),
        mime_type=texts,
        width=counts,
        height=counts,
    ),
    bp.Observation: st.builds(
        bp.Observation,
        id=ids,
        seq=st.integers(1, 10**6),
        at=texts,
        url=urls,
        title=urls,
        mode=st.none() | st.sampled_from(["semantic", "hybrid", "visual"]),
        vp=st.lists(st.integers(0, 10**5), min_size=4, max_size=4),
        doc=st.lists(st.integers(0, 10**5), min_size=2, max_size=2),
        contexts=st.lists(texts, max_size=3),
        content=wire_items,
        elements=wire_items,
        omitted_node_count=counts,
        clipped_text_count=counts,
        truncated=st.booleans(),
        image=st.none()
        | st.builds(
            bp.ObservationImage,
            output_path=texts,
            bytesize=counts,
            format=st.just("png"),
            mime_type=st.just("image/png"),
            width=counts,
            height=counts,
            scale_x=st.floats(0.1, 10),
            scale_y=st.floats(0.1, 10),
        ),
    ),
    bp.PauseAnswer: st.builds(bp.PauseAnswer, network_paused=st.booleans()),
    bp.PlayAnswer: st.builds(bp.PlayAnswer, network_paused=st.booleans(), reloaded=st.booleans()),
    bp.NotificationsAnswer: st.builds(
        bp.NotificationsAnswer,
        notifications=st.lists(
            st.builds(
                bp.Notification,
                session_id=session_ids,
                origin=texts,
                title=texts,
                body=texts,
                notification_id=ids,
                persistent=st.booleans(),
                displayed_at=texts,
            ),
            max_size=3,
        ),
    ),
}
answers: st.SearchStrategy[bp.Answer] = st.one_of(list(ANSWER_STRATEGIES.values()))


def answer_for(operation: bp.Operation) -> st.SearchStrategy[bp.Answer]:
    """Answers of the type `operation` expects."""
    return ANSWER_STRATEGIES[bp.ANSWERS[type(operation)]]


responses = st.builds(bp.OkResponse, version=st.just(4), id=ids, data=answers) | st.builds(
    bp.ErrorResponse, version=st.just(4), id=ids, error=api_errors
)
