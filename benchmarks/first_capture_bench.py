"""First captures among busy sessions (issue 12, the empty capture).
`make bench BENCH=first_capture`.

Four sessions keep pages open that fetch without pause (two of them proxied, their exit
looked up through a local upstream and a local geolocation service); then FIRST_CAPTURES new
sessions (direct, proxied, or with adblock and over_limit images) each make their first
capture of such a page with a wait-for action, and are deleted. Printed: how many captures
wrote a file, how many files are shorter than the page (must be 0), how often the engine's
serialization answered the empty skeleton and was read again (the session logs'
`capture.unread_serialization` records), and the failures by error id.

No peer tool runs here: the figure to watch is "short files", which must stay 0.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

from benchmarks.local import serving
from tests.host.busy_pages import BUSY, Busy
from tests.host.hostproc import HostApp
from tests.proxy.geoservice import GeoService
from tests.proxy.servers import UpstreamProxy

FIRST_CAPTURES = int(os.environ.get("FIRST_CAPTURES", "120"))
# FIRST_CAPTURE_NATIVE=1: the new sessions keep the engine's own identity (no fingerprint)
NATIVE = os.environ.get("FIRST_CAPTURE_NATIVE") == "1"
BUSY_SESSIONS = 4


def _unread_records(data_dir: Path) -> int:
    count = 0
    for log in (data_dir / "Logs" / "sessions").glob("*.ndjson"):
        for line in log.read_text("utf-8").splitlines():
            if '"capture.unread_serialization"' in line:
                count += 1
    return count


def main() -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="svc-first-capture-"))
    with (
        serving(Busy) as base,
        GeoService() as geo,
        UpstreamProxy("bench", "bench-pw") as upstream,
    ):
        host = HostApp(data_dir, env={"SVC_GEOLOCATION_URL": geo.url("/json")}).start()
        try:
            host.ok(
                "POST",
                "/v1/proxies",
                {
                    "alias": "busy-exit",
                    "upstream_host": "127.0.0.1",
                    "upstream_port": upstream.port,
                    "username": "bench",
                    "password": "bench-pw",
                    "detect_exit_locale": True,
                },
            )
            if NATIVE:
                host.ok("POST", "/v1/profiles", {"name": "Native", "fingerprint_profile": None})
            for i in range(BUSY_SESSIONS):
                route = {"proxy_alias": "busy-exit"} if i % 2 else {}
                sid = host.new_session(lifetime={"type": "indefinite"}, **route)
                host.ok("POST", "/v1/navigate", {"url": f"{base}/busy", "session_id": sid})
            kinds: list[dict[str, object]] = [
                {},
                {"proxy_alias": "busy-exit"},
                {"adblock_enabled": True, "image_blocking_mode": "over_limit"},
            ]
            written = short = 0
            failures: Counter[str] = Counter()
            seconds: list[float] = []
            for n in range(FIRST_CAPTURES):
                profile = {"profile": "Native"} if NATIVE else {}
                sid = host.new_session(**profile, **kinds[n % len(kinds)])
                body = {
                    "session_id": sid,
                    "url": f"{base}/busy?{n}",
                    "actions": [{"action": "wait-for", "selector": "#late", "timeout": 10}],
                    "wait": 0.2,
                    "timeout": 30,
                }
                started = time.monotonic()
                lines = host.stream("/v1/captures", body)
                seconds.append(time.monotonic() - started)
                if seconds[-1] > 10:
                    print(f"slow capture of {sid}: {seconds[-1]:.1f} s", json.dumps(lines)[:2000])
                events = {str(line["event"]): line for line in lines}
                done = events.get("capture.completed")
                if done is None:
                    failed = events.get("capture.failed", {"data": {"id": "no answer"}})
                    failures[str(failed["data"]["id"])] += 1
                else:
                    written += 1
                    size = Path(done["data"]["output_path"]).stat().st_size
                    short += size < len(BUSY) // 2
                host.ok("DELETE", f"/v1/sessions/{sid}")
            unread = _unread_records(data_dir)
        finally:
            host.stop()
    identity = "native identity" if NATIVE else "fingerprinted"
    print(f"first captures              {FIRST_CAPTURES} {identity} ({BUSY_SESSIONS} busy open)")
    print(f"files written               {written}")
    print(f"short files (must be 0)     {short}")
    print(f"skeleton read again         {unread}")
    print(f"failures                    {json.dumps(dict(failures)) if failures else 0}")
    print(f"capture time median / max  {statistics.median(seconds):.2f} / {max(seconds):.2f} s")
