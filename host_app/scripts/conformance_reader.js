// The conformance reader (tests of names and roles, docs/observations.md "Roles"): for each node
// matching SEL, what the last observation of its document gave for it: ["el", index in elements],
// ["ct", index in content] or ["cx", context part], most specific first.
(function(SEL){
$COMMON;

var L=S.last,out=[];if(!L)return 'null';
function all(root,acc){var ns=root.querySelectorAll(SEL);for(var i=0;i<ns.length;i++)acc.push(ns[i]);
 var hs=root.querySelectorAll('*');for(var j=0;j<hs.length;j++)if(hs[j].shadowRoot)all(hs[j].shadowRoot,acc);return acc;}
var ns=all(document,[]);
for(var i=0;i<ns.length;i++){var n=ns[i],rs=(L.pr.get(n)||[]).map(function(o){var k;
  if(typeof o==='string')return ['cx',o];k=L.el.indexOf(o);if(k>=0)return ['el',k];k=L.ct.indexOf(o);return k>=0?['ct',k]:null;}).filter(Boolean);
 var at={};for(var q=0;q<n.attributes.length;q++){var a=n.attributes[q];if(a.name.indexOf('data-')===0)at[a.name]=a.value;}
 out.push({at:at,rep:rs});}
return JSON.stringify(out);})
