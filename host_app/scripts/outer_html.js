// The document as the isolated world serializes it: the fallback when toHtml() misses it.
// One line, as the page gets it.
(function(){var d=document,t=d.doctype,p=t?'<!DOCTYPE '+t.name+(t.publicId?' PUBLIC "'+t.publicId+'"':'')+(t.systemId?(t.publicId?' ':' SYSTEM ')+'"'+t.systemId+'"':'')+'>':'';return JSON.stringify(p+(d.documentElement?d.documentElement.outerHTML:''))})()
