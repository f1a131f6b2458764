"""Hypothesis strategies for every bridge message."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

import bridge_protocol as bp

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
    st.builds(bp.Type, selector=selectors, text=st.text(min_size=1, max_size=20)),
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
        bp.Perform,
        session_id=session_ids,
        actions=st.lists(actions, min_size=1, max_size=4),
        timeout=seconds,
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
    st.builds(bp.ApplySessionSettings, session_id=session_ids, settings=json_objects),
    st.builds(bp.CloseSession, session_id=session_ids),
    st.builds(bp.HostSettings),
    st.builds(bp.Notifications),
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
responses = st.builds(bp.OkResponse, version=st.just(4), id=ids, data=json_objects) | st.builds(
    bp.ErrorResponse, version=st.just(4), id=ids, error=api_errors
)
