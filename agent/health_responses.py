"""The answers of GET /v1/health and GET /v1/status as structs (issue 39 point 3);
docs/openapi.yaml's schemas of them are generated from them (agent/openapi.py)."""

from __future__ import annotations

from typing import Literal

import msgspec

from .responses import Shown

WorkerStateName = Literal["starting", "idle", "busy", "failed"]


class Build(Shown, frozen=True):
    """The bundle's build metadata (agent/build_info.py); health and status show null when
    the agent runs from source."""

    id: str
    configuration: str
    worktree: str
    branch: str
    commit: str
    dirty: bool


class WorkerShown(Shown, frozen=True, kw_only=True):
    """The control worker's snapshot. A worker that failed (state `failed`, with its `error`)
    makes health answer AGENT_UNHEALTHY with this snapshot in details.worker: health's answer
    holds starting, idle or busy."""

    state: WorkerStateName
    active_count: int
    error: str | msgspec.UnsetType = msgspec.UNSET


class DatabaseRecovery(Shown, frozen=True):
    """The latest recovery of a store that did not match the schema (agent/store.py)."""

    schema_version: int
    backup_path: str
    report_path: str
    issue_count: int
    retained_sessions: int


class Health(Shown, frozen=True):
    version: str
    pid: int
    browser_proxy_port: int
    build: Build | None
    worker: WorkerShown
    database_recovery: DatabaseRecovery | None


class StatusCheck(Shown, frozen=True):
    id: Literal["svc_app", "agent", "browser_proxy", "engine_bridge"]
    name: str
    kind: str
    running: bool
    status: str
    detail: str
    pids: list[int]


class Status(Shown, frozen=True):
    overall_status: str
    running_count: int
    total_count: int
    build: Build | None
    checks: list[StatusCheck]
