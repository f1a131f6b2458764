// The scroll offsets of the document and of every element at ($X, $Y) and above it: what a
// wheel turned there moves (a frame under the point moves inside, unseen here). One line.
(function(){var e=document.elementFromPoint($X,$Y),o=[scrollX,scrollY];for(;e;e=e.parentElement)o.push(e.scrollLeft,e.scrollTop);return JSON.stringify(o)})()
