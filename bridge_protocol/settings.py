"""A session's browsing settings, defined once (issue 39 point 4).

`BrowsingSettings` names each per-session setting with its type, bounds and default; everything
else is derived from it: the store's columns (`columns`), the API's session and profile objects
(`rendered`), a create's choices over its profile's (`SettingsChoice`, `chosen`), a patch
(`SettingsChange`, `changes`), the stored row (`stored`), the transfer archives' `settings`,
the records read back (they extend `BrowsingSettings`) and the bridge's `SessionSettings` (which
extends it too, so the host receives every setting by the same name).

A new setting is one field here, in all three structs (a test fails when they differ), and its
application in the host."""

from __future__ import annotations

import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import msgspec

ImageBlocking = Literal["none", "all", "over_limit"]
ImageLimit = Annotated[int, msgspec.Meta(ge=1, le=1_048_576)]


class BrowsingSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The settings a session has and a saved profile gives its sessions (spec 1 §2, §4)."""

    adblock_enabled: bool = True
    image_blocking_mode: ImageBlocking = "none"
    image_size_limit_kb: ImageLimit = 1024


class SettingsChoice(msgspec.Struct, frozen=True, kw_only=True):
    """A new session's settings as its request chose them; None: its profile's."""

    adblock_enabled: bool | None = None
    image_blocking_mode: ImageBlocking | None = None
    image_size_limit_kb: ImageLimit | None = None


class SettingsChange(msgspec.Struct, frozen=True, kw_only=True):
    """The settings a PATCH changes; left out: unchanged (an explicit null is refused)."""

    adblock_enabled: bool | msgspec.UnsetType = msgspec.UNSET
    image_blocking_mode: ImageBlocking | msgspec.UnsetType = msgspec.UNSET
    image_size_limit_kb: ImageLimit | msgspec.UnsetType = msgspec.UNSET


NAMES: tuple[str, ...] = tuple(f.name for f in msgspec.structs.fields(BrowsingSettings))


def of(holder: BrowsingSettings) -> BrowsingSettings:
    """Only the settings of a record or a request that extends `BrowsingSettings`."""
    return BrowsingSettings(**{name: getattr(holder, name) for name in NAMES})


def rendered(settings: BrowsingSettings) -> dict[str, Any]:
    """The settings as the API shows them, by name."""
    return {name: getattr(settings, name) for name in NAMES}


def _stored_value(value: object) -> object:
    # STRICT tables keep booleans as integers
    return int(value) if isinstance(value, bool) else value


def stored(settings: BrowsingSettings) -> dict[str, object]:
    """The settings as a row's columns hold them."""
    return {name: _stored_value(getattr(settings, name)) for name in NAMES}


def chosen(base: BrowsingSettings, choice: SettingsChoice) -> BrowsingSettings:
    """`base` (a profile's) with what a request chose instead."""
    picked = {n: getattr(choice, n) for n in NAMES if getattr(choice, n) is not None}
    return BrowsingSettings(**{**rendered(base), **picked})


def changes(change: SettingsChange) -> dict[str, object]:
    """The columns a PATCH sets, as stored."""
    return {
        n: _stored_value(getattr(change, n))
        for n in NAMES
        if getattr(change, n) is not msgspec.UNSET
    }


def _sql_type(annotation: object) -> str:
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    if annotation is bool or annotation is int:
        return "INTEGER"
    if annotation is str or get_origin(annotation) is Literal:
        return "TEXT"
    if get_origin(annotation) in (Union, types.UnionType):  # pragma: no cover - none today
        raise TypeError(f"a setting is never optional: {annotation!r}")
    raise TypeError(f"no column type for {annotation!r}")


def columns() -> str:
    """The settings' column definitions in a CREATE TABLE (agent/store.py)."""
    fields = msgspec.structs.fields(BrowsingSettings)
    return ",\n        ".join(f"{f.name} {_sql_type(f.type)} NOT NULL" for f in fields)
