"""A session's shared workers run with its identity (issue 14 point 1; docs/decisions.md
"Identity", "Workers"): the devtools page of the session's root page attaches them as the
engine reports them and holds them at their first statement when it can. What is certain, and
asserted: once attached, the worker answers with the identity; a shared worker that ended and
starts again reads it from its first statement (the engine makes it wait for the attached
debugger); it is never left paused; another session's worker of the same URL stays native.
What is a race, and only recorded: the first statement of a worker's first start.

One in-process engine in a child process, as in test_e2e_identity."""

from __future__ import annotations

import json
import sys
from functools import partial
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import msgspec
import pytest

from tests.httpserver import reply, serving

from .inengine import child_result, configure, load, run_child, scenario_result, start_engine, until
from .test_e2e_identity import SEED_A, SEED_B, german

pytestmark = pytest.mark.e2e

# what the worker read at its first statement, and what it reads when asked
WORKER = """const read = () => [self.navigator.platform, self.navigator.hardwareConcurrency,
  Intl.DateTimeFormat().resolvedOptions().timeZone];
const FIRST = read();
self.onconnect = (e) => {
  const port = e.ports[0];
  port.onmessage = () => port.postMessage({ first: FIRST, now: read() });
};"""
PAGE = """<!doctype html><title>page</title><script>
const worker = new SharedWorker('/shw.js');
worker.port.onmessage = (e) => { document.title = JSON.stringify(e.data); };
worker.port.start();
window.ask = () => { document.title = 'asked'; worker.port.postMessage(1); };
</script>"""


class _Site(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        body, ctype = {
            "/page": (PAGE, "text/html"),
            "/shw.js": (WORKER, "text/javascript"),
            "/blank": ("<!doctype html><title>blank</title>", "text/html"),
        }.get(urlsplit(self.path).path, ("", "text/plain"))
        reply(self, body.encode(), ctype, {"Cache-Control": "no-store"})


@pytest.fixture(scope="module")
def workers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    data_dir = tmp_path_factory.mktemp("shared-worker-identity")
    with serving(_Site) as base:
        proc = run_child(
            "tests.host.test_e2e_shared_worker_identity", str(data_dir), base, timeout=120
        )
        out = child_result(proc)
    assert "error" not in out, out["error"]
    return out


IDENTITY = ["Win32", 12, "Europe/Berlin"]
OTHER = ["MacIntel", 8, "America/New_York"]


def test_an_attached_shared_worker_answers_with_the_identity(workers: dict[str, Any]) -> None:
    first = workers["first_start"]
    assert first["now"] == IDENTITY
    # the first statement of a first start races the attach (recorded, not asserted): the
    # identity, or the engine's own platform and cores (the zone is the renderer's, overridden
    # for the session's pages already)
    native = workers["native"]["first"]
    assert first["first"][:2] in (IDENTITY[:2], native[:2])


def test_a_restarted_shared_worker_reads_the_identity_from_its_first_statement(
    workers: dict[str, Any],
) -> None:
    for got in workers["restarts"]:
        assert got == {"first": IDENTITY, "now": IDENTITY}


def test_each_session_attaches_only_its_own_shared_workers(workers: dict[str, Any]) -> None:
    """Two fingerprinted sessions run a shared worker of the same URL: each worker reads its
    own session's identity (a session's devtools page sees every session's workers reported,
    and attaches those of its own browser context only)."""
    assert workers["other"]["now"] == OTHER
    assert workers["first_start"]["now"] == IDENTITY


def test_another_sessions_shared_worker_of_the_same_url_stays_native(
    workers: dict[str, Any],
) -> None:
    native = workers["native"]
    assert native["first"] == native["now"]
    assert native["now"][0] == "Linux x86_64"
    assert native["now"][2] == "UTC"


# --- the child process ----------------------------------------------------------------------


def run(data_dir: Path, base: str) -> dict[str, Any]:
    app, engine = start_engine(data_dir, "svc-shared-worker-identity-test", schemes=True)
    out: dict[str, Any] = {}

    async def ask(sid: str) -> Any:
        b = engine.browser(sid)
        page = b.page
        assert page is not None
        page.runJavaScript("window.ask()")
        assert await until(engine, lambda: page.title().startswith("{"), 10), page.title()
        return json.loads(page.title())

    def channel(sid: str) -> Any:
        b = engine.browser(sid)
        assert b.workers is not None
        assert b.page is not None
        workers = b.workers.channel(b.page)
        assert workers is not None
        return workers.channel

    def shared_sessions(sid: str) -> list[str]:
        ch = channel(sid)
        return [s for s, info in ch.sessions.items() if info.type == "shared_worker"]

    def preluded(sid: str) -> bool:
        return any(s in channel(sid).preluded for s in shared_sessions(sid))

    def ended(sid: str, session: str) -> bool:
        return session in channel(sid).ended

    async def scenario() -> None:
        native = configure(engine, 1)
        fp = configure(engine, 2, identity=german(SEED_A))
        other_fp = msgspec.structs.replace(
            german(SEED_B), platform="MacIntel", hardware_concurrency=8, timezone=OTHER[2]
        )
        other = configure(engine, 3, identity=other_fp)
        for sid in (native, fp, other):
            assert await load(engine, engine.browser(sid), f"{base}/page")
        # attached and given the prelude (the answer to its evaluation came back)
        for sid in (fp, other):
            assert await until(engine, partial(preluded, sid), 10), channel(sid).sessions
        out["first_start"] = await ask(fp)
        out["other"] = await ask(other)
        out["native"] = await ask(native)
        out["restarts"] = []
        for _ in range(2):
            (session,) = shared_sessions(fp)
            # the worker ends with its last page; it starts again on the next load
            assert await load(engine, engine.browser(fp), f"{base}/blank")
            assert await until(engine, partial(ended, fp, session), 15), "never ended"
            assert await load(engine, engine.browser(fp), f"{base}/page")
            out["restarts"].append(await ask(fp))

    return scenario_result(app, engine, scenario(), out)


if __name__ == "__main__":
    print(json.dumps(run(Path(sys.argv[1]), sys.argv[2])))
