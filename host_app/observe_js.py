# ruff: noqa: E501
"""The observation scripts (docs/observations.md), run in the isolated world
(ScriptWorldId.ApplicationWorld): read-only (no DOM mutation, no page script called), bounded,
each returning one JSON string.

The isolated world keeps, per document, a private registry `__svcObs`: element -> ref number
(stable within the document) and ref number -> WeakRef(element). It lives in the isolated world's
own global, invisible to the page; the numbers and signatures it gives back stay in the host.
`gen` goes up when the document's root element was replaced in place (document.open, a new
documentElement), so the host can tell `document_replaced` from `navigated` (another timeOrigin).
"""

from __future__ import annotations

import json

_COMMON = r"""
var W=window,S=W.__svcObs;
if(!S){S=W.__svcObs={gen:1,root:document.documentElement,n2e:new Map(),e2n:new WeakMap(),next:1};}
if(S.root!==document.documentElement){S.gen++;S.root=document.documentElement;S.n2e=new Map();S.e2n=new WeakMap();}
var KEY=[performance.timeOrigin,S.gen];
var ENC=new TextEncoder(),DEC=new TextDecoder();
var LIM=2048;
function sq(s){return s.replace(/\s+/g,' ').trim();}
function csOf(el){var v=el.ownerDocument.defaultView||W;return v.getComputedStyle(el);}
var ROLE_INPUT={button:'button',submit:'button',reset:'button',image:'button',checkbox:'checkbox',radio:'radio',range:'slider',number:'spinbutton',search:'searchbox',file:'button',color:'button'};
var INTERACTIVE_ROLES={button:1,link:1,checkbox:1,radio:1,textbox:1,searchbox:1,combobox:1,listbox:1,option:1,slider:1,spinbutton:1,'switch':1,tab:1,menuitem:1,menuitemcheckbox:1,menuitemradio:1,treeitem:1,scrollbar:1};
var NAME_FROM_CONTENT={button:1,link:1,checkbox:1,radio:1,option:1,tab:1,menuitem:1,menuitemcheckbox:1,menuitemradio:1,treeitem:1,'switch':1,heading:1,cell:1,gridcell:1,columnheader:1,rowheader:1,row:1,tooltip:1};
function roleOf(el){
 var r=(el.getAttribute('role')||'').trim().split(/\s+/)[0].toLowerCase();
 if(r&&r!=='none'&&r!=='presentation'&&r!=='generic')return r;
 var t=el.localName;
 if(t==='a'||t==='area')return el.hasAttribute('href')?'link':'';
 if(t==='button'||t==='summary')return 'button';
 if(t==='input'){var ty=(el.getAttribute('type')||'text').toLowerCase();if(ty==='hidden')return '';
  if(ROLE_INPUT[ty])return ROLE_INPUT[ty];return el.hasAttribute('list')?'combobox':'textbox';}
 if(t==='select')return (el.multiple||el.size>1)?'listbox':'combobox';
 if(t==='textarea')return 'textbox';
 if(t==='option')return 'option';
 if(/^h[1-6]$/.test(t))return 'heading';
 if(el.isContentEditable&&(!el.parentElement||!el.parentElement.isContentEditable))return 'textbox';
 return '';}
function hiddenQuick(el){return el.hidden||el.getAttribute('aria-hidden')==='true';}
function byId(el,id){var root=el.getRootNode();var f=root.getElementById?root.getElementById(id):null;return f||el.ownerDocument.getElementById(id);}
function textOf(node,depth,seen){
 // name from content (accname 2F): rendered text, aria-label / alt of descendants, embedded control values
 var out='';if(depth>40)return out;
 var kids=node.shadowRoot?node.shadowRoot.childNodes:node.childNodes;
 for(var i=0;i<kids.length&&out.length<=LIM;i++){var c=kids[i];
  if(c.nodeType===3){out+=c.data;continue;}
  if(c.nodeType!==1)continue;
  var t=c.localName;if(t==='script'||t==='style'||t==='template'||t==='noscript')continue;
  if(hiddenQuick(c))continue;
  if(t==='slot'){var as=c.assignedNodes();if(as.length){for(var j=0;j<as.length;j++){var a=as[j];out+=a.nodeType===3?a.data:(a.nodeType===1?' '+textOf(a,depth+1,seen)+' ':'');}continue;}}
  var cs=csOf(c);if(cs.display==='none'||cs.visibility==='hidden')continue;
  var al=c.getAttribute('aria-label');if(al&&al.trim()){out+=' '+al+' ';continue;}
  if(t==='img'||t==='area'){out+=' '+(c.getAttribute('alt')||'')+' ';continue;}
  if(t==='input'){var ty=(c.getAttribute('type')||'text').toLowerCase();if(ty==='button'||ty==='submit'||ty==='reset')out+=' '+c.value+' ';else if(ty!=='hidden'&&ty!=='checkbox'&&ty!=='radio')out+=' '+c.value+' ';continue;}
  if(t==='select'){var so=c.selectedOptions;out+=' '+(so&&so.length?so[0].text:'')+' ';continue;}
  if(t==='textarea'){out+=' '+c.value+' ';continue;}
  var inl=cs.display.indexOf('inline')===0;
  out+=(inl?'':' ')+textOf(c,depth+1,seen)+(inl?'':' ');}
 return out;}
function labelled(el){var ids=(el.getAttribute('aria-labelledby')||'').trim();if(!ids)return '';
 var parts=ids.split(/\s+/),out=[];for(var i=0;i<parts.length;i++){var r=byId(el,parts[i]);if(r){var al=r.getAttribute('aria-label');out.push(r===el&&al?al:((r.localName==='input'||r.localName==='textarea')?r.value:textOf(r,0)));}}
 return sq(out.join(' '));}
function nameOf(el,role){
 var n=labelled(el);if(n)return n;
 var al=el.getAttribute('aria-label');if(al&&al.trim())return sq(al);
 var t=el.localName;
 if(t==='input'||t==='select'||t==='textarea'||t==='meter'||t==='progress'){
  var ty=(el.getAttribute('type')||'').toLowerCase();
  if(t==='input'&&(ty==='button'||ty==='submit'||ty==='reset')){return sq(el.value||(ty==='submit'?'Submit':ty==='reset'?'Reset':''))||sq(el.getAttribute('title')||'');}
  if(t==='input'&&ty==='image'){return sq(el.getAttribute('alt')||el.getAttribute('title')||'Submit');}
  var ls=el.labels;if(ls&&ls.length){var parts=[];for(var i=0;i<ls.length;i++)parts.push(textOfLabel(ls[i],el));n=sq(parts.join(' '));if(n)return n;}
 }
 if(t==='img'||t==='area'){n=sq(el.getAttribute('alt')||'');if(n)return n;}
 if(t==='fieldset'){var lg=el.querySelector('legend');if(lg){n=sq(textOf(lg,0));if(n)return n;}}
 if(t==='table'&&el.caption){n=sq(textOf(el.caption,0));if(n)return n;}
 if(t==='figure'){var fc=el.querySelector('figcaption');if(fc){n=sq(textOf(fc,0));if(n)return n;}}
 if(NAME_FROM_CONTENT[role]||t==='summary'){n=sq(textOf(el,0));if(n)return n;}
 n=sq(el.getAttribute('title')||'');if(n)return n;
 if(t==='input'||t==='textarea'){n=sq(el.getAttribute('placeholder')||'');if(n)return n;}
 return '';}
function textOfLabel(lab,control){
 var out='';var kids=lab.childNodes;
 for(var i=0;i<kids.length;i++){var c=kids[i];if(c===control)continue;
  if(c.nodeType===3)out+=c.data;else if(c.nodeType===1){if(c.contains(control)){out+=textOfLabel(c,control);continue;}
   var t=c.localName;if(t==='input'||t==='select'||t==='textarea'||t==='button')continue;if(hiddenQuick(c))continue;out+=' '+textOf(c,1)+' ';}}
 return out;}
function isInteractive(el,role){
 if(!role){var ti=el.getAttribute('tabindex');return ti!==null&&+ti>=0&&el.localName!=='iframe'&&!!el.getAttribute('onclick');}
 if(INTERACTIVE_ROLES[role])return !(role==='option'&&el.localName==='option'&&el.parentElement&&(el.parentElement.localName==='select'||(el.parentElement.localName==='optgroup')));
 return false;}
function sigOf(el,role){var n=nameOf(el,role);if(n.length>200)n=n.slice(0,200);return el.localName+'|'+role+'|'+n;}
function topRect(el){
 var r=el.getBoundingClientRect(),x=r.left,y=r.top,d=el.ownerDocument;
 while(d&&d.defaultView&&d.defaultView.frameElement){var fe=d.defaultView.frameElement,fr=fe.getBoundingClientRect();x+=fr.left+fe.clientLeft;y+=fr.top+fe.clientTop;d=fe.ownerDocument;}
 return {x:x,y:y,w:r.width,h:r.height};}
function deepActive(){var a=document.activeElement;
 for(var k=0;k<20&&a;k++){if(a.shadowRoot&&a.shadowRoot.activeElement)a=a.shadowRoot.activeElement;else if(a.localName==='iframe'){try{var cd=a.contentDocument;if(cd&&cd.activeElement&&cd.activeElement!==cd.body)a=cd.activeElement;else break;}catch(e){break;}}else break;}
 return a;}
function refGet(n){var w=S.n2e.get(n);var el=w?w.deref():null;return el||null;}
"""

_OBSERVE = (
    "(function(MODE){"
    + _COMMON
    + r"""
var MAXV=50000,MAXE=5000,MAXB=524288;
var visited=0,entries=0,bytes=0,elBytes=0,omitted=0,clipped=0,stopV=false;
var content=[],elements=[],sigs=[],ctxs=[],ctxIdx=new Map();
var active=deepActive();
var vw=innerWidth,vh=innerHeight;
function clip(s){if(s.length*3<=LIM)return s;var b=ENC.encode(s);if(b.length<=LIM)return s;
 var n=LIM-3;while(n>0&&(b[n]&0xC0)===0x80)n--;clipped++;return DEC.decode(b.subarray(0,n))+'\u2026';}
function ctxOf(parts,content){if(content)parts=parts.filter(function(p){return !/^row \d+$/.test(p);});if(!parts.length)return -1;var p=parts.length>4?parts.slice(parts.length-4):parts;var s=p.join(' > ');
 var i=ctxIdx.get(s);if(i===undefined){i=ctxs.length;ctxs.push(s);ctxIdx.set(s,i);bytes+=s.length+3;}return i;}
function part(kind,name){if(!name)return kind;if(name.length>80)name=name.slice(0,79)+'\u2026';return kind+' "'+name.replace(/"/g,"'")+'"';}
// content and elements are collected up to MAXE candidates each; elements come first in the
// returned MAXE entries (content is cut from the end below), and content bytes never crowd them out
function room(){if(entries>=MAXE||bytes>=MAXB){omitted++;return false;}return true;}
function elRoom(){if(elements.length>=MAXE||elBytes>=MAXB){omitted++;return false;}return true;}
function addContent(e){if(!room())return null;entries++;content.push(e);bytes+=24;return e;}
var acc=null; // the open text accumulator {e, buf, own, refs}
function openAcc(kind,cx){var e={k:kind};if(cx>=0)e.c=cx;var a={e:e,buf:'',own:false,refs:null,kind:kind,lazy:false,closed:false,ok:false};
 if(room()){entries++;content.push(e);a.ok=true;}return a;}
function closeAcc(a){if(!a||!a.ok||a.closed)return;a.closed=true;var t=sq(a.buf);var e=a.e;
 var keep=a.kind==='table_cell'||((a.kind==='heading'||a.kind==='code'||a.kind==='quote'||a.kind==='table_caption')?!!t:(a.own&&!!t));
 if(!keep){var i=content.lastIndexOf(e);if(i>=0){content.splice(i,1);entries--;}return;}
 if(t){e.t=clip(t);bytes+=e.t.length+12;}if(a.refs){e.e=a.refs;bytes+=a.refs.length*6;}}
function addText(s,inEl){if(!s||inEl===2)return;if(!acc){if(!/\S/.test(s))return;acc=openAcc('text',curCtx);acc.lazy=true;}
 if(acc.buf.length<=LIM+2)acc.buf+=s;if(!inEl&&/\S/.test(s))acc.own=true;}
var curCtx=-1;
var BLOCK_KIND={p:'paragraph',li:'list_item',blockquote:'quote',pre:'code',dt:'paragraph',dd:'paragraph',figcaption:'paragraph',legend:'paragraph',label:'text'};
var LANDMARK={nav:'navigation',main:'main',aside:'complementary'};
function walk(root,ctx,vis,inEl,inSect,tbl){
 // iterative over children with an explicit stack would lose the post-order hooks; recursion depth is bounded by the DOM depth (capped)
 var kids=root.childNodes;
 for(var i=0;i<kids.length;i++){if(stopV)return;node(kids[i],ctx,vis,inEl,inSect,tbl,0);}
}
function node(c,ctx,vis,inEl,inSect,tbl,depth){
 if(stopV)return;
 if(c.nodeType===3){visited++;if(vis)addText(c.data,inEl);return;}
 if(c.nodeType!==1)return;
 if(++visited>MAXV){stopV=true;return;}
 var t=c.localName;
 if(t==='script'||t==='style'||t==='template'||t==='noscript'||t==='head'||t==='meta'||t==='link')return;
 if(c.hidden||c.getAttribute('aria-hidden')==='true')return;
 if(t==='slot'){var as=c.assignedNodes();var list=as.length?as:c.childNodes;for(var k=0;k<list.length;k++)node(list[k],ctx,vis,inEl,inSect,tbl,depth+1);return;}
 var cs=csOf(c),disp=cs.display;
 if(disp==='none'||cs.contentVisibility==='hidden')return;
 var v=cs.visibility==='visible';
 var ov=cs.overflow;
 if(ov!=='visible'&&(ov.indexOf('hidden')>=0||ov.indexOf('clip')>=0)){var rr=c.getBoundingClientRect();if(rr.width===0||rr.height===0)return;}
 var inline=disp.indexOf('inline')===0||disp==='contents';
 var role=roleOf(c),nctx=ctx,nsect=inSect,ntbl=tbl,myAcc=null,saved=acc,savedCtx=curCtx;
 // context parts
 var lm=null;
 if(t==='header'||role==='banner'){if(!inSect||role==='banner')lm='banner';}
 else if(t==='footer'||role==='contentinfo'){if(!inSect||role==='contentinfo')lm='contentinfo';}
 else if(LANDMARK[t]&&!role)lm=LANDMARK[t];
 else if(role==='navigation'||role==='main'||role==='complementary'||role==='search')lm=role;
 else if(t==='search')lm='search';
 else if((t==='section'&&!role)||role==='region'){var rn=labelled(c)||sq(c.getAttribute('aria-label')||'');if(rn)lm=part('region',rn);}
 else if(t==='dialog'||role==='dialog'||role==='alertdialog'){lm=part('dialog',nameOf(c,'dialog'));}
 else if(t==='form'||role==='form'){lm=part('form',labelled(c)||sq(c.getAttribute('aria-label')||c.getAttribute('title')||''));}
 if(lm){if(lm==='navigation'){var nn=labelled(c)||sq(c.getAttribute('aria-label')||'');if(nn)lm=part('navigation',nn);}nctx=ctx.concat([lm]);}
 if(t==='article'||t==='aside'||t==='main'||t==='nav'||t==='section')nsect=true;
 var cx=ctxOf(nctx,true);
 // table structure
 var isTable=t==='table'||role==='table'||role==='grid'||role==='treegrid';
 var isRow=t==='tr'||role==='row';
 var isCell=t==='td'||t==='th'||role==='cell'||role==='gridcell'||role==='columnheader'||role==='rowheader';
 if(isTable&&v){if(acc&&acc.lazy){closeAcc(acc);acc=null;}var tn=nameOf(c,'table');var te={k:'table'};if(tn)te.t=clip(tn);if(cx>=0)te.c=cx;addContent(te);
  ntbl={ctx:nctx.concat([part('table',tn)]),row:0};nctx=ntbl.ctx;cx=ctxOf(nctx,true);}
 else if(t==='caption'&&tbl){myAcc=openAcc('table_caption',cx);}
 else if(isRow&&tbl){tbl.row++;var re={k:'table_row'};if(cx>=0)re.c=cx;if(acc&&acc.lazy){closeAcc(acc);acc=null;}addContent(re);nctx=tbl.ctx.concat(['row '+tbl.row]);}
 else if(isCell&&tbl){myAcc=openAcc('table_cell',cx);if(t==='th'||role==='columnheader'||role==='rowheader')myAcc.e.h=1;}
 else if(/^h[1-6]$/.test(t)||role==='heading'){myAcc=openAcc('heading',cx);var lv=+(c.getAttribute('aria-level')||(t[0]==='h'?t.slice(1):2))||2;myAcc.e.l=Math.max(1,Math.min(6,lv));}
 else if(BLOCK_KIND[t]&&!inline){myAcc=openAcc(BLOCK_KIND[t],cx);}
 else if(t==='img'||role==='img'){var alt=role==='img'?nameOf(c,'img'):sq(c.getAttribute('alt')||'');if(alt&&v){var ie={k:'image',t:clip(alt)};if(cx>=0)ie.c=cx;if(acc&&acc.lazy){closeAcc(acc);acc=null;}addContent(ie);}}
 if(myAcc){if(acc&&acc.lazy){closeAcc(acc);saved=null;}acc=myAcc;curCtx=cx;}
 else if(!inline&&acc&&acc.lazy){closeAcc(acc);acc=null;saved=null;}
 if(!myAcc)curCtx=cx;
 // interactive element
 var isEl=v&&isInteractive(c,role);
 if(isEl){
  if(elRoom()){
   var n=S.e2n.get(c);if(!n){n=S.next++;S.e2n.set(c,n);}S.n2e.set(n,new WeakRef(c));
   var el={ref:'e'+n,role:role||'generic'};var nm=nameOf(c,role);if(nm)el.name=clip(nm);
   var val=valueOf(c,role);if(val)el.value=clip(val);
   if(role==='link'&&c.href){var h=String(c.href);if(h.slice(0,11).toLowerCase()!=='javascript:')el.dest=clip(h);}
   var st=statesOf(c,role);if(st.length)el.st=st;
   if(t==='select'){var o=[];for(var q=0;q<c.options.length&&o.length<100;q++){var op=c.options[q];if(!op.disabled&&!(op.parentElement&&op.parentElement.disabled))o.push([clip(op.value),clip(sq(op.text))]);}if(o.length)el.opts=o;}
   var ecx=ctxOf(nctx,false);if(ecx>=0)el.c=ecx;
   if(MODE==='visual'){var tr=topRect(c);if(tr.x+tr.w<0||tr.y+tr.h<0||tr.x>vw||tr.y>vh){el=null;}}
   if(el){elements.push(el);sigs.push([n,sigOf(c,role)]);elBytes+=JSON.stringify(el).length+1;
    if(acc){(acc.refs||(acc.refs=[])).push(el.ref);}}
  }
 }
 // descend
 if(t==='iframe'||t==='frame'){var fd=null;try{fd=c.contentDocument;}catch(e){fd=null;}
  if(fd&&fd.documentElement){if(fd.body)node(fd.body,nctx,v,inEl||isEl,nsect,ntbl,depth+1);}
  else if(v){var src=c.getAttribute('src')||'';var org='';try{org=new URL(src,c.baseURI).origin;}catch(e){org='';}
   var fe={k:'frame',t:clip('cross-origin frame '+(org||src)+' (not read)')};if(cx>=0)fe.c=cx;addContent(fe);}}
 else if(t==='details'&&!c.open){var sm=null;for(var k2=0;k2<c.children.length;k2++)if(c.children[k2].localName==='summary'){sm=c.children[k2];break;}if(sm)node(sm,nctx,v,inEl||isEl,nsect,ntbl,depth+1);}
 else if(t==='select'||t==='textarea'||t==='input'){}
 else if(depth<400){var kids=c.shadowRoot?c.shadowRoot.childNodes:c.childNodes,ie=(t==='label'&&!!c.control)?2:(inEl||isEl);
  for(var j=0;j<kids.length;j++){if(stopV)break;node(kids[j],nctx,v,ie,nsect,ntbl,depth+1);}}
 if(myAcc){closeAcc(myAcc);acc=saved&&saved!==myAcc?saved:null;}
 else if(!inline&&acc&&acc.lazy&&acc!==saved){closeAcc(acc);acc=null;}
 curCtx=savedCtx;
}
function valueOf(c,role){var t=c.localName;
 if(t==='input'){var ty=(c.getAttribute('type')||'text').toLowerCase();if(ty==='checkbox'||ty==='radio'||ty==='button'||ty==='submit'||ty==='reset'||ty==='image'||ty==='file')return ty==='file'&&c.files&&c.files.length?c.files[0].name:'';
  if(ty==='password')return c.value?'\u2022\u2022\u2022\u2022':'';return c.value;}
 if(t==='textarea')return c.value;
 if(t==='select'){var so=c.selectedOptions,out=[];for(var i=0;i<so.length;i++)out.push(so[i].value);return out.join(', ');}
 var vt=c.getAttribute('aria-valuetext')||c.getAttribute('aria-valuenow');if(vt)return vt;
 if(c.isContentEditable&&role==='textbox')return sq(c.innerText||'');
 return '';}
function statesOf(c,role){var s=[],a=function(n){return c.getAttribute(n);};
 if((c.matches&&c.matches(':disabled'))||a('aria-disabled')==='true')s.push('disabled');
 var ty=c.localName==='input'?(a('type')||'').toLowerCase():'';
 if(ty==='checkbox'||ty==='radio'){if(c.indeterminate)s.push('mixed');else if(c.checked)s.push('checked');}
 else{var ac=a('aria-checked');if(ac==='true')s.push('checked');else if(ac==='mixed')s.push('mixed');}
 var ae=a('aria-expanded');if(ae==='true')s.push('expanded');else if(ae==='false')s.push('collapsed');
 else if(c.localName==='summary'&&c.parentElement&&c.parentElement.localName==='details')s.push(c.parentElement.open?'expanded':'collapsed');
 if(a('aria-selected')==='true'||(c.localName==='option'&&c.selected))s.push('selected');
 if(a('aria-pressed')==='true')s.push('pressed');
 if(c.required||a('aria-required')==='true')s.push('required');
 if(((c.localName==='input'||c.localName==='textarea')&&c.readOnly)||a('aria-readonly')==='true')s.push('readonly');
 if(c===active)s.push('focused');
 return s;}
var body=document.body||document.documentElement;
if(body)node(body,[],true,false,false,null,0);
if(acc){closeAcc(acc);acc=null;}
if(content.length+elements.length>MAXE){var keep=Math.max(0,MAXE-elements.length);omitted+=content.length-keep;content.length=keep;}
if(stopV){var total=document.getElementsByTagName('*').length;omitted+=Math.max(1,total-MAXV);}
var de=document.documentElement;
return JSON.stringify({key:KEY,u:location.href,ti:document.title||'',
 vp:[Math.round(scrollX),Math.round(scrollY),vw,vh],
 dc:[Math.max(de?de.scrollWidth:0,document.body?document.body.scrollWidth:0),Math.max(de?de.scrollHeight:0,document.body?document.body.scrollHeight:0)],
 cx:ctxs,ct:content,el:elements,sg:sigs,om:omitted,cl:clipped});
})"""
)

_CHECK = (
    "(function(NS){"
    + _COMMON
    + r"""
var out={};for(var i=0;i<NS.length;i++){var n=NS[i],el=refGet(n);
 if(!el||!el.isConnected){out[n]=null;continue;}out[n]=sigOf(el,roleOf(el));}
return JSON.stringify({key:KEY,s:out});})"""
)

_ELEMENT = (
    "(function(N){"
    + _COMMON
    + r"""
var el=refGet(N);if(!el||!el.isConnected)return 'null';
var r=topRect(el),cs=csOf(el),ln=el.localName;
var T=['text','search','url','tel','email','password','number','date','datetime-local','month','time','week',''];
var editable=el.isContentEditable||ln==='textarea'||(ln==='input'&&T.indexOf((el.getAttribute('type')||'').toLowerCase())>=0);
var cx=r.x+r.w/2,cy=r.y+r.h/2,hit=false;
if(cx>=0&&cy>=0&&cx<innerWidth&&cy<innerHeight){var h=document.elementFromPoint(cx,cy),x=cx,y=cy;
 for(var k=0;k<20&&h;k++){
  if(h.shadowRoot){var h2=h.shadowRoot.elementFromPoint(x,y);if(h2&&h2!==h){h=h2;continue;}}
  if(h.localName==='iframe'){var cd=null;try{cd=h.contentDocument;}catch(e){cd=null;}if(cd){var fr=h.getBoundingClientRect();x-=fr.left+h.clientLeft;y-=fr.top+h.clientTop;var h3=cd.elementFromPoint(x,y);if(h3){h=h3;continue;}}}
  break;}
 if(h){var p=h;for(var k2=0;k2<200&&p;k2++){if(p===el){hit=true;break;}p=p.parentNode||(p.host||null);}if(!hit&&el.contains(h))hit=true;}}
var opts=null;if(ln==='select'){opts=[];for(var q=0;q<el.options.length;q++){var o=el.options[q];
opts.push([o.value,!!(o.disabled||(o.parentElement&&o.parentElement.localName==='optgroup'&&o.parentElement.disabled))]);}}
return JSON.stringify({x:r.x,y:r.y,w:r.w,h:r.h,vw:innerWidth,vh:innerHeight,
vis:cs.visibility!=='hidden'&&cs.display!=='none',dis:!!(el.matches&&el.matches(':disabled')),ro:!!el.readOnly&&ln!=='select',
ed:editable,f:deepActive()===el,hit:hit,v:('value' in el&&ln!=='button')?String(el.value):null,
o:opts,si:ln==='select'?el.selectedIndex:-1,m:!!el.multiple,tag:ln});})"""
)

_FOCUS = (
    "(function(N){"
    + _COMMON
    + r"""
var el=refGet(N);if(!el||!el.isConnected)return 'false';
if(deepActive()!==el)el.focus({preventScroll:true});
return JSON.stringify(deepActive()===el);})"""
)


def observe(mode: str) -> str:
    return f"{_OBSERVE}({json.dumps(mode)})"


def check(numbers: list[int]) -> str:
    return f"{_CHECK}({json.dumps(numbers)})"


def element(number: int) -> str:
    return f"{_ELEMENT}({number})"


def focus(number: int) -> str:
    return f"{_FOCUS}({number})"
