// The milliseconds until the document's running CSS transitions and animations of finite length
// end (the longest; 0 when none run). Infinite ones (a spinner) never end and are left out, and
// so are those with more than 2 s to run (a banner that pulses a hundred times is no opening UI),
// and transitions of a colour only (color, background-color, border-*-color, fill, stroke): they
// move and reveal nothing. Django admin fades every link's colour over 0.15 s on hover and focus,
// and each click that began or ended a link's hover waited for it (~230 ms a step, ~55 without).
// One line, as the page gets it.
(function(){var m=0;try{var a=document.getAnimations();for(var i=0;i<a.length&&i<1000;i++){var x=a[i];if(x.playState!=='running'||!x.effect)continue;if(/(^|-)color$|^fill$|^stroke$/.test(x.transitionProperty||''))continue;var t=x.effect.getComputedTiming();if(!isFinite(t.endTime))continue;var r=(t.endTime-(t.localTime||0))/Math.abs(x.playbackRate||1);if(r>m&&r<=2000)m=r;}}catch(e){}return JSON.stringify(m);})()
