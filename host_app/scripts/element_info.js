// The element-info body over `el` (the ref's element, or a selector snapshot's node): its box in
// top-document coordinates, state, whether its center hits it, and for the actions of
// docs/decisions.md "Actions that behave like a careful person": the covering element's role and
// name (`cov`), and the option rows of a list box (`op`, `cb`) or of a multi-selectable ARIA
// listbox (`ao`). A function's body, not a whole script: element.js and element_at.js hold it.
$COVER;

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
o:opts,si:ln==='select'?el.selectedIndex:-1,m:!!el.multiple,tag:ln,op:op,cb:cb,ao:ao,an:an,cl:cl,pt:pt,sk:sk?1:0});
