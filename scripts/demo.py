"""`make demo`: start `svc-app --headless` on a temporary data folder, serve the bundled demo site
on loopback, capture a page, run an action batch, take a screenshot, print where the files are,
stop the app. Everything goes through the HTTP API (httpx), as any client would."""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

SITE = Path(__file__).resolve().parents[1] / "packaging" / "demo-site"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def _serve_site() -> ThreadingHTTPServer:
    handler = functools.partial(_Quiet, directory=str(SITE))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _call(client: httpx.Client, method: str, path: str, body: Any = None) -> dict[str, Any]:
    r = client.request(method, path, json=body)
    envelope = r.json()
    if envelope.get("status") != "ok":
        raise RuntimeError(f"{method} {path} failed: {envelope.get('error')}")
    return dict(envelope["data"])


def main() -> int:
    data_dir = Path(tempfile.mkdtemp(prefix="svc-demo-"))
    port = _free_port()
    server = _serve_site()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SVC_")}
    env.update(
        SVC_DATA_DIR=str(data_dir),
        SVC_AGENT_PORT=str(port),
        SVC_BROWSER_PROXY_PORT=str(_free_port()),
        QT_QPA_PLATFORM="offscreen",
        QTWEBENGINE_CHROMIUM_FLAGS=env.get("QTWEBENGINE_CHROMIUM_FLAGS")
        or "--no-sandbox --disable-gpu",
    )
    svc_app = str(Path(sys.executable).parent / "svc-app")
    print(f"svc demo: data folder {data_dir}")
    print(f"svc demo: demo site on {base}/ (from {SITE})")
    app_log = (data_dir / "svc-app.log").open("ab")
    proc = subprocess.Popen(
        [svc_app, "--headless"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=app_log,
        stderr=app_log,
        start_new_session=True,
    )
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120, trust_env=False)
    try:
        t0 = time.monotonic()
        _wait_healthy(client, proc, data_dir)
        print(
            f"svc demo: svc-app --headless (pid {proc.pid}) is up on 127.0.0.1:{port} "
            f"after {time.monotonic() - t0:.1f} s"
        )

        _run_job(client, base)
        print(f"svc demo: logs in {data_dir / 'Logs'}; browser data in {data_dir / 'Browser'}")
    except Exception as exc:
        print(f"svc demo failed: {exc}", file=sys.stderr)
        return 1
    else:
        return 0
    finally:
        client.close()
        _stop(proc)
        app_log.close()
        server.shutdown()
        server.server_close()
        print(f"svc demo: stopped svc-app (exit {proc.returncode})")


def _wait_healthy(client: httpx.Client, proc: subprocess.Popen[bytes], data_dir: Path) -> None:
    t0 = time.monotonic()
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"svc-app exited with {proc.returncode}; see {data_dir}")
        with contextlib.suppress(httpx.TransportError):
            if client.get("/v1/health").status_code == 200:
                return
        if time.monotonic() - t0 > 90:
            raise RuntimeError("the agent did not become healthy within 90 s")
        time.sleep(0.1)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(15)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(5)


def _run_job(client: httpx.Client, base: str) -> None:
    nav = _call(client, "POST", "/v1/navigate", {"url": f"{base}/index.html", "wait": 0.2})
    session = nav["page"]["session_id"]
    status = nav["capture"]["target_http_status"]
    print(f"1. navigated {session} to {nav['page']['url']} (HTTP {status})")
    print(
        f"   captured the rendered HTML: {nav['capture']['output_path']} "
        f"({nav['capture']['bytesize']} bytes)"
    )

    batch = [
        {"action": "click", "selector": "#order-link"},
        {"action": "wait-for", "selector": "form#order input[name=name]", "timeout": 10},
        {"action": "type", "selector": "#name", "text": "Ada"},
        {"action": "select", "selector": "#product", "value": "cocoa"},
        {"action": "type", "selector": "#notes", "text": "no sugar"},
        {"action": "click", "selector": "#order button[type=submit]"},
    ]
    done = _call(
        client, "POST", "/v1/perform", {"session_id": session, "actions": batch, "wait": 0.5}
    )
    print(
        f"2. ran an action batch of {len(batch)} actions (click, wait-for, type, select, "
        f"type, click): the page is now {done['page']['url']}"
    )
    print(f"   captured: {done['capture']['output_path']}")

    shot = _call(client, "POST", "/v1/screenshot", {"session_id": session, "wait": 0.2})
    s = shot["screenshot"]
    print(
        f"3. took a screenshot: {s['output_path']} ({s['width']}x{s['height']} "
        f"{s['format']}, {s['bytesize']} bytes)"
    )


if __name__ == "__main__":
    sys.exit(main())
