// The role and name of what covers `el` at a hit test's element `h` (an element's `cov`, an
// iframe's cover in its parent: slot.js). Functions, not a whole script.
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
