"""Actions that behave like a careful person (issue 11 point 7, docs/decisions.md): a click waits
for a target under an overlay that goes away or one that is moving, names a cover that stays, and
`select`/`clear` on a list box that allows several choices add and deselect all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .hostproc import HostApp
from .site import PAGES, Site
from .test_e2e_observations import act, decoded, observe, ref, texts

pytestmark = pytest.mark.e2e


def _page(title: str, body: str) -> str:
    return (
        f"<!doctype html><html><head><meta charset=utf-8><title>{title}</title></head>"
        f"<body>{body}<script>function out(t){{document.getElementById('out').textContent=t;}}"
        "</script></body></html>"
    )


_LAYER = "position:fixed;left:0;top:0;width:100%;height:100%;background:#fff;"

PAGES.update(
    {
        # "Pick a date" opens a calendar over the whole page that fades and goes after ~300 ms;
        # "Show consent" opens a banner over it that stays. Clicks on either layer are recorded.
        "/act/overlay": _page(
            "Overlay",
            f"""<button onclick="cal()">Pick a date</button>
<button onclick="document.getElementById('consent').style.display='block'">Show consent</button>
<button id=book onclick="out('booked')">Book</button>
<p id=out>nothing yet</p>
<div id=cal role=dialog aria-label="Choose a date" onclick="out('calendar clicked')"
 style="display:none;transition:opacity .2s;{_LAYER}"><button>15</button></div>
<div id=consent role=alertdialog aria-label="Cookie consent" onclick="out('consent clicked')"
 style="display:none;{_LAYER}"><p>We use cookies.</p></div>
<script>function cal(){{var c=document.getElementById('cal');c.style.display='block';
setTimeout(function(){{c.style.opacity='0';}},100);
setTimeout(function(){{c.style.display='none';}},300);}}</script>""",
        ),
        # a link wrapped over two lines of a narrow column: the center of its box falls between
        # the short end of its first line and the start of its second, on the list item
        "/act/wrapped": _page(
            "Wrapped",
            """<ul style="width:160px;font:16px/32px sans-serif"><li>
<a href="#done" onclick="out('wrapped clicked')">Handling Keyboard Interruption</a></li></ul>
<p id=out>nothing yet</p>""",
        ),
        # a disclosure whose link the agent saw open; "More" closes it
        "/act/details": _page(
            "Details",
            """<details open><summary>More</summary>
<a href="#in" onclick="out('inner link clicked')">Inner link</a></details>
<p id=out>nothing yet</p>""",
        ),
        # a search box that loads its script on its first focus (rustdoc's search)
        "/act/lazy-search": _page(
            "Lazy search",
            """<label>Search <input id=q></label><p id=out>nothing yet</p>
<script>document.getElementById('q').addEventListener('focus',function(){
if(window.loading)return;window.loading=1;var s=document.createElement('script');
s.src='/slow-search.js?s=0.5';document.head.append(s);});</script>""",
        ),
        # an editor's toolbar button that loads its dialog's script and stylesheet on the click
        # that opens it (CKEditor's "Link"), and fills the dialog once both arrived
        "/act/lazy-dialog": _page(
            "Lazy dialog",
            """<button onclick="open_dialog()">Insert link</button><p id=probe>editor</p>
<script>function open_dialog(){var c=document.createElement('div');c.className='cover';
document.body.append(c);var l=document.createElement('link');l.rel='stylesheet';
l.href='/slow-dialog.css?s=0.4';document.head.append(l);var s=document.createElement('script');
s.src='/slow-dialog.js?s=0.1';document.head.append(s);}</script>""",
        ),
        # the same loaded from a timer the click set, at once, and set up 100 ms after it ran
        # (CKEditor's "Create Editor": its scripts had loaded when the batch ended)
        "/act/later-dialog": _page(
            "Later dialog",
            """<button onclick="setTimeout(open_dialog,0)">Insert link</button><p id=probe>editor</p>
<script>function open_dialog(){var l=document.createElement('link');l.rel='stylesheet';
l.href='/slow-dialog.css?s=0';document.head.append(l);var s=document.createElement('script');
s.src='/slow-dialog.js?s=0&d=100';document.head.append(s);}</script>""",
        ),
        # a modal as Bootstrap's: its backdrop fades in (150 ms), then the dialog (300 ms)
        "/act/fading-modal": _page(
            "Fading modal",
            """<style>.fade{opacity:0;transition:opacity .15s linear}.fade.show{opacity:1}
#dialog.fade{transition:opacity .3s linear}
#backdrop{position:fixed;inset:0;background:rgba(0,0,0,.5);display:none}</style>
<button onclick="openModal()">Launch modal</button><p id=out>nothing yet</p>
<div id=backdrop class=fade></div>
<div id=dialog class=fade role=dialog aria-modal=true aria-label="Terms" style="display:none;
 position:fixed;top:20%;left:20%;background:#fff;padding:20px">
 <p>Read the terms.</p><button onclick="out('understood')">Understood</button></div>
<script>function openModal(){var b=document.getElementById('backdrop'),d=document.getElementById('dialog');
b.style.display='block';b.offsetHeight;b.classList.add('show');
b.addEventListener('transitionend',function(){d.style.display='block';d.offsetHeight;
d.classList.add('show');},{once:true});}</script>""",
        ),
        # a 120 px panel that scrolls on its own, inside the viewport: its last link is below
        # the panel's scrollport but inside the viewport, over the paragraph under the panel
        "/act/panel": _page(
            "Panel",
            """<div style="height:120px;overflow:auto;border:1px solid #999;width:300px">
"""
            + "".join(f"<p style='margin:0;height:30px'>line {i}</p>" for i in range(8))
            + """<a href="#end" onclick="out('panel link clicked')">Last link</a></div>
<p style="height:600px;margin:0">under the panel</p><p id=out>nothing yet</p>""",
        ),
        # "Slide" moves the target 600 px to the right with a 400 ms transition; the target
        # records where it was clicked
        "/act/moving": _page(
            "Moving",
            """<button onclick="document.getElementById('mover').style.left='600px'">Slide</button>
<div style="position:relative;height:60px"><button id=mover style="position:absolute;left:0;
 top:10px;width:100px;height:40px;transition:left .4s linear"
 onclick="var r=this.getBoundingClientRect();out('mover clicked at '+Math.round(event.clientX-r.left)
 +' of '+Math.round(r.width)+' at left '+Math.round(parseFloat(getComputedStyle(this).left)))">
 Target</button></div>
<p id=out>nothing yet</p>""",
        ),
        # a list box of 8 options, 3 rows high (the 7th must be scrolled to); every input and
        # change event is counted
        "/act/multi": _page(
            "Multi",
            """<label>Fruit <select id=fruit multiple size=3 oninput="window.i=(window.i||0)+1"
 onchange="window.c=(window.c||0)+1;var v=[].map.call(this.selectedOptions,function(o){return o.value;});
 out('chosen '+(v.join(',')||'none')+' after '+window.c+' changes and '+window.i+' inputs')">
<option value=a>Apple</option><option value=b>Banana</option><option value=c>Cherry</option>
<option value=d>Date</option><option value=e>Elder</option><option value=f>Fig</option>
<option value=g>Grape</option><option value=h>Honeydew</option></select></label>
<p id=out>nothing yet</p>""",
        ),
        # a multi-selectable ARIA listbox: a plain click chooses only that option, a ctrl+click
        # toggles it
        "/act/listbox": _page(
            "Listbox",
            """<div id=lb role=listbox aria-multiselectable=true aria-label=Colours tabindex=0>
<div role=option aria-selected=false>Red</div><div role=option aria-selected=false>Green</div>
<div role=option aria-selected=false>Blue</div></div>
<p id=out>nothing yet</p>
<script>document.getElementById('lb').addEventListener('click',function(e){
var o=e.target.closest('[role=option]'),all=this.querySelectorAll('[role=option]');if(!o)return;
var on=o.getAttribute('aria-selected')!=='true';
if(!e.ctrlKey){for(var i=0;i<all.length;i++)all[i].setAttribute('aria-selected','false');on=true;}
o.setAttribute('aria-selected',String(on));var v=[];
for(var j=0;j<all.length;j++)if(all[j].getAttribute('aria-selected')==='true')v.push(all[j].textContent);
out('chosen '+(v.join(',')||'none'));});</script>""",
        ),
    }
)


def _out(obs: dict[str, Any]) -> str:
    found = [t for t in texts(obs) if t.startswith(("nothing", "booked", "calendar", "consent"))]
    found += [t for t in texts(obs) if t.startswith(("mover", "chosen", "wrapped", "panel"))]
    assert found, texts(obs)
    return found[0]


def _clicks_failing(
    host: HostApp, site: Site, session: str, path: str, *names: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The observation of `path` and the error of a batch clicking `names` in turn."""
    obs = observe(host, site, session, path)["observation"]
    data = act(host, obs["id"], *({"action": "click", "ref": ref(obs, n)} for n in names))
    assert data["status"] == "error", data
    return obs, data["error"]


def test_click_waits_for_a_fading_overlay(host: HostApp, site: Site, session: str) -> None:
    obs = observe(host, site, session, "/act/overlay")["observation"]
    data = act(
        host,
        obs["id"],
        {"action": "click", "ref": ref(obs, "Pick a date")},
        {"action": "click", "ref": ref(obs, "Book")},
    )
    assert data["status"] == "ok", data
    assert _out(data["data"]["observation"]) == "booked"


def test_click_lands_on_a_link_wrapped_over_two_lines(
    host: HostApp, site: Site, session: str
) -> None:
    """Found on python3-doc's sidebars (library/asyncio-runner.html, "Handling Keyboard
    Interruption"): the click waited 5 s and failed as "covered by" the link's own list item."""
    obs = observe(host, site, session, "/act/wrapped")["observation"]
    data = act(
        host, obs["id"], {"action": "click", "ref": ref(obs, "Handling Keyboard Interruption")}
    )
    assert data["status"] == "ok", data
    assert _out(data["data"]["observation"]) == "wrapped clicked"


def test_click_scrolls_a_panel_to_a_link_below_its_scrollport(
    host: HostApp, site: Site, session: str
) -> None:
    obs = observe(host, site, session, "/act/panel")["observation"]
    data = act(host, obs["id"], {"action": "click", "ref": ref(obs, "Last link")})
    assert data["status"] == "ok", data
    assert _out(data["data"]["observation"]) == "panel link clicked"


def test_a_link_its_disclosure_closed_is_not_rendered_not_covered(
    host: HostApp, site: Site, session: str
) -> None:
    """Found by a soak on rustdoc pages (a collapsed doc block): the link in a closed <details>
    keeps a box, and the click failed as "covered by" the page that holds it."""
    _, error = _clicks_failing(host, site, session, "/act/details", "More", "Inner link")
    assert error["id"] == "ACTION_TIMEOUT", error
    assert error["details"]["reason"] == "not_visible", error
    assert "covered_by" not in error["details"]
    assert "not rendered" in error["message"]


def test_type_lets_a_search_box_load_what_its_focus_asked_for(
    host: HostApp, site: Site, session: str
) -> None:
    """Found on rustdoc's search (Debian's rust-doc): a headless page never got
    the focus event, and keys typed at once came before the script that answers them."""
    obs = observe(host, site, session, "/act/lazy-search")["observation"]
    data = act(host, obs["id"], {"action": "type", "ref": ref(obs, "Search"), "text": "pears"})
    assert data["status"] == "ok", data
    assert "searched pears" in texts(data["data"]["observation"])


@pytest.mark.parametrize("path", ["/act/lazy-dialog", "/act/later-dialog"])
def test_a_click_shows_the_dialog_it_loaded(
    host: HostApp, site: Site, session: str, path: str
) -> None:
    """Found on CKEditor 4 (Debian's ckeditor samples): the observation after "Link" showed
    the dialog's empty cover; its script, its stylesheet and what they built came later."""
    obs = observe(host, site, session, path)["observation"]
    data = act(host, obs["id"], {"action": "click", "ref": ref(obs, "Insert link")})
    assert data["status"] == "ok", data
    after = data["data"]["observation"]
    url = ref(after, "URL")
    assert ref(after, "OK")
    typed = act(host, after["id"], {"action": "type", "ref": url, "text": "example.org"})
    assert typed["status"] == "ok", typed
    fields = decoded(typed["data"]["observation"])["elements"]
    assert [e.get("value") for e in fields if e["ref"] == url] == ["example.org"]


def test_a_click_shows_the_modal_it_faded_in(host: HostApp, site: Site, session: str) -> None:
    """Found on Bootstrap 5's modals (Debian's libjs-bootstrap5 examples): the observation
    after "Launch" showed the backdrop over everything and no dialog, nothing to act on."""
    obs = observe(host, site, session, "/act/fading-modal")["observation"]
    data = act(host, obs["id"], {"action": "click", "ref": ref(obs, "Launch modal")})
    assert data["status"] == "ok", data
    after = data["data"]["observation"]
    assert "Read the terms." in texts(after)
    done = act(host, after["id"], {"action": "click", "ref": ref(after, "Understood")})
    assert done["status"] == "ok", done
    assert "understood" in texts(done["data"]["observation"])


def test_click_under_a_permanent_overlay_names_it(host: HostApp, site: Site, session: str) -> None:
    obs, error = _clicks_failing(host, site, session, "/act/overlay", "Show consent", "Book")
    assert error["id"] == "ACTION_TIMEOUT"
    assert error["retryable"] is True
    assert 'alertdialog "Cookie consent"' in error["message"]
    details = error["details"]
    assert details["covered_by"] == {"role": "alertdialog", "name": "Cookie consent"}
    assert details["reason"] == "covered"
    assert details["ref"] == ref(obs, "Book")
    # the banner was never clicked through
    again = observe(host, site, session, "/act/overlay")["observation"]
    assert _out(again) == "nothing yet"


def test_selector_click_cut_by_the_deadline_is_timeout_naming_the_cover(
    host: HostApp, site: Site, session: str
) -> None:
    host.ok("POST", "/v1/navigate", {"url": site.url("/act/overlay"), "session_id": session})
    _, error = host.error(
        "POST",
        "/v1/perform",
        {
            "session_id": session,
            "timeout": 2,
            "wait": 0,
            "actions": [
                {"action": "click", "selector": "button[onclick]"},
                {"action": "click", "selector": "button + button"},
                {"action": "click", "selector": "#book"},
            ],
        },
    )
    assert error["id"] == "TIMEOUT"
    assert error["retryable"] is True
    assert error["details"]["covered_by"]["role"] in ("dialog", "alertdialog")
    assert "selector" in error["details"]
    # a missing target still fails at once, not after the actionability wait
    _, error = host.error(
        "POST",
        "/v1/perform",
        {"session_id": session, "wait": 0, "actions": [{"action": "click", "selector": "#no"}]},
    )
    assert error["id"] == "ACTION_TARGET_NOT_FOUND"


def test_click_lands_on_a_moving_target_where_it_stops(
    host: HostApp, site: Site, session: str
) -> None:
    obs = observe(host, site, session, "/act/moving")["observation"]
    data = act(
        host,
        obs["id"],
        {"action": "click", "ref": ref(obs, "Slide")},
        {"action": "click", "ref": ref(obs, "Target")},
    )
    assert data["status"] == "ok", data
    words = _out(data["data"]["observation"]).split()
    # "mover clicked at X of W at left L": at its final place, near the middle of its box
    assert words[:3] == ["mover", "clicked", "at"], words
    x, w, left = int(words[3]), int(words[5]), int(words[-1])
    assert left == 600
    assert abs(x - w / 2) <= 2


def test_select_multiple_adds_and_clear_deselects_all(
    host: HostApp, site: Site, session: str
) -> None:
    obs = observe(host, site, session, "/act/multi")["observation"]
    fruit = ref(obs, "Fruit")
    data = act(
        host,
        obs["id"],
        {"action": "select", "ref": fruit, "value": "a"},
        {"action": "select", "ref": fruit, "value": "g"},
        {"action": "select", "ref": fruit, "value": "a"},  # already chosen: stays chosen
    )
    assert data["status"] == "ok", data
    new = data["data"]["observation"]
    assert _out(new) == "chosen a,g after 2 changes and 2 inputs"
    by_name = {e.get("name"): e for e in new["elements"]}
    assert by_name["Fruit"]["value"] == "a, g"
    data = act(host, new["id"], {"action": "clear", "ref": fruit})
    assert data["status"] == "ok", data
    assert _out(data["data"]["observation"]).startswith("chosen none after ")
    # the same through a selector action
    _, error = host.error(
        "POST",
        "/v1/perform",
        {
            "session_id": session,
            "wait": 0,
            "actions": [{"action": "select", "selector": "#fruit", "value": "zz"}],
        },
    )
    assert error["id"] == "ACTION_TARGET_NOT_FOUND"
    data = host.ok(
        "POST",
        "/v1/perform",
        {
            "session_id": session,
            "wait": 0,
            "actions": [
                {"action": "select", "selector": "#fruit", "value": "h"},
                {"action": "select", "selector": "#fruit", "value": "b"},
            ],
        },
    )
    html = Path(
        host.ok("POST", "/v1/capture", {"session_id": session, "wait": 0})["capture"]["output_path"]
    ).read_text()
    assert "chosen b,h after" in html, data
    host.ok(
        "POST",
        "/v1/perform",
        {"session_id": session, "wait": 0, "actions": [{"action": "clear", "selector": "#fruit"}]},
    )
    html = Path(
        host.ok("POST", "/v1/capture", {"session_id": session, "wait": 0})["capture"]["output_path"]
    ).read_text()
    assert "chosen none after" in html


def test_select_on_a_multiselectable_aria_listbox(host: HostApp, site: Site, session: str) -> None:
    obs = observe(host, site, session, "/act/listbox")["observation"]
    colours = ref(obs, "Colours", "listbox")
    data = act(
        host,
        obs["id"],
        {"action": "select", "ref": colours, "value": "Red"},
        {"action": "select", "ref": colours, "value": "Blue"},
    )
    assert data["status"] == "ok", data
    new = data["data"]["observation"]
    assert _out(new) == "chosen Red,Blue"
    data = act(host, new["id"], {"action": "clear", "ref": colours})
    assert data["status"] == "ok", data
    assert _out(data["data"]["observation"]) == "chosen none"
    data = act(host, new["id"], {"action": "select", "ref": colours, "value": "Purple"})
    assert data["error"]["id"] == "ACTION_TARGET_NOT_FOUND"
