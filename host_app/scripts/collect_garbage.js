// In a devtools frontend's own page (host_app/engine/memory.py): catch the answer to our command
// $COMMAND_ID (the embedder hands every backend message to DevToolsAPI.dispatchMessage), then
// send HeapProfiler.collectGarbage. One line, as the page gets it.
(function(){var A=window.DevToolsAPI,H=window.InspectorFrontendHost;if(!H)return JSON.stringify('no-host');var S=window.__svcGc;if(!S){S=window.__svcGc={done:false};if(A&&A.dispatchMessage){var o=A.dispatchMessage.bind(A);A.dispatchMessage=function(m){try{var v=typeof m==='string'?JSON.parse(m):m;if(v&&v.id===$COMMAND_ID){S.done=true;return;}}catch(e){}return o(m);};}else S.done=null;}H.sendMessageToBackend(JSON.stringify({id:$COMMAND_ID,method:'HeapProfiler.collectGarbage'}));return JSON.stringify('sent');})()
