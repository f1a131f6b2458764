// Focus the element of ref number N; F when it is in a frame; E puts the caret after its text
// ($CARET_END). Answers "no", "yes" or "end".
(function(N,F,E){
$COMMON;
$CARET_END;
var el=refGet(N);if(!el||!el.isConnected)return '"no"';
// F (an element in a frame): focus even when it is its document's active element (a frame's
// body is by default), since that moves the page's focus into the frame
if(F||deepActive()!==el)el.focus({preventScroll:true});
return JSON.stringify(deepActive()!==el?'no':E?caretEnd(el):'yes');})
