"""The one policy for files the agent writes at a path a client names (capture and screenshot
`output`): regular files only, written atomically, never through something the process already
holds open. The agent checks a path before any browser work (`check`); the host checks it again
and writes (`write_atomically`). Failures are `OutputPathError`, which both ends turn into
VALIDATION_FAILED with `details.field` naming the request field.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat

# Pseudo file systems: a path there is a kernel object (a descriptor of this very process under
# /proc/self/fd, a device), never a file a user wants a screenshot in.
FORBIDDEN_ROOTS = ("/proc", "/sys", "/dev")

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISLNK, "a symbolic link"),
)


class OutputPathError(ValueError):
    """A path the policy refuses, or a write that failed; the message says why."""


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root + "/")


def _forbidden(path: str) -> str | None:
    for root in FORBIDDEN_ROOTS:
        if _under(path, root):
            return root
    return None


def check(path: str) -> str:
    """`path` (absolute) normalized, once it may be written; OutputPathError otherwise."""
    if not os.path.isabs(path):
        raise OutputPathError(f"output must be an absolute path, not {path!r}")
    if "\x00" in path:
        raise OutputPathError("output must not contain NUL characters")
    if path.endswith("/"):
        raise OutputPathError("output must name a file, not a directory")
    norm = "/" + os.path.normpath(path).lstrip("/")
    parent = os.path.dirname(norm)
    for candidate in (norm, os.path.realpath(parent)):
        root = _forbidden(candidate)
        if root is not None:
            raise OutputPathError(f"output {norm!r} is inside {root}, which holds no files")
    try:
        st = os.lstat(norm)
    except (FileNotFoundError, NotADirectoryError):
        pass  # created below; an impossible folder is said next
    except OSError as exc:
        raise OutputPathError(f"output {norm!r} cannot be used: {exc.strerror}") from None
    else:
        for test, kind in _KINDS:
            if test(st.st_mode):
                raise OutputPathError(f"output {norm!r} is {kind}, not a regular file")
    # the nearest existing ancestor must be a directory (a file there makes the path impossible)
    ancestor = parent
    while ancestor and not os.path.lexists(ancestor):
        ancestor = os.path.dirname(ancestor)
    if ancestor and not os.path.isdir(ancestor):
        raise OutputPathError(f"output {norm!r} cannot be created: {ancestor!r} is not a folder")
    return norm


def write_atomically(path: str, data: bytes) -> int:
    """Write `data` to `path` (checked again here) through a new temporary file in the same
    folder, then rename it over the target: a reader never sees a half-written file, a crash
    leaves the old file or the new one, and the bytes never go through a descriptor the process
    already holds. The number of bytes written."""
    norm = check(path)
    folder, name = os.path.split(norm)
    tmp = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.tmp")
    try:
        os.makedirs(folder, exist_ok=True)
        fd = os.open(
            tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644
        )
    except OSError as exc:
        raise OutputPathError(f"output {norm!r} cannot be written: {exc.strerror}") from None
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        check(norm)  # the target did not turn into something else meanwhile
        os.replace(tmp, norm)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OutputPathError(f"output {norm!r} cannot be written: {exc.strerror}") from None
        raise
    return len(data)
