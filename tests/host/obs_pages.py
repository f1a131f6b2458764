"""Fixture pages of the observation tests, added to the fixture site's pages under /obs/."""

from __future__ import annotations

from typing import Any

from bridge_protocol import observation as wire

from .site import PAGES


def _page(title: str, body: str, head: str = "") -> str:
    return (
        f"<!doctype html><html><head><meta charset=utf-8><title>{title}</title>{head}</head>"
        f"<body>{body}</body></html>"
    )


HUGE_NODES = 200_000
MANY = 3_000
SIDEBAR_LINKS = 3_000
SIDEBAR_PATH = "core/arch/x86_64/" * 10  # each link ~250 bytes as an element
LONG_TEXT = "Lorem ipsum dolor sit amet é " * 400  # ~11,600 chars, multibyte

OBS_PAGES: dict[str, str] = {
    "/obs/hidden": _page(
        "Hidden",
        """<p>Visible paragraph</p>
<p style="display:none">Display none text</p>
<div style="visibility:hidden">Visibility hidden text<span style="visibility:visible">Visible child</span></div>
<p hidden>Hidden attribute text</p>
<div aria-hidden="true"><p>Aria hidden text</p><button>Aria hidden button</button></div>
<div style="width:0;height:0;overflow:hidden"><p>Zero size text</p></div>
<template><p>Template text</p></template>
<details><summary>More</summary><p>Closed details text</p></details>
<button style="display:none">Invisible button</button>
<div style="position:absolute;top:3000px">Offscreen text</div>""",
    ),
    # elements a person cannot reach (docs/observations.md "Elements no person can reach")
    "/obs/unreachable": _page(
        "Unreachable",
        """<nav style="position:fixed;left:-300px;top:0;width:280px;height:100vh;overflow-y:auto">
<a href="#d1">Drawer link</a><button>Drawer button</button><div style="height:3000px"></div></nav>
<header style="position:fixed;top:0;left:0;right:0;height:40px;background:#ccc">
<a href="#h">Home</a><div style="position:absolute;top:-200px"><a href="#p">Parked above</a></div></header>
<div style="margin-top:60px;width:300px;overflow:hidden;white-space:nowrap">
<div style="transform:translateX(-300px)"><a href="#s1" style="display:inline-block;width:300px">Slide one</a
><a href="#s2" style="display:inline-block;width:300px">Slide two</a
><a href="#s3" style="display:inline-block;width:300px">Slide three</a></div></div>
<div style="height:40px;overflow:clip"><a href="#c1">Clip shown</a><br><br><br><a href="#c2">Clip cut</a></div>
<div style="height:40px;overflow:hidden"><a href="#m1">More shown</a><br><br><br><a href="#m2">More below</a></div>
<div style="height:60px;overflow:auto"><a href="#a1">Scroll top</a><div style="height:300px"></div>
<a href="#a2">Scroll bottom</a></div>
<div style="transform:translateZ(0)"><div style="position:fixed;top:-100px"><a href="#t">Held by a transform</a></div></div>
<div style="position:fixed;right:0;bottom:0;width:200px;height:80px;overflow-y:auto">
<a href="#f1">Panel top</a><div style="height:200px"></div><a href="#f2">Panel end</a></div>
<div style="height:3000px"></div><a href="#end">Page end</a>""",
    ),
    # a native modal dialog, and a banner that calls itself modal but covers nothing
    "/obs/modal": _page(
        "Modal",
        """<button onclick="document.getElementById('d').showModal()">Open</button>
<p><a href="#x">Behind link</a></p>
<dialog id=d><p>Native dialog</p><button onclick="this.closest('dialog').close()">Close it</button></dialog>
<div role=dialog aria-modal=true aria-label=Cookies style="position:fixed;left:0;right:0;bottom:0;height:60px;background:#eee">
<button>Accept</button></div>""",
    ),
    # fields no person sees (bot traps) beside a visible form, and a switch whose input has no
    # size inside its label (the label is the control a person clicks)
    "/obs/traps": _page(
        "Traps",
        """<form><label>Email <input name=email></label>
<input name=website style="width:0;height:0;border:0;padding:0" autocomplete=off>
<textarea name=comment style="position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);border:0"></textarea>
<input name=phone style="position:absolute;clip:rect(1px,1px,1px,1px)">
<label style="display:inline-block;width:40px;height:20px;background:#ccc">
<input type=checkbox aria-label="Dark mode" style="opacity:0;width:0;height:0"></label>
<button>Send</button></form>""",
    ),
    "/obs/table": _page(
        "Table",
        """<h1>Prices</h1><table><caption>Fruit prices</caption>
<thead><tr><th>Item</th><th>Price</th><th>Stock</th></tr></thead>
<tbody><tr><td>Apple</td><td>1</td><td>1</td></tr><tr><td>Pear</td><td>1</td><td></td></tr>
<tr><td>Fig</td><td>1</td><td><button>Buy fig</button></td></tr></tbody></table>""",
    ),
    "/obs/form": _page(
        "Form",
        """<main><form aria-label="Signup" onsubmit="return false">
<label for=first>First name</label><input id=first value="Ada">
<label>Last name <input id=last></label>
<input aria-label="Nickname" id=nick>
<span id=maillbl>Email address</span><input type=email aria-labelledby=maillbl id=mail required>
<input title="Phone number" type=tel id=tel>
<input placeholder="Search here" type=search id=q>
<label>Password <input type=password value="secret"></label>
<label>Age <input type=number value=42></label>
<label>Volume <input type=range min=0 max=10 value=3></label>
<label><input type=checkbox checked> Subscribe</label>
<label title="Bold"><input type=checkbox><span class=icon></span></label>
<label><input type=radio name=plan value=free> Free</label><label><input type=radio name=plan value=pro checked> Pro</label>
<label>Birthday <input type=date></label>
<label>Avatar <input type=file></label>
<label>Colour <input type=color></label>
<label>Country <select id=country onchange="document.getElementById('out').textContent='country '+this.value">
<option value="">Choose</option><option value=fr>France</option><option value=de disabled>Germany</option><option value=it>Italy</option></select></label>
<label>Toppings <select multiple><option selected>Cheese</option><option>Ham</option></select></label>
<label>Bio <textarea id=bio></textarea></label>
<input readonly value="fixed" aria-label="Read only">
<input disabled value="off" aria-label="Disabled field">
<div contenteditable=true aria-label="Rich text">edit<b>&#8203;&#8203;</b>able</div>
<div role=switch aria-checked=true tabindex=0 aria-label="Dark mode"></div>
<button type=button aria-expanded=false aria-controls=menu>Menu</button>
<input type=submit value="Create account"><input type=reset>
<input type=image alt="Go" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<button type=button onclick="document.getElementById('out').textContent='clicked '+document.getElementById('first').value">Save draft</button>
<input type=hidden value=hiddenvalue>
</form><p id=out>nothing yet</p><a href="/obs/table">Prices table</a>
<a href="/obs/table?page=2" style="pointer-events:none">Older prices</a></main>""",
    ),
    "/obs/relabel": _page(
        "Relabel",
        """<main><label><span id=lbl>Size</span> <select id=size
onfocus="document.getElementById('out').textContent='focused'"
onchange="document.getElementById('out').textContent='size '+this.value">
<option value=s>Small</option><option value=l>Large</option></select></label>
<button type=button onclick="document.getElementById('lbl').textContent='Colour'">Rename</button>
<p id=out>never focused</p></main>""",
    ),
    "/obs/landmarks": _page(
        "Landmarks",
        """<header><a href="/">Home</a></header>
<nav aria-label="Primary"><a href="/obs/form">Form</a></nav>
<main><h2>Main title</h2><section aria-label="News"><p>News text</p><button>Read news</button></section>
<form aria-label="Search"><input aria-label="Terms"></form></main>
<aside><p>Aside text</p></aside><footer><p>Footer text</p></footer>""",
    ),
    "/obs/shadow": _page(
        "Shadow",
        """<p>Light text</p><x-card id=card><span>Slotted text</span></x-card><div id=closed></div>
<script>
var root=document.getElementById('card').attachShadow({mode:'open'});
root.innerHTML='<h3>Shadow heading</h3><slot></slot><button onclick="document.title=\\'shadow clicked\\'">Shadow button</button><span style="display:none">Shadow hidden</span>';
document.getElementById('closed').attachShadow({mode:'closed'}).innerHTML='<p>Closed shadow text</p>';
</script>""",
    ),
    "/obs/framed": _page(
        "Framed",
        """<p>Frame paragraph</p><button onclick="parent.document.title='frame clicked'">Frame button</button>""",
    ),
    "/obs/frames": _page(
        "Frames",
        """<p>Outer text</p><iframe id=same src="/obs/framed" style="width:400px;height:200px"></iframe>
<script>var f=document.createElement('iframe');f.src='http://localhost:'+location.port+'/obs/framed';
document.body.appendChild(f);</script>""",
    ),
    "/obs/replace": _page(
        "Replace",
        """<p>Original document</p><button id=rep onclick="setTimeout(function(){document.open();
document.write('<!doctype html><title>Replaced</title><p>New document</p><button>New button</button>');
document.close();},0)">Replace document</button>
<a href="/obs/table">Go to table</a>""",
    ),
    "/obs/list": _page(
        "List",
        """<ul id=list><li id=a>Alpha <button onclick="document.title='alpha'">Open alpha</button></li>
<li id=b>Beta <button>Open beta</button></li><li id=c>Gamma <button>Open gamma</button></li></ul>
<button id=rr onclick="rerender()">Rerender</button>
<button id=count onclick="this.textContent='Clicked '+(++window.n)">Clicked 0</button>
<script>window.n=0;function rerender(){var l=document.getElementById('list');
l.removeChild(document.getElementById('b'));
var c=document.getElementById('c');var c2=document.createElement('li');c2.id='c';
c2.innerHTML='Gamma <button>Open gamma</button>';l.replaceChild(c2,c);}</script>""",
    ),
    # an application shell as JupyterLab's Lumino draws it: html and body 0 px high with
    # overflow hidden, the application in a box positioned over the viewport
    "/obs/shell": _page(
        "Shell",
        """<div id=main style="position:absolute;inset:0"><div role=toolbar aria-label="Notebook">
<button title="Run this cell"><svg width=16 height=16></svg></button></div>
<div class=cell><pre>print(1 + 1)</pre><div class=output>2</div></div></div>""",
        head="<style>html,body{height:0;overflow:hidden;margin:0}</style>",
    ),
    # what a form shows a person, as real applications mark it (Django admin's date link and
    # search box, a form error in role=alert, a fieldset of radios, a progress bar)
    "/obs/semantics": _page(
        "Semantics",
        """<form><div role=alert>Enter a valid date.</div>
<label for=d>Date:</label><input id=d name=d>
<a href="#" class=cal><span title="Choose a Date" style="display:inline-block;width:16px;height:16px;background:#ccc"></span></a>
<label for=q><img src="data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==" alt="Search"></label><input id=q name=q>
<fieldset><legend>Shipping</legend><label><input type=radio name=s> Post</label></fieldset>
<progress value=40 max=100 aria-label="Upload"></progress>
<h2 aria-label="Orders (3 new)">Orders</h2><hr></form>""",
    ),
    # a hostile name: a button around 4,000 nested spans (built by script: the HTML parser
    # flattens nesting past 512), and a link around 30,000 empty boxes, then words
    "/obs/deep-name": _page(
        "Deep name",
        """<button id=b>Deep</button><a id=a href="/obs/table">Wide</a><p>After</p>
<script>var n=document.getElementById('b');for(var i=0;i<4000;i++){var s=document.createElement('span');n.appendChild(s);n=s;}
n.textContent='bottom';var a=document.getElementById('a');for(var j=0;j<30000;j++)a.appendChild(document.createElement('i'));
a.appendChild(document.createTextNode(' end'));</script>""",
    ),
    "/obs/scroll": _page(
        "Scroll",
        """<p>Top text</p><div style="height:5000px"></div>
<button onmouseover="document.title='hovered'" onclick="document.title='bottom clicked'">Bottom button</button>
<div style="height:600px"></div>""",
    ),
    "/obs/wide": _page(
        "Wide",
        """<p>Left text</p><div style="width:6000px;height:40px"></div>""",
    ),
    "/obs/long": _page(
        "Long",
        f"""<p id=long>{LONG_TEXT}</p><a href="/obs/table">{LONG_TEXT}</a>
<input aria-label="Long value" value="{"é" * 3000}">""",
    ),
    "/obs/huge": _page("Huge", "<div><span>x</span></div>" * (HUGE_NODES // 2)),
    # more content and elements than the 5,000 entries: elements come first
    "/obs/many": _page(
        "Many",
        "<ul>"
        + "".join(f"<li>Item {i} <a href='/obs/table?{i}'>Open {i}</a></li>" for i in range(MANY))
        + "</ul>",
    ),
    # a manual's sidebar listing every page (rustdoc's: 3,676 links) before the page's own text:
    # its elements alone pass the 512 KiB bound
    # a form the browser checks, one checked the Bootstrap way (novalidate, was-validated on a
    # submit attempt: Debian's libjs-bootstrap5 checkout example), one field marked by script
    "/obs/validation": _page(
        "Validation",
        """<form id=native onsubmit="return false"><label>Email <input type=email required></label>
<label>Nickname <input></label><button>Send</button></form>
<form id=bs class=needs-validation novalidate onsubmit="this.classList.add('was-validated');
return false"><label>Zip <input required></label><label>Town <input required value=Oslo></label>
<button>Continue</button></form>
<label>Coupon <input aria-invalid=true value=NOPE></label>""",
    ),
    "/obs/sidebar": _page(
        "Sidebar",
        "<nav style='position:fixed;top:0;left:0;width:250px;height:100vh;overflow-y:auto'><ul>"
        + "".join(
            f"<li><a href='/obs/table?{SIDEBAR_PATH}{i}'>intrinsic_function_{i:04}</a></li>"
            for i in range(SIDEBAR_LINKS)
        )
        + "</ul></nav><main style='margin-left:260px'><h1>intrinsic_function_0042</h1>"
        "<p>Adds two vectors. <a href='/obs/table?source'>source</a></p>"
        "<button onclick=\"this.textContent='Copied'\">Copy item path</button></main>",
    ),
}

PAGES.update(OBS_PAGES)


def observation_of(data: dict[str, Any]) -> dict[str, Any]:
    """The decoded observation of a response `{page, observation}` (the URL is sent once, in
    page.url, when the observation's own is the same)."""
    obs = data["observation"]
    items = [*obs.get("content", []), *obs.get("elements", [])]
    if any(isinstance(item, dict) for item in items):  # decoded already (a test helper did)
        return {"url": data["page"]["url"], **obs}
    return wire.decode(obs, data["page"]["url"])
