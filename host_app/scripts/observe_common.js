// What the observation scripts share ($COMMON in each): the document's ref registry
// `__svcObs` (host_app/core/observe_js.py), roles, accessible names, states, signatures, the hit
// test. Statements, not a whole script: it parses alone, and runs only inside the others.
var W=window,S=W.__svcObs;
if(!S){S=W.__svcObs={gen:1,root:document.documentElement,n2e:new Map(),e2n:new WeakMap(),next:1,id:performance.timeOrigin+':'+Math.random().toString(36).slice(2)};}
if(S.root!==document.documentElement){S.gen++;S.root=document.documentElement;S.n2e=new Map();S.e2n=new WeakMap();}
var KEY=[performance.timeOrigin,S.gen];
var ENC=new TextEncoder(),DEC=new TextDecoder();
var LIM=2048;
function sq(s){return s.replace(/\s+/g,' ').trim();}
// an element's computed style, once per run (the declaration is live: it stays true)
var CSS_OF=new Map();
function csOf(el){var cs=CSS_OF.get(el);if(!cs){cs=(el.ownerDocument.defaultView||W).getComputedStyle(el);CSS_OF.set(el,cs);}return cs;}
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
var PSEUDO_OF={'::before':new Map(),'::after':new Map()};
function pseudoText(el,which){var seen=PSEUDO_OF[which],cs=seen.get(el);
 if(!cs){try{cs=(el.ownerDocument.defaultView||W).getComputedStyle(el,which);}catch(e){return '';}seen.set(el,cs);}
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
function sigOf(el,role,name){var n=name===undefined?nameOf(el,role):name;if(n.length>200)n=n.slice(0,200);return el.localName+'|'+role+'|'+n;}
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
