"""Country -> time zone and language, the user's preferred language and the machine's time zone
(spec 1 §4 Proxies,
"Automatic language/timezone"; docs/decisions.md "Exit locale").

Time zones come from the IANA tz database's `zone.tab` (the copy `zoneinfo` reads: the system's
/usr/share/zoneinfo, or the `tzdata` package), so a country's zones follow the installed database
instead of a table of ours. `zone.tab` lists a country's zones in geographic order, not by
population, so for the few large countries whose first row is not where most people live a short
override names the zone (checked against the database: an override the database lacks is
skipped). Languages are a small table of each country's most used language, since the tz
database has none and CLDR (babel) would be a 30 MB dependency for one lookup; a country missing
from it keeps the fingerprint's language.
"""

from __future__ import annotations

import functools
import importlib.resources
import re
import zoneinfo
from collections.abc import Mapping
from pathlib import Path

import tzlocal

# Countries whose first `zone.tab` row is a small region (Newfoundland, Lord Howe Island,
# Kaliningrad, Fernando de Noronha, Crimea): the zone of most of the population instead.
_POPULOUS_ZONE = {
    "AU": "Australia/Sydney",
    "BR": "America/Sao_Paulo",
    "CA": "America/Toronto",
    "RU": "Europe/Moscow",
    "UA": "Europe/Kyiv",
}

# The language most of a country's browsers ask for first (ISO 639-1), for the countries
# proxies commonly exit in. The locale sent is `<language>-<COUNTRY>`.
_LANGUAGE = {
    "AE": "ar", "AR": "es", "AT": "de", "AU": "en", "BD": "bn", "BE": "nl", "BG": "bg",
    "BO": "es", "BR": "pt", "BY": "ru", "CA": "en", "CH": "de", "CL": "es", "CN": "zh",
    "CO": "es", "CR": "es", "CY": "el", "CZ": "cs", "DE": "de", "DK": "da", "DO": "es",
    "DZ": "ar", "EC": "es", "EE": "et", "EG": "ar", "ES": "es", "FI": "fi", "FR": "fr",
    "GB": "en", "GR": "el", "GT": "es", "HK": "zh", "HR": "hr", "HU": "hu", "ID": "id",
    "IE": "en", "IL": "he", "IN": "en", "IQ": "ar", "IR": "fa", "IS": "is", "IT": "it",
    "JO": "ar", "JP": "ja", "KE": "en", "KR": "ko", "KW": "ar", "KZ": "ru", "LB": "ar",
    "LT": "lt", "LU": "fr", "LV": "lv", "MA": "ar", "MD": "ro", "MX": "es", "MY": "ms",
    "NG": "en", "NL": "nl", "NO": "nb", "NZ": "en", "PA": "es", "PE": "es", "PH": "en",
    "PK": "ur", "PL": "pl", "PR": "es", "PT": "pt", "PY": "es", "QA": "ar", "RO": "ro",
    "RS": "sr", "RU": "ru", "SA": "ar", "SE": "sv", "SG": "en", "SI": "sl", "SK": "sk",
    "TH": "th", "TN": "ar", "TR": "tr", "TW": "zh", "UA": "uk", "US": "en", "UY": "es",
    "VE": "es", "VN": "vi", "ZA": "en",
}  # fmt: skip

_LOCALE_TAG = re.compile(r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$")


def _zone_tab() -> str | None:
    for root in zoneinfo.TZPATH:
        path = Path(root) / "zone.tab"
        if path.is_file():
            return path.read_text(encoding="utf-8")
    try:
        return (importlib.resources.files("tzdata") / "zoneinfo" / "zone.tab").read_text("utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        return None


@functools.cache
def _zones_by_country() -> dict[str, tuple[str, ...]]:
    text = _zone_tab() or ""
    zones: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) >= 3:
            zones.setdefault(fields[0].upper(), []).append(fields[2])
    return {country: tuple(names) for country, names in zones.items()}


def zone_for_country(country: str) -> str | None:
    """The IANA zone most of `country` (ISO 3166-1 alpha-2) lives in; None when the installed
    tz database names none."""
    zones = _zones_by_country().get(country.upper(), ())
    preferred = _POPULOUS_ZONE.get(country.upper())
    if preferred in zones:
        return preferred
    return zones[0] if zones else None


def language_for_country(country: str) -> str | None:
    """The locale (`de-DE`) a browser in `country` most often asks for; None when unknown."""
    code = country.upper()
    language = _LANGUAGE.get(code)
    return None if language is None else f"{language}-{code}"


def preferred_language(env: Mapping[str, str]) -> str | None:
    """The user's preferred language as a BCP 47 tag, from the POSIX locale variables in the
    order gettext reads them for messages (LANGUAGE's first entry, LC_ALL, LC_MESSAGES, LANG);
    None for the C/POSIX locale or nothing set. `de_DE.UTF-8@euro` -> `de-DE`."""
    # gettext ignores LANGUAGE when the locale itself is C; so do we.
    locale_value = next(
        (env[name] for name in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(name)), ""
    )
    candidates = []
    if locale_value and _tag(locale_value) is not None:
        candidates.append(env.get("LANGUAGE", "").split(":")[0])
    candidates.append(locale_value)
    for raw in candidates:
        tag = _tag(raw)
        if tag is not None:
            return tag
    return None


def _tag(raw: str) -> str | None:
    name = raw.split(".", maxsplit=1)[0].split("@", maxsplit=1)[0].strip()
    if name in ("", "C", "POSIX"):
        return None
    tag = name.replace("_", "-")
    return tag if _LOCALE_TAG.match(tag) else None


# Names of UTC itself: the engine reads them all as "UTC", so does the session.
_UTC_NAMES = frozenset(
    {"UTC", "Etc/UTC", "Etc/UCT", "UCT", "Etc/Universal", "Universal", "Etc/Zulu", "Zulu"}
)


def local_timezone(env: Mapping[str, str]) -> str | None:
    """The machine's time zone as an IANA name, as the engine of a native session takes it: TZ
    when it names a zone (`Europe/Berlin`, `:Europe/Berlin`, a path into the zone database),
    else the system's setting (tzlocal: /etc/localtime, /etc/timezone, timedatectl...). None
    when neither names a zone the database knows (a POSIX rule such as `CET-1CEST`)."""
    raw = env.get("TZ")
    name: str | None
    if raw:
        name = raw.removeprefix(":").rpartition("/zoneinfo/")[2]
    else:
        try:
            name = tzlocal.get_localzone_name()
        except Exception:  # tzlocal's own errors on a misconfigured system
            name = None
    if not name:
        return None
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None
    return "UTC" if name in _UTC_NAMES else name
