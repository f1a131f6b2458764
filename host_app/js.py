# ruff: noqa: E501
"""Scripts run in the isolated world (ScriptWorldId.ApplicationWorld): read-only, invisible to the
page's own scripts, each returning one JSON string."""

from __future__ import annotations

import json

from .logic.readiness import CHALLENGE_JS

PROBE = (
    "(function(){var d=document,e=d.documentElement,"
    "n=performance.getEntriesByType('navigation')[0],st=n?(n.responseStatus||0):0;"
    "return JSON.stringify({h:location.href,r:d.readyState,l:e?e.outerHTML.length:0,s:st,"
    "o:performance.timeOrigin,t:d.title||'',c:st>=400?" + CHALLENGE_JS + ":false})})()"
)

SNAPSHOT = """(function(){
var all=document.getElementsByTagName('*'),lim=Math.min(all.length,50000),idx=new Map(),out=[],links=[];
for(var i=0;i<lim;i++)idx.set(all[i],i);
for(var i=0;i<lim;i++){var el=all[i],a={},at=el.attributes;
for(var j=0;j<at.length;j++)a[at[j].name]=at[j].value;
var p=el.parentElement;out.push([el.localName,a,p&&idx.has(p)?idx.get(p):-1]);
if(el.localName==='a'&&el.hasAttribute('href')){var h=el.href;if(/^https?:/i.test(h))links.push([i,h]);}}
return JSON.stringify({n:out,k:links});})()"""

_ELEMENT = """(function(i,tag){
var el=document.getElementsByTagName('*')[i];if(!el||el.localName!==tag)return 'null';
var r=el.getBoundingClientRect(),cs=getComputedStyle(el),ln=el.localName,
T=['text','search','url','tel','email','password','number','date','datetime-local','month','time','week',''];
var editable=el.isContentEditable||ln==='textarea'||(ln==='input'&&T.indexOf((el.getAttribute('type')||'').toLowerCase())>=0);
var cx=r.left+r.width/2,cy=r.top+r.height/2,hit=false;
if(cx>=0&&cy>=0&&cx<innerWidth&&cy<innerHeight){var h=document.elementFromPoint(cx,cy);hit=!!h&&(h===el||el.contains(h)||h.contains(el));}
var opts=null;if(ln==='select'){opts=[];for(var k=0;k<el.options.length;k++){var o=el.options[k];
opts.push([o.value,!!(o.disabled||(o.parentElement&&o.parentElement.localName==='optgroup'&&o.parentElement.disabled))]);}}
return JSON.stringify({x:r.left,y:r.top,w:r.width,h:r.height,vw:innerWidth,vh:innerHeight,
vis:cs.visibility!=='hidden'&&cs.display!=='none',dis:el.matches(':disabled'),ro:!!el.readOnly&&ln!=='select',
ed:editable,f:document.activeElement===el,hit:hit,v:('value' in el&&ln!=='button')?String(el.value):null,
o:opts,si:ln==='select'?el.selectedIndex:-1,m:!!el.multiple});})"""

_FOCUS = """(function(i,tag){var el=document.getElementsByTagName('*')[i];
if(!el||el.localName!==tag)return 'false';
if(document.activeElement!==el)el.focus({preventScroll:true});
return JSON.stringify(document.activeElement===el);})"""

DOC_SIZE = (
    "JSON.stringify([innerWidth,innerHeight,"
    "Math.max(document.documentElement?document.documentElement.scrollWidth:0,"
    "document.body?document.body.scrollWidth:0),"
    "Math.max(document.documentElement?document.documentElement.scrollHeight:0,"
    "document.body?document.body.scrollHeight:0)])"
)

TRAFFIC = (
    "JSON.stringify(performance.getEntriesByType('navigation')"
    ".concat(performance.getEntriesByType('resource'))"
    ".reduce(function(s,e){return s+(e.transferSize||0)},0))"
)

INNER_HEIGHT = "JSON.stringify(innerHeight)"


def element(index: int, tag: str) -> str:
    return f"{_ELEMENT}({index},{json.dumps(tag)})"


def focus(index: int, tag: str) -> str:
    return f"{_FOCUS}({index},{json.dumps(tag)})"
