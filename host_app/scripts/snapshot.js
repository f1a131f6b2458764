// The selector snapshot: every element (50,000 at most) as [tag, attributes, parent's index],
// and the http(s) links as [index, href] (decoded as logic/page_answers.SnapshotAnswer).
(function(){
var all=document.getElementsByTagName('*'),lim=Math.min(all.length,50000),idx=new Map(),out=[],links=[];
for(var i=0;i<lim;i++)idx.set(all[i],i);
for(var i=0;i<lim;i++){var el=all[i],a={},at=el.attributes;
for(var j=0;j<at.length;j++)a[at[j].name]=at[j].value;
var p=el.parentElement;out.push([el.localName,a,p&&idx.has(p)?idx.get(p):-1]);
if(el.localName==='a'&&el.hasAttribute('href')){var h=el.href;if(/^https?:/i.test(h))links.push([i,h]);}}
return JSON.stringify({n:out,k:links});})()
