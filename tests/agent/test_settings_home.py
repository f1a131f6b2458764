"""One home per setting (issue 39 point 4): the browsing settings are defined once, in
bridge_protocol.settings, and everything that carries them is derived from that definition or
checked against it here, so a setting added there and forgotten elsewhere fails a test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml

from agent import api, records, responses
from agent.store import SCHEMA
from bridge_protocol import SessionSettings, settings
from bridge_protocol.settings import BrowsingSettings, SettingsChange, SettingsChoice

OPENAPI = Path(__file__).resolve().parents[2] / "docs" / "openapi.yaml"


def _names(struct: type[msgspec.Struct]) -> list[str]:
    return [f.name for f in msgspec.structs.fields(struct)]


def test_a_create_and_a_patch_name_every_setting() -> None:
    assert _names(SettingsChoice) == _names(SettingsChange) == list(settings.NAMES)


@pytest.mark.parametrize(
    "holder",
    [
        api.SessionCreate,
        api.SessionPatch,
        api.ProfileCreate,
        api.ProfilePatch,
        records.SessionRecord,
        records.ProfileRecord,
        records.SessionTemplate,
        SessionSettings,
        responses.Session,
        responses.Profile,
    ],
)
def test_requests_records_and_the_bridge_carry_every_setting(holder: type[Any]) -> None:
    assert set(settings.NAMES) <= set(_names(holder))


def test_the_store_has_a_column_for_every_setting() -> None:
    for table in ("browser_profiles", "saved_profiles"):
        assert settings.columns() in SCHEMA[table]
    assert settings.columns().count("NOT NULL") == len(settings.NAMES)


def test_the_api_documents_every_setting_on_sessions_and_profiles() -> None:
    schemas = yaml.safe_load(OPENAPI.read_text("utf-8"))["components"]["schemas"]
    for name in ("Session", "Profile"):
        assert set(settings.NAMES) <= set(schemas[name]["properties"]), name


def test_a_choice_falls_back_to_the_profile_and_a_change_names_only_what_it_sets() -> None:
    base = BrowsingSettings(adblock_enabled=False, image_blocking_mode="all")
    picked = settings.chosen(base, SettingsChoice(image_size_limit_kb=64))
    assert picked == BrowsingSettings(
        adblock_enabled=False, image_blocking_mode="all", image_size_limit_kb=64
    )
    assert settings.changes(SettingsChange()) == {}
    # stored as a STRICT table keeps them: booleans as integers
    assert settings.changes(SettingsChange(adblock_enabled=True)) == {"adblock_enabled": 1}
    assert settings.stored(picked) == {
        "adblock_enabled": 0,
        "image_blocking_mode": "all",
        "image_size_limit_kb": 64,
    }
    assert settings.rendered(picked)["adblock_enabled"] is False


def test_the_defaults_are_the_builtin_profiles() -> None:
    """spec 1 §4: the built-in Custom profile has adblock on and every image allowed."""
    from agent.sessions import CUSTOM_TEMPLATE

    assert settings.of(CUSTOM_TEMPLATE) == BrowsingSettings()
    assert settings.rendered(BrowsingSettings()) == {
        "adblock_enabled": True,
        "image_blocking_mode": "none",
        "image_size_limit_kb": 1024,
    }
