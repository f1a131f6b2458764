"""Observations end to end (issue 5, docs/observations.md): the real app, the fixture pages of
tests/host/obs_pages.py, every route of spec 1 §4 "Observations"."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from bridge_protocol import observation as wire

from . import obs_pages  # noqa: F401  (registers the /obs/ pages)
from .hostproc import HostApp
from .obs_pages import HUGE_NODES, MANY, SIDEBAR_LINKS
from .site import Site

pytestmark = pytest.mark.e2e


def decoded(obs: dict[str, Any], page_url: str = "") -> dict[str, Any]:
    """The observation with entries as objects (the wire form of docs/observations.md decoded),
    its `url` and destinations absolute when the response's `page_url` is given."""
    items = list(obs.get("content", [])) + list(obs.get("elements", []))
    return wire.decode(obs, page_url) if any(isinstance(x, int | list) for x in items) else obs


def observe(host: HostApp, site: Site, sid: str, path: str, **extra: Any) -> dict[str, Any]:
    """The navigate/observe answer, its observation decoded; `wire` is the observation as sent."""
    body = {"url": site.url(path), "session_id": sid, "wait": 0.3, **extra}
    data = host.ok("POST", "/v1/navigate/observe", body)
    obs = decoded(data["observation"], data["page"]["url"])
    return {**data, "observation": obs, "wire": data["observation"]}


def act(host: HostApp, oid: str, *actions: dict[str, Any], mode: str = "semantic") -> Any:
    answer = host.client.post(
        f"/v1/observations/{oid}/actions", json={"actions": list(actions), "mode": mode}
    ).json()
    if isinstance(answer.get("data"), dict) and "observation" in answer["data"]:
        page_url = answer["data"]["page"]["url"]
        answer["data"]["observation"] = decoded(answer["data"]["observation"], page_url)
    return answer


def ref(obs: dict[str, Any], name: str, role: str | None = None) -> str:
    obs = decoded(obs)
    for e in obs.get("elements", []):
        if e.get("name") == name and (role is None or e["role"] == role):
            return str(e["ref"])
    raise AssertionError(f"no element named {name!r} in {obs.get('elements')}")


def texts(obs: dict[str, Any]) -> list[str]:
    obs = decoded(obs)
    return [c.get("t", "") for c in obs.get("content", [])]


def no_nulls(value: Any) -> bool:
    if value is None:
        return False
    if isinstance(value, dict):
        return all(no_nulls(v) for v in value.values())
    if isinstance(value, list):
        return all(no_nulls(v) for v in value)
    return True


def test_routes_shape_roles_names_and_states(host: HostApp, site: Site, session: str) -> None:
    data = observe(host, site, session, "/obs/form")
    obs = data["observation"]
    assert data["page"]["url"] == site.url("/obs/form")
    assert re.fullmatch(r"obs_[0-9a-f]+", obs["id"])
    assert obs["title"] == "Form"
    assert "mode" not in obs  # semantic
    assert obs["seq"] >= 1
    assert obs["at"].endswith("Z")
    assert obs["vp"][2] > 0
    assert obs["doc"][1] > 0
    assert obs["truncated"] is False  # the counters are absent at 0
    assert not {"omitted_node_count", "clipped_text_count"} & set(obs)
    assert obs["url"] == data["page"]["url"]  # decoded from the page: sent once
    assert "url" not in data["wire"]
    assert no_nulls(obs)
    assert len(set(obs["contexts"])) == len(obs["contexts"])
    assert all(re.fullmatch(r"e[0-9]+", e["ref"]) for e in obs["elements"])
    by_name = {e.get("name"): e for e in obs["elements"]}
    # every labelling method
    expected = {
        "First name": "textbox",  # label for
        "Last name": "textbox",  # wrapping label
        "Nickname": "textbox",  # aria-label
        "Email address": "textbox",  # aria-labelledby
        "Phone number": "textbox",  # title
        "Search here": "searchbox",  # placeholder
        "Age": "spinbutton",
        "Volume": "slider",
        "Subscribe": "checkbox",
        "Bold": "checkbox",  # the title of a label drawn as an icon
        "Pro": "radio",
        "Country": "combobox",
        "Toppings": "listbox",
        "Bio": "textbox",
        "Rich text": "textbox",
        "Dark mode": "switch",
        "Menu": "button",
        "Create account": "button",  # input submit value
        "Reset": "button",  # input reset default
        "Go": "button",  # input image alt
        "Save draft": "button",
        "Prices table": "link",
    }
    for name, role in expected.items():
        assert by_name[name]["role"] == role, name
    assert by_name["First name"]["value"] == "Ada"
    # an editor's caret fillers (U+200B) are not its text
    assert by_name["Rich text"]["value"] == "editable"
    assert by_name["Password"]["value"] == "••••"  # never the password itself
    assert "required" in by_name["Email address"]["st"]
    assert "checked" in by_name["Subscribe"]["st"]
    assert "checked" in by_name["Pro"]["st"]
    assert "st" not in by_name["Free"]
    assert "readonly" in by_name["Read only"]["st"]
    assert "disabled" in by_name["Disabled field"]["st"]
    # a link out of the pointer's reach (Bootstrap's .disabled: pointer-events none)
    assert "disabled" in by_name["Older prices"]["st"]
    assert "st" not in by_name["Prices table"]
    assert "collapsed" in by_name["Menu"]["st"]
    assert "checked" in by_name["Dark mode"]["st"]
    assert by_name["Country"]["opts"] == [["", "Choose"], ["fr", "France"], ["it", "Italy"]]
    assert by_name["Prices table"]["dest"] == site.url("/obs/table")
    assert obs["contexts"][by_name["Bio"]["c"]] == 'main > form "Signup"'
    assert "hiddenvalue" not in json.dumps(obs)  # input type=hidden is no element
    # the wire form: entry arrays and integer context markers, destinations relative to the page
    sent = data["wire"]
    assert no_nulls(sent)
    assert all(
        isinstance(x, int | str) or x == [] or isinstance(x[0], str) for x in sent["content"]
    )
    assert all(isinstance(x, int) or re.fullmatch(r"e[0-9]+", x[0]) for x in sent["elements"])
    assert [by_name["Prices table"]["ref"], "link", "Prices table", "table"] in sent["elements"]
    assert [by_name["Bio"]["ref"], "textbox", "Bio"] in sent["elements"]
    # label text is carried by the elements, not repeated as content
    assert texts(obs) == ["Email address", "nothing yet"]

    # the other observe routes and GET
    again = host.ok("POST", "/v1/observe", {"session_id": session, "wait": 0})
    assert again["observation"]["seq"] == obs["seq"]
    assert ref(again["observation"], "Bio") == by_name["Bio"]["ref"]  # stable within a document
    page = host.ok("POST", "/v1/pages", {"url": site.url("/obs/form"), "session_id": session})
    pid = page["page"]["id"]
    attached = host.ok("POST", f"/v1/pages/{pid}/observe", {"wait": 0})
    assert attached["page"]["id"] == pid
    got = host.ok("GET", f"/v1/observations/{obs['id']}")
    assert got["observation"] == data["wire"]
    _status, error = host.error("POST", "/v1/observe", {"session_id": session, "mode": "auto"})
    assert error["id"] == "VALIDATION_FAILED"


def test_fields_in_error_are_invalid(host: HostApp, site: Site, session: str) -> None:
    """What a person sees as a field in error, after a submit attempt or by the page's marking;
    a field nobody touched is not in error yet."""

    def states(obs: dict[str, Any]) -> dict[str, list[str]]:
        return {e["name"]: e.get("st", []) for e in decoded(obs)["elements"] if "name" in e}

    obs = observe(host, site, session, "/obs/validation")["observation"]
    before = states(obs)
    assert "invalid" not in before["Email"]
    assert "invalid" not in before["Zip"]
    assert "invalid" in before["Coupon"]
    obs = act(host, obs["id"], {"action": "click", "ref": ref(obs, "Send")})["data"]["observation"]
    after = states(obs)
    assert "invalid" in after["Email"]
    assert "invalid" not in after["Nickname"]  # not required: valid
    assert "invalid" not in after["Zip"]  # another form
    obs = act(host, obs["id"], {"action": "click", "ref": ref(obs, "Continue")})["data"]
    after = states(obs["observation"])
    assert "invalid" in after["Zip"]
    assert "invalid" not in after["Town"]


def test_hidden_content_is_excluded(host: HostApp, site: Site, session: str) -> None:
    obs = observe(host, site, session, "/obs/hidden")["observation"]
    dump = json.dumps(obs)
    assert texts(obs) == ["Visible paragraph", "Visible child", "Offscreen text"]
    for hidden in (
        "Display none",
        "Visibility hidden",
        "Hidden attribute",
        "Aria hidden",
        "Zero size",
        "Template",
        "Closed details",
        "Invisible button",
    ):
        assert hidden not in dump, hidden
    assert [e["name"] for e in obs["elements"]] == ["More"]


def test_tables_keep_dom_order_and_repeated_cells(host: HostApp, site: Site, session: str) -> None:
    obs = observe(host, site, session, "/obs/table")["observation"]
    kinds = [(c["k"], c.get("t")) for c in obs["content"]]
    assert kinds[:4] == [
        ("heading", "Prices"),
        ("table", "Fruit prices"),
        ("table_caption", "Fruit prices"),
        ("table_row", None),
    ]
    cells = [c.get("t") for c in obs["content"] if c["k"] == "table_cell"]
    assert cells == [
        "Item",
        "Price",
        "Stock",
        "Apple",
        "1",
        "1",
        "Pear",
        "1",
        None,
        "Fig",
        "1",
        "Buy fig",
    ]
    assert [c.get("h") for c in obs["content"] if c["k"] == "table_cell"][:4] == [1, 1, 1, None]
    assert sum(1 for c in obs["content"] if c["k"] == "table_row") == 4
    buy = obs["elements"][0]
    assert obs["contexts"][buy["c"]] == 'table "Fruit prices" > row 4'
    assert obs["content"][-1]["e"] == [buy["ref"]]


def test_landmark_context_paths(host: HostApp, site: Site, session: str) -> None:
    obs = observe(host, site, session, "/obs/landmarks")["observation"]
    ctx = {e["name"]: obs["contexts"][e["c"]] for e in obs["elements"]}
    assert ctx == {
        "Home": "banner",
        "Form": 'navigation "Primary"',
        "Read news": 'main > region "News"',
        "Terms": 'main > form "Search"',
    }
    by_text = {c["t"]: obs["contexts"][c["c"]] for c in obs["content"]}
    assert by_text["Aside text"] == "complementary"
    assert by_text["Footer text"] == "contentinfo"


def test_shadow_dom_and_frames(host: HostApp, site: Site, session: str) -> None:
    obs = observe(host, site, session, "/obs/shadow")["observation"]
    dump = json.dumps(obs)
    assert "Shadow heading" in dump
    assert "Slotted text" in dump
    assert "Light text" in dump
    assert "Closed shadow text" not in dump
    assert "Shadow hidden" not in dump
    after = act(host, obs["id"], {"action": "click", "ref": ref(obs, "Shadow button")})
    assert after["data"]["observation"]["title"] == "shadow clicked"

    obs = observe(host, site, session, "/obs/frames", wait=1)["observation"]
    # both frames are read, each in its own isolated world; with no title, the origin names them
    port = site.base.rsplit(":", 1)[1]
    assert [obs["contexts"][c["c"]] for c in obs["content"] if c.get("t") == "Frame paragraph"] == [
        f'frame "{site.base}"',
        f'frame "http://localhost:{port}"',
    ]
    after = act(host, obs["id"], {"action": "click", "ref": ref(obs, "Frame button")})
    assert after["data"]["observation"]["title"] == "frame clicked"


def test_long_text_fields_are_clipped(host: HostApp, site: Site, session: str) -> None:
    obs = observe(host, site, session, "/obs/long")["observation"]
    assert obs["clipped_text_count"] == 3
    assert obs["truncated"] is True
    fields = [c.get("t", "") for c in obs["content"]] + [
        e.get(k, "") for e in obs["elements"] for k in ("name", "value", "dest")
    ]
    assert max(len(f.encode()) for f in fields) == 2048
    assert all(len(f.encode()) <= 2048 for f in fields)
    assert obs["content"][0]["t"].endswith("…")


def test_huge_page_is_bounded(host: HostApp, site: Site, session: str) -> None:
    started = time.monotonic()
    data = observe(host, site, session, "/obs/huge", timeout=60)
    assert time.monotonic() - started < 30
    obs = data["observation"]
    assert obs["truncated"] is True
    assert obs["omitted_node_count"] >= HUGE_NODES - 50_000
    assert len(obs.get("content", [])) + len(obs.get("elements", [])) <= 5000
    size = len(json.dumps(data["wire"], ensure_ascii=False, separators=(",", ":")).encode())
    assert size <= 512 * 1024
    # the app is still fine
    assert observe(host, site, session, "/obs/table")["observation"]["title"] == "Table"


def test_elements_come_first_in_the_entry_bound(host: HostApp, site: Site, session: str) -> None:
    data = observe(host, site, session, "/obs/many")
    obs = data["observation"]
    # MANY list items with own text and a link each: 2 * MANY candidates, 5,000 entries returned
    assert len(obs["elements"]) == MANY
    assert len(obs["content"]) == 5000 - MANY
    assert obs["content"][0]["t"] == "Item 0 Open 0"
    assert obs["omitted_node_count"] == 2 * MANY - 5000
    assert obs["truncated"] is True
    last = obs["elements"][-1]
    assert (last["name"], last["dest"]) == (f"Open {MANY - 1}", site.url(f"/obs/table?{MANY - 1}"))
    assert data["wire"]["elements"][-1] == [
        last["ref"],
        "link",
        last["name"],
        f"table?{MANY - 1}",
    ]
    # the last ref works, even with a click that scrolls far down the long page first
    after = act(host, obs["id"], {"action": "click", "ref": last["ref"]})
    assert after["data"]["observation"]["title"] == "Table"


def test_over_the_bytes_bound_a_sidebar_out_of_view_goes_first(
    host: HostApp, site: Site, session: str
) -> None:
    """A sidebar of 3,000 links (a manual's every page) before the page's own text passes the
    512 KiB bound by itself: the elements were cut from the end, so the link and the button of
    the page's text were gone. Now the sidebar's links out of view go first (from the end); those
    in view and the page's own elements stay."""
    data = observe(host, site, session, "/obs/sidebar")
    obs = data["observation"]
    names = [e["name"] for e in obs["elements"]]
    assert names[-2:] == ["source", "Copy item path"]
    assert names[0] == "intrinsic_function_0000"
    kept = len(names) - 2
    assert 900 < kept < SIDEBAR_LINKS  # the links in view and then some, down to the bound
    assert names[:kept] == [f"intrinsic_function_{i:04}" for i in range(kept)]
    assert obs["truncated"] is True
    assert obs["omitted_node_count"] == SIDEBAR_LINKS - kept
    size = len(json.dumps(data["wire"], ensure_ascii=False, separators=(",", ":")).encode())
    assert size <= 512 * 1024
    after = act(host, obs["id"], {"action": "click", "ref": ref(obs, "Copy item path")})
    assert "Copied" in [e.get("name") for e in after["data"]["observation"]["elements"]]


def test_ref_actions_type_clear_select_press_click(host: HostApp, site: Site, session: str) -> None:
    obs = observe(host, site, session, "/obs/form")["observation"]
    first, country = ref(obs, "First name"), ref(obs, "Country")
    data = act(
        host,
        obs["id"],
        {"action": "type", "ref": first, "text": " Lovelace"},
        {"action": "select", "ref": country, "value": "it"},
        {"action": "click", "ref": ref(obs, "Save draft")},
    )
    new = data["data"]["observation"]
    assert new["id"] != obs["id"]
    assert "clicked Ada Lovelace" in texts(new)
    by_name = {e["name"]: e for e in new["elements"]}
    assert by_name["Country"]["value"] == "it"
    data = act(
        host,
        new["id"],
        {"action": "clear", "ref": first},
        {"action": "type", "ref": first, "text": "Grace"},
        {"action": "press", "ref": first, "key": "Tab"},
    )
    new = data["data"]["observation"]
    by_name = {e["name"]: e for e in new["elements"]}
    assert by_name["First name"]["value"] == "Grace"
    assert "focused" in by_name["Last name"]["st"]
    # a disabled option and a ref the observation never issued
    bad = act(host, new["id"], {"action": "select", "ref": country, "value": "de"})
    assert bad["error"]["id"] == "ACTION_TARGET_NOT_FOUND"
    bad = act(host, new["id"], {"action": "click", "ref": "e9999"})
    assert (bad["error"]["id"], bad["error"]["details"]["ref"]) == (
        "ACTION_TARGET_NOT_FOUND",
        "e9999",
    )


def test_scroll_signs_and_hover(host: HostApp, site: Site, session: str) -> None:
    obs = observe(host, site, session, "/obs/scroll")["observation"]
    assert obs["vp"][1] == 0
    down = act(host, obs["id"], {"action": "scroll", "delta_y": -1200})["data"]["observation"]
    assert down["vp"][1] > 0
    up = act(host, down["id"], {"action": "scroll", "delta_y": 600})["data"]["observation"]
    assert 0 <= up["vp"][1] < down["vp"][1]
    hovered = act(host, up["id"], {"action": "hover", "ref": ref(up, "Bottom button")})
    assert hovered["data"]["observation"]["title"] == "hovered"
    waited = act(host, obs["id"], {"action": "wait", "seconds": 0.1})
    assert waited["status"] == "ok"
    # across: negative delta_x scrolls right, positive left (spec 1 §4 "Observations")
    obs = observe(host, site, session, "/obs/wide")["observation"]
    assert obs["vp"][0] == 0
    right = act(host, obs["id"], {"action": "scroll", "delta_x": -1200})["data"]["observation"]
    assert right["vp"][0] > 0
    left = act(host, right["id"], {"action": "scroll", "delta_x": 600})["data"]["observation"]
    assert 0 <= left["vp"][0] < right["vp"][0]
    assert left["vp"][1] == right["vp"][1] == 0  # across only


def test_navigation_makes_refs_stale_but_readable(host: HostApp, site: Site, session: str) -> None:
    obs = observe(host, site, session, "/obs/replace")["observation"]
    link = ref(obs, "Go to table")
    observe(host, site, session, "/obs/table")
    stale = act(host, obs["id"], {"action": "click", "ref": link})
    assert stale["error"]["id"] == "OBSERVATION_STALE"
    assert stale["error"]["details"] == {
        "cause": "navigated",
        "observation_id": obs["id"],
        "ref": link,
    }
    assert decoded(host.ok("GET", f"/v1/observations/{obs['id']}")["observation"]) == obs
    found = host.ok("POST", f"/v1/observations/{obs['id']}/find", {"query": "ORIGINAL"})
    assert found["content"][0]["t"] == "Original document"
    found = host.ok("POST", f"/v1/observations/{obs['id']}/find", {"role": "LINK"})
    assert [e["ref"] for e in found["elements"]] == [link]
    assert found["total_matches"] == 1
    assert found["truncated"] is False


def test_replaced_document_is_stale(host: HostApp, site: Site, session: str) -> None:
    obs = observe(host, site, session, "/obs/replace")["observation"]
    data = act(host, obs["id"], {"action": "click", "ref": ref(obs, "Replace document")})
    new = data["data"]["observation"]
    deadline = time.monotonic() + 10
    while "New document" not in texts(new) and time.monotonic() < deadline:
        new = host.ok("POST", "/v1/observe", {"session_id": session, "wait": 0})["observation"]
    assert "New document" in texts(new)
    assert new["seq"] == obs["seq"] + 1
    stale = act(host, obs["id"], {"action": "click", "ref": ref(obs, "Go to table")})
    assert stale["error"]["details"]["cause"] == "document_replaced"
    fine = act(host, new["id"], {"action": "click", "ref": ref(new, "New button")})
    assert fine["status"] == "ok"


def test_rerendered_list(host: HostApp, site: Site, session: str) -> None:
    obs = observe(host, site, session, "/obs/list")["observation"]
    oid = obs["id"]
    act(host, oid, {"action": "click", "ref": ref(obs, "Rerender")})
    for removed in ("Open beta", "Open gamma"):  # removed, and replaced by an equal new node
        stale = act(host, oid, {"action": "click", "ref": ref(obs, removed)})
        assert stale["error"]["id"] == "OBSERVATION_STALE"
        assert stale["error"]["details"]["cause"] == "element_removed"
        assert stale["error"]["details"]["ref"] == ref(obs, removed)
    # the whole batch is checked before any input: nothing was clicked
    batch = act(
        host,
        oid,
        {"action": "click", "ref": ref(obs, "Open alpha")},
        {"action": "click", "ref": ref(obs, "Open beta")},
    )
    assert batch["error"]["details"]["cause"] == "element_removed"
    untouched = act(host, oid, {"action": "click", "ref": ref(obs, "Open alpha")})
    assert untouched["data"]["observation"]["title"] == "alpha"
    count = ref(obs, "Clicked 0")
    act(host, oid, {"action": "click", "ref": count})
    changed = act(host, oid, {"action": "click", "ref": count})
    assert changed["error"]["details"] == {
        "cause": "element_changed",
        "observation_id": oid,
        "ref": count,
    }


def test_a_select_that_changed_is_not_focused_and_one_that_did_not_is_chosen(
    host: HostApp, site: Site, session: str
) -> None:
    # a select's focus goes with the batch's check (docs/decisions.md): an element whose name
    # changed since the observation is refused as stale, and was not focused meanwhile
    obs = observe(host, site, session, "/obs/relabel")["observation"]
    size = ref(obs, "Size")
    renamed = act(host, obs["id"], {"action": "click", "ref": ref(obs, "Rename")})
    now = renamed["data"]["observation"]
    assert ref(now, "Colour") == size
    stale = act(host, obs["id"], {"action": "select", "ref": size, "value": "l"})
    assert stale["error"]["details"]["cause"] == "element_changed"
    again = host.ok("POST", "/v1/observe", {"session_id": session, "wait": 0})["observation"]
    assert "never focused" in texts(again)
    chosen = act(host, again["id"], {"action": "select", "ref": size, "value": "l"})
    after = chosen["data"]["observation"]
    assert "size l" in texts(after)
    assert {e["name"]: e.get("value") for e in after["elements"]}["Colour"] == "l"


def test_hybrid_and_visual_images(host: HostApp, site: Site, session: str) -> None:
    hybrid = observe(host, site, session, "/obs/landmarks", mode="hybrid")["observation"]
    image = hybrid["image"]
    png = Path(image["output_path"])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size == image["bytesize"]
    assert (image["format"], image["mime_type"]) == ("png", "image/png")
    assert image["width"] == round(hybrid["vp"][2] * image["scale_x"])
    assert image["height"] == round(hybrid["vp"][3] * image["scale_y"])
    assert hybrid["content"]
    visual = host.ok("POST", "/v1/observe", {"session_id": session, "mode": "visual", "wait": 0})
    obs = decoded(visual["observation"], visual["page"]["url"])
    assert "content" not in obs
    assert obs["image"]["width"] > 0
    assert {e["name"] for e in obs["elements"]} >= {"Home", "Read news"}
    clicked = act(host, obs["id"], {"action": "click", "ref": ref(obs, "Read news")}, mode="visual")
    assert clicked["data"]["observation"]["mode"] == "visual"


def test_closed_session_evicts(host: HostApp, site: Site) -> None:
    sid = host.new_session()
    obs = observe(host, site, sid, "/obs/table")["observation"]
    host.ok("DELETE", f"/v1/sessions/{sid}")
    _, error = host.error("GET", f"/v1/observations/{obs['id']}")
    assert (error["id"], error["details"]["cause"]) == ("OBSERVATION_STALE", "evicted")
    gone = act(host, obs["id"], {"action": "click", "ref": "e1"})
    assert gone["error"]["details"]["cause"] == "evicted"


def test_elements_no_person_can_reach_are_not_offered(
    host: HostApp, site: Site, session: str
) -> None:
    """A drawer parked off screen in a fixed box, a link above a fixed header, a carousel's slide
    moved out before its frame's start and a link cut by overflow clip: no wheel or click of a
    person reaches them, so they get no ref (their clicks failed after 5 s, "could not be
    scrolled into view"). Scroll regions, a fixed panel that scrolls, a box a transform holds
    and what overflow hidden keeps past its end (a page script may scroll there) keep theirs;
    text stays in the content."""
    obs = observe(host, site, session, "/obs/unreachable")["observation"]
    assert [e["name"] for e in obs["elements"]] == [
        "Home",
        "Slide two",
        "Slide three",
        "Clip shown",
        "More shown",
        "More below",
        "Scroll top",
        "Scroll bottom",
        "Held by a transform",
        "Panel top",
        "Panel end",
        "Page end",
    ]
    content = " ".join(texts(obs))
    for text in ("Drawer link", "Parked above", "Slide one", "Clip cut"):
        assert text in content, text
    answer = act(host, obs["id"], {"action": "click", "ref": ref(obs, "Panel end")})
    assert "data" in answer, answer
    assert answer["data"]["page"]["url"].endswith("#f2")


def test_an_open_modal_dialog_leaves_only_its_controls(
    host: HostApp, site: Site, session: str
) -> None:
    """While a modal <dialog> is open the rest of the document is inert: its elements get no
    ref (their clicks waited 5 s, covered by the dialog) and their text stays; once it closes
    they are back. A fixed banner that calls itself modal but covers nothing blocks nothing."""
    obs = observe(host, site, session, "/obs/modal")["observation"]
    assert [e["name"] for e in obs["elements"]] == ["Open", "Behind link", "Accept"]
    answer = act(host, obs["id"], {"action": "click", "ref": ref(obs, "Open")})
    obs = answer["data"]["observation"]
    assert [e["name"] for e in obs["elements"]] == ["Close it"]
    assert "Behind link" in " ".join(texts(obs))
    answer = act(host, obs["id"], {"action": "click", "ref": ref(obs, "Close it")})
    obs = answer["data"]["observation"]
    assert [e["name"] for e in obs["elements"]] == ["Open", "Behind link", "Accept"]


def test_fields_no_person_sees_are_not_offered(host: HostApp, site: Site, session: str) -> None:
    """Bot traps: a zero-size field, a 1 px clipped textarea and a clipped-away field beside a
    visible form. They were textboxes an agent filling the form would type into (a site's sign
    of a bot). A checkbox with no size inside its label (a CSS switch) stays: a click on it goes
    to its label."""
    obs = observe(host, site, session, "/obs/traps")["observation"]
    assert [(e["role"], e.get("name")) for e in obs["elements"]] == [
        ("textbox", "Email"),
        ("checkbox", "Dark mode"),
        ("button", "Send"),
    ]
    answer = act(host, obs["id"], {"action": "click", "ref": ref(obs, "Dark mode")})
    obs = answer["data"]["observation"]
    assert "checked" in next(e for e in obs["elements"] if e["name"] == "Dark mode")["st"]


def test_an_application_shell_with_a_zero_height_body_is_read(
    host: HostApp, site: Site, session: str
) -> None:
    """Issue 36 point 3: a 0 px body with overflow hidden is the viewport's overflow, not a box
    that hides its content (JupyterLab and Notebook 7 read empty)."""
    obs = observe(host, site, session, "/obs/shell")["observation"]
    assert "print(1 + 1)" in texts(obs)
    assert "2" in texts(obs)
    (run,) = obs["elements"]
    assert (run["role"], run["name"]) == ("button", "Run this cell")
    assert obs["contexts"][run["c"]] == 'toolbar "Notebook"'


def test_what_a_form_shows_is_in_the_observation(host: HostApp, site: Site, session: str) -> None:
    """Issue 36 points 1-2: a form's error in role=alert, a tooltip inside a link, a field
    labelled by an image, a fieldset's group, a progress bar, a heading's author name."""
    obs = observe(host, site, session, "/obs/semantics")["observation"]
    contexts = obs["contexts"]
    (error,) = [c for c in obs["content"] if c.get("t") == "Enter a valid date."]
    assert contexts[error["c"]].endswith("> alert")
    names = {(e["role"], e.get("name", "")) for e in obs["elements"]}
    assert ("link", "Choose a Date") in names
    assert ("textbox", "Search") in names
    assert ("textbox", "Date:") in names
    (post,) = [e for e in obs["elements"] if e["role"] == "radio"]
    assert (post["name"], contexts[post["c"]].split(" > ")[-1]) == ("Post", 'group "Shipping"')
    kinds = {c["k"]: c for c in obs["content"]}
    assert (kinds["progressbar"]["t"], kinds["progressbar"]["d"]) == ("Upload", {"v": "40"})
    assert "separator" in kinds
    assert kinds["heading"]["t"] == "Orders (3 new)"


def test_a_hostile_name_is_bounded(host: HostApp, site: Site, session: str) -> None:
    """A name reads a bounded part of the content (docs/observations.md "Names"): a button
    around 4,000 nested boxes overflowed the stack of the name's reading and failed the whole
    observation; a link around 30,000 empty boxes read them all."""
    obs = observe(host, site, session, "/obs/deep-name")["observation"]
    names = {e["role"]: e.get("name", "") for e in obs["elements"]}
    assert names["button"] == "Deep"  # the text past the bound is not in the name
    assert names["link"] == "Wide"
    assert "After" in texts(obs)


def test_a_page_that_waits_for_a_person_says_so_and_the_next_one_does_not(
    host: HostApp, session: str
) -> None:
    """Issue 40 point 3: a bot check, a CAPTCHA widget or a one-time-code prompt is told by its
    vendor's documented markers: the observation's `needs_person` gives the kind, the vendor
    and the page's own words as untrusted website content; solved, invisible and hidden
    widgets and a plain sign-in do not count, and the page that follows has no such field."""
    from .person_pages import PAGES
    from .routes import Reply, Routes, html

    routes: dict[str, Callable[[], Reply]] = {
        path: partial(html, page) for path, (page, _) in PAGES.items()
    }
    routes["/recaptcha/api2/anchor"] = lambda: html("<div>I'm not a robot</div>")
    routes["/captcha-delivery.com/captcha/"] = lambda: html("<div>Slide right</div>")
    with Routes(routes) as pages:
        for path, (_page, expected) in PAGES.items():
            body = {"url": pages.url(path), "session_id": session, "wait": 0}
            obs = host.ok("POST", "/v1/navigate/observe", body)["observation"]
            person = obs.get("needs_person")
            if expected is None:
                assert person is None, (path, person)
                continue
            assert person is not None, path
            assert [person["kind"], person["vendor"]] == expected, path
            assert person["trust"] == "untrusted_website_content"
            assert person["text"], path
        # the page's own words come with it
        body = {"url": pages.url("/person/two-factor"), "session_id": session, "wait": 0}
        obs = host.ok("POST", "/v1/navigate/observe", body)["observation"]
        assert "6-digit code" in obs["needs_person"]["text"]
