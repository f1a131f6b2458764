// The load probe: the document's URL, ready state, size, the navigation's HTTP status, its
// time origin and title, and for an error status whether the page is a bot challenge
// ($CHALLENGE: host_app/logic/readiness.py). One line, as the page gets it.
(function(){var d=document,e=d.documentElement,n=performance.getEntriesByType('navigation')[0],st=n?(n.responseStatus||0):0;return JSON.stringify({h:location.href,r:d.readyState,l:e?e.outerHTML.length:0,s:st,o:performance.timeOrigin,t:d.title||'',c:st>=400?$CHALLENGE:false})})()
