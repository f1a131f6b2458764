"""Country -> zone and language, and the user's preferred language (agent/locales.py)."""

from __future__ import annotations

import pytest

from agent.locales import (
    language_for_country,
    local_timezone,
    preferred_language,
    zone_for_country,
)


@pytest.mark.parametrize(
    ("country", "zone"),
    [
        ("DE", "Europe/Berlin"),
        ("fr", "Europe/Paris"),
        ("US", "America/New_York"),
        ("CA", "America/Toronto"),  # not Newfoundland, zone.tab's first row
        ("RU", "Europe/Moscow"),
        ("AU", "Australia/Sydney"),
        ("BR", "America/Sao_Paulo"),
        ("JP", "Asia/Tokyo"),
        ("XX", None),
    ],
)
def test_zone_for_country(country: str, zone: str | None) -> None:
    assert zone_for_country(country) == zone


def test_language_for_country() -> None:
    assert language_for_country("de") == "de-DE"
    assert language_for_country("CH") == "de-CH"
    assert language_for_country("AQ") is None


@pytest.mark.parametrize(
    ("env", "tag"),
    [
        ({"LANG": "de_DE.UTF-8"}, "de-DE"),
        ({"LANG": "fr_FR.UTF-8@euro", "LC_ALL": ""}, "fr-FR"),
        ({"LANG": "en_US.UTF-8", "LC_ALL": "sv_SE.UTF-8"}, "sv-SE"),
        ({"LANG": "en_US.UTF-8", "LC_MESSAGES": "it_IT.UTF-8"}, "it-IT"),
        ({"LANG": "en_GB.UTF-8", "LANGUAGE": "pt_BR:pt:en"}, "pt-BR"),
        ({"LANG": "C.UTF-8", "LANGUAGE": "de_DE"}, None),  # gettext ignores LANGUAGE under C
        ({"LANG": "POSIX"}, None),
        ({}, None),
    ],
)
def test_preferred_language(env: dict[str, str], tag: str | None) -> None:
    assert preferred_language(env) == tag


@pytest.mark.parametrize(
    ("tz", "zone"),
    [
        ("Europe/Berlin", "Europe/Berlin"),
        (":America/New_York", "America/New_York"),  # glibc's file form
        ("/usr/share/zoneinfo/Asia/Tokyo", "Asia/Tokyo"),
        ("Etc/UTC", "UTC"),  # every name of UTC is UTC, as the engine reads it
        ("CET-1CEST,M3.5.0,M10.5.0/3", None),  # a POSIX rule names no zone
        ("Nowhere/City", None),
        ("../../etc/passwd", None),
    ],
)
def test_local_timezone_from_tz(tz: str, zone: str | None) -> None:
    assert local_timezone({"TZ": tz}) == zone


def test_local_timezone_without_tz_is_the_systems() -> None:
    """This machine's own setting (tzlocal): whatever it is, a name the database knows."""
    import zoneinfo

    zone = local_timezone({})
    assert zone is None or zoneinfo.ZoneInfo(zone) is not None
