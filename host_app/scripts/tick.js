// The renderer's progress, for waiting on real signals instead of fixed pauses: [document key,
// animation frames run (each call asks for the next one), mousemoves, mouseups and keyups the
// document and its same-origin frames have dispatched, whether a form submission the page did not
// cancel happened in the last second (its navigation is scheduled, not started)]. The counters are capturing, passive
// listeners of the isolated world: invisible to the page, they change nothing in it. Then whether
// an `<a download>` click happened in the last 2 s, the main document's `navigate` events (the
// Navigation API's: every navigation the document starts, -1 without the API), whether its
// focus is in a frame (input went there, where those events are not seen), and the zero-delay
// timers run (each call sets the next one, as for the frames: a task turn of the document), and
// whether one set after the last input counted here has run (the input's own timers have then;
// a read after input sets one even while one set before it is still to run).
(function(){var W=window,I=W.__svcTick;
if(!I){I=W.__svcTick={f:0,p:false,m:0,u:0,k:0,s:[],d:[],n:0,t:0,q:false,li:0,ra:-1,ps:-1};
 if(W.navigation)W.navigation.addEventListener('navigate',function(){I.n++;});}
if(!I.p){I.p=true;requestAnimationFrame(function(){I.f++;I.p=false;I.sx=W.scrollX;I.sy=W.scrollY;});}
if(!I.q||I.ps<I.li){I.q=true;var st=performance.now();I.ps=st;setTimeout(function(){I.t++;if(I.ps===st)I.q=false;if(st>I.ra)I.ra=st;},0);}
function on(w,d){if(d>3)return;try{if(!w.__svcTickOn){w.__svcTickOn=1;var o={capture:true,passive:true};
 w.addEventListener('mousemove',function(){I.m++;I.li=W.performance.now();},o);
 w.addEventListener('mouseup',function(){I.u++;I.li=W.performance.now();},o);
 w.addEventListener('keyup',function(){I.k++;I.li=W.performance.now();},o);
 w.addEventListener('submit',function(e){I.s.push([performance.now(),e]);if(I.s.length>4)I.s.shift();},o);
 w.addEventListener('click',function(e){var t=e.target,a=t&&t.closest?t.closest('a[download]'):null;
  if(a){I.d.push([performance.now(),e]);if(I.d.length>4)I.d.shift();}},o);}
 for(var i=0;i<w.frames.length&&i<50;i++)on(w.frames[i],d+1);}catch(e){}}
on(W,0);var ps=0,now=performance.now();
for(var j=0;j<I.s.length;j++)if(now-I.s[j][0]<1000&&!I.s[j][1].defaultPrevented)ps=1;
var pd=0;for(var q=0;q<I.d.length;q++)if(now-I.d[q][0]<2000&&!I.d[q][1].defaultPrevented)pd=1;
var a=document.activeElement,fr=a&&/^(IFRAME|FRAME|OBJECT|EMBED|FENCEDFRAME)$/.test(a.tagName)?1:0;
return JSON.stringify([performance.timeOrigin,I.f,I.m,I.u,I.k,ps,pd,W.navigation?I.n:-1,fr,I.t,I.ra>I.li?1:0]);})()
