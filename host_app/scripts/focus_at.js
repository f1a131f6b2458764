// Focus the element at index I of the selector snapshot if it is still a TAG; with E, put the
// caret after its text ($CARET_END: caret_end.js). Answers "no", "yes" or "end".
(function(i,tag,E){$CARET_END;var el=document.getElementsByTagName('*')[i];
if(!el||el.localName!==tag)return '"no"';
if(document.activeElement!==el)el.focus({preventScroll:true});
return JSON.stringify(document.activeElement!==el?'no':E?caretEnd(el):'yes');})
