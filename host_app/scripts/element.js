// The element-info read of ref number N.
(function(N){
$COMMON;
var el=refGet(N);if(!el||!el.isConnected)return 'null';
$ELEMENT_INFO;})
