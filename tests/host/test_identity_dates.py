"""The identity script's time zone against a real one (issue 14 point 1, `timezone`: `Date`
offsets, DST, `toString`): the script reimplements `Date`'s local-time methods for the
fingerprint's zone, so every answer is compared with what the same JavaScript engine answers
when the zone is its own. Node runs the same battery twice: with `TZ=UTC` and the script
installed for the zone, and natively with `TZ=<zone>` (one V8 and one ICU: any difference is
the script's). Zones with 30- and 45-minute offsets, negative and lunar-calendar DST, a
30-minute DST shift and a local mean time with seconds (Kathmandu +5:41:16 until 1920)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from host_app.logic.identity import engine_identity

from .test_logic_identity import profile

pytestmark = pytest.mark.e2e

# 2000 instants from 1900 to 2100 (the first 300 also as locale texts, with the engine's
# defaults and with arguments), then local wall-clock times around every DST change of six
# years (gaps and repeated hours included) through the constructor, a setter and Date.parse
BATTERY = r"""
const out = [];
let seed = 12345;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const from = Date.UTC(1900, 0, 1), to = Date.UTC(2100, 0, 1);
for (let i = 0; i < 2000; i++) {
  const t = Math.floor(from + rnd() * (to - from));
  const d = new Date(t);
  out.push([t, d.getFullYear(), d.getMonth(), d.getDate(), d.getDay(), d.getHours(),
    d.getMinutes(), d.getSeconds(), d.getTimezoneOffset(), d.toString()].join(' '));
  if (i < 300) {
    out.push(['locale', d.toLocaleString(), d.toLocaleDateString(), d.toLocaleTimeString(),
      d.toLocaleString('de-DE', { timeZoneName: 'short' })].join(' | '));
  }
}
const two = (n) => String(n).padStart(2, '0');
for (let y = 2020; y < 2026; y++) for (let m = 0; m < 12; m++) {
  for (const day of [1, 8, 15, 22, 29]) for (const h of [0, 1, 2, 2.5, 3, 23]) {
    const hour = Math.floor(h), minute = (h % 1) * 60;
    const d = new Date(y, m, day, hour, minute, 30);
    out.push(['ctor', y, m, day, h, d.getTime(), d.getHours(), d.getMinutes()].join(' '));
    const e = new Date(Date.UTC(y, m, day, 12));
    e.setHours(hour, minute);
    out.push(['set', y, m, day, h, e.getTime()].join(' '));
    const text = `${y}-${two(m + 1)}-${two(Math.min(day, 28))}T${two(hour)}:${two(minute)}:00`;
    out.push(['parse', text, Date.parse(text)].join(' '));
  }
}
console.log(out.join('\n'));
"""

ZONES = [
    "Europe/Berlin",
    "America/New_York",
    "Europe/Dublin",  # negative DST in the zone database
    "Asia/Kathmandu",  # +5:45, and +5:41:16 local mean time
    "Australia/Lord_Howe",  # a 30-minute DST shift
    "Pacific/Chatham",  # +12:45 / +13:45
    "Africa/Casablanca",  # DST suspended each Ramadan: several changes a year
    "America/Sao_Paulo",  # DST until 2019
]
# zones whose names V8 and the script read alike from 1980 on (the script takes the name of the
# instant from Intl; V8 one of the zone's two current names, so older dates and a few zones
# differ there: the name is compared only where it is the same source)
NAMED = {"Europe/Berlin", "America/New_York", "Europe/Dublin", "Asia/Kathmandu"}
SINCE_1980 = 315532800000


def run_node(code: str, tz: str) -> list[str]:
    node = shutil.which("node")
    assert node is not None, "node missing: the Makefile installs Debian's nodejs"
    done = subprocess.run(
        [node, "-e", code],
        env={"TZ": tz, "LANG": "en_US.UTF-8", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def without_name(line: str) -> str:
    return line.split(" (", 1)[0]


@pytest.mark.parametrize("zone", ZONES)
def test_the_scripts_dates_are_the_engines_own(zone: str) -> None:
    script = engine_identity(profile(timezone=zone, locale="en-US")).script()
    native = run_node(BATTERY, zone)
    emulated = run_node(script + ";\n" + BATTERY, "UTC")
    assert len(native) == len(emulated) > 8000
    for mine, real in zip(emulated, native, strict=True):
        first = real.split(" ", 1)[0]
        named = zone in NAMED and first.lstrip("-").isdigit() and int(first) >= SINCE_1980
        if named:
            assert mine == real
        else:
            assert without_name(mine) == without_name(real)


# every service whose default is the browser's language, with the default and with the profile's
# language given: the script makes the first answer as the second
LOCALES = r"""
const L = LANG, out = [];
const both = (name, f) => out.push([name, f(undefined), f(L)].join(' | '));
for (const k of ['DateTimeFormat', 'NumberFormat', 'Collator', 'PluralRules', 'RelativeTimeFormat',
                 'ListFormat', 'Segmenter', 'DurationFormat']) {
  if (Intl[k]) both(k, (l) => new Intl[k](l).resolvedOptions().locale);
}
both('DisplayNames', (l) => new Intl.DisplayNames(l, { type: 'region' }).of('DE'));
both('upper', (l) => 'i\u0131\u0130I'.toLocaleUpperCase(l));
both('lower', (l) => 'i\u0131\u0130I'.toLocaleLowerCase(l));
both('number', (l) => (1234567.891).toLocaleString(l));
both('bigint', (l) => (12345678901234567890n).toLocaleString(l));
both('compare', (l) => ['ä', 'z', 'a'].sort((a, b) => a.localeCompare(b, l)).join());
both('date', (l) => new Date(0).toLocaleDateString(l, { timeZone: 'UTC' }));
both('list', (l) => [1.5, 2.5].toLocaleString(l));
console.log(out.join('\n'));
"""


@pytest.mark.parametrize("locale", ["tr-TR", "de-DE", "lt-LT"])
def test_the_profiles_language_is_every_locale_default(locale: str) -> None:
    """Turkish and Lithuanian case rules included: `'i'.toLocaleUpperCase()` of a Turkish
    profile is `İ`, as in a Turkish browser (it followed the engine's own language before)."""
    script = engine_identity(profile(locale=locale)).script()
    code = script + ";\n" + LOCALES.replace("LANG", repr(locale))
    lines = run_node(code, "UTC")
    assert len(lines) >= 14
    for line in lines:
        name, default, given = line.split(" | ")
        assert default == given, (locale, name)
