# ruff: noqa: E501
"""Scripts run in the isolated world (ScriptWorldId.ApplicationWorld): read-only, invisible to the
page's own scripts, each returning one JSON string."""

from __future__ import annotations

import json

from . import observe_js
from .logic.readiness import CHALLENGE_JS

PROBE = (
    "(function(){var d=document,e=d.documentElement,"
    "n=performance.getEntriesByType('navigation')[0],st=n?(n.responseStatus||0):0;"
    "return JSON.stringify({h:location.href,r:d.readyState,l:e?e.outerHTML.length:0,s:st,"
    "o:performance.timeOrigin,t:d.title||'',c:st>=400?" + CHALLENGE_JS + ":false})})()"
)

# The document's external scripts still to run and the stylesheets it was given and has not
# loaded, by URL, the milliseconds since its tree last changed, and how many scripts and
# stylesheets were inserted since the watch began. The first read of a document
# starts watching: a script or stylesheet inserted after it (a focus or click handler's) gets
# load and error listeners in the microtask after its insertion, before it can load (a script's
# load event comes after it ran); a script already there is taken as run when it has a resource
# timing entry, else (a script through the asset scheme has none) as pending, which the
# caller's baseline discounts.
PENDING_LOADS = (
    "(function(){var W=window,M=W.__svcLoads,P=W.__svcPending,d={},s=document.scripts,o=[];"
    "function watch(e){M.set(e,0);P.add(e);function f(){M.set(e,1);P.delete(e);}"
    "e.addEventListener('load',f);e.addEventListener('error',f);}"
    "if(!M){M=W.__svcLoads=new WeakMap();P=W.__svcPending=new Set();W.__svcChanged=performance.now();W.__svcInserted=0;"
    "new MutationObserver(function(ms){W.__svcChanged=performance.now();"
    "for(var a=0;a<ms.length;a++){var n=ms[a].addedNodes;for(var b=0;b<n.length;b++){var x=n[b];"
    "if(M.has(x))continue;if(x.localName==='script'&&x.src){watch(x);W.__svcInserted++;}"
    "else if(x.localName==='link'&&x.href&&/(^|\\s)stylesheet(\\s|$)/i.test(x.rel)){watch(x);W.__svcInserted++;}}}})"
    ".observe(document,{childList:true,subtree:true});}"
    "var es=performance.getEntriesByType('resource');for(var i=0;i<es.length;i++)d[es[i].name]=1;"
    "for(var j=0;j<s.length&&j<2000;j++){var e=s[j],u=e.src;if(!u||!/^https?:/.test(u))continue;"
    "if(!M.has(e)){if(d[u])continue;watch(e);}"
    "if(M.get(e)===0&&o.length<100)o.push(u);}"
    "P.forEach(function(e){if(e.localName==='link'&&e.isConnected&&o.length<100)o.push(e.href);});"
    "return JSON.stringify({p:o,q:performance.now()-W.__svcChanged,n:W.__svcInserted});})()"
)

# The milliseconds until the document's running CSS transitions and animations of finite length
# end (the longest; 0 when none run). Infinite ones (a spinner) never end and are left out, and
# so are those with more than 2 s to run (a banner that pulses a hundred times is no opening UI),
# and transitions of a colour only (color, background-color, border-*-color, fill, stroke): they
# move and reveal nothing. Django admin fades every link's colour over 0.15 s on hover and focus,
# and each click that began or ended a link's hover waited for it (~230 ms a step, ~55 without).
ANIMATIONS_LEFT = (
    "(function(){var m=0;try{var a=document.getAnimations();"
    "for(var i=0;i<a.length&&i<1000;i++){var x=a[i];if(x.playState!=='running'||!x.effect)continue;"
    "if(/(^|-)color$|^fill$|^stroke$/.test(x.transitionProperty||''))continue;"
    "var t=x.effect.getComputedTiming();if(!isFinite(t.endTime))continue;"
    "var r=(t.endTime-(t.localTime||0))/Math.abs(x.playbackRate||1);if(r>m&&r<=2000)m=r;}}catch(e){}"
    "return JSON.stringify(m);})()"
)

SNAPSHOT = """(function(){
var all=document.getElementsByTagName('*'),lim=Math.min(all.length,50000),idx=new Map(),out=[],links=[];
for(var i=0;i<lim;i++)idx.set(all[i],i);
for(var i=0;i<lim;i++){var el=all[i],a={},at=el.attributes;
for(var j=0;j<at.length;j++)a[at[j].name]=at[j].value;
var p=el.parentElement;out.push([el.localName,a,p&&idx.has(p)?idx.get(p):-1]);
if(el.localName==='a'&&el.hasAttribute('href')){var h=el.href;if(/^https?:/i.test(h))links.push([i,h]);}}
return JSON.stringify({n:out,k:links});})()"""

_FOCUS = (
    "(function(i,tag,E){"
    + observe_js.CARET_END
    + """var el=document.getElementsByTagName('*')[i];
if(!el||el.localName!==tag)return '"no"';
if(document.activeElement!==el)el.focus({preventScroll:true});
return JSON.stringify(document.activeElement!==el?'no':E?caretEnd(el):'yes');})"""
)

DOC_SIZE = (
    "JSON.stringify([innerWidth,innerHeight,"
    "Math.max(document.documentElement?document.documentElement.scrollWidth:0,"
    "document.body?document.body.scrollWidth:0),"
    "Math.max(document.documentElement?document.documentElement.scrollHeight:0,"
    "document.body?document.body.scrollHeight:0)])"
)

INNER_HEIGHT = "JSON.stringify(innerHeight)"

# The renderer's progress, for waiting on real signals instead of fixed pauses: [document key,
# animation frames run (each call asks for the next one), mousemoves, mouseups and keyups the
# document and its same-origin frames have dispatched, whether a form submission the page did not
# cancel happened in the last second (its navigation is scheduled, not started)]. The counters are capturing, passive
# listeners of the isolated world: invisible to the page, they change nothing in it. Then whether
# an `<a download>` click happened in the last 2 s, the main document's `navigate` events (the
# Navigation API's: every navigation the document starts, -1 without the API), whether its
# focus is in a frame (input went there, where those events are not seen), and the zero-delay
# timers run (each call sets the next one, as for the frames: a task turn of the document).
TICK = """(function(){var W=window,I=W.__svcTick;
if(!I){I=W.__svcTick={f:0,p:false,m:0,u:0,k:0,s:[],d:[],n:0,t:0,q:false};
 if(W.navigation)W.navigation.addEventListener('navigate',function(){I.n++;});}
if(!I.p){I.p=true;requestAnimationFrame(function(){I.f++;I.p=false;});}
if(!I.q){I.q=true;setTimeout(function(){I.t++;I.q=false;},0);}
function on(w,d){if(d>3)return;try{if(!w.__svcTickOn){w.__svcTickOn=1;var o={capture:true,passive:true};
 w.addEventListener('mousemove',function(){I.m++;},o);w.addEventListener('mouseup',function(){I.u++;},o);
 w.addEventListener('keyup',function(){I.k++;},o);
 w.addEventListener('submit',function(e){I.s.push([performance.now(),e]);if(I.s.length>4)I.s.shift();},o);
 w.addEventListener('click',function(e){var t=e.target,a=t&&t.closest?t.closest('a[download]'):null;
  if(a){I.d.push([performance.now(),e]);if(I.d.length>4)I.d.shift();}},o);}
 for(var i=0;i<w.frames.length&&i<50;i++)on(w.frames[i],d+1);}catch(e){}}
on(W,0);var ps=0,now=performance.now();
for(var j=0;j<I.s.length;j++)if(now-I.s[j][0]<1000&&!I.s[j][1].defaultPrevented)ps=1;
var pd=0;for(var q=0;q<I.d.length;q++)if(now-I.d[q][0]<2000&&!I.d[q][1].defaultPrevented)pd=1;
var a=document.activeElement,fr=a&&/^(IFRAME|FRAME|OBJECT|EMBED|FENCEDFRAME)$/.test(a.tagName)?1:0;
return JSON.stringify([performance.timeOrigin,I.f,I.m,I.u,I.k,ps,pd,W.navigation?I.n:-1,fr,I.t]);})()"""


SCROLL_OFFSETS = "(function(){var e=document.elementFromPoint"


def scroll_offsets(x: float, y: float) -> str:
    """The scroll offsets of the document and of every element at (x, y) and above it: what a
    wheel turned there moves (a frame under the point moves inside, unseen here)."""
    return (
        f"{SCROLL_OFFSETS}({x:.1f},{y:.1f}),"
        "o=[scrollX,scrollY];for(;e;e=e.parentElement)o.push(e.scrollLeft,e.scrollTop);"
        "return JSON.stringify(o)})()"
    )


def element(index: int, tag: str) -> str:
    """The element-info read of host_app/observe_js, for a node of the selector snapshot."""
    return observe_js.element_at(index, tag)


def focus(index: int, tag: str, end: bool = False) -> str:
    """Answers "no", "yes" or "end" (`observe_js.CARET_END`)."""
    return f"{_FOCUS}({index},{json.dumps(tag)},{json.dumps(end)})"


# The document as the isolated world serializes it: the fallback when toHtml() misses it.
OUTER_HTML = (
    "(function(){var d=document,t=d.doctype,"
    "p=t?'<!DOCTYPE '+t.name+(t.publicId?' PUBLIC \"'+t.publicId+'\"':'')"
    "+(t.systemId?(t.publicId?' ':' SYSTEM ')+'\"'+t.systemId+'\"':'')+'>':'';"
    "return JSON.stringify(p+(d.documentElement?d.documentElement.outerHTML:''))})()"
)
