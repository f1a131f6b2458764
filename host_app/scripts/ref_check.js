// For each ref number in NS, its element's signature, or null when it is gone.
(function(NS){
$COMMON;

var out={};for(var i=0;i<NS.length;i++){var n=NS[i],el=refGet(n);
 if(!el||!el.isConnected){out[n]=null;continue;}out[n]=sigOf(el,refRole(roleOf(el)));}
return JSON.stringify({key:KEY,id:S.id,s:out});})
