// The chosen option of the select of ref number N (its selectedIndex), after keys moved it:
// the one thing a select's step reads back, without the element's geometry and hit test
// (element.js), whose layout the observation after the step pays once.
(function(N){
$COMMON;
var el=refGet(N);if(!el||!el.isConnected||el.localName!=='select')return 'null';
return String(el.selectedIndex);})
