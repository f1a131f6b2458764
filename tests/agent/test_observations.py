"""Observations in the agent: find over the retained copy (a pure function and the route), and
retention (32, oldest evicted, a closed session's go, none survive a restart)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from agent import observations

from .agentproc import AgentProcess
from .fakebrowser import FakeBrowser, new_session

OBS: dict[str, Any] = {
    "id": "obs_1",
    "contexts": ["main", 'main > table "Prices"'],
    "content": [
        {"k": "heading", "t": "Fruit shop", "l": 1, "c": 0},
        {"k": "paragraph", "t": "Apples are red.", "c": 0},
        {"k": "table_cell", "t": "Apple", "c": 1},
        {"k": "table_cell", "t": "apple", "c": 1},
        {"k": "table_row", "c": 1},
    ],
    "elements": [
        {"ref": "e1", "role": "link", "name": "Home", "dest": "https://shop.test/apple-home"},
        {"ref": "e2", "role": "button", "name": "Buy", "c": 1},
        {"ref": "e3", "role": "textbox", "name": "Search", "value": "APPLE pie", "c": 0},
        {"ref": "e4", "role": "Button", "name": "Sell"},
    ],
}


def find_in(observation: dict[str, Any], query: str | None, role: str | None, limit: int) -> Any:
    """agent.observations.find_in's matches as the answer's JSON shows them."""
    return msgspec.to_builtins(observations.find_in(observation, query, role, limit))


def test_query_matches_content_text_and_element_fields_case_insensitively() -> None:
    found = find_in(OBS, "aPPle", None, 20)
    assert found["content"] == [
        {"i": 1, "k": "paragraph", "t": "Apples are red.", "ctx": "main"},
        {"i": 2, "k": "table_cell", "t": "Apple", "ctx": 'main > table "Prices"'},
        {"i": 3, "k": "table_cell", "t": "apple", "ctx": 'main > table "Prices"'},
    ]
    # destination and value are searched; refs are kept
    assert [e["ref"] for e in found["elements"]] == ["e1", "e3"]
    assert found["elements"][1]["ctx"] == "main"
    assert (found["total_matches"], found["truncated"]) == (5, False)


def test_query_matches_role_name_and_nothing_else() -> None:
    assert [e["ref"] for e in find_in(OBS, "butt", None, 20)["elements"]] == ["e2", "e4"]
    assert find_in(OBS, "e2", None, 20)["total_matches"] == 0  # refs are not searched
    assert find_in(OBS, "main", None, 20)["total_matches"] == 0  # nor context paths


def test_role_is_an_exact_case_insensitive_element_filter() -> None:
    found = find_in(OBS, None, "BUTTON", 20)
    assert [e["ref"] for e in found["elements"]] == ["e2", "e4"]
    assert found["content"] == []
    assert find_in(OBS, None, "butto", 20)["total_matches"] == 0
    both = find_in(OBS, "sell", "button", 20)
    assert [e["ref"] for e in both["elements"]] == ["e4"]
    assert both["content"] == []


def test_limit_caps_each_list_and_reports_truncation() -> None:
    found = find_in(OBS, "apple", None, 1)
    assert len(found["content"]) == 1
    assert len(found["elements"]) == 1
    assert (found["total_matches"], found["truncated"]) == (5, True)


def test_empty_observation() -> None:
    assert find_in({"id": "obs_2"}, "x", None, 20) == {
        "content": [],
        "elements": [],
        "total_matches": 0,
        "truncated": False,
    }


# --- through the agent ---------------------------------------------------------------------------


@pytest.fixture
def fake(agent: AgentProcess) -> FakeBrowser:
    state = FakeBrowser()
    assert agent.host is not None
    agent.host.answer = state
    return state


def observe(agent: AgentProcess, sid: str) -> dict[str, Any]:
    return dict(agent.ok("POST", "/v1/observe", {"session_id": sid, "wait": 0})["observation"])


def test_find_route_reads_the_retained_copy(agent: AgentProcess, fake: FakeBrowser) -> None:
    sid = new_session(agent)
    agent.ok("POST", "/v1/navigate", {"url": "find.test", "session_id": sid, "wait": 0})
    oid = observe(agent, sid)["id"]
    found = agent.ok("POST", f"/v1/observations/{oid}/find", {"role": "button"})
    assert found["observation_id"] == oid
    assert found["page"]["session_id"] == sid
    assert [e["ref"] for e in found["elements"]] == ["e1"]
    assert fake.named("find", sid) == []
    status, error = agent.error("POST", f"/v1/observations/{oid}/find", {"limit": 5})
    assert (status, error["id"]) == (422, "VALIDATION_FAILED")
    status, error = agent.error("POST", f"/v1/observations/{oid}/find", {"query": "x", "limit": 0})
    assert error["details"]["field"] == "limit"


def test_33rd_evicts_the_oldest_and_a_closed_session_takes_its_own(
    agent: AgentProcess, fake: FakeBrowser
) -> None:
    keep, drop = new_session(agent), new_session(agent)
    for sid in (keep, drop):
        agent.ok("POST", "/v1/navigate", {"url": "keep.test", "session_id": sid, "wait": 0})
    ids = [observe(agent, keep)["id"] for _ in range(31)]
    dropped = observe(agent, drop)["id"]
    assert agent.ok("GET", f"/v1/observations/{ids[0]}")["observation"]["id"] == ids[0]
    ids.append(observe(agent, keep)["id"])  # the 33rd
    _status, error = agent.error("GET", f"/v1/observations/{ids[0]}")
    assert error["id"] == "OBSERVATION_STALE"
    assert error["details"] == {"cause": "evicted", "observation_id": ids[0]}
    agent.ok("DELETE", f"/v1/sessions/{drop}")
    _, error = agent.error("POST", f"/v1/observations/{dropped}/find", {"query": "x"})
    assert error["details"]["cause"] == "evicted"
    _, error = agent.error(
        "POST",
        f"/v1/observations/{dropped}/actions",
        {"actions": [{"action": "click", "ref": "e1"}]},
    )
    assert error["details"]["cause"] == "evicted"
    assert fake.named("observation-actions", drop) == []
    for oid in ids[1:]:
        assert agent.ok("GET", f"/v1/observations/{oid}")["observation"]["id"] == oid


def test_none_survive_a_restart(make_agent: Callable[..., AgentProcess], tmp_path: Path) -> None:
    first = make_agent(data_dir=tmp_path / "data")
    assert first.host is not None
    first.host.answer = FakeBrowser()
    sid = new_session(first)
    first.ok("POST", "/v1/navigate", {"url": "restart.test", "session_id": sid, "wait": 0})
    oid = observe(first, sid)["id"]
    first.close()
    second = make_agent(data_dir=tmp_path / "data")
    assert second.host is not None
    second.host.answer = FakeBrowser()
    _, error = second.error("GET", f"/v1/observations/{oid}")
    assert (error["id"], error["details"]["cause"]) == ("OBSERVATION_STALE", "evicted")
