"""Frames end to end (issue 11 point 5, docs/observations.md "Frames"): a page on one local origin
embeds a frame of a second origin, which embeds a frame of a third; the real app observes and acts
inside them with real input.

Origins: the top page is http://127.0.0.1:A, its frames http://localhost:A (same server, another
origin), the nested frame http://127.0.0.1:B (a second server)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.host.obs_pages import observation_of

from .hostproc import HostApp
from .site import Site
from .test_e2e_observations import act

pytestmark = pytest.mark.e2e


def _page(title: str, body: str) -> str:
    return (
        f"<!doctype html><html><head><meta charset=utf-8><title>{title}</title></head>"
        f"<body>{body}</body></html>"
    )


PAGES: dict[str, str] = {
    "/shop": _page(
        "Shop",
        """<h1>Shop</h1><p>Top text</p>
<button onclick="document.title='top clicked'">Top button</button>
<button onclick="document.getElementById('pay').src='{B}/other'">Swap frame</button>
<button onclick="document.getElementById('pay').remove()">Drop frame</button>
<button onclick="document.getElementById('pay').style.visibility='hidden'">Hide frame</button>
<iframe id=pay title="Payment" name=payment src="{F}/pay"
 style="display:block;width:640px;height:380px;border:4px solid #333;padding:6px"></iframe>""",
    ),
    "/pay": _page(
        "Pay",
        """<form action="/paid" method=get aria-label="Card">
<label>Card number <input name=card></label>
<label>Expiry <select name=exp><option value="">Month</option><option value="01">01</option>
<option value="02">02</option></select></label>
<label>Holder <input name=holder></label>
<button type=submit>Pay</button></form>
<button type=button onmouseover="document.getElementById('tip').hidden=false">What is CVC?</button>
<div id=tip role=tooltip hidden>Three digits on the back</div>
<button type=button onclick="document.open();document.write('<p>rewritten</p>');document.close()">Rewrite</button>
<iframe title="Verify" src="{N}/verify" style="width:320px;height:120px"></iframe>""",
    ),
    "/verify": _page(
        "Verify",
        """<p id=v>waiting</p>
<button onclick="document.getElementById('v').textContent='verified by bank'">Verify</button>""",
    ),
    "/other": _page("Other", "<p>Another document</p><button>Other button</button>"),
    "/scrolling": _page(
        "Scrolling",
        """<p>Top of the page</p>
<iframe title="Terms" src="{F}/long" style="width:500px;height:160px"></iframe>
<div style="height:3000px">spacer</div>
<iframe title="Footer frame" src="{F}/short"
 style="position:absolute;top:calc(100vh - 40px);left:20px;width:400px;height:300px"></iframe>""",
    ),
    "/long": _page(
        "Long",
        """<p id=out>nothing yet</p>
<button onclick="document.getElementById('out').textContent='top clicked'">Top of terms</button><div style="height:1500px">terms</div>
<button onclick="document.getElementById('out').textContent='accepted deep'">Accept</button>
<script>onscroll=function(){document.getElementById('out').textContent='scrolled '+scrollY;};</script>""",
    ),
    "/short": _page(
        "Short",
        """<p id=out>footer idle</p><div style="height:200px">filler</div>
<button onclick="document.getElementById('out').textContent='footer clicked'">Low button</button>""",
    ),
    "/many": _page(
        "Many",
        "".join(f"<button>top {i}</button>" for i in range(3000))
        + '<iframe title="Grid" src="{F}/many-inner" style="width:300px;height:100px"></iframe>',
    ),
    "/many-inner": _page("Inner", "".join(f"<button>inner {i}</button>" for i in range(3000))),
    "/deep": _page(
        "Deep",
        """<main><section aria-label="Checkout"><form aria-label="Order">
<iframe title="Card" src="{F}/deep-inner" style="width:400px;height:200px"></iframe></form></section></main>""",
    ),
    "/deep-inner": _page(
        "Deep inner",
        """<main><form aria-label="Inner"><table><tr><td><button>Cell button</button></td></tr></table>
</form></main>""",
    ),
    "/written": _page(
        "Written",
        """<iframe id=w title="Editor" style="width:400px;height:120px"></iframe>
<iframe title="Note" srcdoc="<p>Srcdoc text</p><button>Srcdoc button</button>"
 style="width:300px;height:80px"></iframe>
<iframe title="Sandboxed" sandbox src="{F}/verify" style="width:300px;height:80px"></iframe>
<script>var d=document.getElementById('w').contentDocument;d.open();
d.write('<!doctype html><body contenteditable=true aria-label=Message><p>Written text</p></body>');
d.close();</script>""",
    ),
    "/nested-scroll": _page(
        "Nested scroll",
        """<iframe title="Outer" src="{F}/outer-long" style="width:500px;height:300px"></iframe>""",
    ),
    "/outer-long": _page(
        "Outer long",
        """<div style="height:1200px">outer filler</div>
<iframe title="Inner" src="{N}/inner-long" style="width:400px;height:120px"></iframe>
<div style="height:1200px">outer tail</div>""",
    ),
    "/inner-long": _page(
        "Inner long",
        """<p id=out>inner idle</p><div style="height:800px">inner filler</div>
<button onclick="document.getElementById('out').textContent='inner deep clicked'">Deep inner</button>
<div style="height:400px"></div>""",
    ),
    "/stuck": _page(
        "Stuck",
        """<iframe title="Fixed" src="{F}/no-scroll" style="width:300px;height:100px"></iframe>""",
    ),
    "/no-scroll": _page(
        "No scroll",
        """<style>html,body{overflow:hidden}</style><div style="height:800px">fixed filler</div>
<button>Unreachable</button>""",
    ),
    "/linked": _page(
        "Linked",
        """<h1>Linked</h1><iframe title="Help" src="{F}/help" style="width:400px;height:120px"></iframe>""",
    ),
    "/help": _page("Help", """<p>Help index</p><a href="/other">Other page</a>"""),
    "/covered": _page(
        "Covered",
        """<iframe title="Payment" src="{F}/verify" style="width:400px;height:200px"></iframe>
<div style="position:fixed;left:0;top:0;width:100%;height:100%;background:rgba(0,0,0,.3)">
Cookie overlay</div>""",
    ),
}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        if url.path == "/paid":
            q = parse_qs(url.query)
            body = _page(
                "Paid", f"<p>Paid card {q.get('card', [''])[0]} exp {q.get('exp', [''])[0]}</p>"
            )
        else:
            body = PAGES.get(url.path, _page("Missing", "missing"))
        a, b = self.server.ports  # type: ignore[attr-defined]
        body = (
            body.replace("{F}", f"http://localhost:{a}")
            .replace("{N}", f"http://127.0.0.1:{b}")
            .replace("{B}", f"http://localhost:{a}")
        )
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)


class Origins:
    """Two local servers serving the same pages: three origins with 127.0.0.1 and localhost."""

    def __init__(self) -> None:
        self.servers = [ThreadingHTTPServer(("127.0.0.1", 0), _Handler) for _ in range(2)]
        ports = tuple(s.server_address[1] for s in self.servers)
        self.threads = []
        for s in self.servers:
            s.daemon_threads = True
            s.ports = ports  # type: ignore[attr-defined]
            self.threads.append(threading.Thread(target=s.serve_forever, daemon=True))

    def top(self, path: str) -> str:
        return f"http://127.0.0.1:{self.servers[0].server_address[1]}{path}"

    def __enter__(self) -> Origins:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        for s in self.servers:
            s.shutdown()
            s.server_close()
        for t in self.threads:
            t.join(5)


@pytest.fixture(scope="module")
def origins() -> Iterator[Origins]:
    with Origins() as o:
        yield o


def observe(host: HostApp, sid: str, url: str) -> dict[str, Any]:
    data = host.ok("POST", "/v1/navigate/observe", {"url": url, "session_id": sid, "wait": 0.5})
    return observation_of(data)


def element(obs: dict[str, Any], name: str) -> dict[str, Any]:
    for e in obs.get("elements", []):
        if e.get("name") == name:
            return dict(e)
    raise AssertionError(f"no element named {name!r} in {obs.get('elements')}")


def ctx(obs: dict[str, Any], entry: dict[str, Any]) -> str:
    return str(obs["contexts"][entry["c"]]) if "c" in entry else ""


def text_ctx(obs: dict[str, Any], text: str) -> str:
    for c in obs.get("content", []):
        if text in c.get("t", ""):
            return ctx(obs, c)
    raise AssertionError(f"no content {text!r} in {obs.get('content')}")


def ok(answer: dict[str, Any]) -> dict[str, Any]:
    assert answer["status"] == "ok", answer
    return dict(answer["data"]["observation"])


def test_cross_origin_and_nested_frames_are_read_with_a_frame_context(
    host: HostApp, origins: Origins, session: str
) -> None:
    obs = observe(host, session, origins.top("/shop"))
    card = element(obs, "Card number")
    assert ctx(obs, card) == 'frame "Payment" > form "Card"'
    assert element(obs, "Expiry")["role"] == "combobox"
    verify = element(obs, "Verify")
    assert ctx(obs, verify) == 'frame "Payment" > frame "Verify"'
    assert text_ctx(obs, "waiting") == 'frame "Payment" > frame "Verify"'
    assert ctx(obs, element(obs, "Top button")) == ""
    refs = [e["ref"] for e in obs["elements"]]
    assert len(refs) == len(set(refs))
    # document order: the frame's elements sit where the iframe is, after the top buttons
    names = [e.get("name") for e in obs["elements"]]
    assert names.index("Drop frame") < names.index("Card number") < names.index("Verify")
    assert not any("not read" in c.get("t", "") for c in obs.get("content", []))
    # a second observation of the same documents keeps the refs
    again = observe_now(host, session)
    assert element(again, "Card number")["ref"] == card["ref"]
    assert element(again, "Verify")["ref"] == verify["ref"]


def observe_now(host: HostApp, sid: str) -> dict[str, Any]:
    data = host.ok("POST", "/v1/observe", {"session_id": sid, "wait": 0})
    return observation_of(data)


def test_payment_form_in_a_cross_origin_frame(
    host: HostApp, origins: Origins, session: str
) -> None:
    obs = observe(host, session, origins.top("/shop"))
    after = ok(
        act(
            host,
            obs["id"],
            {"action": "type", "ref": element(obs, "Card number")["ref"], "text": "4242"},
            {"action": "select", "ref": element(obs, "Expiry")["ref"], "value": "02"},
            {"action": "type", "ref": element(obs, "Holder")["ref"], "text": "Ada"},
        )
    )
    assert element(after, "Card number")["value"] == "4242"
    assert element(after, "Expiry")["value"] == "02"
    assert element(after, "Holder")["value"] == "Ada"
    done = ok(
        act(
            host,
            after["id"],
            {"action": "press", "ref": element(after, "Holder")["ref"], "key": "Enter"},
        )
    )
    assert text_ctx(done, "Paid card 4242 exp 02") == 'frame "Payment"'
    # the frame navigated: its refs are stale, the top page's still work
    _, err = host.error(
        "POST",
        f"/v1/observations/{after['id']}/actions",
        {"actions": [{"action": "click", "ref": element(after, "Pay")["ref"]}]},
    )
    assert err["id"] == "OBSERVATION_STALE"
    assert err["details"]["cause"] == "navigated"
    assert err["details"]["ref"] == element(after, "Pay")["ref"]
    assert "Payment" in err["message"]
    top = ok(
        act(host, after["id"], {"action": "click", "ref": element(after, "Top button")["ref"]})
    )
    assert top["title"] == "top clicked"


def test_click_submit_and_nested_frame_click(host: HostApp, origins: Origins, session: str) -> None:
    obs = observe(host, session, origins.top("/shop"))
    after = ok(act(host, obs["id"], {"action": "click", "ref": element(obs, "Verify")["ref"]}))
    assert text_ctx(after, "verified by bank") == 'frame "Payment" > frame "Verify"'
    done = ok(
        act(
            host,
            after["id"],
            {"action": "type", "ref": element(after, "Card number")["ref"], "text": "5555"},
            {"action": "clear", "ref": element(after, "Card number")["ref"]},
            {"action": "type", "ref": element(after, "Card number")["ref"], "text": "6666"},
            {"action": "click", "ref": element(after, "Pay")["ref"]},
        )
    )
    assert text_ctx(done, "Paid card 6666 exp") == 'frame "Payment"'


def test_hover_shows_a_tooltip_inside_the_frame(
    host: HostApp, origins: Origins, session: str
) -> None:
    obs = observe(host, session, origins.top("/shop"))
    assert not any("Three digits" in c.get("t", "") for c in obs.get("content", []))
    after = ok(
        act(host, obs["id"], {"action": "hover", "ref": element(obs, "What is CVC?")["ref"]})
    )
    # the tooltip is a context part of its own (docs/observations.md "Context paths")
    assert text_ctx(after, "Three digits on the back") == 'frame "Payment" > tooltip'


def test_frame_swapped_or_removed_after_observe(
    host: HostApp, origins: Origins, session: str
) -> None:
    obs = observe(host, session, origins.top("/shop"))
    card = element(obs, "Card number")["ref"]
    ok(act(host, obs["id"], {"action": "click", "ref": element(obs, "Swap frame")["ref"]}))
    _, err = host.error(
        "POST",
        f"/v1/observations/{obs['id']}/actions",
        {"actions": [{"action": "clear", "ref": card}]},
    )
    assert (err["id"], err["details"]["cause"], err["details"]["ref"]) == (
        "OBSERVATION_STALE",
        "navigated",
        card,
    )
    obs = observe(host, session, origins.top("/shop"))
    card = element(obs, "Card number")["ref"]
    ok(act(host, obs["id"], {"action": "click", "ref": element(obs, "Drop frame")["ref"]}))
    _, err = host.error(
        "POST",
        f"/v1/observations/{obs['id']}/actions",
        {"actions": [{"action": "clear", "ref": card}]},
    )
    assert (err["id"], err["details"]["cause"]) == ("OBSERVATION_STALE", "element_removed")
    assert (
        ok(act(host, obs["id"], {"action": "click", "ref": element(obs, "Top button")["ref"]}))[
            "title"
        ]
        == "top clicked"
    )


def test_scroll_inside_a_scrollable_frame(host: HostApp, origins: Origins, session: str) -> None:
    obs = observe(host, session, origins.top("/scrolling"))
    accept = element(obs, "Accept")
    assert ctx(obs, accept) == 'frame "Terms"'
    _, err = host.error(
        "POST",
        f"/v1/observations/{obs['id']}/actions",
        {"actions": [{"action": "click", "ref": accept["ref"], "scroll": False}]},
    )
    assert err["id"] == "ACTION_TARGET_NOT_FOUND"
    after = ok(act(host, obs["id"], {"action": "click", "ref": accept["ref"]}))
    assert text_ctx(after, "accepted deep") == 'frame "Terms"'
    assert after["vp"][1] == 0  # the frame scrolled, not the page


def test_frame_partly_out_of_view_is_scrolled_into_view(
    host: HostApp, origins: Origins, session: str
) -> None:
    obs = observe(host, session, origins.top("/scrolling"))
    assert obs["vp"][1] == 0
    after = ok(act(host, obs["id"], {"action": "click", "ref": element(obs, "Low button")["ref"]}))
    assert text_ctx(after, "footer clicked") == 'frame "Footer frame"'
    assert after["vp"][1] > 0
    # the Terms frame is now above the viewport: the page scrolls back up to it
    back = ok(
        act(host, after["id"], {"action": "click", "ref": element(after, "Top of terms")["ref"]})
    )
    assert text_ctx(back, "top clicked") == 'frame "Terms"'
    assert back["vp"][1] < after["vp"][1]


def test_covered_frame_is_not_clicked(host: HostApp, origins: Origins, session: str) -> None:
    obs = observe(host, session, origins.top("/covered"))
    verify = element(obs, "Verify")
    _, err = host.error(
        "POST",
        f"/v1/observations/{obs['id']}/actions",
        {"actions": [{"action": "click", "ref": verify["ref"]}]},
    )
    # a frame covered by an overlay: waited for, then named (docs/decisions.md, point 7)
    assert err["id"] == "ACTION_TIMEOUT"
    assert err["details"]["reason"] == "covered"
    # named by what covers the frame in the page that holds it
    assert err["details"]["covered_by"] == {"role": "generic", "name": "Cookie overlay"}, err
    again = observe_now(host, session)
    assert "verified by bank" not in str(again.get("content"))


def test_back_and_forward_move_a_frame_the_agent_navigated(
    host: HostApp, origins: Origins, session: str
) -> None:
    """A link in a cross-origin frame adds a history entry of that frame only: back and forward
    move the frame and the page keeps its document (both waited for a main-frame document until
    their deadline; found by a soak)."""
    obs = observe(host, session, origins.top("/linked"))
    moved = act(host, obs["id"], {"action": "click", "ref": element(obs, "Other page")["ref"]})
    assert "Another document" in str(ok(moved).get("content"))
    for how, shown in (("back", "Help index"), ("forward", "Another document")):
        data = host.ok(
            "POST",
            "/v1/navigate/observe",
            {"session_id": session, "navigation": how, "timeout": 20, "wait": 0.5},
        )
        assert data["page"]["url"] == origins.top("/linked"), how
        assert shown in str(observation_of(data).get("content")), how


def test_visual_mode_keeps_frame_elements_that_show(
    host: HostApp, origins: Origins, session: str
) -> None:
    body = {"url": origins.top("/shop"), "session_id": session, "wait": 0.5, "mode": "visual"}
    obs = observation_of(host.ok("POST", "/v1/navigate/observe", body))
    assert "content" not in obs
    assert ctx(obs, element(obs, "Verify")) == 'frame "Payment" > frame "Verify"'
    # the Accept button is 1,500 px down a 160 px frame: not in view, so not in a visual one
    body["url"] = origins.top("/scrolling")
    obs = observation_of(host.ok("POST", "/v1/navigate/observe", body))
    assert [e["name"] for e in obs["elements"]] == ["Top of terms"]


def test_bounds_hold_across_frames(host: HostApp, origins: Origins, session: str) -> None:
    obs = observe(host, session, origins.top("/many"))
    names = [e.get("name", "") for e in obs["elements"]]
    assert len(names) == 5000
    assert names[:2] == ["top 0", "top 1"]
    assert names[3000:3002] == ["inner 0", "inner 1"]
    assert obs["truncated"] is True
    assert obs["omitted_node_count"] >= 1000


def test_a_frame_that_never_loads_does_not_hold_the_observation(
    host: HostApp, site: Site, session: str
) -> None:
    # /iframes: a frame whose document never arrives, and a same-origin frame with a table
    data = host.ok(
        "POST", "/v1/navigate/observe", {"url": site.url("/iframes"), "session_id": session}
    )
    obs = observation_of(data)
    assert text_ctx(obs, "Apple").startswith(f'frame "{site.base}" > table')


def test_long_context_paths_keep_the_frame_part(
    host: HostApp, origins: Origins, session: str
) -> None:
    obs = observe(host, session, origins.top("/deep"))
    # main > region > form > frame > main > form > table > row 1: at most 4 parts, the frame's kept
    assert ctx(obs, element(obs, "Cell button")) == 'frame "Card" > form "Inner" > table > row 1'


def test_scroll_action_scrolls_the_frame_under_the_pointer(
    host: HostApp, origins: Origins, session: str
) -> None:
    obs = observe(host, session, origins.top("/scrolling"))
    top, accept = element(obs, "Top of terms")["ref"], element(obs, "Accept")["ref"]
    # scroll false: only a wheel over the frame can have brought Accept into the frame's view
    after = ok(
        act(
            host,
            obs["id"],
            {"action": "hover", "ref": top},
            {"action": "scroll", "delta_y": -6000},
            {"action": "wait", "seconds": 0.5},
            {"action": "click", "ref": accept, "scroll": False},
        )
    )
    assert text_ctx(after, "accepted deep") == 'frame "Terms"'
    assert after["vp"][1] == 0


def test_frame_document_replaced_after_observe(
    host: HostApp, origins: Origins, session: str
) -> None:
    obs = observe(host, session, origins.top("/shop"))
    card = element(obs, "Card number")["ref"]
    after = ok(act(host, obs["id"], {"action": "click", "ref": element(obs, "Rewrite")["ref"]}))
    assert text_ctx(after, "rewritten") == 'frame "Payment"'
    _, err = host.error(
        "POST",
        f"/v1/observations/{obs['id']}/actions",
        {"actions": [{"action": "clear", "ref": card}]},
    )
    assert (err["id"], err["details"]["cause"]) == ("OBSERVATION_STALE", "document_replaced")
    top = element(obs, "Top button")["ref"]
    assert ok(act(host, obs["id"], {"action": "click", "ref": top}))["title"] == "top clicked"


def test_frames_written_by_their_parent_and_srcdoc_frames(
    host: HostApp, origins: Origins, session: str
) -> None:
    # an about:blank frame the page wrote (how rich-text editors are made), a srcdoc frame and a
    # sandboxed one
    obs = observe(host, session, origins.top("/written"))
    editor = element(obs, "Message")
    assert (editor["role"], ctx(obs, editor)) == ("textbox", 'frame "Editor"')
    assert ctx(obs, element(obs, "Srcdoc button")) == 'frame "Note"'
    # a sandboxed frame (no allow-scripts, opaque origin) is read too: the isolated world runs
    assert text_ctx(obs, "waiting") == 'frame "Sandboxed"'
    after = ok(act(host, obs["id"], {"action": "type", "ref": editor["ref"], "text": " and more"}))
    assert element(after, "Message")["value"] == "Written text and more"


def test_a_hidden_frame_is_not_acted_in(host: HostApp, origins: Origins, session: str) -> None:
    obs = observe(host, session, origins.top("/shop"))
    after = ok(act(host, obs["id"], {"action": "click", "ref": element(obs, "Hide frame")["ref"]}))
    assert "Card number" not in str(after.get("elements"))
    _, err = host.error(
        "POST",
        f"/v1/observations/{obs['id']}/actions",
        {"actions": [{"action": "click", "ref": element(obs, "Pay")["ref"]}]},
    )
    assert err["id"] == "ACTION_TIMEOUT"
    assert err["details"]["reason"] == "not_visible"


def test_scroll_through_nested_scrollable_frames(
    host: HostApp, origins: Origins, session: str
) -> None:
    # the button is 800 px down a 120 px frame that is itself 1,200 px down a 300 px frame
    obs = observe(host, session, origins.top("/nested-scroll"))
    deep = element(obs, "Deep inner")
    assert ctx(obs, deep) == 'frame "Outer" > frame "Inner"'
    after = ok(act(host, obs["id"], {"action": "click", "ref": deep["ref"]}))
    assert text_ctx(after, "inner deep clicked") == 'frame "Outer" > frame "Inner"'


def test_an_element_its_frame_cannot_scroll_to_fails_fast(
    host: HostApp, origins: Origins, session: str
) -> None:
    obs = observe(host, session, origins.top("/stuck"))
    started = time.monotonic()
    _, err = host.error(
        "POST",
        f"/v1/observations/{obs['id']}/actions",
        {"actions": [{"action": "click", "ref": element(obs, "Unreachable")["ref"]}]},
    )
    assert err["id"] == "ACTION_TARGET_NOT_FOUND"
    assert "could not be scrolled into view" in err["message"]
    assert time.monotonic() - started < 10


def test_focused_state_follows_the_page_focus_into_and_out_of_frames(
    host: HostApp, origins: Origins, session: str
) -> None:
    obs = observe(host, session, origins.top("/shop"))
    card = element(obs, "Card number")["ref"]
    after = ok(act(host, obs["id"], {"action": "type", "ref": card, "text": "1"}))
    assert "focused" in element(after, "Card number").get("st", [])
    # the focus goes back to the top page: the frame's active element is no longer focused
    back = ok(
        act(
            host,
            after["id"],
            {"action": "press", "ref": element(after, "Top button")["ref"], "key": "Tab"},
        )
    )
    assert "focused" not in element(back, "Card number").get("st", [])
