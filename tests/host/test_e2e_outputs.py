"""Captures, the capture stream, screenshots and attached pages end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from .hostproc import HostApp
from .site import Site

pytestmark = pytest.mark.e2e

STREAM_ORDER = [
    "capture.started",
    "capture.browser_requested",
    "capture.page_ready",
    "capture.rendered",
    "capture.writing",
    "capture.traffic",
    "capture.completed",
    "capture.finished",
]


def test_capture_writes_rendered_html(
    host: HostApp, site: Site, session: str, tmp_path: Path
) -> None:
    host.ok("POST", "/v1/navigate", {"url": site.url("/table"), "session_id": session, "wait": 0})
    out = tmp_path / "deep" / "table.html"
    data = host.ok("POST", "/v1/capture", {"session_id": session, "output": str(out), "wait": 0})
    assert data["capture"]["output_path"] == str(out)
    html = out.read_text("utf-8")
    assert data["capture"]["bytesize"] == len(html.encode())
    assert "<caption>Prices</caption>" in html
    assert data["capture"]["target_http_status"] == 200


def test_captures_stream_order_and_target_error(host: HostApp, site: Site, session: str) -> None:
    lines = host.stream(
        "/v1/captures", {"url": site.url("/table"), "session_id": session, "wait": 0}
    )
    assert [x["event"] for x in lines] == STREAM_ORDER
    assert len({x["request_id"] for x in lines}) == 1
    completed = lines[-2]["data"]
    assert Path(completed["output_path"]).is_absolute()
    assert Path(completed["output_path"]).read_text().count("Pear") == 1
    assert lines[-1]["data"]["exit_code"] == 0

    lines = host.stream(
        "/v1/captures", {"url": site.url("/missing"), "session_id": session, "wait": 0}
    )
    events = [x["event"] for x in lines]
    assert events[-2:] == ["capture.completed", "capture.finished"]
    assert lines[-2]["data"]["outcome"] == "target_error"
    assert lines[-2]["data"]["target_http_status"] == 404
    assert lines[-1]["data"]["exit_code"] == 1


def test_captures_with_actions_and_a_new_session(host: HostApp, site: Site) -> None:
    lines = host.stream(
        "/v1/captures",
        {
            "url": site.url("/form"),
            "wait": 0.3,
            "actions": [
                {"action": "type", "selector": "#name", "text": "xy"},
                {"action": "click", "selector": "#go"},
            ],
        },
    )
    assert lines[-1]["data"]["exit_code"] == 0, lines
    completed = lines[-2]["data"]
    assert "name=abxy" in Path(completed["output_path"]).read_text() or "abxy" in str(completed)
    started = lines[0]["data"]
    assert started["session_id"].startswith("Session")
    host.client.delete(f"/v1/sessions/{started['session_id']}")


def test_outputs_without_a_path_go_to_the_temporary_directory(
    host: HostApp, site: Site, session: str
) -> None:
    """Spec 1 §4: without `output` a screenshot goes under the app's temporary screenshots
    directory; captures too. That directory is pruned by age and size (tests/agent/
    test_temporary.py); here, where the real app puts the files."""
    temporary = host.data_dir.resolve() / "Temporary"
    body = {"url": site.url("/table"), "session_id": session, "wait": 0}
    response = host.client.post("/v1/navigate", json=body)
    assert response.status_code == 200, response.text
    capture = Path(response.json()["data"]["capture"]["output_path"])
    assert capture == temporary / "Captures" / f"{response.headers['x-request-id']}.html"
    assert "<caption>Prices</caption>" in capture.read_text("utf-8")
    response = host.client.post("/v1/screenshot", json={"session_id": session, "wait": 0})
    assert response.status_code == 200, response.text
    shot = response.json()["data"]["screenshot"]
    path = Path(shot["output_path"])
    assert path == temporary / "Screenshots" / f"{response.headers['x-request-id']}.png"
    assert path.read_bytes().startswith(b"\x89PNG")
    assert shot["bytesize"] == path.stat().st_size
    assert not (host.data_dir / "Screenshots").exists()
    assert not (host.data_dir / "Captures").exists()


@pytest.mark.parametrize("kind", [("png", b"\x89PNG"), ("jpeg", b"\xff\xd8"), ("webp", b"RIFF")])
def test_screenshot_formats(
    host: HostApp, site: Site, session: str, tmp_path: Path, kind: tuple[str, bytes]
) -> None:
    fmt, magic = kind
    host.ok("POST", "/v1/navigate", {"url": site.url("/table"), "session_id": session, "wait": 0})
    out = tmp_path / f"shot.{fmt}"
    data = host.ok(
        "POST",
        "/v1/screenshot",
        {"session_id": session, "output": str(out), "format": fmt, "quality": 40, "wait": 0},
    )
    assert set(data) == {"page", "screenshot"}  # metadata only: the image stays in the file
    shot = data["screenshot"]
    assert shot["format"] == fmt
    assert shot["mime_type"] == f"image/{fmt}"
    assert (shot["width"], shot["height"]) == (1920, 947)
    body = out.read_bytes()
    assert body.startswith(magic)
    assert shot["bytesize"] == len(body)


def test_full_page_screenshot_and_bound(
    host: HostApp, site: Site, session: str, tmp_path: Path
) -> None:
    host.ok("POST", "/v1/navigate", {"url": site.url("/form"), "session_id": session, "wait": 0})
    out = tmp_path / "full.png"
    data = host.ok(
        "POST",
        "/v1/screenshot",
        {"session_id": session, "output": str(out), "full_page": True, "wait": 0},
    )
    assert data["screenshot"]["height"] > 4000
    assert data["screenshot"]["width"] == 1920
    host.ok("POST", "/v1/navigate", {"url": site.url("/tall"), "session_id": session, "wait": 0})
    too_big = tmp_path / "too-big.png"
    _, error = host.error(
        "POST", "/v1/screenshot", {"session_id": session, "output": str(too_big), "full_page": True}
    )
    assert error["id"] == "OBSERVATION_TOO_LARGE"
    assert not too_big.exists()


def test_full_page_screenshot_renders_the_bottom_of_the_tallest_allowed_page(
    host: HostApp, site: Site, session: str, tmp_path: Path
) -> None:
    """At the 1920 px view width the pixel bound allows 8,333 px of height; one grab renders all of
    it (no blank band, so no tile stitching): the red footer is in the image's last rows."""
    from PyQt6.QtGui import QImage

    host.ok(
        "POST",
        "/v1/navigate",
        {"url": site.url("/footer?h=8000"), "session_id": session, "wait": 0},
    )
    out = tmp_path / "footer.png"
    shot = host.ok(
        "POST",
        "/v1/screenshot",
        {"session_id": session, "output": str(out), "full_page": True, "wait": 0},
    )["screenshot"]
    assert (shot["width"], shot["height"]) == (1920, 8000)
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1920, 8000)

    def rgb(x: int, y: int) -> tuple[int, int, int]:
        c = image.pixelColor(x, y)
        return (c.red(), c.green(), c.blue())

    assert rgb(960, 10) == (0, 204, 0)  # the green top
    assert rgb(960, 7800) == (0, 204, 0)
    for y in (7930, 7960, 7999):  # the red footer (below its text), down to the last row
        for x in (200, 960, 1900):
            assert rgb(x, y) == (255, 0, 0), (x, y, rgb(x, y))


def test_attached_pages(host: HostApp, site: Site, session: str) -> None:
    _, error = host.error("POST", "/v1/pages", {"url": site.url("/form"), "session_id": session})
    assert error["id"] == "PAGE_MISMATCH"  # an existing session is attached as it is
    host.ok("POST", "/v1/navigate", {"url": site.url("/form"), "session_id": session, "wait": 0})
    data = host.ok("POST", "/v1/pages", {"url": site.url("/form"), "session_id": session})
    page_id = data["page"]["id"]
    assert data["page"]["url"] == site.url("/form")
    data = host.ok(
        "POST",
        f"/v1/pages/{page_id}/actions",
        {"action": {"action": "type", "selector": "#name", "text": "Q"}, "wait": 0},
    )
    assert data["page"]["id"] == page_id
    shot = host.ok("POST", f"/v1/pages/{page_id}/screenshot", {"wait": 0})["screenshot"]
    assert Path(shot["output_path"]).is_file()
    fresh = host.ok("POST", "/v1/pages", {"url": site.url("/table")})
    assert fresh["page"]["session_id"] != session
    assert fresh["capture"]["target_http_status"] == 200
    host.client.delete(f"/v1/sessions/{fresh['page']['session_id']}")
