"""`svc read` and `svc_read`: bounded Markdown of a semantic observation (pure; no I/O).

The observation JSON is docs/observations.md's, decoded (bridge_protocol.observation). Its
content entries are cut into *sections*: a heading starts one, and a long run of entries is split
into parts of about `PART_CHARS` characters (so a page without headings still has sections to
rank and sample). Then:

- with a query, sections are ranked by Okapi BM25 (k1 1.2, b 0.75; a heading's words count
  twice) and the best `max_sections` with a positive score are given, best first; when nothing
  matches, the read falls back to the unqueried one and says `query_matched: false`;
- without one, the whole document is given when it fits, else `max_sections` sections sampled
  evenly from beginning to end, each trimmed to an equal share of the budget, in document order.

A compact heading outline comes first (the shallowest levels that fit a fifth of the budget). The
Markdown never exceeds `max_chars`. `source_truncated` is the observation's own `truncated`;
`output_truncated` says this rendering left something out.

Links keep where they go (decisions.md "svc read links"): a link of the selected text is
`[name](absolute URL)` where its name stands in its entry's text, the first time its URL comes;
later links to the same URL are plain text. The text comes first: when it is given whole, its
links take what is left of `max_chars`; when it is cut anyway, they take up to a quarter of it
(`LINK_SHARE`) and the text the rest. URLs are spent in reading order; a link past what is left
is plain text, and so are links into this same document (only the fragment differs), links in
code blocks and destinations that are no address (clipped; schemes other than http, https and
mailto). A cut never splits a link.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bridge_protocol import observation as wire

MAX_CHARS_DEFAULT, MAX_CHARS_MIN, MAX_CHARS_MAX = 12000, 512, 32768
MAX_SECTIONS_DEFAULT, MAX_SECTIONS_MIN, MAX_SECTIONS_MAX = 24, 1, 100
PART_CHARS = 1500
OUTLINE_SHARE = 5  # the outline takes at most max_chars // OUTLINE_SHARE
LINK_SHARE = 4  # link URLs (with their brackets) take at most max_chars // LINK_SHARE
LINK_SCHEMES = ("http:", "https:", "mailto:")
K1, B = 1.2, 0.75
_WORD = re.compile(r"\w+", re.UNICODE)
SEPARATOR = "\n\n"


def tokens(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


# A link in rendered text, before `_links_out` writes it: OPEN name CLOSE. The URLs of a section's
# marks are kept in order beside its text (`Section.links`), so a cut keeps its first marks and
# a mark the cut split is left as text; page text never holds these two characters.
OPEN, CLOSE = "\x02", "\x03"
_MARK = re.compile(f"{OPEN}([^{OPEN}{CLOSE}]*){CLOSE}")
_NO_MARKS = str.maketrans("", "", OPEN + CLOSE)
_BRACKETS = str.maketrans({"[": "\\[", "]": "\\]"})  # in a link's text

Targets = dict[str, tuple[str, str]]  # ref -> (name, absolute URL) of the links worth giving


def _plain(text: str) -> str:
    """`text` without the two characters that mark links (a page could hold them)."""
    return text.translate(_NO_MARKS) if OPEN in text or CLOSE in text else text


def _word_char(c: str) -> bool:
    return c.isalnum() or c == "_"


def _find(text: str, name: str, at: int) -> int:
    """Where `name` stands in `text` from `at`: as a whole word if it is one anywhere (the link
    "await" in "an awaitable ... an await expression"), else as a substring; -1 when absent."""
    first = found = text.find(name, at)
    start, end = _word_char(name[0]), _word_char(name[-1])
    while found >= 0:
        before = text[found - 1] if found > 0 else " "
        after = text[found + len(name)] if found + len(name) < len(text) else " "
        if not (start and _word_char(before)) and not (end and _word_char(after)):
            return found
        found = text.find(name, found + 1)
    return first


def mark_links(text: str, refs: list[str], targets: Targets) -> tuple[str, list[str]]:
    """`text` with its links marked where their names stand, in order; (text, their URLs). A
    link whose name is not in the text (after the previous one) stays unmarked."""
    out: list[str] = []
    urls: list[str] = []
    at = 0
    for ref in refs:
        name, url = targets.get(ref, ("", ""))
        found = _find(text, name, at) if name else -1
        if found < 0:
            continue
        out.append(f"{text[at:found]}{OPEN}{name}{CLOSE}")
        urls.append(url)
        at = found + len(name)
    return "".join(out) + text[at:], urls


@dataclass
class Section:
    index: int
    heading: str | None = None
    level: int = 0
    continued: bool = False
    lines: list[str] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)  # the URLs of its marks, in order

    def head(self) -> str | None:
        if self.heading is None:
            return None
        suffix = " (continued)" if self.continued else ""
        return f"{'#' * max(1, min(self.level, 6))} {self.heading}{suffix}"

    def body(self) -> str:
        return "\n\n".join(line for line in self.lines if line)

    def render(self, budget: int | None = None) -> tuple[str, bool]:
        """The section's Markdown, cut to `budget` characters; (text, was cut)."""
        head = self.head()
        text = "\n\n".join(x for x in (head, self.body()) if x)
        if budget is None or len(text) <= budget:
            return text, False
        return clip(text, budget), True


_FENCE = re.compile(r"^(`{3,})$", re.MULTILINE)
_TICKS = re.compile(r"`{3,}")


def fence(text: str) -> str:
    """`text` as a fenced code block, its lines kept; the fence is longer than any backtick run
    inside, so the block cannot close early."""
    longest = max((len(m) for m in _TICKS.findall(text)), default=2)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}\n{text}\n{ticks}"


def clip(text: str, budget: int) -> str:
    """`text` cut at a word boundary to at most `budget` characters, ending with an ellipsis;
    a code block the cut opens is closed again (its fence counted in the budget)."""
    if budget <= 1:
        return "…"[:budget]
    cut = text[: budget - 1]
    space = cut.rfind(" ")
    if space > budget // 2:
        cut = cut[:space]
    cut = cut.rstrip() + "…"
    opened = _open_fence(cut)
    for _ in range(4):
        if opened is None:
            return cut
        closing = "\n" + opened
        room = budget - len(closing)
        if room < 2:
            break
        cut = text[: room - 1].rstrip() + "…"
        if _open_fence(cut) == opened:
            return cut + closing
        opened = _open_fence(cut)
    return "…"


def _open_fence(text: str) -> str | None:
    """The fence of the code block left open at the end of `text`, or None."""
    opened: str | None = None
    for m in _FENCE.finditer(text):
        if opened is None:
            opened = m.group(1)
        elif m.group(1) == opened:
            opened = None
    return opened


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _render_table(rows: list[list[str]], caption: str | None) -> str:
    out = []
    if caption:
        out.append(f"**{caption}**\n")
    rows = [r for r in rows if r] or [[""]]
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    out.append("| " + " | ".join(_cell(c) for c in rows[0]) + " |")
    out.append("|" + "---|" * width)
    out.extend("| " + " | ".join(_cell(c) for c in r) + " |" for r in rows[1:])
    return "\n".join(out)


def _line(entry: dict[str, Any]) -> str:  # noqa: PLR0911  one return per entry kind
    kind, text = entry.get("k"), str(entry.get("t", ""))
    if kind == "list_item":
        return "- " + text.replace("\n", "\n  ")
    if kind == "quote":
        return "> " + text.replace("\n", "\n> ")
    if kind == "code":
        return fence(text)
    if kind == "image":
        return f"[image: {text}]" if text else "[image]"
    if kind == "frame":
        return f"[{text}]"
    if kind in ("progressbar", "meter"):
        # a bar drawn with its value (docs/observations.md "Content entries")
        value = (entry.get("d") or {}).get("v", "")
        return f"[{kind}{' ' + text if text else ''}{': ' + value if value else ''}]"
    if kind == "separator":
        return f"[separator: {text}]" if text else "[separator]"
    if kind == "dialog":
        # a page event (docs/observations.md "Dialogs"); the message is the website's text
        d = entry.get("d") or {}
        return f"[{d.get('dialog', '')} dialog, {d.get('answer', '')} by {d.get('by', '')}: {text}]"
    if kind == "download":
        d = entry.get("d") or {}
        where = d.get("output_path") or d.get("reason") or ""
        return f"[download {d.get('state', '')}: {d.get('file_name', '')} {where}]".rstrip()
    return text


def sections_of(  # noqa: PLR0912, PLR0915  one pass over the content, its cases in order
    content: list[dict[str, Any]], targets: Targets | None = None
) -> list[Section]:
    """Cut content entries into sections (headings start them; long runs are split in parts);
    the links of `targets` are marked in their text."""
    targets = targets or {}
    sections: list[Section] = []
    current = Section(0)
    size = 0
    table: list[list[str]] | None = None
    caption: str | None = None
    head_links: list[str] = []

    def marked(entry: dict[str, Any]) -> tuple[str, list[str]]:
        text = _plain(str(entry.get("t", "")))
        if entry.get("k") == "code" or not entry.get("e"):
            return text, []
        return mark_links(text, list(entry["e"]), targets)

    def flush_table() -> None:
        nonlocal table, caption, size
        if table is not None:
            rendered = _render_table(table, caption)
            current.lines.append(rendered)
            size += len(rendered)
        table, caption = None, None

    def new_section(heading: str | None, level: int, continued: bool) -> None:
        nonlocal current, size
        flush_table()
        if current.lines or current.heading is not None:
            sections.append(current)
        current = Section(len(sections), heading, level, continued, links=list(head_links))
        size = 0
        if heading:
            current.words.extend(tokens(_plain(heading)) * 2)

    for entry in content:
        kind = entry.get("k")
        text = _plain(str(entry.get("t", "")))
        if kind == "heading":
            heading, head_links = marked(entry)
            new_section(heading, int(entry.get("l", 1)), False)
            continue
        if kind in ("table", "table_caption", "table_row", "table_cell"):
            if kind == "table":
                flush_table()
                table, caption = [], text or None
            elif kind == "table_caption":
                caption = caption or text or None
                if table is None:
                    table = []
            elif kind == "table_row":
                if table is None:
                    table = []
                if size > PART_CHARS and table:
                    flush_table()
                    new_section(current.heading, current.level, current.heading is not None)
                    table = []
                table.append([])
            else:
                if table is None:
                    table = [[]]
                if not table:
                    table.append([])
                cell, urls = marked(entry)
                table[-1].append(cell)
                current.links.extend(urls)
                size += len(text) + 3
            current.words.extend(tokens(text))
            continue
        flush_table()
        if size > PART_CHARS:
            new_section(current.heading, current.level, current.heading is not None)
        line, urls = marked(entry)
        line = _line({**entry, "t": line})
        current.lines.append(line)
        current.links.extend(urls)
        current.words.extend(tokens(text))
        size += len(line) + 2
    head_links = []
    new_section(None, 0, False)
    return sections


def bm25(sections: list[Section], query: str) -> list[float]:
    terms = list(dict.fromkeys(tokens(query)))
    if not terms or not sections:
        return [0.0] * len(sections)
    n = len(sections)
    avg = sum(len(s.words) for s in sections) / n or 1.0
    counts = [Counter(s.words) for s in sections]
    scores = []
    for section, tf in zip(sections, counts, strict=True):
        score = 0.0
        for term in terms:
            f = tf.get(term, 0)
            if not f:
                continue
            df = sum(1 for c in counts if term in c)
            idf = math.log((n - df + 0.5) / (df + 0.5) + 1)
            score += idf * f * (K1 + 1) / (f + K1 * (1 - B + B * len(section.words) / avg))
        scores.append(score)
    return scores


def outline(content: list[dict[str, Any]], budget: int) -> tuple[str, int, int]:
    """(Markdown list of the shallowest heading levels that fit, headings shown, total)."""
    headings = [
        (int(e.get("l", 1)), str(e.get("t", ""))) for e in content if e.get("k") == "heading"
    ]
    total = len(headings)
    if not headings:
        return "", 0, 0

    def render(max_level: int) -> tuple[str, int]:
        shown = [(lvl, t) for lvl, t in headings if lvl <= max_level]
        top = min(lvl for lvl, _ in shown) if shown else 1
        lines = [f"{'  ' * (lvl - top)}- {clip(t, 80) if len(t) > 80 else t}" for lvl, t in shown]
        more = total - len(shown)
        if more:
            lines.append(f"- … {more} deeper heading{'s' if more != 1 else ''}")
        return "Outline:\n" + "\n".join(lines), len(shown)

    best = ("", 0)
    for level in sorted({lvl for lvl, _ in headings}):
        text, shown = render(level)
        if len(text) > budget:
            break
        best = (text, shown)
    return best[0], best[1], total


# live regions and messages (docs/observations.md "Context paths"): a form's error in role=alert
MESSAGE_ROLES = ("alert", "status", "log", "timer", "marquee")


def _messages_marked(content: list[dict[str, Any]], contexts: list[str]) -> list[dict[str, Any]]:
    """The entries, those inside a message marked with its role (`[alert] Enter a valid date.`):
    Markdown has no place for the context an agent would otherwise miss."""
    out = []
    for entry in content:
        c = entry.get("c")
        role = ""
        if isinstance(c, int) and 0 <= c < len(contexts) and entry.get("t"):
            role = contexts[c].split(" > ")[-1].split(" ")[0]
        out.append({**entry, "t": f"[{role}] {entry['t']}"} if role in MESSAGE_ROLES else entry)
    return out


def link_targets(elements: list[dict[str, Any]], url: str) -> Targets:
    """The links worth giving, by ref: named, to an address (not clipped, an http, https or
    mailto URL), and not into the document at `url` itself (only the fragment differs)."""
    here = url.partition("#")[0]
    targets: Targets = {}
    for e in elements:
        dest, name = str(e.get("dest") or ""), _plain(str(e.get("name") or ""))
        if not name or not dest.lower().startswith(LINK_SCHEMES) or dest.endswith("…"):
            continue
        if dest.partition("#")[0] == here:
            continue
        targets[str(e["ref"])] = (name, dest)
    return targets


def _links_out(parts: list[str], sections: list[Section], share: int) -> list[str]:
    """The parts with their marks written: `[name](url)` for a URL's first link while the
    `share` of characters lasts, else the name; a mark a cut split is left as text."""
    given: set[str] = set()
    spent = 0

    def write(part: str, urls: list[str]) -> str:
        pending = iter(urls)

        def one(m: re.Match[str]) -> str:
            nonlocal spent
            name, url = m.group(1), next(pending)
            if url in given:
                return name
            text = name.translate(_BRACKETS) if "[" in name or "]" in name else name
            link = f"[{text}]({url})"
            if spent + len(link) - len(name) > share:
                return name
            given.add(url)
            spent += len(link) - len(name)
            return link

        return _plain(_MARK.sub(one, part))

    return [write(p, s.links) for p, s in zip(parts, sections, strict=True)]


def _select(
    sections: list[Section], query: str | None, max_sections: int, budget: int
) -> tuple[list[Section], list[str], bool | None, bool]:
    """The sections given within `budget` and their Markdown (marks unwritten); (sections,
    parts, query matched, cut)."""
    chosen: list[tuple[Section, int | None]] = []  # (section, budget or None for whole)
    matched: bool | None = None
    cut = False
    if query is not None:
        scores = bm25(sections, query)
        ranked = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))
        matched = bool(ranked)
        if len(ranked) > max_sections:
            cut = True
        chosen = [(sections[i], None) for i in ranked[:max_sections]]
    if not chosen:
        whole = [s.render()[0] for s in sections]
        fits = len(sections) <= max_sections and (
            sum(len(t) for t in whole) + len(SEPARATOR) * max(0, len(whole) - 1) <= budget
        )
        if fits:
            chosen = [(s, None) for s in sections]
        else:
            cut = True
            count = min(max_sections, len(sections))
            picks = sorted(
                {round(i * (len(sections) - 1) / max(1, count - 1)) for i in range(count)}
            )
            share = max(
                80, (budget - len(SEPARATOR) * max(0, len(picks) - 1)) // max(1, len(picks))
            )
            chosen = [(sections[i], share) for i in picks]

    shown: list[Section] = []
    parts: list[str] = []
    used = 0
    for section, limit in chosen:
        room = budget - used - (len(SEPARATOR) if parts else 0)
        if room < 40:
            cut = True
            break
        text, was_cut = section.render(min(limit, room) if limit is not None else room)
        cut = cut or was_cut
        shown.append(section)
        parts.append(text)
        used += len(text) + (len(SEPARATOR) if len(parts) > 1 else 0)
    return shown, parts, matched, cut


def compose(
    page: dict[str, Any],
    observation: dict[str, Any],
    *,
    query: str | None = None,
    max_chars: int = MAX_CHARS_DEFAULT,
    max_sections: int = MAX_SECTIONS_DEFAULT,
) -> tuple[str, dict[str, Any]]:
    """(bounded Markdown, metadata) of one observation (the wire form the API returns)."""
    observation = wire.decode(observation, str(page.get("url") or ""))
    content = _messages_marked(
        list(observation.get("content") or []), list(observation.get("contexts") or [])
    )
    elements: list[dict[str, Any]] = list(observation.get("elements") or [])
    targets = link_targets(elements, str(observation.get("url") or page.get("url") or ""))
    sections = sections_of(content, targets)
    outline_text, outline_shown, heading_total = outline(content, max_chars // OUTLINE_SHARE)
    outline_text = _plain(outline_text)
    budget = max_chars - (len(outline_text) + len(SEPARATOR) if outline_text else 0)
    query = query.strip() if query and query.strip() else None

    def joined(share: int) -> str:
        body = SEPARATOR.join(_links_out(parts, chosen, share))
        return SEPARATOR.join(x for x in (outline_text, body) if x)

    chosen, parts, matched, cut = _select(sections, query, max_sections, budget)
    if not cut:  # the text is whole: its links take what is left
        markdown = joined(max_chars - len(joined(0)))
    else:
        # the text is cut anyway: its links take up to a share of the budget, and the text is
        # chosen again for what they made it go over, until it fits
        for _ in range(8):
            markdown = joined(max_chars // LINK_SHARE)
            if len(markdown) <= max_chars:
                break
            used = len(SEPARATOR.join(parts))
            budget = min(budget, used) - (len(markdown) - max_chars)
            chosen, parts, matched, cut = _select(sections, query, max_sections, budget)
        else:  # not met in time: the text without links
            markdown = clip(joined(0), max_chars)

    links = sum(1 for e in elements if e.get("role") == "link" or "dest" in e)
    metadata: dict[str, Any] = {
        "source_url": observation.get("url") or page.get("url"),
        "title": observation.get("title", ""),
        "observation_id": observation.get("id"),
        "session_id": page.get("session_id"),
        "page_id": page.get("id"),
        "outline_headings": outline_shown,
        "total_headings": heading_total,
        "selected_sections": len(parts),
        "total_sections": len(sections),
        "content_count": len(content),
        "link_count": links,
        "element_count": len(elements),
        "query": query,
        "query_matched": matched,
        "source_truncated": bool(observation.get("truncated", False)),
        "output_truncated": cut,
        "chars": len(markdown),
    }
    return markdown, metadata


def check_bounds(max_chars: int, max_sections: int) -> str | None:
    """Why the bounds are out of range, or None."""
    if not MAX_CHARS_MIN <= max_chars <= MAX_CHARS_MAX:
        return f"max_chars must be {MAX_CHARS_MIN}-{MAX_CHARS_MAX}, not {max_chars}"
    if not MAX_SECTIONS_MIN <= max_sections <= MAX_SECTIONS_MAX:
        return f"max_sections must be {MAX_SECTIONS_MIN}-{MAX_SECTIONS_MAX}, not {max_sections}"
    return None
