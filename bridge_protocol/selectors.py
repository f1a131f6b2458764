"""The spec's selector subset (spec 1 §4 "Action objects"), parsed and matched without a browser.

Grammar: a comma-separated list of complex selectors; each is compound selectors joined by
descendant (whitespace), child `>`, adjacent-sibling `+` or general-sibling `~` combinators; a
compound is an optional tag or `*`, then any number of `#id`, `.class`, `[attr]` and
`[attr<op>value]` (ops `=`, `~=`, `|=`, `^=`, `$=`, `*=`; value an identifier or a quoted string).
Pseudo-classes, pseudo-elements, namespaces and CSS escapes are rejected.

Matching runs against `DomNode`s: a read-only snapshot of the document taken in the isolated
world (see `host_app.engine`), so no page script ever sees a query. The agent parses every
selector before it crosses the bridge (`bridge_protocol.actions`), the host parses it again to
match.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field


class SelectorError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class AttrTest:
    name: str
    op: str | None = None
    value: str = ""


@dataclass(frozen=True, slots=True)
class Compound:
    tag: str | None = None  # None or "*" match any element
    ids: tuple[str, ...] = ()
    classes: tuple[str, ...] = ()
    attrs: tuple[AttrTest, ...] = ()


@dataclass(frozen=True, slots=True)
class Complex:
    # parts[0] is the leftmost compound; combinators[i] joins parts[i] and parts[i + 1]
    parts: tuple[Compound, ...]
    combinators: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SelectorList:
    selectors: tuple[Complex, ...]


_IDENT = re.compile(r"-?[A-Za-z_\u00a0-\uffff][A-Za-z0-9_\-\u00a0-\uffff]*")
_WS = " \t\n\r\f"
_OPS = ("~=", "|=", "^=", "$=", "*=", "=")


class _Parser:
    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0

    def error(self, what: str) -> SelectorError:
        return SelectorError(f"{what} at position {self.i} of selector {self.s!r}")

    def peek(self) -> str:
        return self.s[self.i] if self.i < len(self.s) else ""

    def skip_ws(self) -> bool:
        start = self.i
        while self.i < len(self.s) and self.s[self.i] in _WS:
            self.i += 1
        return self.i > start

    def ident(self, what: str) -> str:
        if self.peek() == "\\":
            raise self.error("CSS escapes are not supported")
        m = _IDENT.match(self.s, self.i)
        if not m:
            raise self.error(f"expected {what}")
        self.i = m.end()
        if self.peek() == "\\":
            raise self.error("CSS escapes are not supported")
        return m.group(0)

    def parse(self) -> SelectorList:
        if "\\" in self.s:
            raise SelectorError(f"CSS escapes are not supported in selector {self.s!r}")
        selectors = [self.complex()]
        while self.peek() == ",":
            self.i += 1
            selectors.append(self.complex())
        if self.i != len(self.s):
            raise self.error(f"unexpected {self.peek()!r}")
        return SelectorList(tuple(selectors))

    def complex(self) -> Complex:
        self.skip_ws()
        parts = [self.compound()]
        combinators: list[str] = []
        while True:
            had_ws = self.skip_ws()
            c = self.peek()
            if c in (">", "+", "~"):
                self.i += 1
                self.skip_ws()
                combinators.append(c)
                parts.append(self.compound())
            elif c in ("", ","):
                break
            elif had_ws:
                combinators.append(" ")
                parts.append(self.compound())
            else:
                raise self.error(f"unexpected {c!r}")
        return Complex(tuple(parts), tuple(combinators))

    def compound(self) -> Compound:
        tag: str | None = None
        ids: list[str] = []
        classes: list[str] = []
        attrs: list[AttrTest] = []
        c = self.peek()
        if c == "*":
            self.i += 1
            tag = "*"
        elif c and (c.isalpha() or c in "_-" or ord(c) >= 0xA0):
            tag = self.ident("a tag name").lower()
        if self.peek() == "|":
            raise self.error("namespaces are not supported")
        while True:
            c = self.peek()
            if c == "#":
                self.i += 1
                ids.append(self.ident("an id"))
            elif c == ".":
                self.i += 1
                classes.append(self.ident("a class name"))
            elif c == "[":
                self.i += 1
                attrs.append(self.attr())
            elif c == ":":
                raise self.error("pseudo-classes and pseudo-elements are not supported")
            elif c == "|":
                raise self.error("namespaces are not supported")
            else:
                break
        if tag is None and not ids and not classes and not attrs:
            raise self.error("expected a simple selector")
        return Compound(tag, tuple(ids), tuple(classes), tuple(attrs))

    def attr(self) -> AttrTest:
        self.skip_ws()
        if self.peek() in ("*", "|"):
            raise self.error("namespaces are not supported")
        name = self.ident("an attribute name").lower()
        if self.peek() == "|" and not self.s.startswith("|=", self.i):
            raise self.error("namespaces are not supported")
        self.skip_ws()
        if self.peek() == "]":
            self.i += 1
            return AttrTest(name)
        for op in _OPS:
            if self.s.startswith(op, self.i):
                self.i += len(op)
                break
        else:
            raise self.error("expected an attribute operator or ']'")
        self.skip_ws()
        q = self.peek()
        if q in ("'", '"'):
            end = self.s.find(q, self.i + 1)
            if end < 0:
                raise self.error("unterminated string")
            value = self.s[self.i + 1 : end]
            self.i = end + 1
        else:
            value = self.ident("an attribute value")
        self.skip_ws()
        if self.peek() != "]":
            raise self.error("expected ']' (attribute flags are not supported)")
        self.i += 1
        return AttrTest(name, op, value)


def parse_selector(text: str) -> SelectorList:
    if not text or not text.strip():
        raise SelectorError("empty selector")
    return _Parser(text).parse()


@dataclass(slots=True)
class DomNode:
    """One element of the snapshot, in document order."""

    index: int
    tag: str
    attrs: dict[str, str]
    parent: int  # -1 for the root element
    children: list[int] = field(default_factory=list)
    sibling_pos: int = 0  # position among the parent's element children

    @property
    def classes(self) -> list[str]:
        return self.attrs.get("class", "").split()


def build_tree(nodes: Sequence[DomNode]) -> None:
    for node in nodes:
        node.children.clear()
    for node in nodes:
        if node.parent >= 0:
            siblings = nodes[node.parent].children
            node.sibling_pos = len(siblings)
            siblings.append(node.index)


def _attr_ok(node: DomNode, t: AttrTest) -> bool:
    if t.name not in node.attrs:
        return False
    v = node.attrs[t.name]
    if t.op is None:
        return True
    w = t.value
    if t.op == "=":
        return v == w
    if t.op == "~=":
        return bool(w) and w in v.split()
    if t.op == "|=":
        return v == w or v.startswith(w + "-")
    if t.op == "^=":
        return bool(w) and v.startswith(w)
    if t.op == "$=":
        return bool(w) and v.endswith(w)
    return bool(w) and w in v  # *=


def _compound_ok(node: DomNode, c: Compound) -> bool:
    if c.tag is not None and c.tag not in ("*", node.tag):
        return False
    if c.ids and any(node.attrs.get("id") != i for i in c.ids):
        return False
    if c.classes:
        have = node.classes
        if any(k not in have for k in c.classes):
            return False
    return all(_attr_ok(node, a) for a in c.attrs)


def _complex_ok(nodes: Sequence[DomNode], node: DomNode, sel: Complex, k: int) -> bool:
    """Does `node` match sel.parts[k] with everything to its left satisfied?"""
    if not _compound_ok(node, sel.parts[k]):
        return False
    if k == 0:
        return True
    comb = sel.combinators[k - 1]
    if comb == ">":
        return node.parent >= 0 and _complex_ok(nodes, nodes[node.parent], sel, k - 1)
    if comb == " ":
        p = node.parent
        while p >= 0:
            if _complex_ok(nodes, nodes[p], sel, k - 1):
                return True
            p = nodes[p].parent
        return False
    if node.parent < 0:
        return False
    siblings = nodes[node.parent].children
    if comb == "+":
        pos = node.sibling_pos
        return pos > 0 and _complex_ok(nodes, nodes[siblings[pos - 1]], sel, k - 1)
    # "~"
    return any(_complex_ok(nodes, nodes[siblings[j]], sel, k - 1) for j in range(node.sibling_pos))


def matches(nodes: Sequence[DomNode], node: DomNode, selectors: SelectorList) -> bool:
    return any(_complex_ok(nodes, node, s, len(s.parts) - 1) for s in selectors.selectors)


def query_all(nodes: Sequence[DomNode], selectors: SelectorList) -> list[DomNode]:
    """All matches in document order (like querySelectorAll)."""
    return [n for n in nodes if matches(nodes, n, selectors)]


def query_first(nodes: Sequence[DomNode], selectors: SelectorList) -> DomNode | None:
    for n in nodes:
        if matches(nodes, n, selectors):
            return n
    return None
