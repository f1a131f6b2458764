const first = {hc: navigator.hardwareConcurrency, platform: navigator.platform, dm: navigator.deviceMemory,
  tz: Intl.DateTimeFormat().resolvedOptions().timeZone, off: new Date().getTimezoneOffset(),
  prelude: self.__svcPrelude || 0, href: location.href};
if (location.search.includes('nested=1') && !location.search.includes('inner')) {
  // A worker started from a worker: reports its inner worker's first values.
  const inner = new Worker('w.js?nested=1&inner=1');
  inner.onmessage = e => postMessage(Object.assign({}, e.data, {outer: first}));
} else {
  postMessage(first);
}
