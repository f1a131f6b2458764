"""The compact wire form of an observation's `content` and `elements` (docs/observations.md) and
its decoding into one object per entry. Pure; used by the host (encode), the agent (find) and the
clients (`svc read`, `svc-mcp`).

Wire form, per list: an integer item is a context marker (the entries after it have
`contexts[n]`; -1: none); every other item is an entry array:

- content `[kind, text, extra...]`: `text` is "" when absent and something follows; an integer
  extra is, on a `table_cell`, 1 for a column header and 2 for a row header; a list extra holds
  the refs of the elements inside the entry; an object extra holds details (`d`). An entry with
  refs and no text has the text of its elements' names, joined by spaces. Short kinds: `h1`-`h6`
  (a heading and its level), `p` (paragraph), `li` (list_item). A table row is `[]`; a table
  cell is a plain string when it is just its text (the commonest entry of a table: `"Rose"`),
  else `[text, extra...]`: an array whose second item is no string.
- `contexts`: a path, `[n, tail]` for `contexts[n] + " > " + tail` (a table's rows and a
  landmark's parts repeat their ancestors' path otherwise), or `[head, "row", i, j]` for the
  paths `head > row i` through `head > row j` (head: an index or a path). Rows go last, so every
  other item's index is its position.
- element `[ref, role, name, value_or_dest, state..., more]`: trailing empty strings are left
  out; the fourth item is a link's destination, written relative to the observation's URL as
  short as it resolves back (`#frag`, `?q`, `x`, `../x`, `/x`; other origins in full), else the
  value; then the states that hold, as strings; `more` is an object with `opts` (options:
  `value`, or `[value, label]` when the label differs) and, for a link with a value, `v`.
- `at`: the capture time in ISO 8601's basic format (`20260501T120000.123Z`).

Decoded entries are objects: content `{k, t, l, h, c, e, d}`, elements `{ref, role, name, value,
dest, st, opts, c}` (absent keys as in the wire form; `dest` absolute, `opts` as `[value,
label]` pairs, `c` the context index), contexts whole paths, `at` in the extended format.

The observation's URL is sent once per response: the host puts `url` in the observation, the
agent leaves it out of a response whose `page.url` is the same (`for_page`), and `decode` takes
it back from `page.url`.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any
from urllib.parse import urljoin, urlsplit

Item = Any  # an int (context marker) or a list (an entry)


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def resolve(url: str, ref: str) -> str:
    """The absolute destination of `ref` (as `relative_dest` wrote it) on the page at `url`: a
    reference with a scheme is absolute already; `#frag` and `?query` replace the page URL's
    fragment or query and fragment (kept exactly, an empty `#` too); other references resolve
    like `href` (RFC 3986)."""
    if not ref or not url or _SCHEME.match(ref):
        return ref
    if ref.startswith("#"):
        return url.partition("#")[0] + ref
    if ref.startswith("?"):
        return url.partition("#")[0].partition("?")[0] + ref
    path = ref.partition("?")[0].partition("#")[0]
    if "//" not in path and "/." not in "/" + path:
        # no dot segments to remove: RFC 3986 resolution is a concatenation (the common case,
        # thousands of links on a page, without urljoin's parsing)
        origin, directory = _page_parts(url)
        if origin:
            return (origin if ref.startswith("/") else directory) + ref
    try:
        return urljoin(url, ref)
    except ValueError:
        return ref


@functools.lru_cache(maxsize=64)
def _page_parts(url: str) -> tuple[str, str]:
    """(`scheme://host:port`, that plus the path up to its last `/`) of a hierarchical page URL
    as it is written, else ("", "")."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "", ""
    base = url.partition("#")[0].partition("?")[0]
    origin = base[: len(parts.scheme) + 3 + len(parts.netloc)]
    if not parts.scheme or not parts.netloc or not base[len(origin) :].startswith("/"):
        return "", ""
    return origin, base[: base.rindex("/") + 1]


def _split(url: str) -> tuple[str, str, str]:
    """(scheme://host/path, "?query" or "", "#fragment" or "") of an absolute URL."""
    head, hash_, fragment = url.partition("#")
    base, mark, query = head.partition("?")
    return base, mark + query, hash_ + fragment


class Relative:
    """Writes destinations relative to the page at `url` (`relative_dest`), the page's parts
    split once for all its links."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.base, self.query, _ = _split(url)
        self.origin = ""  # `scheme://host:port` as the page URL writes it
        self.dirs: list[str] | None = None  # the page's directory, as path segments
        try:
            parts = urlsplit(url)
        except ValueError:
            return
        if parts.scheme and parts.netloc:
            self.origin = self.base[: len(parts.scheme) + 3 + len(parts.netloc)]
            path = self.base[len(self.origin) :]
            if path.startswith("/"):
                self.dirs = path.split("/")[1:-1]

    def __call__(self, dest: str) -> str:
        if not self.url or not dest:
            return dest
        base, query, fragment = _split(dest)
        candidates = []
        if base == self.base:
            if query == self.query and fragment:
                candidates.append(fragment)
            if query:
                candidates.append(query + fragment)
        # the browser writes every URL of one origin with the same prefix, so a string test
        # finds them; whatever is written is checked below to resolve back exactly
        path = base[len(self.origin) :] if self.origin and base.startswith(self.origin) else ""
        if path.startswith("/") and not path.startswith("//"):
            candidates.append(path + query + fragment)
            if self.dirs is not None:
                candidates.append(self._from_dir(path) + query + fragment)
        for candidate in sorted(candidates, key=len):
            if len(candidate) < len(dest) and resolve(self.url, candidate) == dest:
                return candidate
        return dest

    def _from_dir(self, path: str) -> str:
        """`path` relative to the page's directory (`x`, `../x`, `./` for the directory)."""
        assert self.dirs is not None
        segments = path.split("/")[1:]
        common = 0
        for mine, theirs in zip(self.dirs, segments[:-1], strict=False):
            if mine != theirs:
                break
            common += 1
        rel = "../" * (len(self.dirs) - common) + "/".join(segments[common:])
        if not rel or ":" in rel.partition("/")[0]:
            rel = "./" + rel  # a first segment with `:` would read as a scheme
        return rel


def relative_dest(url: str, dest: str) -> str:
    """`dest` written as short as it resolves back (`resolve`) against the page at `url`: a
    fragment or query alone on the same page, else a path relative to the page's directory or
    from `/` on the same origin (the shorter), else unchanged."""
    return Relative(url)(dest)


def for_page(observation: dict[str, Any], page_url: str) -> dict[str, Any]:
    """The observation as a response shows it beside the page reference `page_url`: without its
    `url` when it is the page's (the URL once per response)."""
    url = observation.get("url")
    if url != page_url and url:
        return observation
    return {k: v for k, v in observation.items() if k != "url"}


def _names(elements: list[dict[str, Any]]) -> dict[str, str]:
    return {str(e.get("ref")): str(e.get("name", "")) for e in elements}


def _joined(refs: list[str], names: dict[str, str]) -> str | None:
    if not all(names.get(r) for r in refs):
        return None
    return " ".join(names[r] for r in refs)


def _squash(text: str) -> str:
    return "".join(text.split())


# wire kinds that are shorter than the decoded ones (a heading's level is in its kind)
_SHORT_KINDS = {"paragraph": "p", "list_item": "li"}
_LONG_KINDS = {v: k for k, v in _SHORT_KINDS.items()}
_HEADING = re.compile(r"h([1-6])")


def _wire_kind(entry: dict[str, Any]) -> tuple[str, bool]:
    """The kind an entry is sent with, and whether its level is in it."""
    kind = str(entry["k"])
    level = entry.get("l")
    if kind == "heading" and isinstance(level, int) and 1 <= level <= 6:
        return f"h{level}", True
    return _SHORT_KINDS.get(kind, kind), False


def encode_content(content: list[dict[str, Any]], elements: list[dict[str, Any]]) -> list[Item]:
    names = _names(elements)
    out: list[Item] = []
    current = -1
    for entry in content:
        c = int(entry.get("c", -1))
        if c != current:
            out.append(c)
            current = c
        kind, leveled = _wire_kind(entry)
        text = str(entry.get("t", ""))
        refs = entry.get("e")
        extra: list[Any] = []
        if "l" in entry and not leveled:
            extra.append(int(entry["l"]))
        if entry.get("h"):
            extra.append(int(entry["h"]))
        if refs:
            extra.append(list(refs))
            joined = _joined(list(refs), names)
            if joined is not None and _squash(joined) == _squash(text):
                text = ""
        if entry.get("d"):
            extra.append(dict(entry["d"]))
        if kind == "table_cell":
            # a cell is its text, or [text, extra...]: no other entry has a non-string second
            out.append([text, *extra] if extra else text)
            continue
        if kind == "table_row" and not text and not extra:
            out.append([])
            continue
        item: list[Any] = [kind]
        if text or extra:
            item.append(text)
        item.extend(extra)
        out.append(item)
    return out


def _json_len(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


_ROW = re.compile(r"(.+) > row ([1-9][0-9]*)")
_ROW_TAIL = re.compile(r"row ([1-9][0-9]*)")
MAX_RUN = 50_000  # rows one run item may stand for when decoded (a host sends at most 5,000)


def context_order(paths: list[str]) -> list[int]:
    """The order `encode_contexts` is given the paths in: every path that is no table row as it
    comes, then the rows, each head's together in row order (so that they make runs, and every
    other item's index is its position on the wire)."""
    others: list[int] = []
    rows: dict[str, list[tuple[int, int]]] = {}
    for i, path in enumerate(paths):
        found = _ROW.fullmatch(path)
        if found is None:
            others.append(i)
        else:
            rows.setdefault(found.group(1), []).append((int(found.group(2)), i))
    return others + [i for run in rows.values() for _, i in sorted(run)]


def _row_key(item: str | list[Any]) -> tuple[int | str, int] | None:
    """(head, row number) of an item that is a path `head > row N` or `[n, "row N"]`."""
    if isinstance(item, str):
        found = _ROW.fullmatch(item)
        return (found.group(1), int(found.group(2))) if found else None
    tail = _ROW_TAIL.fullmatch(item[1]) if len(item) == 2 else None
    return (item[0], int(tail.group(1))) if tail else None


def encode_contexts(paths: list[str]) -> list[str | list[Any]]:
    """Each path as `[n, tail]` when another context `n` is its head (on a ` > ` boundary) and
    that is shorter, else as it is; consecutive rows of one head (`head > row 3`, `head > row 4`,
    ...) as one item `[head, "row", 3, 5]`, head an index or a path."""
    index = {p: i for i, p in enumerate(paths)}
    out: list[str | list[Any]] = []
    previous: tuple[int | str, int] | None = None  # the last item's row key
    for path in paths:
        parts = path.split(" > ")
        item: str | list[Any] = path
        for cut in range(len(parts) - 1, 0, -1):
            parent = index.get(" > ".join(parts[:cut]))
            if parent is not None:
                short = [parent, " > ".join(parts[cut:])]
                if _json_len(short) < _json_len(path):
                    item = short
                break
        key = _row_key(item)
        if key is not None and previous == (key[0], key[1] - 1):
            last = out[-1]
            if isinstance(last, list) and len(last) == 4:
                last[3] = key[1]
            else:
                out[-1] = [key[0], "row", key[1] - 1, key[1]]
        else:
            out.append(item)
        previous = key
    return out


def _expand_runs(items: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if (
            isinstance(item, list)
            and len(item) == 4
            and isinstance(item[0], int | str)
            and item[1] == "row"
            and all(isinstance(n, int) and not isinstance(n, bool) for n in item[2:])
        ):
            head, _, first, last = item
            for n in range(first, min(last, first + MAX_RUN - 1) + 1):
                out.append([head, f"row {n}"] if isinstance(head, int) else f"{head} > row {n}")
        else:
            out.append(item)
    return out


def decode_contexts(items: list[Any]) -> list[str]:
    """The paths of `encode_contexts`' items; an item that names no earlier-resolvable context
    (out of range, a cycle: not what a host sends) reads as its tail alone."""
    items = _expand_runs(items)
    out: list[str | None] = [None] * len(items)

    def path(i: int, seen: frozenset[int]) -> str:
        done = out[i]
        if done is not None:
            return done
        item = items[i]
        if isinstance(item, str):
            text = item
        elif (
            isinstance(item, list)
            and len(item) == 2
            and isinstance(item[0], int)
            and isinstance(item[1], str)
        ):
            n, tail = item
            head = path(n, seen | {i}) if 0 <= n < len(items) and n not in seen | {i} else ""
            text = f"{head} > {tail}" if head else tail
        else:
            text = ""
        out[i] = text
        return text

    return [path(i, frozenset()) for i in range(len(items))]


def encode_elements(url: str, elements: list[dict[str, Any]]) -> list[Item]:
    relative = Relative(url)
    out: list[Item] = []
    current = -1
    for e in elements:
        c = int(e.get("c", -1))
        if c != current:
            out.append(c)
            current = c
        link = e.get("role") == "link"
        more: dict[str, Any] = {}
        if e.get("opts"):
            more["opts"] = [v if v == label else [v, label] for v, label in e["opts"]]
        if link:
            fourth = relative(str(e["dest"])) if e.get("dest") else ""
            if e.get("value"):
                more["v"] = str(e["value"])
        else:
            fourth = str(e.get("value", ""))
        rest: list[Any] = [str(e.get("name", "")), fourth, *(str(s) for s in e.get("st") or [])]
        if more:
            rest.append(more)
        else:
            while rest and rest[-1] == "":
                rest.pop()
        out.append([str(e["ref"]), str(e["role"]), *rest])
    return out


def encode_semantics(
    url: str, contexts: list[str], content: list[dict[str, Any]], elements: list[dict[str, Any]]
) -> dict[str, list[Any]]:
    """`contexts`, `content` and `elements` of an observation in the wire form, each only when
    not empty: the contexts in `context_order`, the entries' markers pointing into that order
    (the arguments are not changed)."""
    order = context_order(contexts)
    moved = {old: new for new, old in enumerate(order)}

    def remapped(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{**e, "c": moved[e["c"]]} if e.get("c", -1) in moved else e for e in entries]

    if order != list(range(len(contexts))):
        content, elements = remapped(content), remapped(elements)
    out: dict[str, list[Any]] = {}
    if contexts:
        out["contexts"] = encode_contexts([contexts[i] for i in order])
    if content:
        out["content"] = encode_content(content, elements)
    if elements:
        out["elements"] = encode_elements(url, elements)
    return out


_BASIC_TIME = re.compile(r"(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)(\.\d+)?Z")


def basic_time(extended: str) -> str:
    """An ISO 8601 UTC time (`2026-05-01T12:00:00.123Z`) in the basic format the wire sends
    (`20260501T120000.123Z`); other text unchanged."""
    return extended.replace("-", "").replace(":", "") if extended.endswith("Z") else extended


def extended_time(basic: str) -> str:
    """`basic_time` undone; other text unchanged."""
    found = _BASIC_TIME.fullmatch(basic)
    if found is None:
        return basic
    y, mo, d, h, mi, sec, frac = found.groups()
    return f"{y}-{mo}-{d}T{h}:{mi}:{sec}{frac or ''}Z"


def count_entries(items: list[Item]) -> int:
    return sum(1 for item in items if not isinstance(item, int))


# PLR0912: one branch per wire item kind
def decode_elements(url: str, items: list[Item]) -> list[dict[str, Any]]:  # noqa: PLR0912
    out: list[dict[str, Any]] = []
    current = -1
    for item in items:
        if isinstance(item, int):
            current = item
            continue
        e: dict[str, Any] = {"ref": item[0], "role": item[1]}
        if len(item) > 2 and item[2]:
            e["name"] = item[2]
        more: dict[str, Any] = {}
        states: list[str] = []
        for extra in item[4:]:
            if isinstance(extra, str):
                states.append(extra)
            elif isinstance(extra, dict):
                more = extra
                states.extend(more.get("st") or [])  # the form before the states were inline
        fourth = item[3] if len(item) > 3 else ""
        if e["role"] == "link":
            if more.get("v"):
                e["value"] = more["v"]
            if fourth:
                e["dest"] = resolve(url, fourth)
        elif fourth:
            e["value"] = fourth
        if states:
            e["st"] = states
        if more.get("opts"):
            e["opts"] = [[o, o] if isinstance(o, str) else [o[0], o[1]] for o in more["opts"]]
        if current >= 0:
            e["c"] = current
        out.append(e)
    return out


# PLR0912: one branch per wire item kind
def decode_content(items: list[Item], elements: list[dict[str, Any]]) -> list[dict[str, Any]]:  # noqa: PLR0912
    names = _names(elements)
    out: list[dict[str, Any]] = []
    current = -1
    for wired in items:
        if isinstance(wired, int):
            current = wired
            continue
        if isinstance(wired, str):
            item: list[Any] = ["table_cell", wired]
        elif not wired:
            item = ["table_row"]
        elif len(wired) > 1 and not isinstance(wired[1], str):
            item = ["table_cell", *wired]  # a cell [text, extra...]
        else:
            item = wired
        kind = str(item[0])
        heading = _HEADING.fullmatch(kind)
        entry: dict[str, Any] = {"k": "heading" if heading else _LONG_KINDS.get(kind, kind)}
        if heading:
            entry["l"] = int(heading.group(1))
        text = item[1] if len(item) > 1 and isinstance(item[1], str) else ""
        for extra in item[2:]:
            if isinstance(extra, list):
                entry["e"] = list(extra)
                if not text:
                    text = _joined(entry["e"], names) or ""
            elif isinstance(extra, dict):
                entry["d"] = dict(extra)
            elif isinstance(extra, int) and not isinstance(extra, bool):
                if entry["k"] == "heading":
                    entry["l"] = extra
                elif extra:
                    entry["h"] = extra
        if text:
            entry["t"] = text
        if current >= 0:
            entry["c"] = current
        out.append(entry)
    return out


def decode(observation: dict[str, Any], page_url: str = "") -> dict[str, Any]:
    """A copy of `observation` with `contexts` as paths, `content` and `elements` as lists of
    objects, destinations absolute, `at` in ISO 8601's extended format, and `url` (the
    observation's own, else `page_url`: the response's `page.url`)."""
    out = dict(observation)
    url = str(observation.get("url") or page_url)
    if url:
        out["url"] = url
    if isinstance(observation.get("at"), str):
        out["at"] = extended_time(observation["at"])
    elements = decode_elements(url, list(observation.get("elements") or []))
    content = decode_content(list(observation.get("content") or []), elements)
    if observation.get("contexts"):
        out["contexts"] = decode_contexts(list(observation["contexts"]))
    out.pop("content", None)
    out.pop("elements", None)
    if content:
        out["content"] = content
    if elements:
        out["elements"] = elements
    return out
