"""Fixtures for the agent's end-to-end tests: one shared agent per module, fresh ones on demand."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .agentproc import AgentProcess, default_answer


@pytest.fixture(scope="module")
def shared_agent(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AgentProcess]:
    """One agent process (Pro plan) for a whole test module; tests create their own sessions."""
    agent = AgentProcess(tmp_path_factory.mktemp("agent")).start()
    try:
        yield agent
    finally:
        agent.close()


@pytest.fixture
def agent(shared_agent: AgentProcess) -> Iterator[AgentProcess]:
    """The shared agent with its scripted host reset to say yes to everything."""
    assert shared_agent.host is not None
    shared_agent.host.answer = default_answer
    yield shared_agent
    if shared_agent.host is not None:
        shared_agent.host.answer = default_answer


@pytest.fixture
def make_agent(tmp_path: Path) -> Iterator[Callable[..., AgentProcess]]:
    """Start a dedicated agent (e.g. on the Free plan); stopped after the test."""
    started: list[AgentProcess] = []

    def make(env: dict[str, str] | None = None, data_dir: Path | None = None) -> AgentProcess:
        agent = AgentProcess(data_dir or tmp_path / f"agent{len(started)}", env=env)
        started.append(agent)
        return agent.start()

    yield make
    for agent in started:
        agent.close()
