// Focus the element of ref number N; F when it is in a frame; E puts the caret after its text
// ($CARET_END); X: [document key, signature] the element must still have (the focus then goes
// with the batch's check, before the host has seen it: an element that changed is not focused).
// Answers "no", "yes" or "end".
(function(N,F,E,X){
$COMMON;
$CARET_END;
var el=refGet(N);if(!el||!el.isConnected)return '"no"';
if(X&&(KEY[0]!==X[0][0]||KEY[1]!==X[0][1]||sigOf(el,refRole(roleOf(el)))!==X[1]))return '"no"';
// F (an element in a frame): focus even when it is its document's active element (a frame's
// body is by default), since that moves the page's focus into the frame
if(F||deepActive()!==el)el.focus({preventScroll:true});
return JSON.stringify(deepActive()!==el?'no':E?caretEnd(el):'yes');})
