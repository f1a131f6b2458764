"""A local site that reports the browser identity a page sees (issue 14 point 1): navigator,
Intl, Date, screen, storage, canvas and audio hashes, WebGL strings, and the request headers the
server received, from the main frame, a same-origin iframe, an iframe made by script (read
through its contentWindow at once), a dedicated worker, the worker it starts and a service
worker. The page writes its report as JSON
into #out."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import urlsplit

# what documents and workers both run
COMMON = r"""
function fnv(s) { let h = 0x811c9dc5; for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i);
  h = Math.imul(h, 0x01000193); } return (h >>> 0).toString(16); }
// OffscreenCanvas.convertToBlob of a fixed drawing (the same in a worker), twice
async function blobProbe() {
  const c = new OffscreenCanvas(64, 24), x = c.getContext('2d');
  x.fillStyle = 'rgb(10,200,30)'; x.fillRect(0, 0, 64, 24);
  x.fillStyle = 'rgb(250,100,0)'; x.fillRect(8, 4, 20, 10);
  const hash = async () => fnv(Array.from(new Uint8Array(await (await c.convertToBlob())
    .arrayBuffer())).join());
  let empty;
  try { await new OffscreenCanvas(4, 4).convertToBlob(); empty = 'resolved'; }
  catch (e) { empty = e.name; }
  return [await hash(), await hash(), empty];
}
"""

PROBE = (
    COMMON
    + r"""
function basics(w) {
  const n = w.navigator, s = w.screen;
  return { ua: n.userAgent, platform: n.platform, languages: n.languages, language: n.language,
    cores: n.hardwareConcurrency, memory: n.deviceMemory, touch: n.maxTouchPoints,
    plugins: [n.plugins.length, n.mimeTypes.length, n.pdfViewerEnabled,
      Array.from(n.plugins).map((p) => p.name).join(', ')],
    brands: n.userAgentData ? n.userAgentData.brands.map((b) => b.brand + '/' + b.version) : null,
    uaPlatform: n.userAgentData ? n.userAgentData.platform : null,
    tz: w.Intl.DateTimeFormat().resolvedOptions().timeZone,
    intlLocale: w.Intl.NumberFormat().resolvedOptions().locale,
    // every default-locale service: each Intl constructor, the locale string methods
    intlLocales: ['DateTimeFormat', 'NumberFormat', 'Collator', 'PluralRules', 'RelativeTimeFormat',
      'ListFormat', 'Segmenter', 'DisplayNames', 'DurationFormat'].map((k) => (w.Intl[k]
      ? [new w.Intl[k](undefined, k === 'DisplayNames' ? { type: 'region' } : undefined)
        .resolvedOptions().locale, new w.Intl[k](n.language, k === 'DisplayNames'
        ? { type: 'region' } : undefined).resolvedOptions().locale] : k + ' missing'))
      .concat([['i'.toLocaleUpperCase(), 'I'.toLocaleLowerCase()].join()]),
    offsetJan: new w.Date(2024, 0, 15, 12).getTimezoneOffset(),
    offsetJul: new w.Date(2024, 6, 15, 12).getTimezoneOffset(),
    localHour: new w.Date(Date.UTC(2024, 6, 15, 10)).getHours(),
    dateText: new w.Date(Date.UTC(2024, 6, 15, 10)).toString(),
    screen: [s.width, s.height, s.availWidth, s.availHeight, s.colorDepth, w.devicePixelRatio],
    deviceMedia: [w.matchMedia('(device-width: ' + s.width + 'px)').matches,
      w.matchMedia('(device-height: ' + s.height + 'px)').matches],
    orientation: s.orientation ? [s.orientation.type, s.orientation.angle] : null,
    pointer: [w.matchMedia('(pointer: fine)').matches, w.matchMedia('(any-pointer: fine)').matches,
      w.matchMedia('(hover: hover)').matches],
    outer: [w.outerWidth, w.outerHeight, w.innerWidth, w.innerHeight],
    net: n.connection ? [n.connection.effectiveType, n.connection.rtt, n.connection.downlink]
      : null };
}
function canvasProbe(w) {
  const c = w.document.createElement('canvas'); c.width = 220; c.height = 60;
  const x = c.getContext('2d');
  x.fillStyle = 'rgb(10,200,30)'; x.fillRect(0, 0, 100, 60);
  x.fillStyle = '#f60'; x.font = '18px sans-serif'; x.fillText('Cwm fjordbank 😃', 105, 30);
  const d = x.getImageData(0, 0, 100, 60).data;
  let maxDiff = 0, changed = 0;
  const want = [10, 200, 30, 255];
  for (let i = 0; i < d.length; i++) {
    const diff = Math.abs(d[i] - want[i % 4]);
    if (diff > maxDiff) maxDiff = diff;
    if (diff) changed++;
  }
  const all = x.getImageData(0, 0, 220, 60).data;
  let sum = 0; for (let i = 0; i < all.length; i++) sum = (sum * 31 + all[i]) >>> 0;
  return { url: fnv(c.toDataURL()), data: sum.toString(16), maxDiff, changed };
}
// WebGL's readPixels of the canvas (two colours, one per half) against the colours drawn, against
// the same canvas read through a 2D copy, and of a framebuffer of the page's own
function glPixelsProbe(w) {
  const c = w.document.createElement('canvas'); c.width = 32; c.height = 16;
  const gl = c.getContext('webgl');
  if (!gl) return null;
  const paint = () => {
    gl.enable(gl.SCISSOR_TEST);
    gl.scissor(0, 0, 32, 8); gl.clearColor(0.2, 0.4, 0.6, 1); gl.clear(gl.COLOR_BUFFER_BIT);
    gl.scissor(0, 8, 32, 8); gl.clearColor(0.8, 0.2, 0.4, 1); gl.clear(gl.COLOR_BUFFER_BIT);
    gl.disable(gl.SCISSOR_TEST);
  };
  paint();
  const px = new Uint8Array(32 * 16 * 4);
  gl.readPixels(0, 0, 32, 16, gl.RGBA, gl.UNSIGNED_BYTE, px);
  const want = (row) => (row < 8 ? [51, 102, 153, 255] : [204, 51, 102, 255]);
  let maxDiff = 0, changed = 0;
  for (let i = 0; i < px.length; i++) {
    const diff = Math.abs(px[i] - want(Math.floor(i / 128))[i % 4]);
    if (diff > maxDiff) maxDiff = diff;
    if (diff) changed++;
  }
  // the same pixels through a 2D copy (rows top down there)
  const c2 = w.document.createElement('canvas'); c2.width = 32; c2.height = 16;
  const x2 = c2.getContext('2d');
  x2.drawImage(c, 0, 0);
  const d2 = x2.getImageData(0, 0, 32, 16).data;
  let agree = true;
  for (let row = 0; row < 16; row++) for (let i = 0; i < 128; i++) {
    if (px[row * 128 + i] !== d2[(15 - row) * 128 + i]) agree = false;
  }
  // a framebuffer of the page's own: read exactly
  const fb = gl.createFramebuffer(), tex = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, tex);
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 32, 16, 0, gl.RGBA, gl.UNSIGNED_BYTE, null);
  gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
  gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0);
  paint();
  const own = new Uint8Array(32 * 16 * 4);
  gl.readPixels(0, 0, 32, 16, gl.RGBA, gl.UNSIGNED_BYTE, own);
  let ownExact = true;
  for (let i = 0; i < own.length; i++) if (own[i] !== want(Math.floor(i / 128))[i % 4]) ownExact = false;
  return { hash: fnv(Array.from(px).join()), maxDiff, changed, agree, ownExact };
}
// a new frame's window as a detector reads it, at once and without contentWindow (no getter
// there to catch it): through window[i], from a frame made by script or by the page's HTML
function freshRead(w) {
  const n = w.navigator, c = w.document.createElement('canvas');
  c.width = 60; c.height = 20;
  const x = c.getContext('2d');
  x.fillStyle = 'rgb(10,200,30)'; x.fillRect(0, 0, 60, 20); x.fillStyle = '#f60'; x.fillText('Cwm', 2, 12);
  return [n.hardwareConcurrency, n.deviceMemory, w.Intl.NumberFormat().resolvedOptions().locale,
    w.Intl.DateTimeFormat().resolvedOptions().timeZone, fnv(c.toDataURL()), typeof (w.chrome && w.chrome.loadTimes),
    w.Function.prototype.toString.call(Object.getOwnPropertyDescriptor(w.Navigator.prototype,
      'hardwareConcurrency').get)];
}
function freshFrames() {
  const last = () => window[window.length - 1];
  const out = { main: freshRead(window) };
  document.body.appendChild(document.createElement('iframe'));
  out.appended = freshRead(last());
  const host = document.createElement('div');
  document.body.appendChild(host);
  host.innerHTML = '<iframe></iframe>';
  out.innerHTML = freshRead(last());
  const doc = document.createElement('iframe');
  doc.srcdoc = '<p>x</p>';
  document.body.append(doc);
  out.srcdoc = freshRead(last());
  return out;
}
function describe(obj, name) {
  const d = Object.getOwnPropertyDescriptor(obj, name);
  if (!d) return null;
  const f = d.get || d.value;
  return { keys: Object.keys(d).sort().join(','), enumerable: d.enumerable,
    configurable: d.configurable, text: Function.prototype.toString.call(f), name: f.name,
    length: f.length, hasPrototype: Object.prototype.hasOwnProperty.call(f, 'prototype') };
}
// what lie detectors (CreepJS's "lies") try on a replaced function: each answer, error class and
// message included, must be a native function's
function tamper(w, f) {
  const err = (run) => { try { return 'ok ' + String(run()); }
    catch (e) { return e.constructor.name + ': ' + e.message; } };
  const proto = Object.getPrototypeOf(f);
  const restore = () => Object.setPrototypeOf(f, proto);
  return [
    err(() => new f()).replace(/^TypeError: .* is not a constructor$/, 'not a constructor'),
    err(() => { try { return Reflect.setPrototypeOf(f, Object.create(f)); } finally { restore(); } }),
    err(() => { try { return Object.setPrototypeOf(f, Object.create(f)); } finally { restore(); } }),
    err(() => { try { Object.setPrototypeOf(f, null); return f + ''; } finally { restore(); } }),
    err(() => Object.create(f).toString()),
    err(() => ({}) instanceof f),
    err(() => { const p = new Proxy(f, {});
      try { return Object.setPrototypeOf(p, Object.create(p)) + ''; } finally { restore(); } }),
    Reflect.ownKeys(f).join(','), 'prototype' in f, Object.getPrototypeOf(f) === w.Function.prototype,
  ];
}
// the stack of an error thrown through a replaced function, as a page reads it: the lines of
// `stack` (without places) and the call sites its own Error.prepareStackTrace gets
const G = (o, k) => Object.getOwnPropertyDescriptor(o, k);
function stackOf(run) {
  try { run(); return 'no error'; }
  catch (e) { return String(e.stack).replace(/(https?|blob):[^\s)]+/g, 'PAGE').replace(/:\d+:\d+/g, ''); }
}
function errorStacks(w) {
  const E = w.Error, you = (f) => f(), cant = (f) => you(f), hide = (f) => cant(f);
  const deep = (n, f) => (n === 0 ? f() : deep(n - 1, f));
  const cases = {
    platform: () => G(w.Navigator.prototype, 'platform').get.call({}),
    toDataURL: () => w.HTMLCanvasElement.prototype.toDataURL.call({}),
    toStringChain: () => hide(() => Object.create(G(w.Navigator.prototype, 'platform').get).toString()),
    toStringOfObject: () => w.Function.prototype.toString.call({}),
    getHours: () => w.Date.prototype.getHours.call({}),
    setHours: () => w.Date.prototype.setHours.call({}, 1),
    intl: () => new w.Intl.DateTimeFormat('!!'),
    toLocale: () => new w.Date(0).toLocaleString('!!'),
    dateValueOf: () => new w.Date({ valueOf() { throw new E('from the page'); } }),
    parseSymbol: () => w.Date.parse(Symbol()),
    zoneGetter: () => new w.Intl.DateTimeFormat('en', { get timeZone() { throw new E('zone'); } }),
  };
  const out = {};
  for (const k in cases) out[k] = stackOf(cases[k]);
  const limit = E.stackTraceLimit;
  E.stackTraceLimit = 2;
  out.limited = stackOf(() => deep(5, cases.getHours));
  E.stackTraceLimit = limit;
  E.prepareStackTrace = (e, sites) => sites.map((c) => [c.getTypeName(), c.getFunctionName(),
    c.isNative(), (c.getFileName() || '').replace(/https?:.*/, 'PAGE')].join(' '));
  out.sites = stackOf(() => hide(() => Object.create(w.Date.prototype.getHours).toString()));
  out.sitesGetter = stackOf(cases.platform);
  delete E.prepareStackTrace;
  const order = [];
  new w.Intl.DateTimeFormat('en', new Proxy({}, { get(t, k) { order.push(String(k)); } }));
  out.optionOrder = order.join();
  return out;
}
function checks(w) {
  const ts = w.Function.prototype.toString;
  let illegal = null;
  try { Object.getOwnPropertyDescriptor(w.Navigator.prototype, 'platform').get.call({}); }
  catch (e) { illegal = e.constructor.name; }
  return {
    ownPlatform: Object.prototype.hasOwnProperty.call(w.navigator, 'platform'),
    platform: describe(w.Navigator.prototype, 'platform'),
    cores: describe(w.Navigator.prototype, 'hardwareConcurrency'),
    width: describe(w.Screen.prototype, 'width'),
    dpr: describe(w, 'devicePixelRatio'),
    estimate: describe(w.StorageManager.prototype, 'estimate'),
    getHours: describe(w.Date.prototype, 'getHours'),
    toDataURL: describe(w.HTMLCanvasElement.prototype, 'toDataURL'),
    getParameter: describe(w.WebGLRenderingContext.prototype, 'getParameter'),
    toString: describe(w.Function.prototype, 'toString'),
    date: ts.call(w.Date), dtf: ts.call(w.Intl.DateTimeFormat),
    toStringOfToString: ts.call(ts), illegal,
    dateIsCtor: w.Date.prototype.constructor === w.Date,
    tamper: [tamper(w, Object.getOwnPropertyDescriptor(w.Navigator.prototype, 'platform').get),
      tamper(w, w.HTMLCanvasElement.prototype.toDataURL), tamper(w, w.Function.prototype.toString)],
    tamperNative: tamper(w, Object.getOwnPropertyDescriptor(w.Navigator.prototype, 'vendor').get),
    stacks: errorStacks(w),
  };
}
function webgl(w) {
  const gl = w.document.createElement('canvas').getContext('webgl');
  if (!gl) return null;
  const e = gl.getExtension('WEBGL_debug_renderer_info');
  return [gl.getParameter(gl.VENDOR), gl.getParameter(gl.RENDERER),
    e && gl.getParameter(e.UNMASKED_VENDOR_WEBGL), e && gl.getParameter(e.UNMASKED_RENDERER_WEBGL)];
}
async function audio(w) {
  const ctx = new w.OfflineAudioContext(1, 5000, 44100);
  const osc = ctx.createOscillator(); osc.type = 'triangle'; osc.frequency.value = 10000;
  const comp = ctx.createDynamicsCompressor();
  osc.connect(comp); comp.connect(ctx.destination); osc.start(0);
  const buf = await ctx.startRendering();
  const data = buf.getChannelData(0);
  const bits = new Uint32Array(data.buffer.slice(0));
  let h = 0; for (let i = 4000; i < 5000; i++) h = (Math.imul(h, 31) + bits[i]) >>> 0;
  let sum = 0; for (let i = 4000; i < 5000; i++) sum += Math.abs(data[i]);
  return { hash: h.toString(16), sum };
}
async function report(w) {
  const out = basics(w);
  out.canvas = canvasProbe(w);
  out.webgl = webgl(w);
  out.glPixels = glPixelsProbe(w);
  out.blob = await blobProbe();
  out.quota = (await w.navigator.storage.estimate()).quota;
  out.webkitQuota = await new Promise((r) => w.navigator.webkitTemporaryStorage
    .queryUsageAndQuota((usage, quota) => r(quota), () => r('error')));
  out.audio = await audio(w);
  out.headers = await (await w.fetch('/echo')).json();
  return out;
}
"""
)

# What a worker reports (a dedicated worker, the worker it starts, and the service worker),
# asked through a MessageChannel port; FIRST, ORIGIN and NESTED_SRC come before it.
WORKER_BODY = (
    COMMON
    + r"""
function workerStacks() {
  const stackOf = (run) => { try { run(); return 'no error'; } catch (e) {
    return String(e.stack).replace(/(https?|blob):[^\s)]+/g, 'PAGE').replace(/:\d+:\d+/g, ''); } };
  const G = (o, k) => Object.getOwnPropertyDescriptor(o, k);
  return [stackOf(() => G(WorkerNavigator.prototype, 'platform').get.call({})),
    stackOf(() => Date.prototype.getHours.call({})), stackOf(() => new Intl.DateTimeFormat('!!')),
    stackOf(() => Object.create(Date.prototype.getHours).toString())];
}
async function probe() {
  const n = self.navigator;
  const d = Object.getOwnPropertyDescriptor(WorkerNavigator.prototype, 'hardwareConcurrency');
  return { ua: n.userAgent, languages: n.languages, platform: n.platform,
    brands: n.userAgentData ? n.userAgentData.brands.map((b) => b.brand + '/' + b.version) : null,
    uaPlatform: n.userAgentData ? n.userAgentData.platform : null,
    high: n.userAgentData ? await n.userAgentData.getHighEntropyValues(
      ['platformVersion', 'fullVersionList', 'formFactors']) : null,
    tz: Intl.DateTimeFormat().resolvedOptions().timeZone, cores: n.hardwareConcurrency,
    memory: n.deviceMemory,
    offsetJan: new Date(2024, 0, 15, 12).getTimezoneOffset(),
    offsetJul: new Date(2024, 6, 15, 12).getTimezoneOffset(),
    quota: (await n.storage.estimate()).quota,
    coresGetter: Function.prototype.toString.call(d.get),
    stacks: workerStacks(), blob: await blobProbe(), first: FIRST };
}
self.onmessage = async (e) => {
  let out;
  try {
    out = await probe();
    out.headers = await (await fetch(ORIGIN + '/echo')).json();
    if (NESTED_SRC) {
      const w = new Worker(URL.createObjectURL(new Blob([NESTED_SRC])));
      out.nested = await new Promise((r) => {
        const ch = new MessageChannel();
        ch.port1.onmessage = (m) => r(m.data);
        w.postMessage(1, [ch.port2]);
      });
    }
  } catch (err) { out = { error: String(err && err.stack || err) }; }
  e.ports[0].postMessage(out);
};
"""
)

SERVICE_WORKER = (
    "const FIRST = [self.navigator.platform, self.navigator.hardwareConcurrency];\n"
    "const ORIGIN = self.location.origin;\nconst NESTED_SRC = null;\n" + WORKER_BODY
)

PAGE = (
    """<!doctype html><html><head><title>identity</title><script>"""
    + PROBE
    + r"""
const WORKER_BODY = """
    + json.dumps(WORKER_BODY)
    + r""";
// a worker's source: its very first statement reads what a prelude must already have set
const WSRC = (nest) => 'const FIRST = [self.navigator.platform, self.navigator.hardwareConcurrency];\n' +
  'const ORIGIN = ' + JSON.stringify(location.origin) + ';\n' +
  'const NESTED_SRC = ' + (nest ? JSON.stringify(WSRC(false)) : 'null') + ';\n' + WORKER_BODY;
// one question to a worker (dedicated or service), answered on a port
function ask(target) {
  return Promise.race([
    new Promise((r) => {
      const ch = new MessageChannel();
      ch.port1.onmessage = (e) => r(e.data);
      target.postMessage(1, [ch.port2]);
    }),
    new Promise((r) => setTimeout(() => r({ error: 'no answer' }), 15000)),
  ]);
}
async function run() {
  const out = { main: await report(window), checks: checks(window) };
  const made = document.createElement('iframe');
  document.body.appendChild(made);
  const cw = made.contentWindow;
  out.made = basics(cw);
  out.madeChecks = checks(cw);
  out.madeCanvas = canvasProbe(cw);
  out.fresh = freshFrames();
  out.fresh.parsed = PARSED;
  // the same reads inside another site's frame (its own renderer), asked by message
  const x = document.createElement('iframe');
  x.src = 'http://localhost:' + location.port + '/xframe';
  const loaded = new Promise((r) => x.addEventListener('load', r, { once: true }));
  document.body.appendChild(x);
  await loaded;
  const answer = Promise.race([
    new Promise((r) => addEventListener('message', (e) => { if (e.data.xframe) r(e.data.xframe); })),
    new Promise((r) => setTimeout(() => r({ error: 'no answer' }), 15000)),
  ]);
  x.contentWindow.postMessage('read', '*');
  out.xframe = await answer;
  const frame = document.getElementById('f');
  if (!frame.contentWindow.report) {
    await new Promise((r) => frame.addEventListener('load', r, { once: true }));
  }
  out.frame = await frame.contentWindow.report(frame.contentWindow);
  out.worker = await ask(new Worker(URL.createObjectURL(new Blob([WSRC(true)]))));
  if (location.search === '?round=0') {
    // a service worker (127.0.0.1 is a secure context), registered in the first round only: a
    // later round may meet the one already running with the identity it started with
    const reg = await navigator.serviceWorker.register('/sw.js');
    await navigator.serviceWorker.ready;
    out.service = await ask(reg.active);
  }
  const done = document.createElement('pre');
  done.id = 'out';
  done.textContent = JSON.stringify(out);
  document.body.appendChild(done);
}
addEventListener('load', () => run().catch((e) => {
  const p = document.createElement('pre'); p.id = 'out';
  p.textContent = JSON.stringify({ error: String(e && e.stack || e) });
  document.body.appendChild(p);
}));
</script></head><body><iframe id="f" src="/frame"></iframe><iframe></iframe><script>
const PARSED = freshRead(window[window.length - 1]);
</script></body></html>"""
)

FRAME = (
    """<!doctype html><html><head><script>"""
    + PROBE
    + """window.report = report;</script></head><body>frame</body></html>"""
)


# and those the engine answers from the machine (memory, display scale, network estimate)
ACCEPT_CH = (
    "Sec-CH-UA-Full-Version-List, Sec-CH-UA-Platform-Version, Sec-CH-UA-Arch, Device-Memory, "
    "Sec-CH-Device-Memory, DPR, Sec-CH-DPR, ECT, RTT, Downlink"
)


# another site's frame (localhost against 127.0.0.1): the fresh-frame reads, asked by message
XFRAME = (
    """<!doctype html><html><head><script>"""
    + PROBE
    + r"""</script></head><body><iframe></iframe><script>
const PARSED = freshRead(window[window.length - 1]);
addEventListener('message', (e) => {
  let r;
  try { r = freshFrames(); r.parsed = PARSED; } catch (err) { r = { error: String(err) }; }
  e.source.postMessage({ xframe: r }, '*');
});
</script></body></html>"""
)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: IdentitySite._Server

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        headers = {k.lower(): v for k, v in self.headers.items()}
        with self.server.lock:
            self.server.seen.setdefault(path, []).append(headers)
        if path == "/echo":
            body, ctype = json.dumps(headers).encode(), "application/json"
        elif path in ("/page", "/frame", "/xframe"):
            page = {"/page": PAGE, "/frame": FRAME, "/xframe": XFRAME}[path]
            body, ctype = page.encode(), "text/html; charset=utf-8"
        elif path == "/sw.js":
            body, ctype = SERVICE_WORKER.encode(), "text/javascript"
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        # Chrome sends the high-entropy hints only to a site that asks for them
        self.send_header("Accept-CH", ACCEPT_CH)
        self.end_headers()
        self.wfile.write(body)


class IdentitySite:
    class _Server(ThreadingHTTPServer):
        daemon_threads = True
        seen: dict[str, list[dict[str, str]]]
        lock: threading.Lock

    def __init__(self) -> None:
        self._server = IdentitySite._Server(("127.0.0.1", 0), _Handler)
        self._server.seen = {}
        self._server.lock = threading.Lock()
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self._server.server_port}{path}"

    def seen(self, path: str) -> list[dict[str, str]]:
        with self._server.lock:
            return list(self._server.seen.get(path, []))

    def __enter__(self) -> IdentitySite:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
