"""One app per data folder and the supervisor's decisions, without processes of the app: the
folder lock, the relaunch back-off, why a start failed, and which agent is stale."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

from host_app.logic import instance, supervision


def test_the_folder_lock_is_held_once_and_names_its_holder(tmp_path: Path) -> None:
    held = instance.acquire(tmp_path)
    assert isinstance(held, instance.Held)
    try:
        again = instance.acquire(tmp_path)  # another open file: the lock is not re-entrant
        assert again == instance.Taken(os.getpid())
        assert (tmp_path / instance.LOCK_NAME).read_text() == f"{os.getpid()}\n"
    finally:
        os.close(held.fd)
    # the kernel dropped it with its descriptor (as with its process, a crash included)
    after = instance.acquire(tmp_path)
    assert isinstance(after, instance.Held)
    os.close(after.fd)


def test_the_lock_is_not_inherited_by_children(tmp_path: Path) -> None:
    held = instance.acquire(tmp_path)
    assert isinstance(held, instance.Held)
    try:
        assert not os.get_inheritable(held.fd)
    finally:
        os.close(held.fd)


def test_the_socket_is_per_user_and_folder_and_short(tmp_path: Path) -> None:
    deep = tmp_path / ("x" * 200)
    a, b = instance.socket_path(tmp_path), instance.socket_path(deep)
    assert a != b
    assert f"-{os.getuid()}-" in a
    assert len(b.encode()) < 104  # sun_path's bound


def test_a_later_launch_gets_no_answer_from_nobody(tmp_path: Path) -> None:
    assert instance.ask_to_show(tmp_path, timeout=0.3) is None


def test_relaunch_backoff_is_three_quick_tries_then_one_per_30_s() -> None:
    starts = supervision.Starts()
    waits = [
        starts.ended(healthy_for=0.0, code=1, cause="port 1 is held", at=1_000.0) for _ in range(6)
    ]
    assert waits == [0.5, 1.0, 2.0, 30.0, 30.0, 30.0]
    assert starts.failures == 6
    assert "6 starts in a row failed" in starts.summary()
    assert starts.summary().endswith(": port 1 is held")
    # an agent that ran healthy long enough ended for another reason: a quick relaunch
    assert starts.ended(healthy_for=supervision.STABLE, code=-9, cause="", at=2_000.0) == 0.5
    assert starts.failures == 0
    assert starts.summary() == ""


def test_an_invalid_setting_is_not_retried_quickly() -> None:
    starts = supervision.Starts()
    wait = starts.ended(healthy_for=0.0, code=supervision.EXIT_CONFIG, cause="bad", at=0.0)
    assert wait == supervision.SLOW_RETRY


def test_why_a_start_failed() -> None:
    held = "svc agent: cannot start: [Errno 98] Address already in use"
    assert (
        supervision.exit_cause(1, held, 17319, ["pid 7 (nc)"]) == "port 17319 is held by pid 7 (nc)"
    )
    assert supervision.exit_cause(1, held, 17319, []) == "port 17319 is held by another program"
    bad = "svc agent: configuration error: SVC_BROWSER_CONCURRENCY='x' is not an integer"
    assert supervision.exit_cause(2, bad, 1, []) == (
        "configuration error: SVC_BROWSER_CONCURRENCY='x' is not an integer"
    )
    assert supervision.exit_cause(-11, "", 1, []) == "exited with -11"


def test_listening_pids_find_this_process(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        assert os.getpid() not in supervision.listening_pids(port)  # bound, not listening
        sock.listen()
        assert supervision.listening_pids(port) == [os.getpid()]
        assert supervision.describe_pid(os.getpid()).startswith(f"pid {os.getpid()} (")


def _fake_agent(proc: Path, pid: int, exe: Path, data_dir: Path) -> None:
    (proc / str(pid)).mkdir(parents=True)
    (proc / str(pid) / "cmdline").write_bytes(f"{sys.executable}\0{exe}\0--agent\0".encode())
    (proc / str(pid) / "environ").write_bytes(f"HOME=/root\0SVC_DATA_DIR={data_dir}\0".encode())


def test_only_this_folders_agent_is_stale(tmp_path: Path) -> None:
    exe = tmp_path / "svc-app"
    exe.write_text("#!/bin/sh\n")
    proc = tmp_path / "proc"
    mine, other = tmp_path / "mine", tmp_path / "other"
    _fake_agent(proc, 100, exe, mine)
    _fake_agent(proc, 101, exe, other)
    assert supervision.is_stale_agent(100, str(exe), mine, proc)
    # the agent of another data folder on the same port belongs to another live app
    assert not supervision.is_stale_agent(101, str(exe), mine, proc)
    assert supervision.describe_pid(101, proc) == f"pid 101 (the svc agent of {other})"
