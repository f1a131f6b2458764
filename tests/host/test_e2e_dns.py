"""A proxied session resolves no host names on the machine (issue 14 point 3, "routes that can't
leak"): its requests name their hosts to the proxy (CONNECT, absolute-form), so the machine's DNS
server never learns which sites the session visits. Two witnesses: Chromium's own record of its
resolver (the engine's NetLog, `--log-net-log`), and `strace` on every process of the app (the
engine's, the agent's and the asset fetches' sockets alike) for a socket to port 53. Each is
checked against a direct session first, to show it does see lookups."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from ..httpserver import reply, serving
from ..proxy.servers import UpstreamProxy
from .hostproc import HostApp

pytestmark = pytest.mark.e2e

# every way a page makes the engine contact a host: a preconnect, a prefetch, a stylesheet and a
# script (the shared asset cache fetches those itself), an image, a fetch, a WebSocket and a
# worker's fetch (and a hint, which this engine never resolves)
KINDS = ("prefetch", "css", "script", "img", "fetch", "ws", "worker")
DNS_PORT = re.compile(r"sin6?_port=htons\(53\)")


def page(tag: str) -> bytes:
    if tag == "plain":
        return b"<!doctype html><title>plain</title><p>nothing from elsewhere"

    def host(kind: str) -> str:
        return f"{tag}-{kind}.example"

    return f"""<!doctype html><html><head><meta charset="utf-8"><title>{tag}</title>
<link rel="dns-prefetch" href="//{host("hint")}">
<link rel="preconnect" href="https://{host("preconnect")}">
<link rel="prefetch" href="https://{host("prefetch")}/x.js">
<link rel="stylesheet" href="https://{host("css")}/s.css">
<script src="https://{host("script")}/lib.js"></script>
</head><body><img src="https://{host("img")}/i.png">
<script>
fetch('https://{host("fetch")}/').catch(() => {{}});
try {{ new WebSocket('wss://{host("ws")}/'); }} catch (e) {{}}
new Worker(URL.createObjectURL(new Blob(["fetch('https://{host("worker")}/').catch(() => {{}})"])));
</script></body></html>""".encode()


def names(tag: str) -> set[str]:
    return {f"{tag}-{kind}.example" for kind in KINDS}


def resolved(netlog: Path) -> set[str]:
    """The host names the engine's resolver ran a job for (a lookup on the machine: the system
    resolver or the engine's DNS client). Requests answered from the cache or the hosts file
    only (the network quality estimator's) start no job."""
    raw = netlog.read_text("utf-8").rstrip()
    if not raw.endswith("}"):  # the engine did not get to close it
        raw = raw.rstrip(",") + "]}"
    log = json.loads(raw)
    job = log["constants"]["logEventTypes"]["HOST_RESOLVER_MANAGER_JOB"]
    hosts = set()
    for event in log["events"]:
        params = event.get("params")
        if event["type"] == job and isinstance(params, dict) and "host" in params:
            hosts.add(urlsplit(params["host"]).hostname or params["host"])
    return hosts


def tracer(out: Path) -> list[str]:
    """`strace` over the app and every process it starts, from its start: each `connect`, with
    its time. `--seccomp-bpf` stops a process at `connect` only; attaching to the running app
    instead stopped every system call of every thread, and once in five runs the engine, slowed
    that much, died of its own check (SIGTRAP)."""
    strace = shutil.which("strace")
    assert strace is not None, "strace missing: the Makefile installs it"
    return [strace, "-f", "--seccomp-bpf", "-ttt", "-e", "trace=connect", "-o", str(out)]


def stop_traced(host: HostApp) -> None:
    """Stop the app itself (strace keeps fatal signals off the command it runs) and let strace
    end with it, which writes out the last of its record."""
    assert host.proc is not None
    children = subprocess.run(
        ["pgrep", "-P", str(host.proc.pid)], capture_output=True, text=True, check=True
    ).stdout.split()
    for pid in children:
        os.kill(int(pid), signal.SIGTERM)
    host.proc.wait(timeout=30)


@dataclass
class Window:
    start: float = 0.0
    end: float = 0.0


@contextmanager
def window() -> Iterator[Window]:
    w = Window(time.time())
    try:
        yield w
    finally:
        w.end = time.time()


def dns_sockets(trace: Path, w: Window) -> list[str]:
    """Every `connect` of any process of the app to port 53 while the window was open."""
    found = []
    for line in trace.read_text().splitlines():
        fields = line.split(maxsplit=2)  # pid, time, call
        if len(fields) == 3 and w.start <= float(fields[1]) <= w.end and DNS_PORT.search(line):
            found.append(line)
    return found


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            tag = parse_qs(urlsplit(self.path).query).get("tag", ["plain"])[0]
            reply(self, page(tag), "text/html; charset=utf-8")

        def log_message(self, format: str, *args: object) -> None:
            return

    with serving(Handler) as base:
        yield base


def test_a_proxied_session_resolves_no_names_on_the_machine(
    tmp_path_factory: pytest.TempPathFactory, site: str
) -> None:
    data = tmp_path_factory.mktemp("dns")
    netlog = data / "netlog.json"
    env = {"QTWEBENGINE_CHROMIUM_FLAGS": f"--no-sandbox --disable-gpu --log-net-log={netlog}"}
    trace = data / "connect.strace"
    host = HostApp(data / "app", env=env, wrap=tracer(trace)).start()

    def load(sid: str, tag: str) -> None:
        url = f"{site}/?tag={tag}"
        host.ok("POST", "/v1/navigate", {"url": url, "session_id": sid, "wait": 1})

    try:
        with UpstreamProxy("dnsuser", "dns-secret-pw") as upstream:
            host.new_proxy("exit", upstream)
            proxied = host.new_session(proxy_alias="exit")
            switched = host.new_session()
            load(switched, "plain")  # a page open on the direct route, then the switch
            with window() as proxied_time:
                load(proxied, "proxied")
                host.ok("PATCH", f"/v1/sessions/{switched}", {"proxy_alias": "exit"})
                load(switched, "switched")
            tunnels = {s.target.rpartition(":")[0] for s in upstream.seen if s.method == "CONNECT"}
        direct = host.new_session()
        with window() as direct_time:
            load(direct, "direct")
        stop_traced(host)
    finally:
        host.stop()
    # the proxied pages' every contact went to the upstream, by name
    for tag in ("proxied", "switched"):
        assert names(tag) <= tunnels, (tag, names(tag) - tunnels)
    # the controls: both witnesses see a direct session's lookups
    looked_up = resolved(netlog)
    assert names("direct") - {"direct-css.example", "direct-script.example"} <= looked_up
    assert dns_sockets(trace, direct_time)
    # and nothing of the proxied sessions
    assert not {n for n in looked_up if n.startswith(("proxied-", "switched-"))}
    assert dns_sockets(trace, proxied_time) == []
