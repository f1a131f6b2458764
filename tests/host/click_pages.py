"""Stress pages of issue 11 points 4 and 6 (clickable elements, preformatted text), added to the
fixture site's pages under /clk/ and /pre/. Each page writes what a click did into `#out`, so a
test reads the effect from the next observation, as an agent would."""

from __future__ import annotations

from .site import PAGES


def _page(title: str, body: str, head: str = "") -> str:
    return (
        f"<!doctype html><html><head><meta charset=utf-8><title>{title}</title>{head}</head>"
        f"<body>{body}<p id=out>nothing yet</p>"
        "<script>function say(t){document.getElementById('out').textContent=t;}</script>"
        "</body></html>"
    )


# A tree view of li/span whose handlers are attached by script (invisible to the isolated
# world); the carets are pointer-styled as in the common CSS tree recipes.
TREE = _page(
    "Tree",
    """<style>.caret{cursor:pointer;user-select:none}.nested{display:none}.open>.nested{display:block}
.leaf{cursor:pointer}</style>
<ul id=tree><li><span class=caret>Beverages</span><ul class=nested><li><span class=leaf>Water</span></li>
<li><span class=leaf>Coffee</span></li><li><span class=caret>Tea</span><ul class=nested>
<li><span class=leaf>Green tea</span></li></ul></li></ul></li></ul>
<script>document.querySelectorAll('.caret').forEach(function(c){c.addEventListener('click',function(){
c.parentElement.classList.toggle('open');say('toggled '+c.textContent);});});
document.querySelectorAll('.leaf').forEach(function(l){l.addEventListener('click',function(){say('chose '+l.textContent);});});
</script>""",
)

# An autocomplete: the items are `li > div tabindex=-1`, the listener sits on the list
# (delegation), the pointer cursor on the li.
AUTOCOMPLETE = _page(
    "Autocomplete",
    """<style>#sug li{cursor:pointer;list-style:none}</style>
<label>City <input id=city autocomplete=off></label><ul id=sug></ul>
<script>var cities=['Paris','Parma','Porto'];var inp=document.getElementById('city'),sug=document.getElementById('sug');
inp.addEventListener('input',function(){sug.innerHTML='';cities.filter(function(c){return inp.value&&c.toLowerCase().indexOf(inp.value.toLowerCase())===0;})
.forEach(function(c){var li=document.createElement('li');var d=document.createElement('div');d.tabIndex=-1;d.textContent=c;li.appendChild(d);sug.appendChild(li);});});
sug.addEventListener('mousedown',function(e){var li=e.target.closest('li');if(!li)return;inp.value=li.textContent;sug.innerHTML='';say('picked '+li.textContent);});
</script>""",
)

# A date picker: Prev/Next are anchors without href (jQuery UI style), days are pointer-styled
# spans with tabindex=-1 (flatpickr style); all handlers by script.
DATEPICKER = _page(
    "Date picker",
    """<style>.day{cursor:pointer;display:inline-block;width:2em}</style>
<div class=picker><a class=prev title=Prev>Prev</a> <b id=month>March 2026</b> <a class=next title=Next>Next</a>
<div id=days></div></div>
<script>var months=['February 2026','March 2026','April 2026'],m=1;
function draw(){document.getElementById('month').textContent=months[m];var d=document.getElementById('days');d.innerHTML='';
for(var i=1;i<=3;i++){var s=document.createElement('span');s.className='day';s.tabIndex=-1;s.textContent=String(i);d.appendChild(s);}}
draw();document.querySelector('.prev').addEventListener('click',function(){m=Math.max(0,m-1);draw();});
document.querySelector('.next').addEventListener('click',function(){m=Math.min(2,m+1);draw();});
document.getElementById('days').addEventListener('click',function(e){if(e.target.classList.contains('day'))say('date '+e.target.textContent+' '+months[m]);});
</script>""",
)

# A menu: a pointer-styled toggle div, items are divs with an onclick attribute; a pointer-styled
# card whose spans inherit the pointer (one ref, for the card); a `span tabindex=0`; a
# `div tabindex=0 onclick` (the two bugs of the issue); a focusable div that reacts to Enter.
MENU = _page(
    "Menu",
    """<style>.toggle,.card{cursor:pointer}.items{display:none}.items.open{display:block}</style>
<div class=toggle id=tog>File</div>
<div class=items id=items><div onclick="say('menu New')">New</div><div onclick="say('menu Open')">Open</div></div>
<div class=card id=card><span>Blue</span> <span>shirt</span> <span>12 EUR</span></div>
<p>Plain <span>text</span> here.</p>
<span tabindex=0 id=st>Star it</span>
<div tabindex=0 onclick="say('div clicked')">Open settings</div>
<div tabindex=0 id=kb>Keyboard target</div>
<a name=old>Old anchor</a>
<div tabindex=0 style="overflow:auto;height:40px"><p>Scroll region line</p><p>more</p><p>more</p></div>
<button onclick="say('button')"><span style="cursor:pointer">Inner span</span></button>
<script>document.getElementById('tog').addEventListener('click',function(){document.getElementById('items').classList.toggle('open');say('menu opened');});
document.getElementById('card').addEventListener('click',function(){say('card clicked');});
document.getElementById('st').addEventListener('click',function(){say('starred');});
document.getElementById('kb').addEventListener('keydown',function(e){if(e.key==='Enter')say('enter pressed');});
</script>""",
)

# Pointer-styled boxes around refs: a list item around its link (the same target: one ref, the
# link's), a table row beside its checkbox (two targets: two refs); a tab around its in-page
# anchor (one ref, the tab's), a menu item around a link to another page (two: where it goes)
PADDING = _page(
    "Padding",
    """<ul><li style="cursor:pointer;padding:8px"><a href="#docs">Docs</a></li></ul>
<table><tr style="cursor:pointer" onmouseup="say('row opened')"><td><input type=checkbox aria-label="Pick order"></td>
<td>Order 42</td><td>3 items</td></tr></table>
<ul role=tablist><li role=tab><a href="#one">One</a></li></ul>
<ul role=menu><li role=menuitem><a href="/obs/table">Prices</a></li></ul>""",
)

# Pointer-styled boxes that show nothing and ones that show something without text: Doxygen's
# tree indents each leaf row with a pointer-styled `&nbsp;` span (a spacer, no target); an icon
# drawn by ::before, a colour swatch, a background image, an image and a titled blank box are
# targets. Each says what was clicked.
BLANK = _page(
    "Blank boxes",
    """<style>.arrow{cursor:pointer;display:inline-block;width:16px}
.x::before{content:"\\00d7"}.x,.sw,.bg,.tt,img{cursor:pointer;display:inline-block;width:16px;height:16px}
.sw{background:#c00}.bg{background-image:linear-gradient(#00c,#0c0)}</style>
<div class=item><span class=arrow>&#160;</span><a href="#leaf">Leaf page</a></div>
<div class=item><span class=arrow>  </span><a href="#other">Other page</a></div>
<p><span class=x data-say="close"></span> <span class=sw data-say="red"></span>
<span class=bg data-say="gradient"></span> <img alt=Logo data-say="logo" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<span class=tt title=Pin data-say="pin"></span></p>
<nav><a href="#a">Home</a> | <a href="#b">Blog</a> \u00bb</nav><p>\U0001f44d</p>
<script>document.addEventListener('click',function(e){var t=e.target.closest('[data-say]');if(t)say('clicked '+t.dataset.say);});</script>""",
)

CODE = """def greet(name):
    if name:
        return f"hello {name}"
    return   "nobody"  # three spaces"""

LONG_PRE = "x = 1  # é\n" * 400

# Preformatted text: a pre with highlighting spans, pre-wrap and pre-line blocks, a pre made of
# line blocks, a textarea with lines, a br, and a long pre beyond the 2,048-byte field bound.
PRE = _page(
    "Preformatted",
    f"""<h1>Code</h1><p>Some   prose
    that wraps.</p>
<pre id=code><span class=k>def</span> greet(name):
    <span class=k>if</span> name:
        <span class=k>return</span> f"hello {{name}}"
    return   "nobody"  # three spaces</pre>
<div style="white-space:pre-wrap;font-family:monospace">first  line
  second line</div>
<div style="white-space:pre-wrap">A message  that keeps
its lines</div>
<div style="white-space:pre-line">poem   line one
   poem line two</div>
<pre class=lines><div>line A</div><div>  line B</div></pre>
<p>Break<br>here</p>
<label>Notes <textarea id=notes>alpha
  beta
gamma</textarea></label>
<pre id=long>{LONG_PRE}</pre>""",
)

CLICK_PAGES: dict[str, str] = {
    "/clk/tree": TREE,
    "/clk/autocomplete": AUTOCOMPLETE,
    "/clk/datepicker": DATEPICKER,
    "/clk/menu": MENU,
    "/clk/padding": PADDING,
    "/clk/blank": BLANK,
    "/pre/code": PRE,
}

PAGES.update(CLICK_PAGES)
