"""The bundle (issue 18): `packaging/bundle.py` (`make bundle`) builds `svc/` with PyInstaller.

Without a build: the build metadata from git, the agent reading it back (only in a bundle), the
supervisor's stale-agent rule on a fake /proc, install.sh and uninstall.sh on a fake bundle.

End to end (one build per run, about a minute): a clean clone of HEAD is built, its
`svc.tar.gz` unpacked into a fresh folder outside the repository and run there with no
virtualenv on PATH: `svc` cold-starts the bundled app headless, makes a capture, an observation
and a screenshot of a local page, and health reports `build.commit` == HEAD; then a stale agent
of this bundle on the app's port is terminated and one of a copy elsewhere is left alone.
"""

from __future__ import annotations

import configparser
import contextlib
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import yaml

from agent import build_info
from host_app.logic import supervision
from tests.agent.test_openapi import OPENAPI, conforms
from tests.conftest import RUN_ID, RUN_MARK
from tests.host.test_e2e_assets import png
from tests.httpserver import serving
from tests.ports import free_port, listener_base
from tests.procs import alive

ROOT = Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"
EXECUTABLES = ("svc-app", "svc", "svc-mcp")
BUILD_TIMEOUT = 1200  # seconds; about 60 on an idle 2-core machine

BUILD_SCHEMA = {"$ref": "#/components/schemas/Build"}  # docs/openapi.yaml: health and status
GIT_ID = ["-c", "user.name=svc tests", "-c", "user.email=tests@svc.invalid"]


def _script(name: str) -> ModuleType:
    """A script of packaging/ (not a package: `packaging` is also a PyPI distribution)."""
    spec = importlib.util.spec_from_file_location(f"svc_packaging_{name}", PACKAGING / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *GIT_ID, *args], cwd=cwd, check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


# -- build metadata --------------------------------------------------------------------------


def test_build_metadata_of_a_clean_a_dirty_and_a_detached_tree(tmp_path: Path) -> None:
    collect = _script("build_info").collect
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "--quiet", "--initial-branch=main")
    (repo / "a.txt").write_text("a\n")
    _git(repo, "add", "a.txt")
    _git(repo, "commit", "--quiet", "-m", "one")
    head = _git(repo, "rev-parse", "HEAD")

    clean = collect(repo, "release", now=0.0)
    assert clean == {
        "id": f"19700101T000000Z-{head[:12]}",
        "configuration": "release",
        "worktree": str(repo.resolve()),
        "branch": "main",
        "commit": head,
        "dirty": False,
    }
    assert build_info.parse(json.dumps(clean).encode()) == clean
    assert conforms(BUILD_SCHEMA, clean, yaml.safe_load(OPENAPI.read_text()))

    (repo / "new.txt").write_text("untracked, so it could be built in\n")
    dirty = collect(repo, "debug")
    assert dirty["dirty"] is True
    assert dirty["id"].endswith(f"{head[:12]}-dirty")
    assert dirty["configuration"] == "debug"
    (repo / "new.txt").unlink()
    (repo / "a.txt").write_text("changed\n")
    assert collect(repo, "release")["dirty"] is True

    _git(repo, "checkout", "--quiet", "a.txt")
    _git(repo, "checkout", "--quiet", "--detach", head)
    assert collect(repo, "release")["branch"] == "HEAD"


@pytest.mark.parametrize(
    "raw",
    [
        b"not json",
        b"[]",
        b'{"id": "x", "configuration": "release", "worktree": "/w", "branch": "main",'
        b' "commit": "c", "dirty": "no"}',
        b'{"id": "x", "configuration": "release", "worktree": "/w", "branch": "main",'
        b' "dirty": false}',
        b'{"id": 1, "configuration": "release", "worktree": "/w", "branch": "main",'
        b' "commit": "c", "dirty": false}',
    ],
)
def test_build_metadata_of_another_shape_is_null(raw: bytes) -> None:
    assert build_info.parse(raw) is None


def test_agent_reads_build_metadata_only_in_a_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = {
        "id": "20260101T000000Z-0123456789ab",
        "configuration": "release",
        "worktree": "/src/svc",
        "branch": "main",
        "commit": "0123456789ab" + "0" * 28,
        "dirty": False,
        "extra": "dropped",
    }
    (tmp_path / build_info.FILE_NAME).write_text(json.dumps(info))
    assert build_info.bundle_dir() is None  # from source
    assert build_info.load() is None
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert build_info.bundle_dir() == tmp_path
    expected = {k: v for k, v in info.items() if k != "extra"}
    assert build_info.load() == expected
    (tmp_path / build_info.FILE_NAME).unlink()
    assert build_info.load() is None  # a bundle without metadata: null, never a failure


# -- stale agent rule (spec 1 lifecycle rule 4) -------------------------------------------------


def _fake_process(proc: Path, pid: int, image: str, *argv: str) -> None:
    (proc / str(pid)).mkdir(parents=True)
    (proc / str(pid) / "cmdline").write_bytes(b"".join(a.encode() + b"\0" for a in argv))
    (proc / str(pid) / "exe").symlink_to(image)


def test_a_bundle_recognizes_its_agent_by_the_process_image(tmp_path: Path) -> None:
    ours = tmp_path / "svc" / "svc-app"
    other = tmp_path / "copy" / "svc-app"
    for exe in (ours, other):
        exe.parent.mkdir()
        exe.write_text("")
    proc = tmp_path / "proc"
    _fake_process(proc, 200, str(ours), "svc-app", "--agent")  # argv[0] as typed: no matter
    _fake_process(proc, 201, str(other), str(ours), "--agent")  # argv[0] lies: the image counts
    _fake_process(proc, 202, str(ours), str(ours), "--headless")  # the app, not an agent
    _fake_process(proc, 203, f"{ours} (deleted)", str(ours), "--agent")  # unpacked over since
    _fake_process(proc, 204, sys.executable, sys.executable, str(ours), "--agent")

    def own(pid: int, *, bundled: bool = True) -> bool:
        return supervision.is_own_agent(pid, str(ours), proc, bundled=bundled)

    assert own(200)
    assert not own(201)
    assert not own(202)
    assert own(203)
    assert not own(204)  # an interpreter running a script of that name is no bundle's agent
    assert own(204, bundled=False)  # from source the entry point script is what counts
    assert not own(205)  # gone
    assert not supervision.is_own_agent(os.getpid(), sys.executable, bundled=True)


def test_a_bundled_client_cold_starts_the_app_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from clients import coldstart

    bundle = _fake_bundle(tmp_path / "svc")
    decoy = tmp_path / "work"
    decoy.mkdir()
    (decoy / "svc-app").write_text("#!/bin/sh\n")
    (decoy / "svc-app").chmod(0o755)
    monkeypatch.chdir(decoy)
    monkeypatch.setattr(sys, "argv", ["svc", "capture"])  # typed by name, found through a link
    monkeypatch.setattr(sys, "executable", str(bundle / "svc"))
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    env = {"PATH": "/usr/bin:/bin"}
    assert coldstart.app_command(env) == [str(bundle / "svc-app"), "--headless"]


# -- install / uninstall ------------------------------------------------------------------------


def _fake_bundle(folder: Path) -> Path:
    """The files install.sh and uninstall.sh use, laid out as packaging/bundle.py does."""
    (folder / "share").mkdir(parents=True)
    for name in EXECUTABLES:
        (folder / name).write_text("#!/bin/sh\n")
        (folder / name).chmod(0o755)
    for script in ("install.sh", "uninstall.sh"):
        shutil.copy(PACKAGING / script, folder / script)
    shutil.copy(PACKAGING / "svc-app.desktop", folder / "share" / "svc-app.desktop")
    shutil.copy(PACKAGING / "icons" / "svc.svg", folder / "share" / "svc.svg")
    return folder.resolve()


def _tree(root: Path) -> dict[str, str]:
    """Every file and link under root: its content, or where a link points."""
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink():
            found[str(path.relative_to(root))] = "-> " + os.readlink(path)
        elif path.is_file():
            found[str(path.relative_to(root))] = path.read_text()
    return found


def _run_script(script: Path, home: Path) -> str:
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "SVC_BIN_DIR": str(home / "bin"),
    }
    done = subprocess.run(
        [str(script)], env=env, cwd=home, check=True, capture_output=True, text=True, timeout=30
    )
    return done.stdout + done.stderr


def test_install_and_uninstall_put_and_remove_exactly_their_files(tmp_path: Path) -> None:
    bundle = _fake_bundle(tmp_path / "my apps" / "svc")  # a space in the path
    home = tmp_path / "home"
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "other-tool").write_text("#!/bin/sh\n")
    (home / "data" / "applications").mkdir(parents=True)
    (home / "data" / "applications" / "other.desktop").write_text("[Desktop Entry]\n")
    before = _tree(home)

    _run_script(bundle / "install.sh", home)
    added = {k: v for k, v in _tree(home).items() if k not in before}
    assert sorted(added) == [
        "bin/svc",
        "bin/svc-app",
        "bin/svc-mcp",
        "data/applications/svc-app.desktop",
        "data/icons/hicolor/scalable/apps/svc.svg",
    ]
    for name in EXECUTABLES:
        assert added[f"bin/{name}"] == f"-> {bundle / name}"
    assert (
        added["data/icons/hicolor/scalable/apps/svc.svg"] == (bundle / "share/svc.svg").read_text()
    )
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]
    entry.read_string(added["data/applications/svc-app.desktop"])
    desktop = entry["Desktop Entry"]
    assert desktop["Exec"] == f'"{bundle / "svc-app"}"'
    assert desktop["TryExec"] == str(bundle / "svc-app")
    assert desktop["Icon"] == "svc"
    assert desktop["X-Svc-Bundle"] == str(bundle)

    # installing again changes nothing; another bundle's uninstall removes nothing of ours
    installed = _tree(home)
    _run_script(bundle / "install.sh", home)
    assert _tree(home) == installed
    other = _fake_bundle(tmp_path / "elsewhere" / "svc")
    _run_script(other / "uninstall.sh", home)
    assert _tree(home) == installed

    _run_script(bundle / "uninstall.sh", home)
    assert _tree(home) == before


def test_install_leaves_a_command_of_the_users_own_alone(tmp_path: Path) -> None:
    bundle = _fake_bundle(tmp_path / "svc")
    home = tmp_path / "home"
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "svc").write_text("#!/bin/sh\necho mine\n")
    out = _run_script(bundle / "install.sh", home)
    assert "exists and is not a link; left alone" in out
    assert (home / "bin" / "svc").read_text() == "#!/bin/sh\necho mine\n"
    _run_script(bundle / "uninstall.sh", home)
    assert _tree(home) == {"bin/svc": "#!/bin/sh\necho mine\n"}


# -- the real bundle, end to end ----------------------------------------------------------------


@dataclass(frozen=True)
class Bundle:
    folder: Path  # the unpacked copy, outside the repository
    commit: str
    clone: Path  # where it was built (removed after the build)
    seconds: float  # build time
    size: int  # bytes of the unpacked folder


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bundle]:
    work = tmp_path_factory.mktemp("bundle-build")
    commit = _git(ROOT, "rev-parse", "HEAD")
    clone = work / "clone"
    _git(work, "clone", "--quiet", "--no-checkout", str(ROOT), str(clone))
    _git(clone, "checkout", "--quiet", "--detach", commit)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SVC_")}
    started = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            str(clone / "packaging" / "bundle.py"),
            f"--dist={work / 'dist'}",
            f"--work={work / 'build'}",
        ],
        cwd=clone,
        env=env,
        check=False,
        timeout=BUILD_TIMEOUT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    seconds = time.monotonic() - started
    # the modules came from the clone, not from the checkout the virtualenv was installed from
    modules = (work / "build" / "pyinstaller" / "svc" / "PYZ-00.toc").read_text()
    assert f"{clone}/host_app/supervisor.py" in modules
    assert f"{clone}/agent/build_info.py" in modules
    for package in ("bridge_protocol", "agent", "host_app", "proxy", "clients"):
        assert f"'{ROOT}/{package}/" not in modules
    fresh = tmp_path_factory.mktemp("bundle-unpacked")
    with tarfile.open(work / "dist" / "svc.tar.gz") as tar:
        tar.extractall(fresh, filter="tar")
    shutil.rmtree(work)  # the clone, PyInstaller's work folder and dist/: only the copy runs
    folder = fresh / "svc"
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    yield Bundle(folder, commit, clone, seconds, size)
    shutil.rmtree(fresh)  # 600 MiB; pytest keeps the temporary folders of the last runs


def _clean_env(tmp: Path, port: int, **extra: str) -> dict[str, str]:
    """An environment without the project's virtualenv or any Python setting: the bundle alone."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(tmp / "home"),
        "LANG": "C.UTF-8",
        "QT_QPA_PLATFORM": "offscreen",
        "QTWEBENGINE_CHROMIUM_FLAGS": "--no-sandbox --disable-gpu",
        "SVC_DATA_DIR": str(tmp / "data"),
        "SVC_AGENT_PORT": str(port),
        "SVC_BROWSER_PROXY_PORT": str(listener_base()),
        "SVC_PLAN": "pro",
        "SVC_FILTER_LISTS_URL": "https://127.0.0.1:9/lists",  # offline
        RUN_MARK: RUN_ID,  # the run-wide process guard (tests/conftest.py) knows these as ours
    }
    env.update(extra)
    (tmp / "home").mkdir(exist_ok=True)
    return env


def _health(port: int) -> dict[str, Any] | None:
    with contextlib.suppress(httpx.TransportError, ValueError):
        r = httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=5, trust_env=False)
        if r.status_code == 200:
            return dict(r.json()["data"])
    return None


def _wait_health(port: int, timeout: float = 90, *, not_pid: int | None = None) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        data = _health(port)
        if data is not None and data["pid"] != not_pid:
            return data
        time.sleep(0.2)
    raise TimeoutError(f"no healthy agent on port {port}")


def _children(pid: int) -> set[int]:
    """Every descendant of pid."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                parents[int(entry.name)] = _parent(int(entry.name))
    found: set[int] = set()
    new = {pid}
    while new:
        new = {child for child, parent in parents.items() if parent in new} - found
        found |= new
    return found


def _mapped_files(pid: int) -> set[str]:
    try:
        lines = Path(f"/proc/{pid}/maps").read_text().splitlines()
    except OSError:  # gone since
        return set()
    return {line.split(maxsplit=5)[5] for line in lines if len(line.split(maxsplit=5)) == 6}


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[2])


def _stop(pid: int) -> None:
    """SIGTERM, then SIGKILL after 15 s; our own children are reaped."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    while alive(pid) and time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        time.sleep(0.1)
    if alive(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _svc(env: dict[str, str], cwd: Path, *args: str) -> Any:
    """`svc` as the user types it: found on PATH, the link install.sh made."""
    done = subprocess.run(
        ["svc", *args],
        check=False,
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done


class Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        kind = "text/html; charset=utf-8"
        body = (
            b"<!doctype html><title>Bundle page</title><h1>Served to the bundle</h1>"
            b"<p>From the test.</p><button>Press</button>"
        )
        if self.path == "/image":
            # an image of another site: the asset fetch (curl_cffi) and the public suffix
            # list (Sec-Fetch-Site) of an `over_limit` session, both bundled data
            port = self.headers["Host"].rpartition(":")[2]
            body = (
                f"<!doctype html><img src='http://localhost:{port}/i.png' "
                "onload='this.dataset.w=this.naturalWidth'>"
            ).encode()
        elif self.path == "/i.png":
            kind, body = "image/png", png(16, 3)
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _mcp_screenshot(env: dict[str, str], cwd: Path, out: Path) -> dict[str, Any]:
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test_bundle", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "svc_take_screenshot", "arguments": {"output_uri": out.as_uri()}},
        },
    ]
    proc = subprocess.Popen(
        ["svc-mcp"],
        env=env,
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdin is not None
        assert proc.stdout is not None
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        proc.stdin.flush()
        answers = {}
        while 2 not in answers:
            line = proc.stdout.readline()
            assert line, proc.stderr.read() if proc.stderr else ""
            answer = json.loads(line)
            answers[answer["id"]] = answer
        proc.stdin.close()
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    assert answers[1]["result"]["serverInfo"]["version"] == "0.1.0"
    result = answers[2]["result"]
    assert not result.get("isError"), result
    return dict(result["structuredContent"])


@pytest.mark.e2e
@pytest.mark.timeout(BUILD_TIMEOUT + 300)
def test_the_bundle_runs_alone_and_reports_its_build(bundle: Bundle, tmp_path: Path) -> None:
    folder = bundle.folder
    print(f"bundle built in {bundle.seconds:.0f} s, {bundle.size / 2**20:.0f} MiB unpacked")
    for name in EXECUTABLES:
        assert os.access(folder / name, os.X_OK), name
    qt = folder / "_internal" / "PyQt6" / "Qt6"
    assert os.access(qt / "libexec" / "QtWebEngineProcess", os.X_OK)
    assert (qt / "resources" / "qtwebengine_resources.pak").is_file()
    assert (qt / "translations" / "qtwebengine_locales" / "en-US.pak").is_file()
    assert not folder.resolve().is_relative_to(ROOT)

    # installed for a user whose home is tmp_path/home: the commands are links on PATH
    port = free_port()
    env = _clean_env(tmp_path, port)
    bin_dir = tmp_path / "home" / ".local" / "bin"
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    assert ".venv" not in env["PATH"]
    subprocess.run(
        [str(folder / "install.sh")], env=env, check=True, capture_output=True, timeout=30
    )
    assert shutil.which("svc", path=env["PATH"]) == str(bin_dir / "svc")
    assert (bin_dir / "svc").resolve() == (folder / "svc").resolve()
    entry = tmp_path / "home" / ".local" / "share" / "applications" / "svc-app.desktop"
    assert f'Exec="{folder.resolve() / "svc-app"}"' in entry.read_text()
    assert _svc(env, tmp_path, "--version").stdout.strip() == "svc 0.1.0"
    app_pid = agent_pid = None
    with serving(Page) as base_url:
        try:
            # no agent yet: the bundled svc cold-starts the svc-app beside it, headless, not
            # one that happens to lie in the working folder
            decoy = tmp_path / "svc-app"
            decoy.write_text("#!/bin/sh\nexit 3\n")
            decoy.chmod(0o755)
            html = tmp_path / "page.html"
            try:
                _svc(env, tmp_path, "capture", f"{base_url}/", "--output", str(html))
            finally:
                # whatever happened, the app (the agent's parent) is stopped at the end
                health = _health(port)
                if health is not None:
                    agent_pid = health["pid"]
                    app_pid = _parent(agent_pid)
            assert app_pid is not None
            assert agent_pid is not None
            assert "Served to the bundle" in html.read_text()
            status = json.loads(_svc(env, tmp_path, "status").stdout)
            checks = {c["id"]: c for c in status["checks"]}
            assert checks["svc_app"]["pids"] == [app_pid]
            assert checks["agent"]["pids"] == [agent_pid]

            # both processes run the bundle's executable: svc-app, and svc-app --agent
            app_exe = str((folder / "svc-app").resolve())
            assert os.readlink(f"/proc/{app_pid}/exe") == app_exe
            assert os.readlink(f"/proc/{agent_pid}/exe") == app_exe
            assert (supervision.read_cmdline(agent_pid) or [])[1:] == ["--agent"]
            # the engine's helper processes are the bundle's QtWebEngineProcess, and nothing of
            # the repository or its virtualenv is loaded by any of them
            helpers = {
                pid
                for pid in _children(app_pid)
                if any(a.startswith("--type=") for a in supervision.read_cmdline(pid) or [])
            }
            assert helpers
            helper_exe = str((qt / "libexec" / "QtWebEngineProcess").resolve())
            for pid in helpers:
                assert supervision.read_image(pid) in (helper_exe, None)  # None: gone since
            for pid in (app_pid, agent_pid, *helpers):
                assert not [m for m in _mapped_files(pid) if m.startswith(f"{ROOT}/")], pid

            observed = json.loads(_svc(env, tmp_path, "observe").stdout)
            assert observed["observation"]["title"] == "Bundle page"
            assert any(e[1:3] == ["button", "Press"] for e in observed["observation"]["elements"])

            visual = json.loads(_svc(env, tmp_path, "observe", "--mode", "visual").stdout)
            image = Path(visual["observation"]["image"]["output_path"])
            assert image.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
            shot = tmp_path / "shot.png"
            result = _mcp_screenshot(env, tmp_path, shot)
            assert result["screenshot"]["width"] > 0
            assert shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")

            api = f"http://127.0.0.1:{port}/v1"
            created = httpx.post(
                f"{api}/sessions",
                json={"image_blocking_mode": "over_limit", "image_size_limit_kb": 64},
                timeout=30,
                trust_env=False,
            ).json()
            sid = created["data"]["session"]["id"]
            shown = httpx.post(
                f"{api}/navigate",
                json={"url": f"{base_url}/image", "session_id": sid, "wait": 1},
                timeout=60,
                trust_env=False,
            ).json()
            assert shown["status"] == "ok", shown
            assert 'data-w="16"' in Path(shown["data"]["capture"]["output_path"]).read_text()

            health = json.loads(_svc(env, tmp_path, "health").stdout)
            assert health["pid"] == agent_pid
            build = health["build"]
            assert build["commit"] == bundle.commit
            assert build["dirty"] is False
            assert build["configuration"] == "release"
            assert build["branch"] == "HEAD"  # the clone was checked out detached
            assert build["worktree"] == str(bundle.clone)
            assert build["id"].endswith(bundle.commit[:12])
            assert status["build"] == build
            assert conforms(BUILD_SCHEMA, build, yaml.safe_load(OPENAPI.read_text()))
        finally:
            for started in (app_pid, agent_pid):
                if started is not None:
                    _stop(started)
    assert app_pid is not None
    assert not alive(app_pid)
    assert agent_pid is not None
    assert not alive(agent_pid)
    subprocess.run(
        [str(folder / "uninstall.sh")], env=env, check=True, capture_output=True, timeout=30
    )
    assert not entry.exists()
    assert list(bin_dir.iterdir()) == []


def _spawn(argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(
            argv,
            env=env,
            cwd=log.parent,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=True,
        )


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(15)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(5)


def _wait_log(path: Path, text: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.is_file() and text in path.read_text():
            return
        time.sleep(0.2)
    raise TimeoutError(f"{text!r} not in {path}")


@pytest.mark.e2e
@pytest.mark.timeout(BUILD_TIMEOUT + 300)
def test_only_a_stale_agent_of_this_bundle_is_terminated(bundle: Bundle, tmp_path: Path) -> None:
    ours = bundle.folder / "svc-app"
    # a copy of the same build elsewhere (hard links: the same files, another path)
    copy = tmp_path / "copy" / "svc"
    shutil.copytree(bundle.folder, copy, symlinks=True, copy_function=os.link)

    # an agent of the copy holds the port: the app warns, and leaves it running
    port = free_port()
    env = _clean_env(tmp_path, port)
    stale_env = env | {"SVC_BROWSER_BRIDGE": "none", "SVC_DATA_DIR": str(tmp_path / "other")}
    foreign = _spawn([str(copy / "svc-app"), "--agent"], stale_env, tmp_path / "foreign.log")
    app = None
    try:
        assert _wait_health(port)["pid"] == foreign.pid
        app = _spawn([str(ours), "--headless"], env, tmp_path / "app.log")
        global_log = tmp_path / "data" / "Logs" / "global.ndjson"
        _wait_log(
            global_log,
            f"port {port} is held by pid {foreign.pid} (the svc agent of {tmp_path / 'other'}), "
            "which is not an agent this app may stop",
        )
        time.sleep(3)  # the supervisor goes on launching its own agent, which finds the port taken
        assert foreign.poll() is None
        assert _wait_health(port)["pid"] == foreign.pid
        assert f"terminating stale agent pid {foreign.pid}" not in global_log.read_text()
    finally:
        if app is not None:
            _kill(app)
        _kill(foreign)

    # an agent of this very bundle holds the port: terminated, and the app's own agent serves
    port = free_port()
    (tmp_path / "second").mkdir()
    env = _clean_env(tmp_path / "second", port)
    stale = _spawn([str(ours), "--agent"], env | {"SVC_BROWSER_BRIDGE": "none"}, tmp_path / "s.log")
    app = None
    try:
        assert _wait_health(port)["pid"] == stale.pid
        app = _spawn([str(ours), "--headless"], env, tmp_path / "second" / "app.log")
        assert stale.wait(30) is not None  # terminated by the supervisor
        fresh = _wait_health(port, not_pid=stale.pid)
        assert os.readlink(f"/proc/{fresh['pid']}/exe") == str(ours.resolve())
        log = (tmp_path / "second" / "data" / "Logs" / "global.ndjson").read_text()
        assert f"terminating stale agent pid {stale.pid}" in log
    finally:
        if app is not None:
            _kill(app)
        _kill(stale)
        shutil.rmtree(copy.parent)  # hard links of the unpacked bundle: they would keep its data
