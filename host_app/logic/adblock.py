"""Filter lists and the adblock engine (spec 1 §1 Filtering; Qt-free).

Four lists, their network rules combined into one Brave adblock-rust engine (PyPI `adblock`):
EasyList, EasyPrivacy and uBlock Origin's own `ublock-filters` and `ublock-privacy`. The store
keeps `{data_dir}/Filters/`: `engine.dat` (the serialized engine), `lists/<name>` (the texts, so
a match names its list and a new `adblock` version can rebuild without a download) and
`state.json` (when each list was fetched). `FilterStore.load` and `FilterStore.refresh` do file
and network I/O: the host calls them on a worker thread only (`host_app.engine.filters`); the engine
they return is then read by the Qt thread alone.
"""

from __future__ import annotations

import contextlib
import json
import os
import ssl
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import adblock

# Names under a mirror's base URL (SVC_FILTER_LISTS_URL), in the order a rule found in two lists
# is credited to.
LISTS = ("easylist.txt", "easyprivacy.txt", "ublock-filters.txt", "ublock-privacy.txt")
# The default mirror: uBlock Origin's own CDN, which keeps EasyList's lists beside its own
# (`thirdparties/`) under the names uBO fetches; a mirror given by SVC_FILTER_LISTS_URL is flat.
DEFAULT_MIRROR = "https://ublockorigin.pages.dev"
DEFAULT_PATHS = {
    "easylist.txt": "thirdparties/easylist.txt",
    "easyprivacy.txt": "thirdparties/easyprivacy.txt",
    "ublock-filters.txt": "filters/filters.min.txt",
    "ublock-privacy.txt": "filters/privacy.min.txt",
}
ENV_MIRROR = "SVC_FILTER_LISTS_URL"
# an engine serialized by another version of the package is rebuilt from the stored lists
ADBLOCK_VERSION: str = getattr(adblock, "__version__", "")
REFRESH_AFTER = 4 * 24 * 3600.0
MAX_LIST_BYTES = 32 * 1024 * 1024  # the real lists are ~1-3 MB; a mirror gone wrong is not read
# webRequest type names (what the interceptor reports) to adblock-rust's where they differ
_ENGINE_TYPES = {"main_frame": "document"}
# A main-frame navigation is blocked only by a rule that names documents (uBO's `$document`,
# `$doc`, `$all`); a plain `||ads.example^` keeps the user able to open the site itself.
_DOCUMENT_OPTIONS = frozenset({"document", "doc", "all"})


def list_urls(base: str | None) -> dict[str, str]:
    """The URL of each list: `<base>/<name>` for a configured mirror, else the default CDN."""
    if base:
        root = base.rstrip("/")
        return {name: f"{root}/{name}" for name in LISTS}
    return {name: f"{DEFAULT_MIRROR}/{DEFAULT_PATHS[name]}" for name in LISTS}


def _network_rules(text: str) -> Iterable[str]:
    """The lines of a list that can be network rules (comments, headers and cosmetic rules
    out), as adblock-rust reports a matched rule: the line, trimmed."""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "![" or "##" in line or "#@#" in line or "#?#" in line:
            continue
        if "#$#" in line or "#%#" in line:
            continue
        yield line


def names_documents(rule: str) -> bool:
    """Does this network rule's option list name main-frame documents?"""
    _, dollar, options = rule.rpartition("$")
    if not dollar:
        return False
    return any(opt.strip() in _DOCUMENT_OPTIONS for opt in options.split(","))


@dataclass(frozen=True, slots=True)
class Match:
    rule: str
    list: str | None


class FilterEngine:
    """The combined engine and, for each network rule, the list it came from."""

    def __init__(self, engine: adblock.Engine, origin: dict[str, str]) -> None:
        self._engine = engine
        self._origin = origin

    @property
    def rules(self) -> int:
        return len(self._origin)

    def check(self, url: str, source_url: str, resource_type: str) -> Match | None:
        """The blocking rule for a request, or None (no rule, or an `@@` exception wins)."""
        result = self._engine.check_network_urls(
            url, source_url, _ENGINE_TYPES.get(resource_type, resource_type)
        )
        if not result.matched:
            return None
        rule = result.filter or ""
        if resource_type == "main_frame" and not names_documents(rule):
            return None
        return Match(rule, self._origin.get(rule))

    def serialize(self) -> bytes:
        return bytes(self._engine.serialize())


def build(texts: dict[str, str]) -> FilterEngine:
    """One engine from the network rules of `texts` (name -> list text)."""
    # debug keeps each rule's text in the engine (and its serialization): the match names it
    filters = adblock.FilterSet(debug=True)
    origin: dict[str, str] = {}
    for name in LISTS:
        text = texts.get(name)
        if text is None:
            continue
        filters.add_filter_list(text, rule_types="networkonly")
        for rule in _network_rules(text):
            origin.setdefault(rule, name)
    # not optimized: the optimizer fuses rules into one (`/a.js <+> /b.js`), and a filter event
    # names the one rule that matched (measured: ~2.1 instead of ~1.7 μs a check at 50k rules)
    return FilterEngine(adblock.Engine(filters, optimize=False), origin)


def _origin_of(texts: dict[str, str]) -> dict[str, str]:
    origin: dict[str, str] = {}
    for name in LISTS:
        for rule in _network_rules(texts.get(name, "")):
            origin.setdefault(rule, name)
    return origin


def tls_context() -> ssl.SSLContext:
    """The system's trust store, plus the bundle SSL_CERT_FILE names (OpenSSL's own rule
    would take SSL_CERT_FILE instead of the system file; a test CA must add, not replace)."""
    context = ssl.create_default_context()
    paths = ssl.get_default_verify_paths()
    for cafile in (paths.openssl_cafile, os.environ.get("SSL_CERT_FILE")):
        if cafile and Path(cafile).is_file():
            with contextlib.suppress(ssl.SSLError, OSError):
                context.load_verify_locations(cafile=cafile)
    return context


def https_fetch(url: str, *, timeout: float = 60.0) -> str:
    """One list over HTTPS (no plain HTTP: a list is code that decides what loads)."""
    import httpx  # noqa: PLC0415  only the worker thread fetches; the interceptor's stays light

    if not url.startswith("https://"):
        raise ValueError(f"{url}: filter lists are fetched over HTTPS only")
    with (
        httpx.Client(verify=tls_context(), timeout=timeout, trust_env=False) as client,
        client.stream("GET", url, follow_redirects=True) as response,
    ):
        response.raise_for_status()
        body = bytearray()
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) > MAX_LIST_BYTES:
                raise ValueError(f"{url}: larger than {MAX_LIST_BYTES} bytes")
    text = body.decode("utf-8", "replace")
    if not text.strip() or text.lstrip().startswith("<"):
        # an empty answer or a portal's HTML page would leave sessions unfiltered for four days
        raise ValueError(f"{url}: not a filter list")
    return text


Fetch = Callable[[str], str]


@dataclass(slots=True)
class StoreState:
    built_at: float = 0.0
    lists: dict[str, dict[str, Any]] = field(default_factory=dict)
    adblock_version: str = ""


class FilterStore:
    """`{data_dir}/Filters`: the engine of the last successful refresh and when it was made."""

    def __init__(self, folder: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.folder = folder
        self.clock = clock

    @property
    def engine_path(self) -> Path:
        return self.folder / "engine.dat"

    @property
    def state_path(self) -> Path:
        return self.folder / "state.json"

    def _list_path(self, name: str) -> Path:
        return self.folder / "lists" / name

    def state(self) -> StoreState | None:
        try:
            raw = json.loads(self.state_path.read_text("utf-8"))
            return StoreState(
                built_at=float(raw["built_at"]),
                lists=dict(raw.get("lists", {})),
                adblock_version=str(raw.get("adblock_version", "")),
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def due(self) -> bool:
        """A refresh is due: no engine yet, or the last one is four days old."""
        state = self.state()
        return state is None or self.clock() - state.built_at >= REFRESH_AFTER

    def _texts(self) -> dict[str, str]:
        texts: dict[str, str] = {}
        for name in LISTS:
            with contextlib.suppress(OSError):
                texts[name] = self._list_path(name).read_text("utf-8")
        return texts

    def load(self) -> FilterEngine | None:
        """The stored engine (rebuilt from the stored lists when `adblock` cannot read it), or
        None when nothing usable is stored."""
        state = self.state()
        if state is None:
            return None
        texts = self._texts()
        if not texts:
            return None
        if state.adblock_version == ADBLOCK_VERSION:
            try:
                engine = adblock.Engine(adblock.FilterSet(debug=True))
                engine.deserialize(self.engine_path.read_bytes())
                return FilterEngine(engine, _origin_of(texts))
            except (OSError, adblock.AdblockException):
                pass
        return build(texts)

    def refresh(self, fetch: Fetch, urls: dict[str, str]) -> FilterEngine:
        """Download every list and build the engine; stored only when all four came (a failure
        raises and leaves the stored engine as it was)."""
        texts = {name: fetch(urls[name]) for name in LISTS}
        engine = build(texts)
        self.save(engine, texts)
        return engine

    def save(self, engine: FilterEngine, texts: dict[str, str]) -> None:
        now = self.clock()
        (self.folder / "lists").mkdir(parents=True, exist_ok=True)
        for name, text in texts.items():
            _atomic_write(self._list_path(name), text.encode("utf-8"))
        _atomic_write(self.engine_path, engine.serialize())
        state = {
            "built_at": now,
            "adblock_version": ADBLOCK_VERSION,
            "rules": engine.rules,
            "lists": {
                name: {"fetched_at": now, "bytes": len(text.encode("utf-8"))}
                for name, text in texts.items()
            },
        }
        # last: a crash before it leaves the previous state (a refresh is then due again)
        _atomic_write(self.state_path, json.dumps(state, indent=2).encode("utf-8"))


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
