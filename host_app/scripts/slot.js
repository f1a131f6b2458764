// The content box of iframe N in this document's viewport; with the point P, whether this
// document's hit test there lands on that iframe (the frame is not covered at that point).
(function(N,P){
$COMMON;

$COVER;

var el=refGet(N);if(!el||!el.isConnected)return 'null';
var b=slotBox(el),cs=csOf(el),hit=null,cov=null;if(P){var h=hitAt(P[0],P[1]);hit=h===el;if(h&&!hit)cov=coverOf(h,el);}
return JSON.stringify({x:b.x,y:b.y,w:b.w,h:b.h,vw:innerWidth,vh:innerHeight,vis:cs.visibility!=='hidden'&&cs.display!=='none',hit:hit,cov:cov});})
