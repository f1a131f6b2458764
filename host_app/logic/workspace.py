"""What the browser window shows of sessions, in plain data: the rows of the session list (as
GET /v1/sessions answers them), the Info view's lines, and what the address bar makes of what a
person types."""

from __future__ import annotations

import ipaddress
import os
import re
from dataclasses import dataclass
from pathlib import Path

import msgspec


class Lifetime(msgspec.Struct, frozen=True):
    type: str = "indefinite"
    timeout_seconds: int | None = None


class SessionRow(msgspec.Struct, frozen=True):
    """The part of the API's session object the window uses (spec 1 §2 Session)."""

    id: str
    name: str
    profile: str | None = None
    group: str | None = None
    proxy_alias: str | None = None
    adblock_enabled: bool = True
    image_blocking_mode: str = "none"
    image_size_limit_kb: int = 0
    created_at: int | None = None
    proxy_country: str | None = None
    lifetime: Lifetime = Lifetime()
    network_paused: bool = False

    @property
    def number(self) -> int:
        digits = self.id.removeprefix("Session")
        return int(digits) if digits.isdigit() else 0


class ProxyLocation(msgspec.Struct, frozen=True):
    country: str | None = None
    timezone: str | None = None


@dataclass(frozen=True, slots=True)
class Live:
    """What the engine knows of a session now, beside its API row (issue 40 point 1)."""

    title: str = ""
    host: str = ""
    running: str | None = None  # the kind of the agent operation running
    needs_person: str | None = None  # the kind of what waits for a person (logic.person)
    failed: str | None = None  # the error id of the session's last operation, when it failed


def list_order(row: SessionRow) -> tuple[bool, str, int]:
    """Sessions without a group first, then each group together (by name), by id within."""
    return (row.group is not None, (row.group or "").casefold(), row.number)


def session_line(row: SessionRow, live: Live = Live()) -> str:
    """The session list's two lines: name, id, group and the state badges (needs you, the
    agent's operation running, paused, the last operation failed); the page's title and host,
    and the route (a proxy with its exit country, or direct)."""
    badges = []
    if live.needs_person:
        badges.append(f"NEEDS YOU ({live.needs_person.replace('_', ' ')})")
    if live.running:
        badges.append(f"agent: {live.running}")
    if row.network_paused:
        badges.append("paused")
    if live.failed:
        badges.append(f"failed: {live.failed}")
    head = f"{row.name}  ({row.id})" + (f"  [{row.group}]" if row.group else "")
    if badges:
        head += "  · " + " · ".join(badges)
    if row.proxy_alias:
        route = f"via {row.proxy_alias}" + (f" ({row.proxy_country})" if row.proxy_country else "")
    else:
        route = "direct"
    page = " — ".join(p for p in (live.title, live.host) if p) or "no page open"
    return f"{head}\n{page}  · {route}"


def filtering_text(row: SessionRow) -> str:
    ads = "adblock on" if row.adblock_enabled else "adblock off"
    if row.image_blocking_mode == "all":
        images = "all images blocked"
    elif row.image_blocking_mode == "over_limit":
        images = f"images over {row.image_size_limit_kb} KB blocked"
    else:
        images = "images shown"
    return f"{ads}, {images}"


def lifetime_text(lifetime: Lifetime) -> str:
    if lifetime.type == "inactivity" and lifetime.timeout_seconds is not None:
        return f"closed after {lifetime.timeout_seconds} s without use"
    return "kept until deleted"


def human_size(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    size, unit = n / 1024, "KiB"
    for bigger in ("MiB", "GiB"):
        if size < 1024:
            break
        size, unit = size / 1024, bigger
    return f"{size:.1f} {unit}"


def folder_size(path: Path) -> int:
    """Bytes of the regular files under `path` (links not followed; vanishing files skipped:
    the engine writes there while we count)."""
    total = 0
    stack = [path]
    while stack:
        try:
            with os.scandir(stack.pop()) as it:
                for e in it:
                    try:
                        if e.is_dir(follow_symlinks=False):
                            stack.append(Path(e.path))
                        elif e.is_file(follow_symlinks=False):
                            total += e.stat(follow_symlinks=False).st_size
                    except OSError:
                        continue
        except OSError:
            continue
    return total


def info_lines(
    row: SessionRow,
    *,
    machine_id: str | None,
    location: ProxyLocation | None,
    data_bytes: int,
) -> list[tuple[str, str]]:
    """The Info view, label and value a line."""
    federated = f"machine-{machine_id}.{row.id}" if machine_id else "not known yet"
    if row.proxy_alias is None:
        proxy = "none (direct)"
    else:
        country = (location.country if location else None) or row.proxy_country
        proxy = row.proxy_alias + (f", exit country {country}" if country else "")
    return [
        ("Id", row.id),
        ("Federated id", federated),
        ("Name", row.name),
        ("Group", row.group or "none"),
        ("Profile", row.profile or "not known yet"),
        ("Proxy", proxy),
        ("Filtering", filtering_text(row)),
        ("Lifetime", lifetime_text(row.lifetime)),
        ("Network", "paused" if row.network_paused else "active"),
        ("Data folder", human_size(data_bytes)),
    ]


_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
_HOST_PORT = re.compile(r"^(\[[0-9a-fA-F:.]+\]|[^/?#:\s]+)(:\d{1,5})?([/?#].*)?$")
_LABEL = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$", re.IGNORECASE)
SCHEMELESS_OK = ("about:", "data:", "file:", "view-source:")


def address_url(text: str) -> str | None:
    """What the address bar loads for `text`, or None when it is not a web address (svc has no
    search engine: search-like text is refused with a message rather than turned into an
    https:// guess). Scheme-less loopback and IP addresses get http://, domain names https://."""
    text = text.strip()
    if not text or any(c.isspace() for c in text):
        return None
    if _SCHEME.match(text) or text.lower().startswith(SCHEMELESS_OK):
        return text
    m = _HOST_PORT.match(text)
    if m is None:
        return None
    host, port = m.group(1), m.group(2)
    if port is not None and not 0 < int(port[1:]) < 65536:
        return None
    bare = host.strip("[]").lower()
    if bare == "localhost" or bare.endswith(".localhost") or _is_ip(bare):
        return "http://" + text
    labels = bare.rstrip(".").split(".")
    if len(labels) < 2 or not all(_LABEL.match(label) for label in labels):
        return None
    if not labels[-1].isalpha() and not labels[-1].startswith("xn--"):
        return None
    return "https://" + text


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
