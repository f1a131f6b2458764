"""The compact wire form of an observation's `content` and `elements` (docs/observations.md) and
its decoding into one object per entry. Pure; used by the host (encode), the agent (find) and the
clients (`svc read`, `svc-mcp`).

Wire form, per list: an integer item is a context marker (the entries after it have
`contexts[n]`; -1: none); every other item is an entry array:

- content `[kind, text, extra...]`: `text` is "" when absent and something follows; an integer
  extra is a heading's level or, on a `table_cell`, 1 for a header cell; a list extra holds the
  refs of the elements inside the entry. An entry with refs and no text has the text of its
  elements' names, joined by spaces.
- element `[ref, role, name, value_or_dest, more]`: trailing empty strings are left out; the
  fourth item is a link's destination (the path, from `/`, when it has the observation's origin),
  else the value; `more` is an object with `st` (states), `opts` (options: `value`, or `[value,
  label]` when the label differs) and, for a link with a value, `v`.

Decoded entries are objects: content `{k, t, l, h, c, e}`, elements `{ref, role, name, value,
dest, st, opts, c}` (absent keys as in the wire form; `dest` absolute, `opts` as `[value,
label]` pairs, `c` the context index).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urljoin, urlsplit

Item = Any  # an int (context marker) or a list (an entry)


def relative_dest(url: str, dest: str) -> str:
    """`dest` as its path (from `/`) when it has the same origin as `url`, else unchanged."""
    try:
        a, b = urlsplit(url), urlsplit(dest)
    except ValueError:
        return dest
    if (a.scheme, a.netloc) != (b.scheme, b.netloc) or not b.scheme or not b.netloc:
        return dest
    prefix = f"{b.scheme}://{b.netloc}"
    rest = dest[len(prefix) :] if dest.lower().startswith(prefix.lower()) else ""
    if not rest.startswith("/") or rest.startswith("//"):
        return dest
    return rest


def _names(elements: list[dict[str, Any]]) -> dict[str, str]:
    return {str(e.get("ref")): str(e.get("name", "")) for e in elements}


def _joined(refs: list[str], names: dict[str, str]) -> str | None:
    if not all(names.get(r) for r in refs):
        return None
    return " ".join(names[r] for r in refs)


def _squash(text: str) -> str:
    return "".join(text.split())


def encode_content(content: list[dict[str, Any]], elements: list[dict[str, Any]]) -> list[Item]:
    names = _names(elements)
    out: list[Item] = []
    current = -1
    for entry in content:
        c = int(entry.get("c", -1))
        if c != current:
            out.append(c)
            current = c
        kind = str(entry["k"])
        text = str(entry.get("t", ""))
        refs = entry.get("e")
        extra: list[Any] = []
        if "l" in entry:
            extra.append(int(entry["l"]))
        if entry.get("h"):
            extra.append(1)
        if refs:
            extra.append(list(refs))
            joined = _joined(list(refs), names)
            if joined is not None and _squash(joined) == _squash(text):
                text = ""
        item: list[Any] = [kind]
        if text or extra:
            item.append(text)
        item.extend(extra)
        out.append(item)
    return out


def encode_elements(url: str, elements: list[dict[str, Any]]) -> list[Item]:
    out: list[Item] = []
    current = -1
    for e in elements:
        c = int(e.get("c", -1))
        if c != current:
            out.append(c)
            current = c
        link = e.get("role") == "link"
        more: dict[str, Any] = {}
        if e.get("st"):
            more["st"] = list(e["st"])
        if e.get("opts"):
            more["opts"] = [v if v == label else [v, label] for v, label in e["opts"]]
        if link:
            fourth = relative_dest(url, str(e["dest"])) if e.get("dest") else ""
            if e.get("value"):
                more["v"] = str(e["value"])
        else:
            fourth = str(e.get("value", ""))
        rest: list[Any] = [str(e.get("name", "")), fourth]
        if more:
            rest.append(more)
        else:
            while rest and rest[-1] == "":
                rest.pop()
        out.append([str(e["ref"]), str(e["role"]), *rest])
    return out


def count_entries(items: list[Item]) -> int:
    return sum(1 for item in items if isinstance(item, list))


def decode_elements(url: str, items: list[Item]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    current = -1
    for item in items:
        if isinstance(item, int):
            current = item
            continue
        e: dict[str, Any] = {"ref": item[0], "role": item[1]}
        if len(item) > 2 and item[2]:
            e["name"] = item[2]
        more = item[4] if len(item) > 4 and isinstance(item[4], dict) else {}
        fourth = item[3] if len(item) > 3 else ""
        if e["role"] == "link":
            if more.get("v"):
                e["value"] = more["v"]
            if fourth:
                e["dest"] = urljoin(url, fourth) if fourth.startswith("/") else fourth
        elif fourth:
            e["value"] = fourth
        if more.get("st"):
            e["st"] = list(more["st"])
        if more.get("opts"):
            e["opts"] = [[o, o] if isinstance(o, str) else [o[0], o[1]] for o in more["opts"]]
        if current >= 0:
            e["c"] = current
        out.append(e)
    return out


def decode_content(items: list[Item], elements: list[dict[str, Any]]) -> list[dict[str, Any]]:
    names = _names(elements)
    out: list[dict[str, Any]] = []
    current = -1
    for item in items:
        if isinstance(item, int):
            current = item
            continue
        entry: dict[str, Any] = {"k": item[0]}
        text = item[1] if len(item) > 1 and isinstance(item[1], str) else ""
        for extra in item[2:]:
            if isinstance(extra, list):
                entry["e"] = list(extra)
                if not text:
                    text = _joined(entry["e"], names) or ""
            elif isinstance(extra, int) and not isinstance(extra, bool):
                if entry["k"] == "heading":
                    entry["l"] = extra
                elif extra:
                    entry["h"] = 1
        if text:
            entry["t"] = text
        if current >= 0:
            entry["c"] = current
        out.append(entry)
    return out


def decode(observation: dict[str, Any]) -> dict[str, Any]:
    """A copy of `observation` with `content` and `elements` as lists of objects."""
    out = dict(observation)
    url = str(observation.get("url", ""))
    elements = decode_elements(url, list(observation.get("elements") or []))
    content = decode_content(list(observation.get("content") or []), elements)
    out.pop("content", None)
    out.pop("elements", None)
    if content:
        out["content"] = content
    if elements:
        out["elements"] = elements
    return out
