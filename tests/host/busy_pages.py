"""A page that never stops fetching (issue 12, the empty capture): four fetch loops, an image
every 20 ms, and an element `#late` added after 300 ms. Served by `Busy` (each fetch and image
answered after a short random delay), for tests/host/test_e2e_first_capture.py and
`make bench BENCH=first_capture`."""

from __future__ import annotations

import contextlib
import random
import time
from http.server import BaseHTTPRequestHandler

ITEMS = "".join(f"<li>item {i} with some text</li>" for i in range(200))
BUSY = (
    "<!doctype html><html lang=en><head><meta charset=utf-8><title>busy</title></head><body>"
    f"<h1>Busy page</h1><ul>{ITEMS}</ul><div id=box></div><script>"
    "let n=0;function tick(){fetch('/tick?'+(n++)).then(r=>r.text())"
    ".then(()=>setTimeout(tick,5),()=>setTimeout(tick,50))}for(let i=0;i<4;i++)tick();"
    "setInterval(()=>{const im=new Image();im.src='/img.png?'+(n++);"
    "document.getElementById('box').appendChild(im);"
    "if(document.images.length>50)document.images[0].remove()},20);"
    "setTimeout(()=>{const d=document.createElement('div');d.id='late';"
    "d.textContent='late';document.body.appendChild(d)},300);"
    "</script></body></html>"
).encode()
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


class Busy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def handle(self) -> None:
        with contextlib.suppress(OSError):  # a page that went on without its answer
            super().handle()

    def log_message(self, *_: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.startswith("/busy"):
            body, kind = BUSY, "text/html"
        else:
            time.sleep(random.random() * 0.03)
            body, kind = (
                (PNG, "image/png") if self.path.startswith("/img") else (b"t", "text/plain")
            )
        try:
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            self.close_connection = True  # the page went on without this answer
