"""The one output policy (issue 12 point 2): regular files only, written atomically."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest

from bridge_protocol.outputs import OutputPathError, check, write_atomically


def test_a_new_file_is_written_atomically_with_its_folders(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "shot.png"
    assert write_atomically(str(target), b"png") == 3
    assert target.read_bytes() == b"png"
    assert stat.S_IMODE(target.stat().st_mode) & 0o077 in (0o044, 0o004, 0o040, 0)
    assert sorted(p.name for p in target.parent.iterdir()) == ["shot.png"]  # no temporary left


def test_an_existing_file_is_replaced_not_written_through(tmp_path: Path) -> None:
    target = tmp_path / "x.html"
    target.write_bytes(b"old")
    hard = tmp_path / "hard.html"
    os.link(target, hard)
    write_atomically(str(target), b"new")
    assert target.read_bytes() == b"new"
    assert hard.read_bytes() == b"old"  # another name of the old inode is untouched


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (lambda p: p.mkdir(), "a directory"),
        (os.mkfifo, "a FIFO"),
        (lambda p: p.symlink_to(p.parent / "target"), "a symbolic link"),
    ],
)
def test_what_is_not_a_regular_file_is_refused(tmp_path: Path, make: object, why: str) -> None:
    target = tmp_path / "out"
    make(target)  # type: ignore[operator]
    with pytest.raises(OutputPathError, match=why):
        write_atomically(str(target), b"x")
    assert not (tmp_path / "target").exists()


def test_a_socket_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
        with pytest.raises(OutputPathError, match="a socket"):
            check(str(path))


@pytest.mark.parametrize(
    "path",
    ["/dev/null", "/dev/shm/x", "/proc/self/fd/1", "/proc/1/mem", "/sys/x", "//proc/self/fd/0"],
)
def test_pseudo_file_systems_are_refused(path: str) -> None:
    with pytest.raises(OutputPathError, match="inside /"):
        check(path)


def test_a_link_into_proc_is_followed_for_the_folder(tmp_path: Path) -> None:
    (tmp_path / "fds").symlink_to("/proc/self/fd")
    with pytest.raises(OutputPathError, match="inside /proc"):
        check(str(tmp_path / "fds" / "1"))


@pytest.mark.parametrize("path", ["relative.png", "/tmp/dir/", "/tmp/a\x00b"])
def test_malformed_paths_are_refused(path: str) -> None:
    with pytest.raises(OutputPathError):
        check(path)


def test_an_unwritable_folder_is_a_policy_error_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputPathError, match="not a folder"):
        write_atomically(str(tmp_path / "file" / "inner" / "x.png"), b"x")
