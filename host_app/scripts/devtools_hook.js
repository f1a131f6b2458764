// Installed in a session page's devtools page (host_app/engine/worker_cdp.py) once its document has
// loaded: the engine looks up DevToolsAPI.dispatchMessage and dispatchMessageChunk on every
// message, so ours receive everything (a chunked message is joined first).
//
// With SHARED (one page of each session), the session's shared workers are also attached from
// here. A shared worker is not auto-attached to a page's client, and its first start never waits
// for a debugger (only the browser-level auto-attach, which Qt's frontend may not use, makes it
// wait), so it is attached as soon as the engine reports it, before its script is fetched: from
// this page's JavaScript, as a round trip through the app (2.5-60 ms) would often come after the
// worker started. It asks for `Debugger.enable` and `Debugger.pause`, which the backend holds
// until the worker's agent exists: the worker pauses at its first statement when they reach it
// in time (a race of the engine's own, docs/decisions.md "Shared workers"), else at its next,
// and the app (`logic.worker_cdp`, on `Debugger.paused`) evaluates the prelude, resumes and
// disables the debugger. Only workers of this session's browser context; ids from 1e9, out of
// the app's range (the app ignores their answers). What the app reads comes out by
// console.log, prefixed with MARK.
(() => {
  const MARK = $MARK, SHARED = $SHARED;
  // The downloaded bytes: each request of the page, its frames and workers that finished, by
  // what it took from the network (`encodedDataLength`: headers and body as they came, 0 from
  // the private cache). Not counted: a request whose last URL is not http(s) (the asset
  // scheme's, data:, blob:), one a service worker answered (the worker's own fetch is counted
  // in its session), nor one that failed, was blocked or cancelled (`loadingFailed`). Keyed by
  // request id alone: a frame's document is asked in its parent's session and finishes in its
  // own. A worker's own script (the browser fetches it for the worker: no loader, the request
  // is its document) finishes with its headers' bytes only (measured): its body's length is
  // added, from its response's Content-Length, else from its data. Only these events are
  // parsed, most only when a worker's script is under way (a load sends ~7 per request).
  const WILL = '{"method":"Network.requestWillBeSent",';
  const RESPONSE = '{"method":"Network.responseReceived",';
  const DATA = '{"method":"Network.dataReceived",';
  const DONE = '{"method":"Network.loadingFinished",';
  const FAILED = '{"method":"Network.loadingFailed",';
  let traffic = 0;
  const other = new Set();  // requests not to count, until they end
  const scripts = new Map();  // workers' scripts under way: id -> {length, data}
  // requestWillBeSent carries the request's headers and its initiator's stack (kilobytes for
  // a script's fetch): its four first fields, which the backend writes first in this order,
  // are read without parsing the rest
  const HEAD = new RegExp('^' + WILL.replace(/[.{[]/g, '\\$&') + '"params":\\{"requestId":'
    + '("(?:[^"\\\\]|\\\\.)*"),"loaderId":"([^"]*)","documentURL":("(?:[^"\\\\]|\\\\.)*"),'
    + '"request":\\{"url":("(?:[^"\\\\]|\\\\.)*")');
  const network = (text) => {
    if (text.startsWith(WILL)) {
      let p = null;
      const m = HEAD.exec(text);
      if (m) p = { requestId: JSON.parse(m[1]), loaderId: m[2], documentURL: m[3], url: m[4] };
      else {
        const q = JSON.parse(text).params;
        p = { requestId: q.requestId, loaderId: q.loaderId,
          documentURL: JSON.stringify(q.documentURL), url: JSON.stringify(q.request.url) };
      }
      if (/^"https?:/i.test(p.url)) other.delete(p.requestId);
      else if (other.size < 10000) other.add(p.requestId);
      if (p.loaderId === '' && p.documentURL === p.url && scripts.size < 1000)
        scripts.set(p.requestId, { length: null, data: 0 });
    } else if (text.startsWith(RESPONSE)) {
      // its URL, read again: a request under way when the domain came on has no
      // requestWillBeSent
      const at = text.indexOf('"response":{"url":"') + 19;
      const elsewhere = at > 18 && !/^https?:/i.test(text.slice(at, at + 8));
      if (!elsewhere && !scripts.size && !text.includes('"fromServiceWorker":true')) return;
      const p = JSON.parse(text).params, r = p.response;
      if ((elsewhere || r.fromServiceWorker) && other.size < 10000) other.add(p.requestId);
      const script = scripts.get(p.requestId);
      if (!script) return;
      const name = Object.keys(r.headers).find((h) => h.toLowerCase() === 'content-length');
      const length = name === undefined ? NaN : parseInt(r.headers[name], 10);
      if (r.status === 304) script.length = 0;
      else if (length >= 0) script.length = length;
    } else if (text.startsWith(DATA)) {
      if (!scripts.size) return;
      const p = JSON.parse(text).params, script = scripts.get(p.requestId);
      if (script) script.data += p.dataLength;
    } else if (text.startsWith(DONE)) {
      const p = JSON.parse(text).params, script = scripts.get(p.requestId);
      let n = p.encodedDataLength || 0;
      if (script && n > 0) n += script.length === null ? script.data : script.length;
      scripts.delete(p.requestId);
      if (!other.delete(p.requestId)) traffic += n;
    } else if (text.startsWith(FAILED)) {
      const p = JSON.parse(text).params;
      scripts.delete(p.requestId);
      other.delete(p.requestId);
    }
  };
  window.svcTraffic = () => traffic;
  const send = (m) => InspectorFrontendHost.sendMessageToBackend(JSON.stringify(m));
  const ours = new Map();  // id -> what it asked
  const seen = new Set();
  let context = null, next = 1e9;
  const ask = (what, m) => { m.id = next++; ours.set(m.id, what); send(m); };
  const shared = (text) => {
    // only answers to its own questions and reports of new targets concern it
    if (!ours.size && !text.includes('"Target.targetCreated"')) return;
    let m;
    try { m = JSON.parse(text); } catch (e) { return; }
    if (m.id !== undefined && ours.has(m.id)) {
      const what = ours.get(m.id);
      ours.delete(m.id);
      if (!m.result) return;
      if (what === 'self') context = m.result.targetInfo.browserContextId;
      if (what === 'attach') {
        const sessionId = m.result.sessionId;
        send({ id: next++, method: 'Debugger.enable', sessionId, params: {} });
        send({ id: next++, method: 'Debugger.pause', sessionId, params: {} });
      }
      return;
    }
    if (m.method !== 'Target.targetCreated') return;
    const t = m.params.targetInfo;
    if (t.type !== 'shared_worker' || context === null || t.browserContextId !== context
        || seen.has(t.targetId)) return;
    seen.add(t.targetId);
    ask('attach', { method: 'Target.attachToTarget',
      params: { targetId: t.targetId, flatten: true } });
  };
  // the Page domain is on only for the new-document script, the Network domain only for the
  // bytes: their events stay here rather than cross to the app's thread
  const got = (text) => {
    if (text.startsWith('{"method":"Page.')) return;
    if (text.startsWith('{"method":"Network.')) { network(text); return; }
    if (SHARED) shared(text);
    console.log(MARK + text);
  };
  let parts = null, size = 0;
  DevToolsAPI.dispatchMessage = got;
  DevToolsAPI.dispatchMessageChunk = (chunk, messageSize) => {
    if (messageSize) { parts = [chunk]; size = messageSize; } else if (parts) parts.push(chunk);
    const all = parts ? parts.join('') : '';
    if (parts && all.length >= size) { parts = null; got(all); }
  };
  if (SHARED) {
    ask('self', { method: 'Target.getTargetInfo', params: {} });
    ask('discover', { method: 'Target.setDiscoverTargets',
      params: { discover: true, filter: [{ type: 'shared_worker' }] } });
  }
  return typeof InspectorFrontendHost === 'object';
})()
