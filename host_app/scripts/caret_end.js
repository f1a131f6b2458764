// After a focus, E asks for the caret after the element's text (`type` appends): a text control's
// selection, or a contenteditable's, set from this world. Answers "end", or "yes" where that
// cannot be done (an email or number input has no selection API: a key moves it there).
// A function, not a whole script: focus.js and focus_at.js hold it.
function caretEnd(el){
try{if(el.selectionStart!=null){var n=el.value.length;el.setSelectionRange(n,n);return 'end';}}catch(e){}
if(el.isContentEditable){var s=el.ownerDocument.getSelection();if(s){s.selectAllChildren(el);s.collapseToEnd();return 'end';}}
return 'yes';}
