"""The identity page script: run at document creation in the main world of every frame
(`host_app.engine.identity`), and as the prelude of every worker (`host_app.engine.worker_cdp`, on
the worker's global scope: what a worker lacks, such as Screen or HTMLCanvasElement, is skipped),
it makes the page read the session's fingerprint where QtWebEngine has no
API for it. `/*CONFIG*/` is replaced by the JSON of `EngineIdentity.page`.

Why it is written the way it is (docs/decisions.md "Session identity"):
- Getters are replaced on the prototypes that hold the native ones (Navigator.prototype,
  Screen.prototype), with the native descriptor's attributes, names and lengths; each
  replacement first calls the native getter, so a wrong receiver still throws "Illegal
  invocation".
- Function.prototype.toString is itself replaced: for a replacement it answers the native
  function's own text, for anything else it calls the native toString.
- The intrinsics it relies on are captured before page scripts run, so a page that changes
  Reflect, WeakMap or Promise.prototype.then later cannot break or observe the replacements.
- A same-origin iframe created by script is reachable before the engine has run this script in
  it: reading its `contentWindow`/`contentDocument` installs the same replacements first.
"""

from __future__ import annotations

SCRIPT_TEMPLATE = r"""(function (C) {
'use strict';
const apply = Reflect.apply, construct = Reflect.construct, defineProperty = Object.defineProperty;
const getDesc = Object.getOwnPropertyDescriptor, setProto = Object.setPrototypeOf;
const getProto = Object.getPrototypeOf;
const create = Object.create, isFinite_ = Number.isFinite, trunc = Math.trunc, floor = Math.floor;
const imul = Math.imul;
const uncurry = (f) => Function.prototype.call.bind(f);
const wmGet = uncurry(WeakMap.prototype.get), wmSet = uncurry(WeakMap.prototype.set);
const wsHas = uncurry(WeakSet.prototype.has), wsAdd = uncurry(WeakSet.prototype.add);
const reTest = uncurry(RegExp.prototype.test);
const NATIVE_TS = Function.prototype.toString;
const TS_TEXT = 'function toString() { [native code] }';
const natives = new WeakMap();
// Stack traces: an error thrown through a replacement lists the replacement's frames (this
// script's), which a page reads in `error.stack` or its own Error.prepareStackTrace. `hide`
// gives it the frames the native function would have: V8 formats a stack with the
// Error.prepareStackTrace of the realm that made the error, and this script's frames are named
// after it (its sourceURL).
const E0 = Error, captureStack = Error.captureStackTrace;
const hasOwn = uncurry(Object.prototype.hasOwnProperty);
const arrayPush = uncurry(Array.prototype.push), arraySlice = uncurry(Array.prototype.slice);
const arrayJoin = uncurry(Array.prototype.join), arrayConcat = uncurry(Array.prototype.concat);
const strSplit = uncurry(String.prototype.split), strStarts = uncurry(String.prototype.startsWith);
const strIncludes = uncurry(String.prototype.includes);
let siteName = null, siteText = null, OURS = null;
// f() with `hook` as E's Error.prepareStackTrace (and `limit` as its stackTraceLimit), both put
// back as they were, without running a page's accessor
function withStackHook(E, hook, limit, f) {
  const d = getDesc(E, 'prepareStackTrace'), l = getDesc(E, 'stackTraceLimit');
  defineProperty(E, 'prepareStackTrace', { value: hook, writable: true, configurable: true });
  if (limit !== null && l) defineProperty(E, 'stackTraceLimit', { value: limit, writable: true,
    enumerable: l.enumerable, configurable: true });
  try { return f(); } finally {
    if (d) defineProperty(E, 'prepareStackTrace', d); else delete E.prepareStackTrace;
    if (limit !== null && l) defineProperty(E, 'stackTraceLimit', l);
  }
}
try {
  withStackHook(E0, (e, s) => {
    const CS = getProto(s[0]);
    siteName = uncurry(CS.getScriptNameOrSourceURL);
    siteText = uncurry(CS.toString);
    OURS = siteName(s[0]);
    return '';
  }, null, () => new E0().stack);
} catch (e) { OURS = null; }
const ours = (site) => siteName(site) === OURS;
// What install() uses later, when a page's scripts may have replaced globals or the array
// iterator (a frame or popup installed from its parent's hook runs after the parent's
// scripts): captured now, and arrays walked by index, never with for-of or destructuring.
const MapC = Map, WeakSetC = WeakSet, F32 = Float32Array, U32 = Uint32Array;
const ownNames = Object.getOwnPropertyNames, TAG = Symbol.toStringTag;
const each = (list, f) => { for (let i = 0; i < list.length; i++) f(list[i], i); };

function mix(a, b) {
  let h = imul((a ^ b) >>> 0, 0x9e3779b1);
  h ^= h >>> 15; h = imul(h, 0x85ebca6b); h ^= h >>> 13; h = imul(h, 0xc2b2ae35); h ^= h >>> 16;
  return h >>> 0;
}

function install(win) {
  let FP;
  try { FP = win.Function.prototype; } catch (e) { return; }  // another origin's window
  // Installed already (by this document's own run, or through a parent frame).
  if (apply(NATIVE_TS, FP.toString, []) !== TS_TEXT) return;

  // The error `e` (thrown by a native function or a page's callback under a replacement) with
  // the stack the page would see without the replacement: this script's frames left out, the
  // native function's own frame (V8's built-ins have one) kept, as many frames as the page's
  // Error.stackTraceLimit allows. Formatted now (natively at the page's first read of `stack`).
  function hide(e) {
    if (!OURS || e === null || (typeof e !== 'object' && typeof e !== 'function') ||
        !hasOwn(e, 'stack')) {
      return e;
    }
    try {
      const WE = win.Error, ld = getDesc(WE, 'stackTraceLimit');
      const pd = getDesc(WE, 'prepareStackTrace');
      const limit = ld && ld.value;
      if (typeof limit !== 'number' || !(limit > 0)) return e;
      const pageHook = pd ? ('value' in pd ? pd.value : apply(pd.get, WE, [])) : undefined;
      // the frames under the outermost replacement, for a stack the limit cut short
      const under = withStackHook(E0, (x, st) => st, limit + 32, () => {
        const o = {};
        captureStack(o);
        return o.stack;
      });
      let u = 0;
      while (u < under.length && ours(under[u])) u++;
      // frames: the error's own (at most `limit`); isOurs tells this script's apart
      const kept = (frames, isOurs, text) => {
        const out = [];
        let i = 0;
        if (frames.length < limit) {
          for (; i < frames.length; i++) if (!isOurs(frames[i])) arrayPush(out, frames[i]);
          return out;
        }
        // cut at the last frame of this script (the outermost replacement, unless the limit
        // cut it too): what is above it, less this script's, then what is under it
        let last = frames.length - 1;
        while (last >= 0 && !isOurs(frames[last])) last--;
        if (last < 0) return frames;
        for (; i < last; i++) if (!isOurs(frames[i])) arrayPush(out, frames[i]);
        for (let j = u; j < under.length && out.length < limit; j++) {
          if (!ours(under[j])) arrayPush(out, text(under[j]));
        }
        return out;
      };
      if (typeof pageHook === 'function') {
        // the page's own formatter gets the call sites it would natively
        // (V8 asks the realm that made the error: a frame's own window here)
        const sites = (x, st) => (x === e ? kept(st, ours, (c) => c) : st);
        withStackHook(WE, (x, st) => apply(pageHook, WE, [x, sites(x, st)]), null, () => e.stack);
        return e;
      }
      // V8's own text (its first line keeps the message the error was made with), less the
      // lines of this script's frames
      const text = e.stack;
      if (typeof text !== 'string') return e;
      const lines = strSplit(text, '\n');
      let f = 0;
      while (f < lines.length && !strStarts(lines[f], '    at ')) f++;
      const head = arraySlice(lines, 0, f), frames = arraySlice(lines, f);
      const mark = OURS + ':';
      const out = kept(frames, (l) => strIncludes(l, mark), (c) => '    at ' + siteText(c));
      e.stack = arrayJoin(arrayConcat(head, out), '\n');
    } catch (x) { /* the stack stays as the engine made it */ }
    return e;
  }

  function disguise(fake, orig) {
    setProto(fake, FP);
    defineProperty(fake, 'length', { value: orig.length, configurable: true });
    defineProperty(fake, 'name', { value: orig.name, configurable: true });
    wmSet(natives, fake, apply(NATIVE_TS, orig, []));
    return fake;
  }
  function patchGetter(obj, name, value) {
    const d = obj && getDesc(obj, name);
    if (!d || typeof d.get !== 'function') return;
    const orig = d.get;
    const fake = getDesc({ get [name]() {
      try { return value(this, orig); } catch (e) { throw hide(e); }
    } }, name).get;
    d.get = disguise(fake, orig);
    defineProperty(obj, name, d);
  }
  // A getter that answers a constant, after the native one checked the receiver.
  function constGetter(obj, name, v) {
    patchGetter(obj, name, (self, orig) => { apply(orig, self, []); return v; });
  }
  // `retry(this)`: where the replacement throws, the native function's own error (message and
  // frame) is the one a page would get; calling it again, on that receiver, gives it (and its
  // result, if it has one).
  function patchMethod(obj, name, make, retry) {
    const d = obj && getDesc(obj, name);
    if (!d || typeof d.value !== 'function') return;
    const orig = d.value, impl = make(orig);
    const fake = ({ [name]() {
      try { return apply(impl, this, arguments); } catch (e) {
        if (!retry) throw hide(e);
      }
      try { return apply(orig, retry(this), arguments); } catch (e) { throw hide(e); }
    } })[name];
    d.value = disguise(fake, orig);
    defineProperty(obj, name, d);
  }
  function wrapCtor(owner, name, fix) {
    const d = owner && getDesc(owner, name);
    if (!d || typeof d.value !== 'function') return null;
    const T = d.value;
    const P = new win.Proxy(T, {
      apply(target, self, args) {
        try { return apply(target, self, fix(args)); } catch (e) { throw hide(e); }
      },
      construct(target, args, nt) {
        try { return construct(target, fix(args), nt); } catch (e) { throw hide(e); }
      },
    });
    wmSet(natives, P, apply(NATIVE_TS, T, []));
    d.value = P;
    defineProperty(owner, name, d);
    const pd = T.prototype && getDesc(T.prototype, 'constructor');
    if (pd) { pd.value = P; defineProperty(T.prototype, 'constructor', pd); }
    return T;
  }

  const realTS = FP.toString;
  patchMethod(FP, 'toString', () => ({ toString() {
    const s = wmGet(natives, this);
    return s !== undefined ? s : apply(realTS, this, arguments);
  } }).toString);

  // --- navigator, screen, window ------------------------------------------------------------
  // a document's Navigator, or a worker's WorkerNavigator (the same script is a worker prelude)
  const NAV = win.Navigator || win.WorkerNavigator, NP = NAV && NAV.prototype;
  constGetter(NP, 'platform', C.platform);
  constGetter(NP, 'hardwareConcurrency', C.hardwareConcurrency);
  constGetter(NP, 'deviceMemory', C.deviceMemory);
  constGetter(NP, 'maxTouchPoints', C.maxTouchPoints);
  if (!C.userAgentData && NP && getDesc(NP, 'userAgentData')) delete NP.userAgentData;
  const NIP = win.NetworkInformation && win.NetworkInformation.prototype;
  each(['effectiveType', 'downlink', 'rtt'], (k) => constGetter(NIP, k, C.connection[k]));
  const SP = win.Screen && win.Screen.prototype;
  each(['width', 'height', 'availWidth', 'availHeight', 'colorDepth'], (k) => {
    constGetter(SP, k, C.screen[k]);
  });
  constGetter(SP, 'pixelDepth', C.screen.colorDepth);
  constGetter(SP, 'availLeft', 0);
  constGetter(SP, 'availTop', 0);
  constGetter(win, 'devicePixelRatio', C.devicePixelRatio);
  // The window is the engine's (the view's top-level size, the same in every frame, however
  // small the frame) with a desktop browser's toolbar (85 px) on top, and never larger than the
  // fingerprint's screen: at most screen.width wide and its available height tall, in every
  // frame alike (a window larger than its screen is what bot checks compare). Before the engine
  // sized the window (0: the first script of a cross-site navigation, "Pinned viewport") the
  // pinned viewport stands in. A worker has no window.
  const innerW = getDesc(win, 'innerWidth'), innerH = getDesc(win, 'innerHeight');
  if (innerW && innerH) {
    patchGetter(win, 'outerWidth', (self, orig) => {
      let w = apply(orig, self, []);
      if (!(w > 0)) w = apply(innerW.get, self, []);
      return w < C.screen.width ? w : C.screen.width;
    });
    patchGetter(win, 'outerHeight', (self, orig) => {
      let h = apply(orig, self, []);
      if (!(h > 0)) h = apply(innerH.get, self, []);
      const avail = C.screen.availHeight;
      return h + 85 < avail ? h + 85 : avail;
    });
  }

  // --- client hints where the engine gives other ones -----------------------------------------
  // Service and shared workers get the engine's browser-wide brands (its own, not the profile's
  // client hints): there they read the page's values. A document (and its dedicated workers)
  // has the profile's, except a popup's first document when the channel's user-agent override
  // reached its renderer after the document took its hints: none at all (no brands, no
  // platform); there too the page's values are answered.
  const UAD = win.NavigatorUAData && win.NavigatorUAData.prototype;
  const engineHints = () => {
    const uad = NP && getDesc(NP, 'userAgentData'), own = UAD && getDesc(UAD, 'brands');
    const data = uad && uad.get && apply(uad.get, win.navigator, []);
    return data && own && own.get ? apply(own.get, data, []).length > 0 : true;
  };
  const sharedScope = !win.document && !win.DedicatedWorkerGlobalScope;
  if (UAD && C.userAgentData && (sharedScope || !engineHints())) {
    const U = C.uaData, settle = win.Promise.prototype.then;
    const list = (pairs) => {
      const out = [];
      each(pairs, (pair) => { out[out.length] = { brand: pair[0], version: pair[1] }; });
      return out;
    };
    const brands = win.Object.freeze(list(U.brands));
    constGetter(UAD, 'brands', brands);
    constGetter(UAD, 'platform', U.platform);
    constGetter(UAD, 'mobile', U.mobile);
    const HIGH = { architecture: U.architecture, bitness: U.bitness, model: U.model,
      platformVersion: U.platformVersion, uaFullVersion: U.uaFullVersion, wow64: false };
    const fix = (r) => {
      r.brands = list(U.brands); r.mobile = U.mobile; r.platform = U.platform;
      for (const k in HIGH) if (k in r) r[k] = HIGH[k];
      if ('fullVersionList' in r) r.fullVersionList = list(U.fullVersionList);
      if ('formFactors' in r) r.formFactors = arraySlice(U.formFactors);
      return r;
    };
    patchMethod(UAD, 'getHighEntropyValues', (orig) => ({ getHighEntropyValues(hints) {
      return apply(settle, apply(orig, this, arguments), [fix]);
    } }).getHighEntropyValues);
    patchMethod(UAD, 'toJSON', (orig) => ({ toJSON() {
      return fix(apply(orig, this, arguments));
    } }).toJSON);
  }

  // --- storage quota ------------------------------------------------------------------------
  const then = win.Promise.prototype.then;
  const estimate = (proto) => patchMethod(proto, 'estimate', (orig) => ({
    estimate() {
      return apply(then, apply(orig, this, arguments),
        [(r) => { r.quota = C.quota; return r; }, (e) => { throw hide(e); }]);
    } }).estimate);
  if (win.StorageManager) {
    estimate(win.StorageManager.prototype);
  } else {
    // A worker held at its start has no StorageManager interface yet (the secure-context
    // interfaces come later): its prototype is patched at the first read of navigator.storage.
    let patched = false;
    patchGetter(NP, 'storage', (self, orig) => {
      const s = apply(orig, self, []);
      if (!patched && s) { patched = true; estimate(getProto(s)); }
      return s;
    });
  }

  // The deprecated callback API answers the same quota (a page may read both and compare); its
  // interface has no global name, so its prototype is patched at the first read.
  let quotaPatched = false;
  patchGetter(NP, 'webkitTemporaryStorage', (self, orig) => {
    const q = apply(orig, self, []);
    if (!quotaPatched && q) {
      quotaPatched = true;
      patchMethod(getProto(q), 'queryUsageAndQuota', (native) => ({ queryUsageAndQuota(done) {
        const args = arguments;
        if (typeof done === 'function') {
          args[0] = function (usage, quota) {
            try { return apply(done, this, [usage, C.quota]); } catch (e) { throw hide(e); }
          };
        }
        return apply(native, this, args);
      } }).queryUsageAndQuota);
    }
    return q;
  });

  // --- locale and time zone -----------------------------------------------------------------
  const LOC = C.locale, TZ = C.timezone, I = win.Intl;
  const byLocale = (args) => [args[0] === undefined ? LOC : args[0], args[1]];
  const withZone = (o) => {
    if (o === undefined || o === null) return o === null ? o : { timeZone: TZ };
    if (typeof o !== 'object' && typeof o !== 'function') return { timeZone: TZ };  // ToObject
    // The zone is read where the engine reads it, in its order among the options (a page can
    // log the reads), from the page's object first.
    const c = create(o);
    const zone = () => { const z = o.timeZone; return z === undefined ? TZ : z; };
    defineProperty(c, 'timeZone', { get: zone, enumerable: true });
    return c;
  };
  const DTF = wrapCtor(I, 'DateTimeFormat',
    (a) => [a[0] === undefined ? LOC : a[0], withZone(a[1])]);
  each(['NumberFormat', 'Collator', 'PluralRules', 'RelativeTimeFormat', 'ListFormat', 'Segmenter',
        'DisplayNames', 'DurationFormat'], (k) => wrapCtor(I, k, byLocale));
  const localeMethod = (proto, name) => patchMethod(proto, name, (orig) => ({ [name]() {
    const a = [arguments[0] === undefined ? LOC : arguments[0], arguments[1]];
    return apply(orig, this, a);
  } })[name]);
  localeMethod(win.Number.prototype, 'toLocaleString');
  // (a Turkish or Lithuanian profile's 'i' upper-cases as its language does)
  localeMethod(win.String.prototype, 'toLocaleUpperCase');
  localeMethod(win.String.prototype, 'toLocaleLowerCase');
  localeMethod(win.BigInt.prototype, 'toLocaleString');
  patchMethod(win.String.prototype, 'localeCompare', (orig) => ({ localeCompare(that) {
    return apply(orig, this, [that, arguments[1] === undefined ? LOC : arguments[1], arguments[2]]);
  } }).localeCompare);

  const WD = win.Date, DP = WD.prototype, N = {};
  // a Date method whose replacement throws (a receiver that is no Date, a Symbol) throws the
  // native method's own error
  // (`Date.parse()` runs on the Date proxy below: its native frame says `Date.parse`, not
  // `Proxy.parse`, when it runs on Date itself)
  let DateProxy = null;
  const dateSelf = (self) => (self === DateProxy ? WD : self);
  const patchDate = (obj, name, make) => patchMethod(obj, name, make, dateSelf);
  each(ownNames(DP), (k) => {
    const d = getDesc(DP, k);
    if (typeof d.value === 'function') N[k] = d.value;
  });
  const nParse = WD.parse, nUTC = WD.UTC;
  const parts = uncurry(DTF.prototype.formatToParts);
  const wall = new DTF('en-US', { timeZone: TZ, hourCycle: 'h23', era: 'short', year: 'numeric',
    month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
  const scratch = new WD(0);
  const at = (t) => { apply(N.setTime, scratch, [t]); return scratch; };
  const cacheGet = uncurry(Map.prototype.get);
  const cacheSet = uncurry(Map.prototype.set), cacheClear = uncurry(Map.prototype.clear);
  // ms to add to the instant t (to the second) to get the zone's wall-clock time, from the
  // zone's own rules (Intl: some microseconds a call)
  function rawOffset(t) {
    const p = parts(wall, t);
    const f = { year: 0, month: 1, day: 1, hour: 0, minute: 0, second: 0, era: 'AD' };
    for (let i = 0; i < p.length; i++) f[p[i].type] = p[i].value;
    let y = +f.year;
    if (f.era === 'BC' || f.era === 'B') y = 1 - y;
    const d = at(0);
    apply(N.setUTCFullYear, d, [y, +f.month - 1, +f.day]);
    apply(N.setUTCHours, d, [+f.hour, +f.minute, +f.second, 0]);
    return apply(N.getTime, d, []) - floor(t / 1000) * 1000;
  }
  // A zone's offset changes at its transitions, never twice in one UTC day (the database has
  // no such day): a day whose two ends have the same offset has it throughout, and a day whose
  // ends differ has one transition, found to the second and kept. A page that reads many dates
  // (a calendar, a chart's axis) costs one lookup per day it touches, not one per minute.
  const DAY = 86400000, edges = new MapC(), changes = new MapC();
  function edge(day) {
    let o = cacheGet(edges, day);
    if (o === undefined) {
      if (edges.size > 8192) cacheClear(edges);
      o = rawOffset(day * DAY);
      cacheSet(edges, day, o);
    }
    return o;
  }
  function changeIn(day, before) {
    let when = cacheGet(changes, day);
    if (when === undefined) {
      let lo = day * DAY, hi = lo + DAY;  // before at lo, another offset at hi
      while (hi - lo > 1000) {
        const mid = lo + floor((hi - lo) / 2000) * 1000;
        if (rawOffset(mid) === before) lo = mid; else hi = mid;
      }
      if (changes.size > 1024) cacheClear(changes);
      cacheSet(changes, day, hi);
      when = hi;
    }
    return when;
  }
  let steadyDay = NaN, steadyOffset = 0;  // the last day read that has no change
  function offsetAt(t) {
    const day = floor(t / DAY);
    if (day === steadyDay) return steadyOffset;
    const before = edge(day), after = edge(day + 1);
    if (before === after) {
      steadyDay = day;
      steadyOffset = before;
      return before;
    }
    return t < changeIn(day, before) ? before : after;
  }
  // Wall-clock time in the zone -> instant. A time in a gap or a repeated hour takes the offset
  // from before the transition, as ECMAScript's LocalTime does.
  function toInstant(w) {
    const before = offsetAt(w - 54000000), after = offsetAt(w + 46800000);
    const t1 = w - before;
    if (offsetAt(t1) === before) return t1;
    const t2 = w - after;
    return offsetAt(t2) === after ? t2 : t1;
  }
  const tv = (d) => apply(N.getTime, d, []);
  const localAt = (t) => at(t + offsetAt(t));

  const GETTERS = { getFullYear: 'getUTCFullYear', getMonth: 'getUTCMonth', getDate: 'getUTCDate',
    getDay: 'getUTCDay', getHours: 'getUTCHours', getMinutes: 'getUTCMinutes',
    getSeconds: 'getUTCSeconds', getMilliseconds: 'getUTCMilliseconds' };
  for (const name in GETTERS) {
    const utc = N[GETTERS[name]];
    patchDate(DP, name, () => ({ [name]() {
      const t = tv(this);
      return t !== t ? NaN : apply(utc, localAt(t), []);
    } })[name]);
  }
  patchDate(DP, 'getYear', () => ({ getYear() {
    const t = tv(this);
    return t !== t ? NaN : apply(N.getUTCFullYear, localAt(t), []) - 1900;
  } }).getYear);
  // whole minutes, truncated as V8 does: a local mean time's seconds (Kathmandu +5:41:16 until
  // 1920) count in the fields but not in the offset
  const zoneMinutes = (t) => trunc(-offsetAt(t) / 60000) + 0;
  patchDate(DP, 'getTimezoneOffset', () => ({ getTimezoneOffset() {
    const t = tv(this);
    return t !== t ? NaN : zoneMinutes(t);
  } }).getTimezoneOffset);
  const SETTERS = { setMilliseconds: 'setUTCMilliseconds', setSeconds: 'setUTCSeconds',
    setMinutes: 'setUTCMinutes', setHours: 'setUTCHours', setDate: 'setUTCDate',
    setMonth: 'setUTCMonth', setFullYear: 'setUTCFullYear' };
  for (const name in SETTERS) {
    const utc = N[SETTERS[name]];
    patchDate(DP, name, (orig) => ({ [name](...args) {
      const t = tv(this);
      if (t !== t && name !== 'setFullYear') return apply(orig, this, args);
      const w = apply(utc, at(t !== t ? 0 : t + offsetAt(t)), args);
      return apply(N.setTime, this, [w !== w ? NaN : toInstant(w)]);
    } })[name]);
  }

  const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov',
    'Dec'];
  const two = (n) => (n < 10 ? '0' : '') + n;
  const zoneName = new DTF(LOC, { timeZone: TZ, timeZoneName: 'long' });
  function dateText(t) {
    const l = localAt(t);
    const y = apply(N.getUTCFullYear, l, []);
    const ys = y < 0 ? '-' + ('00000' + -y).slice(-6) : ('000' + y).slice(-4);
    return DAYS[apply(N.getUTCDay, l, [])] + ' ' + MONTHS[apply(N.getUTCMonth, l, [])] + ' ' +
      two(apply(N.getUTCDate, l, [])) + ' ' + ys;
  }
  const names = new MapC();
  function nameAt(t) {
    const day = floor(t / DAY), steady = edge(day) === edge(day + 1);
    let name = steady ? cacheGet(names, day) : undefined;
    if (name === undefined) {
      const p = parts(zoneName, t);
      name = '';
      for (let i = 0; i < p.length; i++) if (p[i].type === 'timeZoneName') name = p[i].value;
      if (steady) {
        if (names.size > 4096) cacheClear(names);
        cacheSet(names, day, name);
      }
    }
    return name;
  }
  function timeText(t) {
    const off = -zoneMinutes(t), a = off < 0 ? -off : off;
    const l = localAt(t);
    const name = nameAt(t);
    return two(apply(N.getUTCHours, l, [])) + ':' + two(apply(N.getUTCMinutes, l, [])) + ':' +
      two(apply(N.getUTCSeconds, l, [])) + ' GMT' + (off < 0 ? '-' : '+') + two(trunc(a / 60)) +
      two(a % 60) + ' (' + name + ')';
  }
  const TEXTS = { toString: (t) => dateText(t) + ' ' + timeText(t), toDateString: dateText,
    toTimeString: timeText };
  for (const name in TEXTS) {
    const text = TEXTS[name];
    patchDate(DP, name, () => ({ [name]() {
      const t = tv(this);
      return t !== t ? 'Invalid Date' : text(t);
    } })[name]);
  }
  // Without arguments (the usual call) one formatter per method serves every date, as the
  // engine keeps its own default one: these are the options the engine would add (ECMA-402
  // ToDateTimeOptions), so the text is the same; with arguments a formatter per call, as native.
  const DATE = { year: 'numeric', month: 'numeric', day: 'numeric' };
  const TIME = { hour: 'numeric', minute: 'numeric', second: 'numeric' };
  const LOCALE_TEXTS = { toLocaleString: [DATE, TIME], toLocaleDateString: [DATE],
    toLocaleTimeString: [TIME] };
  const formatOf = getDesc(DTF.prototype, 'format').get;
  for (const name in LOCALE_TEXTS) {
    const fields = { timeZone: TZ };
    each(LOCALE_TEXTS[name], (group) => { for (const k in group) fields[k] = group[k]; });
    let format = null;
    patchDate(DP, name, (orig) => ({ [name]() {
      if (arguments[0] === undefined && arguments[1] === undefined) {
        const t = tv(this);
        if (t !== t) return 'Invalid Date';
        if (format === null) format = apply(formatOf, new DTF(LOC, fields), []);
        return format(t);
      }
      const loc = arguments[0] === undefined ? LOC : arguments[0];
      return apply(orig, this, [loc, withZone(arguments[1])]);
    } })[name]);
  }
  // A date-time string without a zone is local time; a date-only ISO string is UTC.
  const ZONED =
    /\d:\d\d(:\d\d(\.\d+)?)?\s*(z\b|[+-]\d\d(:?\d\d)?\b)|\b(gmt|utc|ut)\b|\b[ecmp][sd]t\b|z\s*$/i;
  const DATE_ONLY = /^\s*[+-]?\d{4,6}(-\d\d(-\d\d)?)?\s*$/;
  function parseLocal(s) {
    const t = apply(nParse, WD, [s]);
    if (t !== t || reTest(ZONED, s) || reTest(DATE_ONLY, s)) return t;
    // the native parser read the string as the engine's own local time: take those fields back
    const d = at(t);
    const w = t - apply(N.getTimezoneOffset, d, []) * 60000;
    return toInstant(w);
  }
  patchDate(WD, 'parse', () => ({ parse(s) { return parseLocal('' + s); } }).parse);
  patchDate(WD, 'UTC', (orig) => ({ UTC() {
    return apply(orig, dateSelf(this), arguments);
  } }).UTC);
  const toStringFake = DP.toString;
  DateProxy = new win.Proxy(WD, {
    apply() { return apply(toStringFake, new WD(), []); },
    construct(target, args, nt) {
      try {
        if (args.length >= 2) {
          const u = apply(nUTC, WD, args);
          return construct(target, [u !== u ? NaN : toInstant(u)], nt);
        }
        if (args.length === 1 && typeof args[0] === 'string') {
          return construct(target, [parseLocal(args[0])], nt);
        }
      } catch (e) { /* the native constructor's own error, below */ }
      try { return construct(target, args, nt); } catch (e) { throw hide(e); }
    },
  });
  wmSet(natives, DateProxy, apply(NATIVE_TS, WD, []));
  const wd = getDesc(win, 'Date');
  wd.value = DateProxy;
  defineProperty(win, 'Date', wd);
  const cd = getDesc(DP, 'constructor');
  cd.value = DateProxy;
  defineProperty(DP, 'constructor', cd);

  // --- canvas noise -------------------------------------------------------------------------
  if (C.canvasKey !== null) {
    const K = C.canvasKey >>> 0;
    // The lowest bit of one channel of about a quarter of the opaque pixels is set from the
    // seed, the pixel's place on the canvas and its colour without those bits: at most 1 off,
    // the same drawing always reads the same, and noising twice changes nothing more (an
    // install layered over another through a parent frame stays within 1).
    // (rows go down the canvas from y0; with `up`, as WebGL reads them, up from it)
    const noise = (data, x0, y0, w, up) => {
      const dy = up ? -1 : 1;
      for (let i = 0, n = data.length; i < n; i += 4) {
        if (data[i + 3] !== 255) continue;
        const k = i >> 2, x = x0 + (k % w), y = y0 + dy * floor(k / w);
        const rgb = (data[i] | (data[i + 1] << 8) | (data[i + 2] << 16)) & 0xfefefe;
        const h = mix(K, mix(imul(y, 0x10001) ^ x, rgb));
        if ((h & 3) !== 0) continue;
        const c = i + ((h >>> 2) % 3);
        data[c] = (data[c] & 0xfe) | ((h >>> 4) & 1);
      }
    };
    const C2D = win.CanvasRenderingContext2D && win.CanvasRenderingContext2D.prototype;
    const OC = win.OffscreenCanvasRenderingContext2D, O2D = OC && OC.prototype;
    const imageData = (orig) => ({ getImageData(sx, sy, sw, sh) {
      const img = apply(orig, this, arguments);
      let x = trunc(+sx) || 0, y = trunc(+sy) || 0;
      if (+sw < 0) x += trunc(+sw);
      if (+sh < 0) y += trunc(+sh);
      noise(img.data, x, y, img.width);
      return img;
    } }).getImageData;
    const OCV = win.OffscreenCanvas;
    if (O2D && OCV && OCV.prototype.convertToBlob) offscreenCanvases(OCV, O2D, noise);
    patchMethod(O2D, 'getImageData', imageData);
    if (C2D && win.HTMLCanvasElement) canvasElements(C2D, imageData, noise);
    each(['WebGLRenderingContext', 'WebGL2RenderingContext'], (name) => {
      if (win[name]) glPixels(win[name].prototype, name === 'WebGL2RenderingContext', noise);
    });
  }
  // `source` drawn onto a new canvas's 2D context, its pixels noised there; `natives`: that
  // context's drawImage, getImageData and putImageData
  // (indexed, not destructured: a page may have replaced the array iterator by then)
  function paintNoised(ctx, source, w, h, natives, noise) {
    apply(natives[0], ctx, [source, 0, 0]);
    const img = apply(natives[1], ctx, [0, 0, w, h]);
    noise(img.data, 0, 0, w);
    apply(natives[2], ctx, [img, 0, 0]);
  }
  // OffscreenCanvas.convertToBlob (in documents and workers): the engine answers first (its
  // checks, its errors: a canvas without a context, a detached one), then the blob comes from a
  // noised copy of the pixels as they were at the call.
  function offscreenCanvases(OCV, O2D, noise) {
    const OCP = OCV.prototype;
    const ow = getDesc(OCP, 'width').get, oh = getDesc(OCP, 'height').get;
    const nGetContext = OCP.getContext, nGet = O2D.getImageData, nPut = O2D.putImageData;
    const nDraw = O2D.drawImage, settle = win.Promise.prototype.then;
    function copy(canvas) {
      const w = apply(ow, canvas, []), h = apply(oh, canvas, []);
      if (!w || !h || w * h > 16777216) return null;
      const tmp = construct(OCV, [w, h]);
      const ctx = apply(nGetContext, tmp, ['2d']);
      paintNoised(ctx, canvas, w, h, [nDraw, nGet, nPut], noise);
      return tmp;
    }
    patchMethod(OCP, 'convertToBlob', (orig) => ({ convertToBlob() {
      const own = apply(orig, this, arguments), args = arguments;
      let tmp = null;
      try { tmp = copy(this); } catch (e) { /* the engine's answer below says why */ }
      return apply(settle, own, [(blob) => (tmp === null ? blob : apply(orig, tmp, args)),
        (e) => { throw hide(e); }]);
    } }).convertToBlob);
  }
  // WebGL's readPixels of the canvas's own drawing buffer (RGBA bytes, as fingerprinters read
  // it) gets the noise toDataURL gives the same pixels; a framebuffer of the page's own (GPU
  // picking reads object ids from one) and other formats stay exact.
  function glPixels(GP, gl2, noise) {
    const nParam = GP.getParameter, dbh = getDesc(GP, 'drawingBufferHeight').get;
    const U8 = win.Uint8Array, TA = getProto(U8.prototype);
    const tag = getDesc(TA, TAG).get, buf = getDesc(TA, 'buffer').get;
    const byteOffset = getDesc(TA, 'byteOffset').get, len = getDesc(TA, 'length').get;
    // framebuffer bindings, then (WebGL 2) the pack state that moves rows
    const DEFAULTS = gl2 ? [0x8CA6, 0x8CAA, 0x0D02, 0x0D03, 0x0D04] : [0x8CA6];
    patchMethod(GP, 'readPixels', (orig) => ({ readPixels(x, y, width, height, format, type,
      pixels) {
      const r = apply(orig, this, arguments);
      const kind = pixels && typeof pixels === 'object' ? apply(tag, pixels, []) : undefined;
      if (format !== 0x1908 || type !== 0x1401 || (kind !== 'Uint8Array' &&
          kind !== 'Uint8ClampedArray')) {
        return r;
      }
      for (let i = 0; i < DEFAULTS.length; i++) {
        const v = apply(nParam, this, [DEFAULTS[i]]);
        if (v !== null && v !== 0) return r;
      }
      const w = trunc(+width), h = trunc(+height);
      const at = arguments.length > 7 ? trunc(+arguments[7]) : 0, n = apply(len, pixels, []);
      // (an array too short for the rectangle is a GL error: the engine wrote nothing)
      if (!(w > 0) || !(h > 0) || !(at >= 0) || n - at < w * h * 4) return r;
      const view = construct(U8, [apply(buf, pixels, []), apply(byteOffset, pixels, []) + at,
        w * h * 4]);
      noise(view, trunc(+x) || 0, apply(dbh, this, []) - 1 - (trunc(+y) || 0), w, true);
      return r;
    } }).readPixels);
  }
  function canvasElements(C2D, imageData, noise) {
    const nGet = C2D.getImageData, nPut = C2D.putImageData, nDraw = C2D.drawImage;
    patchMethod(C2D, 'getImageData', imageData);
    const CP = win.HTMLCanvasElement.prototype;
    const cw = getDesc(CP, 'width').get, ch = getDesc(CP, 'height').get;
    const nGetContext = CP.getContext, nCreate = win.Document.prototype.createElement;
    const sw = getDesc(CP, 'width').set, sh = getDesc(CP, 'height').set;
    // The canvas's pixels with the noise, on a copy: the page's canvas itself is left alone.
    function noisy(canvas) {
      const w = apply(cw, canvas, []), h = apply(ch, canvas, []);
      if (!w || !h || w * h > 16777216) return canvas;
      const tmp = apply(nCreate, win.document, ['canvas']);
      apply(sw, tmp, [w]); apply(sh, tmp, [h]);
      const ctx = apply(nGetContext, tmp, ['2d']);
      paintNoised(ctx, canvas, w, h, [nDraw, nGet, nPut], noise);
      return tmp;
    }
    each(['toDataURL', 'toBlob'], (name) => {
      patchMethod(CP, name, (orig) => ({ [name]() {
        apply(cw, this, []);  // the receiver check of the native method
        return apply(orig, noisy(this), arguments);
      } })[name]);
    });
  }

  // --- audio noise --------------------------------------------------------------------------
  if (C.audioKey !== null) {
    const K = C.audioKey >>> 0;
    const f32 = new F32(1), u32 = new U32(f32.buffer);
    // The lowest mantissa bit of about one sample in eight is set from the seed, the index and
    // the other bits: at most one unit in the last place, far below anything audible, and
    // idempotent like the canvas noise.
    const floats = (a) => {
      for (let i = 0, n = a.length; i < n; i++) {
        const v = a[i];
        if (v === 0 || !isFinite_(v)) continue;
        f32[0] = v;
        const h = mix(K, mix(i, u32[0] & 0xfffffffe));
        if ((h & 7) !== 0) continue;
        u32[0] = (u32[0] & 0xfffffffe) | ((h >>> 3) & 1);
        a[i] = f32[0];
      }
    };
    const bytes = (a) => {
      for (let i = 0, n = a.length; i < n; i++) {
        const v = a[i];
        if (v === 0) continue;
        const h = mix(K, mix(i, v & 0xfe));
        if ((h & 7) === 0) a[i] = (v & 0xfe) | ((h >>> 3) & 1);
      }
    };
    const AN = win.AnalyserNode && win.AnalyserNode.prototype;
    each([['getFloatFrequencyData', floats], ['getFloatTimeDomainData', floats],
          ['getByteFrequencyData', bytes], ['getByteTimeDomainData', bytes]], (pair) => {
      const name = pair[0], fn = pair[1];
      patchMethod(AN, name, (orig) => ({ [name](array) {
        const r = apply(orig, this, arguments);
        fn(array);
        return r;
      } })[name]);
    });
    // A buffer's channel is the same live array on every read: it takes the noise once.
    const AB = win.AudioBuffer && win.AudioBuffer.prototype;
    const nChannel = AB && AB.getChannelData, seen = new WeakSetC();
    const channel = (buffer, index) => {
      const a = apply(nChannel, buffer, [index]);
      if (!wsHas(seen, a)) { wsAdd(seen, a); floats(a); }
      return a;
    };
    patchMethod(AB, 'getChannelData', (orig) => ({ getChannelData(index) {
      apply(orig, this, arguments);
      return channel(this, index);
    } }).getChannelData);
    patchMethod(AB, 'copyFromChannel', (orig) => ({ copyFromChannel(dest, index) {
      try { channel(this, index); } catch (e) { /* the native call below reports it */ }
      return apply(orig, this, arguments);
    } }).copyFromChannel);
  }

  // --- WebGL --------------------------------------------------------------------------------
  const GL = { 0x1F00: C.webgl.vendor, 0x1F01: C.webgl.renderer, 0x9245: C.webgl.unmaskedVendor,
    0x9246: C.webgl.unmaskedRenderer };
  each(['WebGLRenderingContext', 'WebGL2RenderingContext'], (name) => {
    patchMethod(win[name] && win[name].prototype, 'getParameter', (orig) => ({ getParameter(p) {
      const r = apply(orig, this, arguments);
      return typeof r === 'string' && typeof p === 'number' && GL[p] !== undefined ? GL[p] : r;
    } }).getParameter);
  });

  // --- window.chrome --------------------------------------------------------------------------
  // A Chromium browser's pages have chrome.loadTimes, chrome.csi and chrome.app (Chrome's own
  // renderer adds them; QtWebEngine's chrome object is empty, a classic sign of an embedded or
  // headless engine). Shapes, values and errors are a real Chromium's (Debian's, measured).
  if (C.userAgentData && win.document && win.Performance) installChrome();
  function installChrome() {
    let chrome = win.chrome;
    if (typeof chrome !== 'object' || chrome === null) {
      chrome = {};
      defineProperty(win, 'chrome', { value: chrome, writable: true, enumerable: true,
        configurable: true });
    }
    const PP = win.Performance.prototype, perf = win.performance;
    const entries = uncurry(PP.getEntriesByType), now = uncurry(PP.now);
    const originOf = getDesc(PP, 'timeOrigin').get;
    const anonymous = (f) => {
      defineProperty(f, 'name', { value: '', configurable: true });
      wmSet(natives, f, 'function () { [native code] }');
      return f;
    };
    const nav = () => entries(perf, 'navigation')[0] || {};
    const exact = () => apply(originOf, perf, []);
    const origin = () => floor(exact());  // navigation start, in whole ms as Chrome reports it
    const at = (ms) => (ms ? floor(exact() + ms) / 1000 : 0);  // seconds, 0 for not yet
    const kind = () => ({ reload: 'Reload', back_forward: 'BackForward' })[nav().type] || 'Other';
    chrome.loadTimes = anonymous(function () {
      const n = nav(), hop = n.nextHopProtocol || '';
      const paint = entries(perf, 'paint')[0];
      const alpn = win.location.protocol === 'https:' && hop !== '' && hop !== 'http/1.0';
      return { requestTime: origin() / 1000, startLoadTime: origin() / 1000,
        commitLoadTime: at(n.responseStart), finishDocumentLoadTime: at(n.domContentLoadedEventEnd),
        finishLoadTime: at(n.loadEventEnd), firstPaintTime: paint ? at(paint.startTime) : 0,
        firstPaintAfterLoadTime: 0, navigationType: kind(),
        wasFetchedViaSpdy: hop === 'h2' || hop === 'h3', wasNpnNegotiated: alpn,
        npnNegotiatedProtocol: alpn ? hop : 'unknown', wasAlternateProtocolAvailable: false,
        connectionInfo: hop || 'unknown' };
    });
    chrome.csi = anonymous(function () {
      const n = nav(), o = exact();
      const dcl = n.domContentLoadedEventEnd;
      return { startE: floor(o), onloadT: dcl ? floor(o + dcl) : 0,
        pageT: now(perf) + (o - floor(o)),
        tran: ({ Reload: 16, BackForward: 6 })[kind()] || 15 };
    });
    const TypeErr = win.TypeError, later = win.setTimeout;
    // the extension bindings' answer to arguments that match no signature
    const invocation = (name, params) => new TypeErr(
      'Error in invocation of app.' + name + '(' + params + '): ');
    const named = (f) => {
      wmSet(natives, f, 'function ' + f.name + '() { [native code] }');
      return f;
    };
    const app = { isInstalled: false };
    app.getDetails = named({ getDetails() {
      if (arguments.length) throw hide(invocation('getDetails', ''));
      return null;
    } }.getDetails);
    app.getIsInstalled = named({ getIsInstalled() {
      if (arguments.length) throw hide(invocation('getIsInstalled', ''));
      return false;
    } }.getIsInstalled);
    app.installState = named({ installState() {
      const callback = arguments[0];
      if (arguments.length > 1 || (callback !== undefined && typeof callback !== 'function')) {
        throw hide(invocation('installState', 'optional function callback'));
      }
      if (callback) apply(later, win, [() => callback('not_installed'), 0]);
    } }.installState);
    app.runningState = named({ runningState() {
      if (arguments.length) throw hide(invocation('runningState', ''));
      return 'cannot_run';
    } }.runningState);
    app.InstallState = { DISABLED: 'disabled', INSTALLED: 'installed',
      NOT_INSTALLED: 'not_installed' };
    app.RunningState = { CANNOT_RUN: 'cannot_run', READY_TO_RUN: 'ready_to_run',
      RUNNING: 'running' };
    chrome.app = app;
  }

  // --- window.open ---------------------------------------------------------------------------
  // A popup the page opens is read at once by some scripts (`window.open()` returns its window
  // while its first document is the engine's empty one, which QtWebEngine's script and the
  // channel reach only later): it is installed into now. And svc's popup blocker, like Chrome's,
  // refuses a popup without a user gesture (transient activation, what the engine reports to
  // the app): Chrome answers null, where QtWebEngine hands the page a window it then closes,
  // whose empty document showed the machine's identity. The engine still asks the app, which
  // reports the blocked popup.
  const UAP = win.UserActivation && win.UserActivation.prototype;
  const activeOf = UAP && getDesc(UAP, 'isActive');
  const activation = NP && getDesc(NP, 'userActivation');
  const navigatorObject = win.navigator;
  if (win.document && activeOf && activation && getDesc(win, 'open')) {
    patchMethod(win, 'open', (orig) => ({ open() {
      const active = apply(activeOf.get, apply(activation.get, navigatorObject, []), []);
      const opened = apply(orig, this, arguments);
      if (!active) return null;
      if (opened) try { install(opened); } catch (e) { /* another origin's: its own run */ }
      return opened;
    } }).open);
  }

  // --- frames created by script -------------------------------------------------------------
  each(['HTMLIFrameElement', 'HTMLFrameElement'], (name) => {
    const proto = win[name] && win[name].prototype;
    patchGetter(proto, 'contentWindow', (self, orig) => {
      const w = apply(orig, self, []);
      if (w) try { install(w); } catch (e) { /* the frame stays native */ }
      return w;
    });
    patchGetter(proto, 'contentDocument', (self, orig) => {
      const d = apply(orig, self, []);
      if (d && d.defaultView) try { install(d.defaultView); } catch (e) { /* stays native */ }
      return d;
    });
  });
}

// A same-origin frame is installed into by its parent's run, through the parent's own
// contentWindow hook: one registry of replacements for the page, so the parent's
// Function.prototype.toString knows the frame's replacements too, as a native one knows every
// native function. (This run may be the engine's own, as the frame's window is made.)
try {
  const frame = globalThis.document && globalThis.parent !== globalThis && globalThis.frameElement;
  if (frame) void frame.contentWindow;
} catch (e) { /* another origin's parent: this run installs */ }
// a document's window, or a worker's global scope
try { install(globalThis); } catch (e) { /* a partial identity beats a broken page */ }
})(/*CONFIG*/);
//# sourceURL=userscript:svc-identity
"""
