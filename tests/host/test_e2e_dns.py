"""A proxied session resolves no host names on the machine (issue 14 point 3, "routes that can't
leak"): its requests name their hosts to the proxy (CONNECT, absolute-form), so the machine's DNS
server never learns which sites the session visits. Chromium's own record of its resolver (the
engine's NetLog, `--log-net-log`) is the witness: a direct session's names show as resolver jobs
(the control: the NetLog does see lookups), a proxied session's never do, nor do those of a
session switched from direct to proxied, while the upstream proxy sees every one of them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from ..httpserver import reply, serving
from ..proxy.servers import UpstreamProxy
from .hostproc import HostApp

pytestmark = pytest.mark.e2e

# every way a page makes the engine contact a host: a hint, a preconnect, a prefetch, an image,
# a fetch, a WebSocket and a worker's fetch
KINDS = ("preconnect", "prefetch", "img", "fetch", "ws", "worker")


def page(tag: str) -> bytes:
    def host(kind: str) -> str:
        return f"{tag}-{kind}.example"

    return f"""<!doctype html><html><head><meta charset="utf-8"><title>{tag}</title>
<link rel="dns-prefetch" href="//{tag}-hint.example">
<link rel="preconnect" href="https://{host("preconnect")}">
<link rel="prefetch" href="https://{host("prefetch")}/x.js">
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


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            tag = parse_qs(urlsplit(self.path).query).get("tag", ["none"])[0]
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
    host = HostApp(data / "app", env=env).start()
    try:
        with UpstreamProxy("dnsuser", "dns-secret-pw") as upstream:
            host.new_proxy("exit", upstream)
            direct = host.new_session()
            proxied = host.new_session(proxy_alias="exit")
            switched = host.new_session()
            for sid, tag in ((direct, "direct"), (proxied, "proxied"), (switched, "before")):
                url = f"{site}/?tag={tag}"
                host.ok("POST", "/v1/navigate", {"url": url, "session_id": sid, "wait": 1})
            host.ok("PATCH", f"/v1/sessions/{switched}", {"proxy_alias": "exit"})
            url = f"{site}/?tag=switched"
            host.ok("POST", "/v1/navigate", {"url": url, "session_id": switched, "wait": 1})
            tunnels = {s.target.rpartition(":")[0] for s in upstream.seen if s.method == "CONNECT"}
    finally:
        host.stop()
    # every contact of the proxied pages went to the upstream, by name
    for tag in ("proxied", "switched"):
        assert names(tag) - {f"{tag}-preconnect.example"} <= tunnels, (tag, tunnels)
    looked_up = resolved(netlog)
    # the control: the NetLog records a direct session's lookups
    assert names("direct") - {"direct-preconnect.example"} <= looked_up, looked_up
    leaked = {n for n in looked_up if n.startswith(("proxied-", "switched-"))}
    assert not leaked
