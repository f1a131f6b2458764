// The same read for a node of the selector snapshot (host_app/core/js.py), found by document index I.
(function(I,TAG){
$COMMON;
var el=document.getElementsByTagName('*')[I];if(!el||el.localName!==TAG)return 'null';
$ELEMENT_INFO;})
