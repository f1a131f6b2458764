# ruff: noqa: E501
"""The observation scripts (docs/observations.md), run in the isolated world
(ScriptWorldId.ApplicationWorld): read-only (no DOM mutation, no page script called), bounded,
each returning one JSON string.

The isolated world keeps, per document, a private registry `__svcObs`: element -> ref number
(stable within the document) and ref number -> WeakRef(element). It lives in the isolated world's
own global, invisible to the page; the numbers and signatures it gives back stay in the host.
`gen` goes up when the document's root element was replaced in place (document.open, a new
documentElement), so the host can tell `document_replaced` from `navigated` (another timeOrigin).

Frames: the scripts run in each frame's own isolated world, so each document (the main frame's and
every iframe's) has its own registry; its random `id` lets the host find the frame holding it
again. A document reports its rendered iframes as slots (observe's `fr`) and a placeholder content
entry `{k:'frame', f:<slot number>}` where the frame's content goes (host_app/logic/frames.py).
Geometry is in the document's own viewport; the host adds the frames' offsets.
"""

from __future__ import annotations

import json

from .logic.person import DETECT_JS

_COMMON = r"""
var W=window,S=W.__svcObs;
if(!S){S=W.__svcObs={gen:1,root:document.documentElement,n2e:new Map(),e2n:new WeakMap(),next:1,id:performance.timeOrigin+':'+Math.random().toString(36).slice(2)};}
if(S.root!==document.documentElement){S.gen++;S.root=document.documentElement;S.n2e=new Map();S.e2n=new WeakMap();}
var KEY=[performance.timeOrigin,S.gen];
var ENC=new TextEncoder(),DEC=new TextDecoder();
var LIM=2048;
function sq(s){return s.replace(/\s+/g,' ').trim();}
function csOf(el){var v=el.ownerDocument.defaultView||W;return v.getComputedStyle(el);}
var ROLE_INPUT={button:'button',submit:'button',reset:'button',image:'button',checkbox:'checkbox',radio:'radio',range:'slider',number:'spinbutton',search:'searchbox',file:'button',color:'button'};
var INTERACTIVE_ROLES={button:1,link:1,checkbox:1,radio:1,textbox:1,searchbox:1,combobox:1,listbox:1,option:1,slider:1,spinbutton:1,'switch':1,tab:1,menuitem:1,menuitemcheckbox:1,menuitemradio:1,treeitem:1,scrollbar:1};
var NAME_FROM_CONTENT={clickable:1,button:1,link:1,checkbox:1,radio:1,option:1,tab:1,menuitem:1,menuitemcheckbox:1,menuitemradio:1,treeitem:1,'switch':1,heading:1,cell:1,gridcell:1,columnheader:1,rowheader:1,row:1,tooltip:1};
// DPUB-ARIA's link subclasses (Sphinx marks footnote and back links with them): links
var DPUB_LINK={'doc-backlink':1,'doc-noteref':1,'doc-biblioref':1,'doc-glossref':1};
function roleOf(el,xr){
 var r=xr===undefined?explicitRole(el):xr;if(r)return r==='none'?'generic':r;
 var t=el.localName;
 if(t==='a'||t==='area')return el.hasAttribute('href')?'link':'';
 if(t==='button'||t==='summary')return 'button';
 if(t==='input'){var ty=(el.getAttribute('type')||'text').toLowerCase();if(ty==='hidden')return '';
  if(ty==='checkbox'&&el.hasAttribute('switch'))return 'switch';
  if(ROLE_INPUT[ty])return ROLE_INPUT[ty];return el.hasAttribute('list')?'combobox':'textbox';}
 if(t==='select')return (el.multiple||el.size>1)?'listbox':'combobox';
 if(t==='textarea')return 'textbox';
 if(t==='option')return 'option';
 if(/^h[1-6]$/.test(t))return 'heading';
 if(el.isContentEditable&&(!el.parentElement||!el.parentElement.isContentEditable))return 'textbox';
 return '';}
// disabled: the control's own state, or aria-disabled on it or an ancestor (ARIA applies it to
// the descendants: a menu item inside a disabled list item)
function disabledOf(el){if((el.matches&&el.matches(':disabled'))||(el.closest&&el.closest('[aria-disabled="true"]')))return true;
 // a link or button put out of the pointer's reach takes no click (Bootstrap's .disabled is
 // pointer-events: none; a click there goes to what is under it)
 var t=el.localName;return (t==='a'||t==='button')&&csOf(el).pointerEvents==='none';}
// `clip: rect()` that leaves nothing (the visually-hidden recipes: rect(0 0 0 0), rect(1px 1px
// 1px 1px)); other clips are rare on controls
function clippedAway(cs){var m=/^rect\(([-\d.]+)px,? ([-\d.]+)px,? ([-\d.]+)px,? ([-\d.]+)px\)$/.exec(cs.clip||'');
 return !!m&&(+m[3]<=+m[1]||+m[2]<=+m[4]);}
// the first of a control's labels that is rendered (4 px or more each way): a person sees and
// clicks that one when the control itself is hidden from the eye
function shownLabel(el){var ls=el.labels;if(ls)for(var i=0;i<ls.length;i++){var r=ls[i].getBoundingClientRect();if(r.width>=4&&r.height>=4)return ls[i];}return null;}
// A code editor's input sink (CodeMirror 5, Ace: a hidden textarea; Monaco: an EditContext box):
// the editor reads its keys from it; a person types into it by clicking the editor around it.
// Told from a bot trap (a hidden field a form submits, an input mostly) by being a textarea or an
// EditContext box with no name that takes Tab focus, inside a box a person sees (4 levels up):
// that box, else null. Only a sink hidden from the eye is one (a visible textarea is itself).
function editorSink(el,t,cs){if(!(t==='textarea'||el.editContext)||el.getAttribute('name')||el.tabIndex<0)return null;
 var r=el.getBoundingClientRect(),pa=el.parentElement;if(!pa)return null;var pr=pa.getBoundingClientRect(),pcs=csOf(pa);
 if(!(r.width<4||r.height<4||clippedAway(cs)||+cs.opacity===0||((pr.width===0||pr.height===0)&&pcs.overflow!=='visible')))return null;
 for(var p=pa,k=0;p&&k<4;k++,p=p.parentElement){var b=p.getBoundingClientRect();if(b.width>=40&&b.height>=16)return p;}
 return null;}
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
// Roles (WAI-ARIA 1.2/1.3, HTML-AAM): the first valid token of `role` (abstract and unknown
// tokens fall back to the next one, then to the element's own role); `none`/`presentation` on an
// element that takes focus or carries a global aria-* property is ignored (ARIA's conflict rule)
var ROLES={};('alert alertdialog application article banner blockquote button caption cell checkbox code columnheader combobox comment complementary contentinfo definition deletion dialog document emphasis feed figure form generic grid gridcell group heading img insertion link list listbox listitem log main mark marquee math menu menubar menuitem menuitemcheckbox menuitemradio meter navigation none note option paragraph presentation progressbar radio radiogroup region row rowgroup rowheader scrollbar search searchbox sectionfooter sectionheader separator slider spinbutton status strong subscript suggestion superscript switch tab table tablist tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem').split(' ').forEach(function(r){ROLES[r]=1;});
var ROLE_SYN={image:'img',directory:'list'};
var GLOBAL_ARIA=['aria-label','aria-labelledby','aria-describedby','aria-description','aria-details','aria-controls','aria-owns','aria-live','aria-relevant','aria-atomic','aria-busy','aria-keyshortcuts','aria-roledescription','aria-flowto','aria-dropeffect','aria-grabbed','aria-errormessage','aria-braillelabel','aria-brailleroledescription'];
function takesFocus(el){if(el.hasAttribute('tabindex'))return true;var t=el.localName;
 return (t==='a'||t==='area')&&el.hasAttribute('href')||((t==='button'||t==='input'||t==='select'||t==='textarea')&&!el.disabled)||t==='summary'||el.isContentEditable&&(!el.parentElement||!el.parentElement.isContentEditable);}
function hasGlobalAria(el){for(var i=0;i<GLOBAL_ARIA.length;i++)if(el.hasAttribute(GLOBAL_ARIA[i]))return true;return false;}
// the explicit role: a valid token, `none` when presentational, '' when there is none
function explicitRole(el){var v=el.getAttribute('role');if(!v)return '';var ts=v.trim().toLowerCase().split(/\s+/);
 for(var i=0;i<ts.length;i++){var r=ROLE_SYN[ts[i]]||ts[i];if(DPUB_LINK[r])return 'link';if(!ROLES[r])continue;
  if(r==='none'||r==='presentation')return takesFocus(el)||hasGlobalAria(el)?'':'none';
  // an unnamed region or form is no landmark; an element of a role of its own (a nav, a
  // button) given an item's role outside the widget it belongs to keeps its own
  if((r==='region'||r==='form')&&!authorNamed(el))continue;
  if(OWNED_BY[r]&&implicitRole(el)&&!ownedBy(el,OWNED_BY[r]))continue;
  return r;}
 return '';}
var OWNED_BY={option:{listbox:1,group:1,combobox:1},menuitem:{menu:1,menubar:1,group:1},menuitemcheckbox:{menu:1,menubar:1,group:1},menuitemradio:{menu:1,menubar:1,group:1},treeitem:{tree:1,group:1},tab:{tablist:1},listitem:{list:1,group:1}};
function ownedBy(el,ok){for(var p=el.parentElement,k=0;p&&k<30;k++,p=p.parentElement){var r=explicitRole(p)||(p.localName==='select'||p.localName==='datalist'?'listbox':implicitRole(p));
  if(ok[r])return true;if(r&&r!=='none'&&r!=='generic')return false;}return false;}
// the roles an element has by itself (HTML-AAM); '' for none of its own (generic text)
var TAG_ROLE={article:'article',blockquote:'blockquote',button:'button',caption:'caption',code:'code',datalist:'listbox',dd:'definition',del:'deletion',s:'deletion',details:'group',dfn:'term',dialog:'dialog',dir:'list',dt:'term',em:'emphasis',fieldset:'group',figure:'figure',hgroup:'group',address:'group',hr:'separator',ins:'insertion',main:'main',mark:'mark',math:'math',menu:'list',meter:'meter',nav:'navigation',ol:'list',ul:'list',optgroup:'group',option:'option',output:'status',p:'paragraph',progress:'progressbar',search:'search',strong:'strong',sub:'subscript',sup:'superscript',summary:'button',table:'table',tbody:'rowgroup',thead:'rowgroup',tfoot:'rowgroup',textarea:'textbox',time:'time',tr:'row',h1:'heading',h2:'heading',h3:'heading',h4:'heading',h5:'heading',h6:'heading',html:'document'};
var SECTIONING={article:1,aside:1,main:1,nav:1,section:1};
// inside sectioning content (main counts for header and footer, not for aside: HTML-AAM)
function inSectioning(el,main){for(var p=el.parentElement;p;p=p.parentElement){var ln=p.localName;if(SECTIONING[ln]&&(main||ln!=='main'))return true;var r=explicitRole(p);if(r==='article'||r==='complementary'||(main&&r==='main')||r==='navigation'||r==='region')return true;}return false;}
function authorNamed(el){return !!(sq(el.getAttribute('aria-label')||'')||(el.getAttribute('aria-labelledby')||'').trim()||sq(el.getAttribute('title')||''));}
function implicitRole(el){var t=el.localName,r=TAG_ROLE[t];if(r)return r;
 if(t==='a'||t==='area')return el.hasAttribute('href')?'link':'';
 if(t==='input'){var ty=(el.getAttribute('type')||'text').toLowerCase();if(ty==='hidden')return '';
  if(ty==='checkbox'&&el.hasAttribute('switch'))return 'switch';
  if(ROLE_INPUT[ty])return (ty==='search'&&el.hasAttribute('list'))?'combobox':ROLE_INPUT[ty];return el.hasAttribute('list')?'combobox':'textbox';}
 if(t==='select')return (el.multiple||el.size>1)?'listbox':'combobox';
 if(t==='img')return el.getAttribute('alt')===''&&!hasGlobalAria(el)&&!el.hasAttribute('title')?'none':'img';
 if(t==='svg')return 'img';
 if(t==='li'){var pa=el.parentElement;return pa&&(explicitRole(pa)||implicitRole(pa))==='list'?'listitem':'';}
 if(t==='aside')return !inSectioning(el,false)||authorNamed(el)?'complementary':'';
 if(t==='header')return inSectioning(el,true)?'':'banner';
 if(t==='footer')return inSectioning(el,true)?'':'contentinfo';
 if(t==='section')return authorNamed(el)?'region':'';
 if(t==='form')return 'form';
 if(t==='td'||t==='th'){var tb=el.closest('table'),gr=tb?explicitRole(tb):'';
  if(t==='td')return gr==='grid'||gr==='treegrid'?'gridcell':'cell';
  var sc=(el.getAttribute('scope')||'').toLowerCase();if(sc==='row'||sc==='rowgroup')return 'rowheader';if(sc==='col'||sc==='colgroup')return 'columnheader';
  // a th in a row of data cells heads that row; elsewhere (a header row, thead) its column
  var row=el.parentElement;if(row&&!(row.parentElement&&row.parentElement.localName==='thead')){for(var k=0;k<row.children.length;k++)if(row.children[k].localName==='td')return 'rowheader';}
  return 'columnheader';}
 if(el.isContentEditable&&(!el.parentElement||!el.parentElement.isContentEditable))return 'textbox';
 return '';}
// the computed role: explicit, else implicit; '' for generic (and `none`)
function ariaRole(el,xr){var r=xr===undefined?explicitRole(el):xr;if(r==='none'||r==='generic')return '';return r||implicitRole(el);}
// Accessible names (Accessible Name and Description Computation 1.2, HTML-AAM), steps 2A-2I:
// hidden nodes (unless the aria-labelledby target itself was hidden), aria-labelledby (hidden
// targets included), embedded controls' values inside another's name, aria-label, the host
// language's label (label, alt, legend, caption, figcaption...), name from content with CSS
// generated text, then the tooltip (title) and a field's placeholder.
var NFC={button:1,cell:1,checkbox:1,columnheader:1,gridcell:1,heading:1,link:1,menuitem:1,menuitemcheckbox:1,menuitemradio:1,option:1,radio:1,row:1,rowheader:1,switch:1,tab:1,tooltip:1,treeitem:1,sectionheader:1,sectionfooter:1,comment:1,suggestion:1,term:1};
// roles that take no name (ARIA prohibits it)
var NO_NAME={caption:1,code:1,deletion:1,emphasis:1,generic:1,insertion:1,paragraph:1,presentation:1,none:1,strong:1,subscript:1,superscript:1,mark:1,time:1,'':1};
var TEXT_INPUT={text:1,search:1,url:1,tel:1,email:1,password:1,number:1,date:1,'datetime-local':1,month:1,time:1,week:1,'':1};
function hiddenNode(el){if(el.hidden&&csOf(el).display==='none')return true;if(el.getAttribute('aria-hidden')==='true')return true;var cs=csOf(el);return cs.display==='none'||cs.contentVisibility==='hidden';}
// hidden in the page: itself or an ancestor (for an aria-labelledby target)
function hiddenUp(el){for(var p=el,k=0;p&&p.nodeType===1&&k<200;k++){if(p.getAttribute('aria-hidden')==='true'||csOf(p).display==='none')return true;p=p.parentElement||(p.parentNode&&p.parentNode.host)||null;}
 return csOf(el).visibility!=='visible';}
function controlValue(el,r){var t=el.localName;
 if(r==='textbox'||r==='searchbox'){if(t==='input'||t==='textarea')return el.value;return el.textContent||'';}
 if(r==='combobox'||r==='listbox'){if(t==='select'){var so=el.selectedOptions,o=[];for(var i=0;i<so.length;i++)o.push(so[i].textContent);return o.join(' ');}
  if(t==='input')return el.value;
  var sel=el.querySelectorAll('[aria-selected="true"]');if(sel.length){var o2=[];for(var j=0;j<sel.length;j++)o2.push(sel[j].textContent);return o2.join(' ');}
  return r==='combobox'?(el.textContent||''):'';}
 if(r==='slider'||r==='spinbutton'||r==='progressbar'||r==='scrollbar'||r==='meter'){var vt=el.getAttribute('aria-valuetext');if(vt)return vt;var vn=el.getAttribute('aria-valuenow');if(vn)return vn;
  if('value' in el&&el.value!=null&&(t==='input'||t==='progress'||t==='meter'))return String(el.value);return '';}
 return null;}
var EMBEDDED={textbox:1,searchbox:1,combobox:1,listbox:1,slider:1,spinbutton:1,progressbar:1,scrollbar:1,meter:1};
// CSS generated text of ::before/::after: its strings and attr() values, or its alternative
// after "/" (counters and images give no text)
function pseudoText(el,which){var cs;try{cs=(el.ownerDocument.defaultView||W).getComputedStyle(el,which);}catch(e){return '';}
 var c=cs.content;if(!c||c==='none'||c==='normal'||cs.display==='none')return '';
 var m=/^(.*?)\s\/\s(.*)$/.exec(c);var src=m?m[2]:c,out='',re=/"((?:[^"\\]|\\.)*)"|attr\(\s*([\w-]+)\s*\)/g,x;
 while((x=re.exec(src))){out+=x[1]!==undefined?x[1].replace(/\\(.)/g,'$1'):(el.getAttribute(x[2])||'');}
 if(!out)return '';var inl=cs.display.indexOf('inline')===0;return inl?out:' '+out+' ';}
// text as CSS draws it: a person reads "COPY" where the markup says "copy"
function drawn(s,tt){return tt==='uppercase'?s.toUpperCase():tt==='lowercase'?s.toLowerCase():tt==='capitalize'?s.replace(/(^|[^\w'])(\w)/g,function(m,a,b){return a+b.toUpperCase();}):s;}
function firstChild(el,tag){for(var c=el.firstElementChild;c;c=c.nextElementSibling)if(c.localName===tag)return c;return null;}
// bounded: a name reads at most NAME_DEPTH levels down and NAME_NODES elements (a link around a
// page's worth of nested boxes, or nesting deep enough to overflow the stack, fails nothing)
var NAME_DEPTH=64,NAME_NODES=4000;
function accName(el,nfc){return sq(accText(el,{root:el,lb:false,hid:false,seen:new Set(),nfc:!!nfc,b:{n:0}},false));}
function accText(n,C,rec){
 if(n.nodeType===3){var pe=n.parentElement;if(!pe)return n.data;var ps=csOf(pe);if(!C.hid&&ps.visibility!=='visible')return '';
  // the text as it is drawn (text-transform), as a reader hears it
  return drawn(n.data,ps.textTransform);}
 if(n.nodeType!==1)return '';
 var el=n,t=el.localName;if(t==='script'||t==='style'||t==='template'||t==='noscript')return '';
 if(C.seen.has(el)||C.seen.size>=NAME_DEPTH||++C.b.n>NAME_NODES)return '';
 // 2A
 if(!C.hid&&hiddenNode(el))return '';
 C.seen.add(el);try{
 var r=explicitRole(el),role=r==='none'?'':(r||implicitRole(el));
 // 2B
 if(!C.lb){var ids=(el.getAttribute('aria-labelledby')||'').trim();if(ids){var ps=ids.split(/\s+/),out=[];
  for(var i=0;i<ps.length;i++){var ref=byId(el,ps[i]);if(!ref)continue;
   var sub={root:C.root,lb:true,hid:C.hid||hiddenUp(ref),seen:new Set(),b:C.b};
   // a node naming itself gives its own aria-label or content, not its labelledby again
   out.push(accText(ref,sub,true));}
  var lbt=sq(out.join(' '));if(lbt)return lbt;}}
 // 2C: a control inside another's name gives its value
 if(rec&&EMBEDDED[role]&&el!==C.root){var cv=controlValue(el,role);if(cv!=null)return cv;}
 // 2D
 var al=el.getAttribute('aria-label');if(al&&al.trim())return al;
 // 2E: the host language
 if(r!=='none'||C.lb){var nat=nativeName(el,t,role,C);if(nat)return nat;}
 if(t==='img'&&el.getAttribute('alt')===''&&r!=='img')return '';
 // 2F: name from content
 var s='';if(rec||NFC[role]||C.lb||(el===C.root&&C.nfc)){s=contentText(el,C);if(sq(s))return s;}
 // 2I: the tooltip
 var ti=el.getAttribute('title');if(ti&&ti.trim())return ti;
 if(t==='input'||t==='textarea'){var ph=el.getAttribute('placeholder');if(ph&&ph.trim())return ph;}
 // an image a figure's caption alone describes takes its name from it (HTML-AAM)
 if(t==='img'&&!el.hasAttribute('alt')){var fg=el.parentElement,fc=fg&&fg.localName==='figure'?firstChild(fg,'figcaption'):null;
  if(fc&&fg.children.length===2&&!sq(Array.prototype.filter.call(fg.childNodes,function(k){return k.nodeType===3;}).map(function(k){return k.data;}).join('')))return contentText(fc,C);}
 // inside another's name, blanks between words count (a space in nested spans)
 return rec?s:'';}finally{C.seen.delete(el);}}
function contentText(el,C){var out=pseudoText(el,'::before');
 var kids=el.shadowRoot?el.shadowRoot.childNodes:el.childNodes;
 for(var i=0;i<kids.length&&out.length<=LIM&&C.b.n<=NAME_NODES;i++){var c=kids[i];
  if(c.nodeType===1&&c.localName==='slot'){var as=c.assignedNodes();var list=as.length?as:c.childNodes;for(var j=0;j<list.length;j++)out+=childText(list[j],C);continue;}
  out+=childText(c,C);}
 return out+pseudoText(el,'::after');}
function childText(c,C){if(c.nodeType!==1)return accText(c,C,true);
 if(c.localName==='br')return ' ';
 var d;try{d=csOf(c).display;}catch(e){d='inline';}var s=accText(c,C,true);
 return d.indexOf('inline')===0&&d!=='inline-block'&&d!=='inline-flex'&&d!=='inline-grid'?s:' '+s+' ';}
function labelsText(el,C){var ls=el.labels,o=[];if(!ls||!ls.length)return '';
 for(var i=0;i<ls.length;i++){var lb=ls[i];
  // a label drawn as an icon names its control by its own aria-label or title (CKEditor)
  var s=sq(contentText(lb,C))||sq(lb.getAttribute('aria-label')||'')||sq(lb.getAttribute('title')||'');if(s)o.push(s);}
 return o.join(' ');}
function nativeName(el,t,role,C){var ty,s;
 if(t==='input'){ty=(el.getAttribute('type')||'text').toLowerCase();
  if(ty==='image'){s=labelsText(el,C);return s||el.getAttribute('alt')||el.getAttribute('value')||el.getAttribute('title')||'Submit';}
  if(ty==='button'||ty==='submit'||ty==='reset'){s=labelsText(el,C);if(sq(s))return s;if(el.hasAttribute('value'))return el.value;return ty==='submit'?'Submit':ty==='reset'?'Reset':'';}
  return labelsText(el,C);}
 if(t==='select'||t==='textarea'||t==='meter'||t==='progress'||t==='output'||t==='button')return labelsText(el,C);
 if(t==='img'||t==='area')return el.getAttribute('alt')||'';
 if(t==='fieldset'){var lg=firstChild(el,'legend');return lg?contentText(lg,C):'';}
 if(t==='table'){var cp=el.caption;return cp?contentText(cp,C):'';}
 if(t==='optgroup')return el.getAttribute('label')||'';
 if(t==='iframe'||t==='frame')return el.getAttribute('title')||'';
 if(t==='svg'){var st=firstChild(el,'title');return st?st.textContent:'';}
 return '';}
function nameOf(el,role){
 var t=el.localName,n=accName(el,NAME_FROM_CONTENT[role]||t==='summary');if(n)return n;
 // a <label for> pointing at a control built of other elements (a select replacement moves
 // the native select's label to it): the name a person reads next to it
 if(el.id&&!LABELABLE[t]){var rt=el.getRootNode(),lb=rt.querySelector?rt.querySelector('label[for="'+CSS.escape(el.id)+'"]'):null;if(lb){n=sq(contentText(lb,{root:el,lb:false,hid:false,seen:new Set([el]),b:{n:0}}));if(n)return n;}}
 return '';}
var LABELABLE={input:1,select:1,textarea:1,meter:1,progress:1,output:1,button:1};
// Clickable without an interactive role (docs/decisions.md "What the user can click"): the
// isolated world sees no listener (el.onclick and addEventListener are per world), so the cues are
// the DOM's and the style's: a handler attribute, tabindex >= 0 (not on scroll regions or
// structural containers), an <a> without href that is no in-page target, aria-haspopup /
// aria-pressed, and a pointer cursor its parent does not have (an inherited pointer is no new
// target). Pointer and anchor cues count only outside other refs.
var CLICK_ATTRS={onclick:1,onmousedown:1,onmouseup:1,onpointerdown:1,onpointerup:1,ondblclick:1,ontouchstart:1,'aria-haspopup':2,'aria-pressed':1,tabindex:3};
var NO_CLICK={html:1,body:1,iframe:1,frame:1,option:1,optgroup:1,br:1,area:1,slot:1};
var CONTAINER_ROLES={region:1,dialog:1,alertdialog:1,document:1,main:1,navigation:1,complementary:1,banner:1,contentinfo:1,form:1,search:1,table:1,grid:1,tree:1,treegrid:1,list:1,tabpanel:1,group:1,log:1,article:1,application:1,feed:1,figure:1,menu:1,menubar:1,tablist:1,toolbar:1,radiogroup:1};
// the same containers by their implicit roles (list, table, form, group, landmarks, dialog,
// article): a widget's list that takes focus to move it among its items (jQuery UI's
// autocomplete) is no target of its own, its items are
var CONTAINER_TAGS={ul:1,ol:1,menu:1,dl:1,table:1,tbody:1,thead:1,tfoot:1,form:1,fieldset:1,nav:1,main:1,aside:1,header:1,footer:1,dialog:1,section:1,article:1};
var CUR=new WeakMap(); // element -> cursor its children compare theirs with
function parentCursor(el){var p=el.assignedSlot||el.parentElement||(el.parentNode&&el.parentNode.host)||null;if(!p)return 'auto';
 var c=CUR.get(p);if(c===undefined){try{c=csOf(p).cursor;}catch(e){c='auto';}}return c;}
function sized(el){var r=el.getBoundingClientRect();return r.width>0&&r.height>0;}
function clickCue(el,role,cs,inEl){
 var t=el.localName;if(NO_CLICK[t])return false;
 if(t==='label'&&el.control)return false;
 // one pass over the element's own attributes (mostly none or a class) instead of a lookup per cue
 // aria-pressed and tabindex on a shadow host are weak cues: a web component's button
 // (JupyterLab's <jp-button>) hands them to the <button> in its shadow root, the one target
 var aria=false,at=el.attributes;for(var i=0;i<at.length;i++){var k=CLICK_ATTRS[at[i].name];if(!k)continue;
  if(k===1){if(el.shadowRoot&&at[i].name==='aria-pressed'){aria=true;continue;}return true;}if(k===2){if(at[i].value!=='false')return true;continue;}
  if(el.tabIndex>=0&&t!=='pre'&&!CONTAINER_ROLES[role]&&!(role===''&&CONTAINER_TAGS[t])){var o=cs.overflow;if(o.indexOf('auto')<0&&o.indexOf('scroll')<0){if(el.shadowRoot){aria=true;continue;}return true;}}}
 if(aria)return WEAK;
 if(inEl)return false;
 if(t==='a'&&!el.hasAttribute('name')&&!el.hasAttribute('id')&&sized(el)&&!drawsNothing(el,cs))return WEAK;
 if(cs.cursor==='pointer'&&parentCursor(el)!=='pointer'&&!CONTAINER_ROLES[role]){if(sized(el)&&!drawsNothing(el,cs))return WEAK;CUR.set(el,'auto');}
 return false;}
// A look-only cue on a box that shows nothing is a spacer, no target (Doxygen's tree gives every
// leaf row an indent of `&nbsp;` in a pointer-styled span): no child element, no text but blanks,
// no ::before/::after, no background, border or shadow, no name; replaced elements, custom
// elements and shadow hosts draw what this cannot see
var DRAWN={img:1,svg:1,canvas:1,video:1,audio:1,picture:1,object:1,embed:1,input:1,select:1,textarea:1,button:1,meter:1,progress:1,math:1};
function clearColor(c){return c==='transparent'||/^rgba\(.*,\s*0\)$/.test(c);}
function pseudoDrawn(el,which){try{var c=(el.ownerDocument.defaultView||W).getComputedStyle(el,which).content;return !!c&&c!=='none'&&c!=='normal';}catch(e){return true;}}
function drawsNothing(el,cs){
 var t=el.localName;if(DRAWN[t]||t.indexOf('-')>=0||el.shadowRoot||el.firstElementChild)return false;
 if(/[^\s\u00a0\u200b\ufeff]/.test(el.textContent||''))return false;
 if(cs.backgroundImage!=='none'||!clearColor(cs.backgroundColor)||cs.boxShadow!=='none')return false;
 var sides=['Top','Right','Bottom','Left'];
 for(var i=0;i<4;i++){var s=sides[i];if(parseFloat(cs['border'+s+'Width'])>0&&cs['border'+s+'Style']!=='none'&&cs['border'+s+'Style']!=='hidden'&&!clearColor(cs['border'+s+'Color']))return false;}
 if(el.hasAttribute('aria-label')||el.hasAttribute('title')||el.hasAttribute('aria-labelledby'))return false;
 return !pseudoDrawn(el,'::before')&&!pseudoDrawn(el,'::after');}
// the cues only of the look (a pointer cursor, an anchor without href): such a box around a ref
// that is the same target (same name, or filling half its box) is that ref's padding
var WEAK=2;
// the role an element's ref gets: its own interactive role, else `clickable`
function refRole(role){return INTERACTIVE_ROLES[role]?role:'clickable';}
function isInteractive(el,role,cs,inEl){
 if(INTERACTIVE_ROLES[role])return !(role==='option'&&el.localName==='option'&&el.parentElement&&(el.parentElement.localName==='select'||(el.parentElement.localName==='optgroup')));
 return !!cs&&clickCue(el,role,cs,inEl);}
function area(el){var r=el.getBoundingClientRect();return r.width*r.height;}
function sigOf(el,role){var n=nameOf(el,role);if(n.length>200)n=n.slice(0,200);return el.localName+'|'+role+'|'+n;}
// geometry is in this frame's own viewport: the host adds each frame's offset in its parent
function topRect(el){var r=el.getBoundingClientRect();return {x:r.left,y:r.top,w:r.width,h:r.height};}
// an iframe's content box (where its document's viewport starts): border-box + border + padding
function slotBox(fe){var r=fe.getBoundingClientRect(),cs=csOf(fe),pl=parseFloat(cs.paddingLeft)||0,pt=parseFloat(cs.paddingTop)||0,pr=parseFloat(cs.paddingRight)||0,pb=parseFloat(cs.paddingBottom)||0;
 return {x:r.left+fe.clientLeft+pl,y:r.top+fe.clientTop+pt,w:Math.max(0,fe.clientWidth-pl-pr),h:Math.max(0,fe.clientHeight-pt-pb)};}
function hitAt(x,y){var h=document.elementFromPoint(x,y);
 for(var k=0;k<20&&h&&h.shadowRoot;k++){var h2=h.shadowRoot.elementFromPoint(x,y);if(!h2||h2===h)break;h=h2;}
 return h;}
function deepActive(){var a=document.activeElement;
 for(var k=0;k<20&&a;k++){if(a.shadowRoot&&a.shadowRoot.activeElement)a=a.shadowRoot.activeElement;else if(a.localName==='iframe'){try{var cd=a.contentDocument;if(cd&&cd.activeElement&&cd.activeElement!==cd.body)a=cd.activeElement;else break;}catch(e){break;}}else break;}
 return a;}
function refGet(n){var w=S.n2e.get(n);var el=w?w.deref():null;return el||null;}
"""

_OBSERVE = (
    "(function(MODE,B){"
    + _COMMON
    + r"""
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
   if(el){elements.push(rep(c,el));sigs.push([n,sigOf(c,role)]);lows.push(lowEl(c,nctx));elBytes+=JSON.stringify(el).length+1;
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
 np:window.top!==window?null:"""
    # the main document only: whether the page waits for a person (logic.person)
    + DETECT_JS
    + """});
})"""
)

# The conformance reader (tests of names and roles, docs/observations.md "Roles"): for each node
# matching SEL, what the last observation of its document gave for it: ["el", index in elements],
# ["ct", index in content] or ["cx", context part], most specific first.
_PROBE = (
    "(function(SEL){"
    + _COMMON
    + r"""
var L=S.last,out=[];if(!L)return 'null';
function all(root,acc){var ns=root.querySelectorAll(SEL);for(var i=0;i<ns.length;i++)acc.push(ns[i]);
 var hs=root.querySelectorAll('*');for(var j=0;j<hs.length;j++)if(hs[j].shadowRoot)all(hs[j].shadowRoot,acc);return acc;}
var ns=all(document,[]);
for(var i=0;i<ns.length;i++){var n=ns[i],rs=(L.pr.get(n)||[]).map(function(o){var k;
  if(typeof o==='string')return ['cx',o];k=L.el.indexOf(o);if(k>=0)return ['el',k];k=L.ct.indexOf(o);return k>=0?['ct',k]:null;}).filter(Boolean);
 var at={};for(var q=0;q<n.attributes.length;q++){var a=n.attributes[q];if(a.name.indexOf('data-')===0)at[a.name]=a.value;}
 out.push({at:at,rep:rs});}
return JSON.stringify(out);})"""
)

_CHECK = (
    "(function(NS){"
    + _COMMON
    + r"""
var out={};for(var i=0;i<NS.length;i++){var n=NS[i],el=refGet(n);
 if(!el||!el.isConnected){out[n]=null;continue;}out[n]=sigOf(el,refRole(roleOf(el)));}
return JSON.stringify({key:KEY,id:S.id,s:out});})"""
)

# The role and name of what covers `el` at a hit test's element `h` (an element's `cov`, an
# iframe's cover in its parent: `_SLOT`).
_COVER = r"""
function roleOrDialog(p){return roleOf(p)||(p.localName==='dialog'?'dialog':'');}
var LAYER={dialog:1,alertdialog:1,menu:1,menubar:1,listbox:1,tooltip:1,alert:1,status:1,log:1,grid:1,tree:1,tablist:1,banner:1,navigation:1,region:1,complementary:1,contentinfo:1,form:1,search:1};
function coverOf(h,el){
 // the outermost layer-like role over the hit element that does not hold the target; else the
 // nearest element with a role; else the outermost generic ancestor that does not hold it
 var first=null,layer=null,top=h;
 for(var p=h,k=0;p&&k<100;k++){if(p.nodeType===1){if(p===el||p.contains(el))break;top=p;var r=roleOrDialog(p);
  if(r){if(!first)first=[p,r];if(LAYER[r])layer=[p,r];}}p=p.parentNode||p.host||null;}
 var c=layer||first,node=c?c[0]:top,role=c?c[1]:'generic',nm=c?nameOf(node,role):'';
 if(!nm)nm=sq(textOf(node,0));if(nm.length>80)nm=nm.slice(0,79)+'\u2026';
 return [role,nm];}
"""

# The element-info body over `el` (the ref's element, or a selector snapshot's node): its box in
# top-document coordinates, state, whether its center hits it, and for the actions of
# docs/decisions.md "Actions that behave like a careful person": the covering element's role and
# name (`cov`), and the option rows of a list box (`op`, `cb`) or of a multi-selectable ARIA
# listbox (`ao`).
_ELEMENT_INFO = (
    _COVER
    + r"""
function viaLabel(h,el){for(var p=h,k=0;p&&k<50;k++,p=p.parentElement){if(p.localName==='label')return p.control===el;}return false;}
// a box can outlive its rendering: the content of a closed <details> (or of any
// content-visibility:hidden box) keeps its layout, and the hit test there finds the page
function shown(e){try{return !e.checkVisibility||e.checkVisibility();}catch(x){return true;}}
var r=topRect(el),cs=csOf(el),ln=el.localName,be=el;
// a control hidden from the eye but not from readers (the visually-hidden radio of a styled
// button set: 1 px, clipped) is operated through its label, as a person does; hits on the
// label count as hits on it (viaLabel)
if(r.w<4||r.h<4||clippedAway(cs)){var sl=shownLabel(el);if(sl){r=topRect(sl);be=sl;}}
// an editor's input sink is clicked where a person clicks: on the editor (editorSink)
var sk=editorSink(el,ln,cs);if(sk){r=topRect(sk);be=sk;}
// an inline box holding only a float or a positioned box (a logo link around a floated image)
// is empty itself: a person points at what it shows, its largest descendant box
if(r.w<1||r.h<1){var ds=el.querySelectorAll('*'),big=0;for(var q7=0;q7<ds.length&&q7<200;q7++){
 var dr=topRect(ds[q7]);if(dr.w>=1&&dr.h>=1&&dr.w*dr.h>big){big=dr.w*dr.h;r=dr;}}}
var T=['text','search','url','tel','email','password','number','date','datetime-local','month','time','week',''];
var editable=el.isContentEditable||ln==='textarea'||!!el.editContext||(ln==='input'&&T.indexOf((el.getAttribute('type')||'').toLowerCase())>=0);
var cx=r.x+r.w/2,cy=r.y+r.h/2,hit=false,cov=null,pt=null;
// an inline box over several lines (a wrapped link): the center of its box can fall between
// its lines, on its parent; its largest line box's center is on it
var rs=be.getClientRects();if(rs.length>1){var best=0;for(var q6=0;q6<rs.length&&q6<100;q6++){var rr=rs[q6],ar2=rr.width*rr.height;
 if(rr.width>=1&&rr.height>=1&&ar2>best){best=ar2;cx=rr.left+rr.width/2;cy=rr.top+rr.height/2;pt=[cx,cy];}}}
// the hit test of this frame only; the host checks that each ancestor shows the frame there
if(cx>=0&&cy>=0&&cx<innerWidth&&cy<innerHeight){var h=hitAt(cx,cy);
 if(h){var p=h;for(var k2=0;k2<200&&p;k2++){if(p===el){hit=true;break;}p=p.parentNode||(p.host||null);}if(!hit&&el.contains(h))hit=true;
  if(!hit&&viaLabel(h,el))hit=true;if(!hit&&sk&&sk.contains(h))hit=true;if(!hit)cov=coverOf(h,el);}}
var opts=null,op=null,cb=null;if(ln==='select'){opts=[];for(var q=0;q<el.options.length;q++){var o=el.options[q];
opts.push([o.value,!!(o.disabled||(o.parentElement&&o.parentElement.localName==='optgroup'&&o.parentElement.disabled))]);}
 if(el.multiple||el.size>1){op=[];for(var q2=0;q2<el.options.length&&q2<5000;q2++){var orr=topRect(el.options[q2]);op.push([orr.x,orr.y,orr.w,orr.h,el.options[q2].selected?1:0]);}
  cb=[r.x+el.clientLeft,r.y+el.clientTop,el.clientWidth,el.clientHeight];}}
// a running or pending animation of the element's geometry (its own or an ancestor's): a
// transition started by this very read has not moved the box yet, so two equal boxes would lie
var an=0;try{var GEO=/^(transform|translate|scale|rotate|left|top|right|bottom|inset|width|height|margin|padding|offset)/,
 as=el.ownerDocument.getAnimations();
 for(var q4=0;q4<as.length&&q4<500&&!an;q4++){var A=as[q4],ef=A.effect,tg=ef&&ef.target;
  if(!tg||!(tg===el||tg.contains(el))||(A.playState!=='running'&&!A.pending))continue;
  var props=A.transitionProperty?[A.transitionProperty]:[];
  if(!props.length){var kf=ef.getKeyframes();for(var z=0;z<kf.length;z++)for(var key in kf[z])props.push(key);}
  for(var z2=0;z2<props.length;z2++)if(GEO.test(String(props[z2]).replace(/[A-Z]/g,function(c){return '-'+c.toLowerCase();}))){an=1;break;}}}catch(e){an=0;}
// the boxes of the ancestors that clip it (overflow other than visible: a sidebar that scrolls on
// its own), intersected; the document's own scroller is the viewport; a fixed box escapes them
var cl=null;if(cs.position!=='fixed'){var c0=-1e9,c1=-1e9,c2=1e9,c3=1e9,any=0,ce=sk||el;
 for(var pa=ce.parentElement||(ce.parentNode&&ce.parentNode.host)||null,k5=0;pa&&k5<200;k5++){
  if(pa===document.body||pa===document.documentElement)break;var ps=csOf(pa);
  if(ps.overflowX!=='visible'||ps.overflowY!=='visible'){var pb=pa.getBoundingClientRect(),px=pb.left+pa.clientLeft,py=pb.top+pa.clientTop;
   c0=Math.max(c0,px);c1=Math.max(c1,py);c2=Math.min(c2,px+pa.clientWidth);c3=Math.min(c3,py+pa.clientHeight);any=1;}
  if(ps.position==='fixed')break;pa=pa.parentElement||(pa.parentNode&&pa.parentNode.host)||null;}
 if(any)cl=[c0,c1,Math.max(0,c2-c0),Math.max(0,c3-c1)];}
var ao=null;if(ln!=='select'&&roleOf(el)==='listbox'&&el.getAttribute('aria-multiselectable')==='true'){ao=[];
 var os=el.querySelectorAll('[role=option]');for(var q3=0;q3<os.length&&q3<5000;q3++){var a=os[q3],ar=topRect(a);
  ao.push([nameOf(a,'option'),a.getAttribute('aria-selected')==='true'?1:0,a.getAttribute('aria-disabled')==='true'?1:0,ar.x,ar.y,ar.w,ar.h]);}
 cb=[r.x+el.clientLeft,r.y+el.clientTop,el.clientWidth,el.clientHeight];}
// the document's scroller at its top (1) or bottom (2): a scroll toward an end stops there
var se=document.scrollingElement||document.documentElement,de=(se.scrollTop<=0?1:0)|(se.scrollTop+se.clientHeight>=se.scrollHeight-1?2:0);
return JSON.stringify({x:r.x,y:r.y,w:r.w,h:r.h,vw:innerWidth,vh:innerHeight,de:de,
vis:cs.visibility!=='hidden'&&cs.display!=='none'&&shown(el),dis:disabledOf(el),ro:!!el.readOnly&&ln!=='select',
ed:editable,f:deepActive()===el,hit:hit,cov:cov,v:('value' in el&&ln!=='button')?String(el.value):null,
o:opts,si:ln==='select'?el.selectedIndex:-1,m:!!el.multiple,tag:ln,op:op,cb:cb,ao:ao,an:an,cl:cl,pt:pt,sk:sk?1:0});"""
)

_ELEMENT = (
    "(function(N){"
    + _COMMON
    + "var el=refGet(N);if(!el||!el.isConnected)return 'null';"
    + _ELEMENT_INFO
    + "})"
)

# the same read for a node of the selector snapshot (host_app/js.py), found by document index
_ELEMENT_AT = (
    "(function(I,TAG){"
    + _COMMON
    + "var el=document.getElementsByTagName('*')[I];if(!el||el.localName!==TAG)return 'null';"
    + _ELEMENT_INFO
    + "})"
)

_SLOT = (
    "(function(N,P){"
    + _COMMON
    + _COVER
    + r"""
var el=refGet(N);if(!el||!el.isConnected)return 'null';
var b=slotBox(el),cs=csOf(el),hit=null,cov=null;if(P){var h=hitAt(P[0],P[1]);hit=h===el;if(h&&!hit)cov=coverOf(h,el);}
return JSON.stringify({x:b.x,y:b.y,w:b.w,h:b.h,vw:innerWidth,vh:innerHeight,vis:cs.visibility!=='hidden'&&cs.display!=='none',hit:hit,cov:cov});})"""
)

# After a focus, E asks for the caret after the element's text (`type` appends): a text control's
# selection, or a contenteditable's, set from this world. Answers "end", or "yes" where that
# cannot be done (an email or number input has no selection API: a key moves it there).
CARET_END = r"""function caretEnd(el){
try{if(el.selectionStart!=null){var n=el.value.length;el.setSelectionRange(n,n);return 'end';}}catch(e){}
if(el.isContentEditable){var s=el.ownerDocument.getSelection();if(s){s.selectAllChildren(el);s.collapseToEnd();return 'end';}}
return 'yes';}"""

_FOCUS = (
    "(function(N,F,E){"
    + _COMMON
    + CARET_END
    + r"""
var el=refGet(N);if(!el||!el.isConnected)return '"no"';
// F (an element in a frame): focus even when it is its document's active element (a frame's
// body is by default), since that moves the page's focus into the frame
if(F||deepActive()!==el)el.focus({preventScroll:true});
return JSON.stringify(deepActive()!==el?'no':E?caretEnd(el):'yes');})"""
)


def observe(mode: str, frame: dict[str, object] | None = None) -> str:
    """The observation script; `frame` (for a frame's document) carries the bounds left and the
    iframe's context parts, label and visual rect (docs/observations.md "Frames")."""
    return f"{_OBSERVE}({json.dumps(mode)},{json.dumps(frame)})"


def probe(selector: str) -> str:
    """What the last observation gave for each node matching `selector` (`_PROBE`)."""
    return f"{_PROBE}({json.dumps(selector)})"


def check(numbers: list[int]) -> str:
    return f"{_CHECK}({json.dumps(numbers)})"


def element(number: int) -> str:
    return f"{_ELEMENT}({number})"


def element_at(index: int, tag: str) -> str:
    return f"{_ELEMENT_AT}({index},{json.dumps(tag)})"


def slot(number: int, point: tuple[float, float] | None = None) -> str:
    """The content box of iframe `number` in this document's viewport; with `point`, whether this
    document's hit test there lands on that iframe (the frame is not covered at that point)."""
    return f"{_SLOT}({number},{json.dumps(point)})"


def focus(number: int, in_frame: bool = False, end: bool = False) -> str:
    """Answers "no", "yes" or "end" (`CARET_END`)."""
    return f"{_FOCUS}({number},{json.dumps(in_frame)},{json.dumps(end)})"
