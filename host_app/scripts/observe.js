// The observation (docs/observations.md): MODE, and B the bounds of a frame's document.
// $DETECT (the main document only): whether the page waits for a person (logic/person.py).
(function(MODE,B){
$COMMON;

// B (frames): what the bounds leave after the documents read before this one, the context parts
// of the iframe in its parent (pre), the frame's label (lab) and the visual-mode rect (vis)
B=B||{};function bv(k,d){return B[k]!=null?B[k]:d;}
var MAXV=bv('v',50000),MAXE=bv('e',5000),MAXEL=bv('el',5000),MAXB=bv('b',524288),MAXEB=bv('eb',524288);
var visited=0,entries=0,bytes=0,elBytes=0,omitted=0,clipped=0,stopV=false,slots=[];
var content=[],elements=[],sigs=[],lows=[],ctxs=[],ctxIdx=new Map();
// which node gave which entry, element or context part (the conformance reader, PROBE, asks it
// after the read; weak, so a node that leaves the document is not held)
var PR=new WeakMap();function rep(n,o){var a=PR.get(n);if(!a)PR.set(n,a=[]);a.push(o);return o;}
var active=deepActive();
var vw=innerWidth,vh=innerHeight,VIS=B.vis||[0,0,vw,vh];
function clip(s){if(s.length*3<=LIM)return s;var b=ENC.encode(s);if(b.length<=LIM)return s;
 var n=LIM-3;while(n>0&&(b[n]&0xC0)===0x80)n--;clipped++;return DEC.decode(b.subarray(0,n))+'\u2026';}
function ctxOf(parts,content){if(content)parts=parts.filter(function(p){return !/^row \d+$/.test(p);});if(!parts.length)return -1;var p=parts.length>4?parts.slice(parts.length-4):parts;
 if(FP&&p.indexOf(FP)<0){p=[FP].concat(parts.slice(Math.max(parts.lastIndexOf(FP)+1,parts.length-3)));}var s=p.join(' > ');
 var i=ctxIdx.get(s);if(i===undefined){i=ctxs.length;ctxs.push(s);ctxIdx.set(s,i);bytes+=s.length+3;}return i;}
function part(kind,name){if(!name)return kind;if(name.length>80)name=name.slice(0,79)+'\u2026';return kind+' "'+name.replace(/"/g,"'")+'"';}
// in a frame, every context path starts with the parent's path at the iframe and the frame part
var FP=B.pre?part('frame',B.lab||(location.origin&&location.origin!=='null'?location.origin:location.href)):null;
var ROOTP=FP?B.pre.concat([FP]):[];
// content and elements are collected up to MAXE candidates each; elements come first in the
// returned MAXE entries (content is cut from the end below), and content bytes never crowd them out
function room(){if(entries>=MAXE||bytes>=MAXB){omitted++;return false;}return true;}
// past MAXEB bytes elements are still collected (to twice that): keepEls chooses which go
function elRoom(){if(elements.length>=MAXEL||elBytes>=2*MAXEB){omitted++;return false;}return true;}
function addContent(e){if(!room())return null;entries++;content.push(e);bytes+=24;return e;}
var acc=null; // the open text accumulator {e, buf, own, refs}
function openAcc(kind,cx){var e={k:kind};if(cx>=0)e.c=cx;var a={e:e,buf:'',own:false,refs:null,kind:kind,lazy:false,closed:false,ok:false,chrome:CHROME>0,notLinks:false};
 if(room()){entries++;content.push(e);a.ok=true;}return a;}
function preText(s){return s.replace(/\r\n?/g,'\n').replace(/[ \t\u00a0]+$/gm,'').replace(/^\u200b$/gm,'').replace(/^\n+/,'').replace(/\s+$/,'');}
// An editor that draws each line as its own block (CodeMirror 5: a pre per line) gives one code
// entry per line; a code block that starts where the last one ended (same left edge, its top at
// the other's bottom, same element and white-space, nothing read between) continues it. Blocks
// of a document have margins between them. (A line of only U+200B is an editor's empty line.)
var lastCode=null;
// a block that keeps its white-space is code when it is drawn as code (a monospace font, or code
// inside); else it is prose that keeps its lines (a chat message, a tweet, pdf.js's text layer)
function codeLike(c,cs){return /mono|courier|consolas|menlo|monaco/.test((cs.fontFamily||'').toLowerCase())||!!c.querySelector('code,kbd,samp,tt');}
function codeAcc(c,cx,ws){var r=c.getBoundingClientRect(),L=lastCode;
 if(L&&L.a.closed&&L.t===c.localName&&L.ws===ws&&content.length&&content[content.length-1]===L.a.e&&L.a.e.c===(cx>=0?cx:undefined)&&Math.abs(r.top-L.b)<=1&&Math.abs(r.left-L.l)<=1&&L.a.e.t){
  var e=L.a.e,a={e:e,buf:L.a.raw+'\n',own:true,refs:e.e||null,kind:'code',lazy:false,closed:false,ok:true,pre:true};
  bytes-=e.t.length+12;delete e.t;L.a=a;L.b=r.bottom;return a;}
 var n=openAcc('code',cx);lastCode=n.ok?{a:n,l:r.left,b:r.bottom,t:c.localName,ws:ws}:null;return n;}
function closeAcc(a){if(!a||!a.ok||a.closed)return;a.closed=true;a.raw=a.buf;var t=a.name||(a.pre?preText(a.buf):sq(a.buf));var e=a.e;
 if(!keeps(a,t||a.an,e)){var i=content.lastIndexOf(e);if(i>=0){content.splice(i,1);entries--;}return;}
 if(a.an&&a.an!==t){e.d={n:clip(a.an)};bytes+=a.an.length+8;}
 if(t){e.t=clip(t);bytes+=e.t.length+12;}if(a.refs){e.e=a.refs;bytes+=a.refs.length*6;}}
var SAYS_ALONE={heading:1,code:1,quote:1,table_caption:1};
function keeps(a,t,e){
 if(a.kind==='table_cell')return true;
 if(!t)return false;
 if(SAYS_ALONE[a.kind]||a.own)return true;
 // a block whose only text is its refs' is said by them (a menu's list of links), unless it
 // heads blocks of its own (the link then titles what follows: a search result's excerpt), or
 // it is a list item or paragraph of links outside the page's chrome (an article's list of
 // resources is what the article says; the wire sends such text once, as the links' names)
 if(!a.lazy&&content.lastIndexOf(e)<content.length-1)return true;
 return !a.chrome&&!a.notLinks&&!!a.refs&&(a.kind==='list_item'||a.kind==='paragraph');}
// curWs: the white-space of the text being read: 0 collapses, 1 keeps spaces and line breaks
// (pre, pre-wrap, break-spaces), 2 keeps line breaks only (pre-line). An accumulator that got
// preformatted text keeps its lines (a.pre); its other text is collapsed as it comes.
var curWs=0,curTT='none';
function wsOf(cs){var c=cs.whiteSpaceCollapse;if(c){if(c==='preserve'||c==='break-spaces')return 1;if(c==='preserve-breaks')return 2;return 0;}
 var w=cs.whiteSpace||'';return w==='pre-line'?2:(w.indexOf('pre')===0||w==='break-spaces')?1:0;}
// text that says something of its own: separators between links (Sphinx's "modules |", a
// breadcrumb's "»") do not, so a menu item is still just its link
var SAYS=/[^\s|\u00b7\u2022\u00bb\u00ab\u203a\u2039\/\\\-\u2013\u2014:;,.()\[\]<>~*+=#&_]/;
function addText(s,inEl){if(!s||inEl===2)return;if(curTT!=='none')s=drawn(s,curTT);if(!acc){if(!/\S/.test(s))return;acc=openAcc('text',curCtx);acc.lazy=true;}
 if(acc.buf.length<=LIM+2){
  if(curWs){if(!acc.pre){acc.pre=true;acc.buf=acc.buf.replace(/\s+/g,' ');}acc.buf+=curWs===2?s.replace(/[ \t]+/g,' ').replace(/ ?\n ?/g,'\n'):s;}
  else if(acc.pre){s=s.replace(/\s+/g,' ');if(s.charAt(0)===' '&&/\s$/.test(acc.buf))s=s.slice(1);acc.buf+=s;}
  else acc.buf+=s;}
 if((!inEl||inEl===3)&&SAYS.test(s))acc.own=true;}
function preBreak(){if(curWs&&acc&&acc.buf&&acc.buf.charAt(acc.buf.length-1)!=='\n'&&acc.buf.length<=LIM+2)acc.buf+='\n';}
// a block's edges part its text from the text around it in the same entry: a line break where
// the text keeps its lines, else a space (an li of two divs "Alpha", "Beta" read "AlphaBeta";
// CodeMirror's line numbers, one div each, "123456789")
function blockBreak(inEl){if(curWs)preBreak();else if(acc&&acc.buf&&!/\s$/.test(acc.buf))addText(' ',inEl);}
var curCtx=-1;
// Reach boxes (docs/observations.md "Elements no person can reach"): an element wholly outside
// the box its ancestors leave it is not offered, since neither the wheel nor a click of a person
// reaches it. A box fixed to the viewport does not scroll (a drawer parked off screen); overflow
// clip cuts its content on both sides, overflow hidden before its start (the rest a page script
// may scroll to: custom scrollbars hide the native one); a scroll region brings its content into
// view (unless it is out of reach itself). [left, top, right, bottom] or null, for in-flow boxes
// (CL) and absolutely positioned ones (CLA: the box at their containing block). Text stays in
// the content: visually hidden text is clipped on purpose, for readers.
var CL=null,CLA=null,VP=[0,0,vw,vh],FAR=1e9;
function meet(a,b){return a?[Math.max(a[0],b[0]),Math.max(a[1],b[1]),Math.min(a[2],b[2]),Math.min(a[3],b[3])]:b;}
function outOf(r,k){return r.width>0&&r.height>0&&(r.right<=k[0]+0.5||r.left>=k[2]-0.5||r.bottom<=k[1]+0.5||r.top>=k[3]-0.5);}
// whether a fixed box is fixed to the viewport: an ancestor with a transform, filter or
// containment holds it instead (then it scrolls with that ancestor)
function viewportFixed(c){for(var p=c.parentElement||(c.parentNode&&c.parentNode.host)||null,k=0;p&&k<200;k++){var s=csOf(p);
 if(s.transform!=='none'||s.filter!=='none'||s.perspective!=='none'||/paint|layout|strict|content/.test(s.contain)||/transform|filter|perspective/.test(s.willChange)||(s.backdropFilter&&s.backdropFilter!=='none')||(s.containerType&&s.containerType!=='normal'))return false;
 p=p.parentElement||(p.parentNode&&p.parentNode.host)||null;}return true;}
// the reach box a box with overflow other than visible leaves its content, per axis: a
// scrolling axis reaches all its content (the box itself being in reach), clip only its box,
// hidden what lies past its start (left, or right in rtl; top)
function reachBox(c,cs,r,own){var kl=r.left+c.clientLeft,kt=r.top+c.clientTop,kr=kl+c.clientWidth,kb=kt+c.clientHeight;
 if(own&&outOf(r,own))return meet(own,[kl,kt,kr,kb]);
 var o=own||[-FAR,-FAR,FAR,FAR],x=cs.overflowX,y=cs.overflowY,rtl=cs.direction==='rtl';
 function lo(v,ax,k){return v==='clip'||(v==='hidden'&&!(ax&&rtl))?Math.max(o[ax?0:1],k):v==='visible'?o[ax?0:1]:-FAR;}
 function hi(v,ax,k){return v==='clip'||(v==='hidden'&&ax&&rtl)?Math.min(o[ax?2:3],k):v==='visible'?o[ax?2:3]:FAR;}
 var b=[lo(x,1,kl),lo(y,0,kt),hi(x,1,kr),hi(y,0,kb)];
 return b[0]<=-FAR&&b[1]<=-FAR&&b[2]>=FAR&&b[3]>=FAR?null:b;}
// Math as TeX, which a reader of the page's text takes in at once: MathJax 2 keeps the source
// it typeset in a script beside the output (`MathJax-Element-3` for `MathJax-Element-3-Frame`);
// MathML gives its `alttext` or a TeX `annotation`, else its structure written the TeX way
var MATHJAX=/(^|\s)MathJax(_Display|_CHTML|_SVG|_PHTML)?(\s|$)/;
function mathText(c,t){
 if(t==='math')return mathML(c);
 var f=/-Frame$/.test(c.id||'')?c:c.querySelector('[id$="-Frame"]');
 if(f){var sc=document.getElementById(f.id.slice(0,-6));
  if(sc&&sc.localName==='script'&&/^math\/tex/.test(sc.type||'')){var x=sq(sc.textContent||'');if(x)return /mode=display/.test(sc.type)?'$$'+x+'$$':'$'+x+'$';}}
 var m=c.querySelector('math');return m?mathML(m):'';}
function mathML(m){var a=sq(m.getAttribute('alttext')||'');if(a)return '$'+a+'$';var x=sq(mLin(m,0));return x?'$'+x+'$':'';}
function mGrp(s){s=s.trim();return s.length===1?s:'{'+s+'}';}
function mLin(e,d){if(d>60)return '';var t=e.localName,k=e.children,o=[],i;
 if(t==='mi'||t==='mn'||t==='mo'||t==='mtext'||t==='ms')return (e.textContent||'').trim();
 if(t==='annotation'||t==='annotation-xml'||t==='mphantom'||t==='none'||t==='mprescripts')return '';
 if(t==='semantics'){for(i=0;i<k.length;i++)if(k[i].localName==='annotation'&&/tex/i.test(k[i].getAttribute('encoding')||''))return (k[i].textContent||'').trim();return k.length?mLin(k[0],d+1):'';}
 for(i=0;i<k.length;i++)o.push(mLin(k[i],d+1));
 switch(t){case 'msup':case 'mover':return mGrp(o[0]||'')+'^'+mGrp(o[1]||'');
  case 'msub':case 'munder':return mGrp(o[0]||'')+'_'+mGrp(o[1]||'');
  case 'msubsup':case 'munderover':return mGrp(o[0]||'')+'_'+mGrp(o[1]||'')+'^'+mGrp(o[2]||'');
  case 'mfrac':return '\\frac{'+(o[0]||'')+'}{'+(o[1]||'')+'}';
  case 'msqrt':return '\\sqrt{'+o.join(' ')+'}';
  case 'mroot':return '\\sqrt['+(o[1]||'')+']{'+(o[0]||'')+'}';
  case 'mfenced':return (e.getAttribute('open')||'(')+o.join(e.getAttribute('separators')||',')+(e.getAttribute('close')||')');
  case 'mtable':return o.join(' \\\\ ');case 'mtr':case 'mlabeledtr':return o.join(' & ');}
 return o.join(' ');}
var BLOCK_KIND={p:'paragraph',li:'list_item',blockquote:'quote',pre:'code',dt:'term',dd:'definition',figcaption:'paragraph',legend:'paragraph',label:'text'};
// a block whose role says what its text is (role="paragraph", "term", "deletion", "strong"...):
// an entry of that kind; native inline elements (em, del, code) stay in the text around them
var ROLE_KIND={paragraph:'paragraph',listitem:'list_item',blockquote:'quote',code:'code',term:'term',definition:'definition',caption:'table_caption',deletion:'deletion',insertion:'insertion',emphasis:'emphasis',strong:'strong',subscript:'subscript',superscript:'superscript',mark:'mark',time:'time',suggestion:'suggestion',comment:'comment'};
// what shows a value and takes no input: an entry with its name and value
var LEAF_KIND={progressbar:1,meter:1,separator:1};
// roles that are context parts; 2: named by their first heading when nothing else names them
var PART={banner:1,navigation:1,main:1,complementary:1,contentinfo:1,search:1,region:1,form:1,dialog:2,alertdialog:2,group:1,radiogroup:1,tabpanel:1,figure:1,tablist:1,menu:1,menubar:1,toolbar:1,tree:1,listbox:1,article:2,document:1,application:1,feed:1,alert:1,status:1,log:1,timer:1,marquee:1,note:1,tooltip:1,math:1};
function headingName(c){var h=c.querySelector('h1,h2,h3,h4,h5,h6,[role=heading]');return h&&!hiddenUp(h)?nameOf(h,'heading'):'';}
// the page's chrome: inside it a list of links is a menu, said by its refs (CHROME counts the
// enclosing landmarks and menu-like widgets)
var CHROME=0,CHROME_ROLES={navigation:1,banner:1,contentinfo:1,complementary:1,search:1,menu:1,menubar:1,tablist:1,toolbar:1,tree:1,listbox:1};
function node(c,ctx,vis,inEl,tbl,depth){
 if(stopV)return;
 if(c.nodeType===3){visited++;if(vis)addText(c.data,inEl);return;}
 if(c.nodeType!==1)return;
 if(++visited>MAXV){stopV=true;return;}
 var t=c.localName;
 if(t==='script'||t==='style'||t==='template'||t==='noscript'||t==='head'||t==='meta'||t==='link')return;
 if(c.hidden||c.getAttribute('aria-hidden')==='true')return;
 if(t==='slot'){var as=c.assignedNodes();var list=as.length?as:c.childNodes;for(var k=0;k<list.length;k++)node(list[k],ctx,vis,inEl,tbl,depth+1);return;}
 var cs=csOf(c),disp=cs.display;
 if(disp==='none'||cs.contentVisibility==='hidden')return;
 var v=cs.visibility==='visible';
 // math is read as what it says, not as the glyph boxes it is drawn with (MathJax draws x² as
 // an "x" and a raised "2": read flat, "ax2+bx+c=0"); no ref for its menu's tabindex
 if(v&&(t==='math'||t==='mjx-container'||MATHJAX.test(c.className))){var mt=mathText(c,t);if(mt){addText(' '+mt,inEl);return;}}
 var ov=cs.overflow,pos=cs.position,own=pos==='fixed'?(viewportFixed(c)?VP:CL):pos==='absolute'?CLA:CL,cc=own;
 if(ov!=='visible'){var rr=c.getBoundingClientRect();if((ov.indexOf('hidden')>=0||ov.indexOf('clip')>=0)&&(rr.width===0||rr.height===0)&&t!=='body'&&c!==document.documentElement&&!(c.children.length===1&&editorSink(c.children[0],c.children[0].localName,csOf(c.children[0]))))return;
  // the body's and the root's overflow are the viewport's (it scrolls them); an inline box has none
  if(t!=='body'&&c!==document.documentElement&&disp!=='inline'&&disp!=='contents')cc=reachBox(c,cs,rr,own);}
 var sCL=CL,sCLA=CLA;
 if(cc||CL||CLA){CL=cc;if(pos!=='static'||cs.transform!=='none'||cs.filter!=='none'||/paint|layout|strict|content/.test(cs.contain))CLA=cc;}
 var inline=disp.indexOf('inline')===0||disp==='contents';
 var ws=wsOf(cs),savedWs=curWs,savedTT=curTT;curTT=cs.textTransform||'none';
 var xr=explicitRole(c),role=roleOf(c,xr),nctx=ctx,ntbl=tbl,myAcc=null,saved=acc,savedCtx=curCtx;
 // context parts (docs/observations.md "Context paths"): landmarks, named regions, forms, and
 // the structure that holds content of its own kind (groups, tab panels, figures, menus,
 // dialogs, live regions and messages), each with its name
 var ar=ariaRole(c,xr),lm=null;
 if(PART[ar]&&v&&t!=='select'&&c!==document.documentElement){
  // a part's name is its author's (a tooltip's text is its entry, not its name twice)
  var pn=NFC[ar]&&!authorNamed(c)?'':accName(c);
  if(!pn&&PART[ar]===2)pn=headingName(c);
  // a details group is what its summary says (Django's filters: "By status" tells two "All" apart)
  if(!pn&&t==='details'){var smy=firstChild(c,'summary');if(smy)pn=accName(smy,true);}
  if(ar!=='region'||pn)lm=part(ar,pn);}
 // a list (or row group) its author named: the name says what its items are
 // (or declared one with its role: a div role=list, a role=rowgroup)
 else if((ar==='list'||ar==='rowgroup'||t==='dl')&&v&&(authorNamed(c)||xr)){lm=part(t==='dl'?'list':ar,accName(c));}
 if(lm){nctx=ctx.concat([lm]);rep(c,lm);}
 var sChrome=CHROME;if(CHROME_ROLES[role]||(lm&&CHROME_ROLES[lm.split(' ')[0]]))CHROME++;
 var cx=ctxOf(nctx,true);
 // table structure
 var isTable=t==='table'||role==='table'||role==='grid'||role==='treegrid';
 var isRow=t==='tr'||role==='row';
 var isCell=t==='td'||t==='th'||role==='cell'||role==='gridcell'||role==='columnheader'||role==='rowheader';
 if(isTable&&v){if(acc&&acc.lazy){closeAcc(acc);acc=null;}var tn=nameOf(c,'table');var te={k:'table'};if(tn)te.t=clip(tn);if(cx>=0)te.c=cx;addContent(rep(c,te));
  ntbl={ctx:nctx.concat([part('table',tn)]),row:0};nctx=ntbl.ctx;cx=ctxOf(nctx,true);}
 else if(t==='caption'&&tbl){myAcc=openAcc('table_caption',cx);}
 else if(isRow&&tbl){tbl.row++;var re={k:'table_row'};if(cx>=0)re.c=cx;if(authorNamed(c)){var rn2=accName(c);if(rn2)re.d={n:clip(rn2)};}if(acc&&acc.lazy){closeAcc(acc);acc=null;}addContent(rep(c,re));nctx=tbl.ctx.concat(['row '+tbl.row]);}
 else if(isCell&&(tbl||xr)){myAcc=openAcc('table_cell',cx);if(ar==='columnheader')myAcc.e.h=1;else if(ar==='rowheader')myAcc.e.h=2;}
 else if(ar==='heading'){myAcc=openAcc('heading',cx);var lv=+(c.getAttribute('aria-level')||(t[0]==='h'?t.slice(1):2))||2;myAcc.e.l=Math.max(1,Math.min(6,lv));
  // a heading says its name: what it shows (with generated text and images' alternatives),
  // unless its author named it otherwise
  myAcc.name=nameOf(c,'heading');}
 else if(BLOCK_KIND[t]&&!inline&&!xr){myAcc=BLOCK_KIND[t]==='code'?codeAcc(c,cx,ws):openAcc(BLOCK_KIND[t],cx);}
 else if(ROLE_KIND[ar]&&!inline){myAcc=ar==='code'?codeAcc(c,cx,ws):openAcc(ROLE_KIND[ar],cx);}
 else if(LEAF_KIND[ar]&&v){var ln2=nameOf(c,ar),le={k:ar};if(ln2)le.t=clip(ln2);var lvv=ar==='separator'?'':controlValue(c,ar);if(lvv)le.d={v:clip(sq(lvv))};if(cx>=0)le.c=cx;if(acc&&acc.lazy){closeAcc(acc);acc=null;}addContent(rep(c,le));}
 else if(ws&&!curWs&&!inline&&v&&!inEl&&t!=='textarea'&&t!=='input'&&t!=='select'){myAcc=codeLike(c,cs)?codeAcc(c,cx,ws):openAcc('paragraph',cx);}
 else if(ar==='img'){var alt=nameOf(c,'img');if(v&&(alt||xr==='img')){var ie={k:'image'};if(alt)ie.t=clip(alt);if(cx>=0)ie.c=cx;if(acc&&acc.lazy){closeAcc(acc);acc=null;}addContent(rep(c,ie));}}
 if(myAcc){rep(c,myAcc.e);if(myAcc.kind!=='heading'&&authorNamed(c))myAcc.an=accName(c);if(acc&&acc.lazy){closeAcc(acc);saved=null;}acc=myAcc;curCtx=cx;}
 else if(!inline&&acc&&acc.lazy){closeAcc(acc);acc=null;saved=null;}
 if(!myAcc)curCtx=cx;
 // interactive element
 var sBlk=blocked;if(!blocked&&BLK.size&&BLK.has(c))blocked=true;
 var sink=editorSink(c,t,cs);
 var cue=v&&!blocked&&(sink||!unseenControl(c,t,cs))&&isInteractive(c,role,cs,inEl),isEl=!!cue&&(!!sink||!(own&&outOf(c.getBoundingClientRect(),own))),weak=null,wid=null;
 if(isEl){role=refRole(role);
  // a clickable keeps its text in the content, with its ref
  if(role==='clickable'&&!acc){acc=openAcc('text',inline?curCtx:cx);acc.lazy=true;}
  if(elRoom()){
   var n=S.e2n.get(c);if(!n){n=S.next++;S.e2n.set(c,n);}S.n2e.set(n,new WeakRef(c));
   var el={ref:'e'+n,role:role};var nm=nameOf(c,role);if(nm)el.name=clip(nm);
   var val=sink?'':valueOf(c,role);if(val)el.value=clip(val);
   if(role==='link'&&c.href){var h=String(c.href);if(h.slice(0,11).toLowerCase()!=='javascript:')el.dest=clip(h);}
   var st=statesOf(c,role);if(st.length)el.st=st;
   if(t==='select'){var o=[];for(var q=0;q<c.options.length&&o.length<100;q++){var op=c.options[q];if(!op.disabled&&!(op.parentElement&&op.parentElement.disabled))o.push([clip(op.value),clip(sq(op.text))]);}if(o.length)el.opts=o;}
   var ecx=ctxOf(nctx,false);if(ecx>=0)el.c=ecx;
   if(MODE==='visual'){var tr=topRect(c);if(tr.x+tr.w<VIS[0]||tr.y+tr.h<VIS[1]||tr.x>VIS[0]+VIS[2]||tr.y>VIS[1]+VIS[3]){el=null;}}
   if(el){elements.push(rep(c,el));sigs.push([n,sigOf(c,role,nm)]);lows.push(lowEl(c,nctx));elBytes+=JSON.stringify(el).length+1;
    if(acc){(acc.refs||(acc.refs=[])).push(el.ref);if(role!=='link')acc.notLinks=true;}
    if(cue===WEAK)weak={i:elements.length-1,el:el,ci:content.length,acc:acc,a:area(c)};
    else if(ANCHORED[role])wid={i:elements.length-1,name:el.name||'',ci:content.length,acc:acc};}
  }
  // a multi-line textarea value is preformatted text: a code entry too (svc read fences it);
  // an editor's sink holds a scrap of the editor's text (its lines are read as they are drawn)
  if(t==='textarea'&&n&&!sink&&MODE!=='visual'&&c.value.indexOf('\n')>=0){var tv=preText(c.value);if(tv){var te2={k:'code',t:clip(tv),e:['e'+n]};if(cx>=0)te2.c=cx;if(acc&&acc.lazy){closeAcc(acc);acc=null;}addContent(te2);}}
 }
 if(t==='br'&&v)addText('\n',inEl);
 // inline boxes (inline-block, inline-flex...) are apart on screen: keep their words apart
 var box=inline&&disp!=='inline'&&disp!=='contents';if(box&&v&&acc)addText(' ',inEl);
 if(!inline)blockBreak(inEl);
 curWs=ws;
 // descend
 if(t==='iframe'||t==='frame'){
  // every frame (same- or cross-origin) is read by its own script in its own isolated world; here
  // a slot: the iframe's registry number, what matches it to the engine's frame, its content box
  // and the context its content gets; the placeholder entry marks where that content goes
  var bx=slotBox(c);
  if(v&&bx.w>0&&bx.h>0){var fn=S.e2n.get(c);if(!fn){fn=S.next++;S.e2n.set(c,fn);}S.n2e.set(fn,new WeakRef(c));
   if(acc&&acc.lazy){closeAcc(acc);acc=null;}
   var fe={k:'frame',f:fn};if(cx>=0)fe.c=cx;addContent(fe);
   slots.push({n:fn,nm:c.getAttribute('name')||'',src:c.hasAttribute('srcdoc')?'about:srcdoc':(c.src||'about:blank'),
    x:bx.x,y:bx.y,w:bx.w,h:bx.h,lab:clip(accName(c)),p:nctx,ei:elements.length});rep(c,part('frame',accName(c)));}}
 else if(t==='details'&&!c.open){var sm=null;for(var k2=0;k2<c.children.length;k2++)if(c.children[k2].localName==='summary'){sm=c.children[k2];break;}if(sm)node(sm,nctx,v,inEl||isEl,ntbl,depth+1);}
 else if(t==='select'||t==='textarea'||t==='input'){}
 else if(depth<400){var kids=c.shadowRoot?c.shadowRoot.childNodes:c.childNodes,ie=(t==='label'&&!!c.control)?2:(inEl&&inEl!==3)?inEl:isEl?(role==='clickable'?3:true):inEl;
  for(var j=0;j<kids.length;j++){if(stopV)break;node(kids[j],nctx,v,ie,ntbl,depth+1);}}
 if(weak&&elements.length>weak.i+1)dropPadding(weak,[acc,saved,weak.acc]);
 if(wid&&elements.length>wid.i+1)dropAnchors(wid,[acc,saved,wid.acc]);
 curWs=savedWs;curTT=savedTT;CL=sCL;CLA=sCLA;blocked=sBlk;CHROME=sChrome;
 if(box&&v&&acc)addText(' ',inEl);
 if(!inline)blockBreak(inEl);
 if(myAcc){closeAcc(myAcc);acc=saved&&saved!==myAcc?saved:null;}
 else if(!inline&&acc&&acc.lazy&&acc!==saved){closeAcc(acc);acc=null;}
 curCtx=savedCtx;
}
// A form control under 4 px (or clipped away) with no rendered label is seen by no person: a bot trap (a
// honeypot field a person never fills; an editor's input sink is told apart: editorSink). One with
// a rendered label is operated through it (the click goes to the label: _ELEMENT_INFO), so it stays.
function unseenControl(c,t,cs){if(t!=='input'&&t!=='textarea'&&t!=='select')return false;
 var r=c.getBoundingClientRect();return !(r.width>=4&&r.height>=4&&!clippedAway(cs))&&!shownLabel(c);}
function dropPadding(w,accs){var same=false;
 for(var q=w.i+1;q<elements.length&&!same;q++){var d=elements[q],de=refGet(+d.ref.slice(1));
  same=(!!d.name&&d.name===w.el.name)||(!!de&&w.a>0&&area(de)*2>=w.a);}
 if(same)dropEl(w.i,w.ci-1,accs);}
// takes back the elements whose refs are in `gone`: their sigs and bytes, and their refs from the
// content entries from index ci on and from the accumulators still open (whose refs become an
// entry's `e` when they close: removed in place, as the two may be one array)
function unref(rs,gone){for(var k=rs.length-1;k>=0;k--)if(gone.has(rs[k]))rs.splice(k,1);}
function dropRefs(gone,ci,accs){
 var w=0;for(var j=0;j<elements.length;j++){var d=elements[j];if(gone.has(d.ref)){elBytes-=JSON.stringify(d).length+1;continue;}
  elements[w]=d;sigs[w]=sigs[j];lows[w]=lows[j];w++;}
 elements.length=sigs.length=lows.length=w;
 for(var q=Math.max(0,ci);q<content.length;q++){var e=content[q].e;if(e){unref(e,gone);if(!e.length)delete content[q].e;}}
 for(var j2=0;j2<accs.length;j2++){var a=accs[j2],rs=a&&a.refs;if(rs){unref(rs,gone);if(!rs.length){a.refs=null;if(a.e&&a.e.e===rs)delete a.e.e;}}}}
function dropEl(i,ci,accs){dropRefs(new Set([elements[i].ref]),ci,accs);}
// Over the bytes bound, which elements go: first those out of view in a navigation or
// complementary landmark (a sidebar listing every page of a manual: 3,676 links on a rustdoc
// page pushed out the links and buttons of the page's own text), from the end; then any, from
// the end. Each is counted as omitted.
function lowEl(c,parts){for(var i=0;i<parts.length;i++){var p=parts[i];if(p.indexOf('navigation')===0||p.indexOf('complementary')===0){
 var r=c.getBoundingClientRect();return r.bottom<0||r.right<0||r.top>=vh||r.left>=vw;}}return false;}
function keepEls(){if(elBytes<=MAXEB)return;var gone=new Set(),left=elBytes;
 for(var pass=0;pass<2;pass++)for(var i=elements.length-1;i>=0&&left>MAXEB;i--){var d=elements[i];
  if(!gone.has(d.ref)&&(pass||lows[i])){gone.add(d.ref);left-=JSON.stringify(d).length+1;omitted++;}}
 dropRefs(gone,0,[]);}
// A widget's own anchor (jQuery UI's tabs: li role=tab > a href="#panel") is no second target:
// a link inside a tab, menu item, option or tree item, with its name, that only points into the
// page (or runs script). A link to another page keeps its ref: where it goes is worth knowing.
var ANCHORED={tab:1,menuitem:1,menuitemcheckbox:1,menuitemradio:1,option:1,treeitem:1};
function dropAnchors(w,accs){var here=location.href.split('#')[0];
 for(var q=elements.length-1;q>w.i;q--){var d=elements[q];
  if(d.role!=='link'||!w.name||d.name!==w.name)continue;
  if(d.dest!==undefined&&!(d.dest.indexOf('#')>=0&&d.dest.split('#')[0]===here))continue;
  dropEl(q,w.ci-1,accs);}}
function valueOf(c,role){var t=c.localName;
 if(t==='input'){var ty=(c.getAttribute('type')||'text').toLowerCase();if(ty==='checkbox'||ty==='radio'||ty==='button'||ty==='submit'||ty==='reset'||ty==='image'||ty==='file')return ty==='file'&&c.files&&c.files.length?c.files[0].name:'';
  if(ty==='password')return c.value?'\u2022\u2022\u2022\u2022':'';return c.value;}
 if(t==='textarea')return c.value;
 if(t==='select'){var so=c.selectedOptions,out=[];for(var i=0;i<so.length;i++)out.push(so[i].value);return out.join(', ');}
 var vt=c.getAttribute('aria-valuetext')||c.getAttribute('aria-valuenow');if(vt)return vt;
 // a combobox built of other elements (a select replacement) shows its value as its text
 if(role==='combobox')return sq(textOf(c,0));
 // an editor's caret fillers (CKEditor leaves runs of U+200B around a caret it styled) are no
 // text of the document
 if(c.isContentEditable&&role==='textbox')return sq((c.innerText||'').replace(/[\u200b\ufeff\u2060]/g,''));
 return '';}
function userInvalid(c){try{return c.matches(':user-invalid');}catch(e){return false;}}
function statesOf(c,role){var s=[],a=function(n){return c.getAttribute(n);};
 if(disabledOf(c))s.push('disabled');
 var ty=c.localName==='input'?(a('type')||'').toLowerCase():'';
 if(ty==='checkbox'||ty==='radio'){if(c.indeterminate)s.push('mixed');else if(c.checked)s.push('checked');}
 else{var ac=a('aria-checked');if(ac==='true')s.push('checked');else if(ac==='mixed')s.push('mixed');}
 var ae=a('aria-expanded');if(ae==='true')s.push('expanded');else if(ae==='false')s.push('collapsed');
 else if(c.localName==='summary'&&c.parentElement&&c.parentElement.localName==='details')s.push(c.parentElement.open?'expanded':'collapsed');
 if(a('aria-selected')==='true'||(c.localName==='option'&&c.selected))s.push('selected');
 if(a('aria-pressed')==='true')s.push('pressed');
 if(c.required||a('aria-required')==='true')s.push('required');
 // what a person sees as a field in error: aria-invalid, the browser's own check once the field
 // was edited or its form submitted (:user-invalid), or a form marked checked the Bootstrap way
 var ai=a('aria-invalid');if((ai&&ai!=='false')||(c.willValidate&&!c.validity.valid&&(userInvalid(c)||!!(c.form&&c.form.classList.contains('was-validated')))))s.push('invalid');
 if(((c.localName==='input'||c.localName==='textarea')&&c.readOnly)||a('aria-readonly')==='true')s.push('readonly');
 if(c===active)s.push('focused');
 return s;}
// A modal layer (docs/observations.md "Modal layers"): an open modal <dialog> makes the rest
// of the document inert; a box fixed (or absolute) over the whole viewport, hit at its four
// corners (a modal's backdrop), covers what is painted below it. The boxes beside the layer's
// ancestry that are below it (inert, or not hit at a point of theirs in view) are BLK: their
// elements get no ref (no click reaches them until the layer closes); their text stays.
var BLK=new Set(),blocked=false;
function within(a,h){for(var k=0;h&&k<400;k++){if(h===a)return true;h=h.parentNode||h.host||null;}return false;}
function cover(){var dw=document.documentElement.clientWidth||vw,dh=document.documentElement.clientHeight||vh,O=null,
 pts=[[6,6],[dw-6,6],[6,dh-6],[dw-6,dh-6]];
 for(var i=0;i<4;i++){var h=hitAt(pts[i][0],pts[i][1]);if(!h)return null;if(O){if(!within(O,h))return null;continue;}
  for(var a=h,k=0;a&&k<200&&a!==document.body&&a!==document.documentElement;k++){if(a.nodeType===1){var ps=csOf(a).position;
   if(ps==='fixed'||ps==='absolute'){var ar=a.getBoundingClientRect();if(ar.left<=1&&ar.top<=1&&ar.right>=dw-1&&ar.bottom>=dh-1){O=a;break;}}}
   a=a.parentNode||a.host||null;}
  if(!O)return null;}
 return O;}
function below(sb,O,inert){if(inert)return true;var r=sb.getBoundingClientRect(),x0=Math.max(r.left,0),y0=Math.max(r.top,0),x1=Math.min(r.right,vw),y1=Math.min(r.bottom,vh);
 if(x1-x0<1||y1-y0<1)return csOf(O).position==='fixed';var h=hitAt((x0+x1)/2,(y0+y1)/2);return !h||!within(sb,h);}
(function(){var O=null,inert=false;
 try{var ms=document.querySelectorAll('dialog:modal');if(ms.length){O=ms[ms.length-1];inert=true;}}catch(e){}
 if(!O)O=cover();if(!O)return;
 for(var n=O,k=0;n&&k<200;k++){var par=n.parentNode;if(!par||par.nodeType===9)break;
  for(var sb=par.firstElementChild||(par.children&&par.children[0]);sb;sb=sb.nextElementSibling){
   if(sb===n||sb.localName==='script'||sb.localName==='style'||sb.localName==='head')continue;if(below(sb,O,inert))BLK.add(sb);}
  n=par.host||par;if(n===document.documentElement)break;}
})();
var body=document.body||document.documentElement;
if(body)node(body,ROOTP,true,false,null,0);
if(acc){closeAcc(acc);acc=null;}
keepEls();
if(!B.pre&&content.length+elements.length>MAXE){var keep=Math.max(0,MAXE-elements.length);omitted+=content.length-keep;content.length=keep;}
if(stopV){var total=document.getElementsByTagName('*').length;omitted+=Math.max(1,total-MAXV);}
S.last={ct:content,el:elements,pr:PR};
var de=document.documentElement;
return JSON.stringify({key:KEY,u:location.href,ti:document.title||'',
 vp:[Math.round(scrollX),Math.round(scrollY),vw,vh],
 dc:[Math.max(de?de.scrollWidth:0,document.body?document.body.scrollWidth:0),Math.max(de?de.scrollHeight:0,document.body?document.body.scrollHeight:0)],
 cx:ctxs,ct:content,el:elements,sg:sigs,om:omitted,cl:clipped,
 fid:S.id,fr:slots,vs:Math.min(visited,MAXV),ub:bytes,ueb:elBytes,
 np:window.top!==window?null:$DETECT});
})
