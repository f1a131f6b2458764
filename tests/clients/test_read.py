"""svc read's ranking and rendering on observation fixtures (docs/observations.md shape), and
one real read of a page nobody here wrote (Debian's python3-doc) through `svc` and `svc-mcp`."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from bridge_protocol import observation as wire
from clients.read import bm25, compose, sections_of
from tests.host.hostproc import HostApp
from tests.httpserver import serving

from .conftest import svc
from .mcpraw import RawMcp

PAGE = {"id": "page_1", "session_id": "Session1", "url": "http://x.test/"}


def observation(
    content: list[dict[str, Any]], elements: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
    """An observation in the wire form the API returns (bridge_protocol.observation)."""
    if elements is None:
        elements = [
            {"ref": "e1", "role": "link", "name": "a", "dest": "http://x.test/a"},
            {"ref": "e2", "role": "button", "name": "b"},
        ]
    return {
        "id": "obs_1",
        "url": "http://x.test/doc",
        "title": "Doc",
        "content": wire.encode_content(content, elements),
        "elements": wire.encode_elements("http://x.test/doc", elements),
        "truncated": False,
        **extra,
    }


def long_doc(sections: int = 60, words: int = 80) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = [{"k": "heading", "t": "Guide", "l": 1}]
    for i in range(sections):
        content.append({"k": "heading", "t": f"Chapter {i}", "l": 2})
        body = " ".join(f"filler{i}w{j}" for j in range(words))
        content.append({"k": "paragraph", "t": body})
    return content


def test_small_document_is_given_whole_with_outline_and_metadata() -> None:
    content: list[dict[str, Any]] = [
        {"k": "heading", "t": "Shop", "l": 1},
        {"k": "paragraph", "t": "See the docs for more.", "e": ["e1"]},
        {"k": "list_item", "t": "apples"},
        {"k": "table", "t": "Prices"},
        {"k": "table_row"},
        {"k": "table_cell", "t": "Item", "h": 1},
        {"k": "table_cell", "t": "Price|€", "h": 1},
        {"k": "table_row"},
        {"k": "table_cell", "t": "Apple"},
        {"k": "table_cell", "t": "1"},
        {"k": "heading", "t": "Contact", "l": 2},
        {"k": "quote", "t": "Call us"},
        {"k": "image", "t": "logo"},
    ]
    markdown, meta = compose(PAGE, observation(content))
    assert markdown.startswith("Outline:\n- Shop\n  - Contact\n\n# Shop")
    assert "- apples" in markdown
    assert "| Item | Price\\|€ |\n|---|---|\n| Apple | 1 |" in markdown
    assert "## Contact\n\n> Call us\n\n[image: logo]" in markdown
    assert meta == {
        "source_url": "http://x.test/doc",
        "title": "Doc",
        "observation_id": "obs_1",
        "session_id": "Session1",
        "page_id": "page_1",
        "outline_headings": 2,
        "total_headings": 2,
        "selected_sections": 2,
        "total_sections": 2,
        "content_count": len(content),
        "link_count": 1,
        "element_count": 2,
        "query": None,
        "query_matched": None,
        "source_truncated": False,
        "output_truncated": False,
        "chars": len(markdown),
    }


def test_query_ranks_by_bm25_not_document_order() -> None:
    content = long_doc(10, 20)
    # Chapter 2 mentions the term once in a long section; chapter 7 often in a short one.
    content[2 * 2 + 2]["t"] += " zebra"
    content[7 * 2 + 2] = {"k": "paragraph", "t": "zebra zebra stripes zebra"}
    markdown, meta = compose(PAGE, observation(content), query="Zebra stripes", max_sections=2)
    assert meta["query_matched"] is True
    assert meta["selected_sections"] == 2
    body = markdown.split("\n\n", 1)[1]
    assert body.index("## Chapter 7") < body.index("## Chapter 2")


def test_bm25_scores() -> None:
    sections = sections_of(
        [
            {"k": "heading", "t": "a", "l": 1},
            {"k": "paragraph", "t": "cat cat dog"},
            {"k": "heading", "t": "b", "l": 1},
            {"k": "paragraph", "t": "dog bird"},
        ]
    )
    cat, dog = bm25(sections, "cat"), bm25(sections, "dog")
    assert cat[0] > 0
    assert cat[1] == 0
    assert dog[0] > 0
    assert dog[1] > 0
    assert bm25(sections, "") == [0.0, 0.0]


def test_unmatched_query_falls_back_to_sampling() -> None:
    markdown, meta = compose(PAGE, observation(long_doc()), query="nothingmatches")
    assert meta["query_matched"] is False
    assert meta["selected_sections"] == 24  # the default sample
    assert "# Guide" in markdown


def test_long_document_is_sampled_from_beginning_to_end() -> None:
    markdown, meta = compose(PAGE, observation(long_doc(60, 80)), max_chars=6000, max_sections=6)
    assert len(markdown) <= 6000
    assert meta["output_truncated"] is True
    assert meta["selected_sections"] == 6
    assert meta["total_sections"] == 61
    body = markdown.split("\n\n", 1)[1]
    chapters = [int(line[11:]) for line in body.splitlines() if line.startswith("## Chapter ")]
    assert body.startswith("# Guide")
    assert chapters == [11, 23, 35, 47, 59]  # evenly from beginning to end


def test_bounds_hold_at_the_minimum_and_source_truncation_is_separate() -> None:
    for max_chars in (512, 1000, 32768):
        markdown, meta = compose(
            PAGE, observation(long_doc(100, 200), truncated=True), max_chars=max_chars
        )
        assert len(markdown) <= max_chars
        assert meta["chars"] == len(markdown)
        assert meta["source_truncated"] is True
        assert meta["output_truncated"] is True
    # A long section without headings is split into parts that can be sampled.
    text: list[dict[str, Any]] = [{"k": "paragraph", "t": "word " * 200} for _ in range(20)]
    markdown, meta = compose(PAGE, observation(text), max_chars=2000)
    assert meta["total_sections"] > 1
    assert meta["outline_headings"] == 0
    assert len(markdown) <= 2000


def test_outline_keeps_the_shallowest_levels_that_fit() -> None:
    content = long_doc(200, 2)
    markdown, meta = compose(PAGE, observation(content), max_chars=4000)
    assert meta["total_headings"] == 201
    assert meta["outline_headings"] == 1  # only "Guide" fits a fifth of 4000 characters
    assert markdown.startswith("Outline:\n- Guide\n- … 200 deeper headings")


def test_empty_observation() -> None:
    markdown, meta = compose(PAGE, {"id": "obs_2", "url": "http://x.test/", "truncated": False})
    assert markdown == ""
    assert (meta["total_sections"], meta["content_count"], meta["title"]) == (0, 0, "")


def test_the_url_sent_once_comes_from_the_page() -> None:
    """A response leaves `url` out when page.url is the same (docs/observations.md "Top
    level"): read takes the page's."""
    page = {**PAGE, "url": "http://x.test/doc"}
    shown = wire.for_page(observation([{"k": "paragraph", "t": "Hello"}]), page["url"])
    assert "url" not in shown
    markdown, meta = compose(page, shown)
    assert (markdown, meta["source_url"], meta["link_count"]) == ("Hello", page["url"], 1)
    assert wire.decode(shown, page["url"])["elements"][0]["dest"] == "http://x.test/a"


CODE = 'def greet(name):\n    if name:\n        return f"hello {name}"\n    return "nobody"'


def test_code_blocks_are_fenced_with_their_lines() -> None:
    content: list[dict[str, Any]] = [
        {"k": "heading", "t": "Example", "l": 1},
        {"k": "code", "t": CODE},
        {"k": "code", "t": "print('```')\n  x = 1"},  # a fence inside: a longer fence outside
        {"k": "list_item", "t": "two\nlines"},
    ]
    markdown, _ = compose(PAGE, observation(content))
    assert f"```\n{CODE}\n```" in markdown
    assert "````\nprint('```')\n  x = 1\n````" in markdown
    assert "- two\n  lines" in markdown


def test_a_cut_code_block_is_closed() -> None:
    long_code = "\n".join(f"    line_{i} = {i}" for i in range(400))
    content: list[dict[str, Any]] = [
        {"k": "heading", "t": "Long", "l": 1},
        {"k": "code", "t": long_code},
    ]
    markdown, meta = compose(PAGE, observation(content), max_chars=600)
    assert meta["output_truncated"]
    assert len(markdown) <= 600
    body = markdown[markdown.index("```") :]
    assert body.startswith("```\n    line_0 = 0\n    line_1 = 1\n")
    assert body.endswith("\n```")
    assert body.count("```") == 2


def test_page_events_read_as_bracketed_notes() -> None:
    content: list[dict[str, Any]] = [
        {
            "k": "dialog",
            "t": "Proceed?",
            "d": {"dialog": "confirm", "answer": "accepted", "by": "policy"},
        },
        {
            "k": "download",
            "t": "r.csv (completed)",
            "d": {"state": "completed", "file_name": "r.csv", "output_path": "/d/r.csv"},
        },
        {"k": "paragraph", "t": "Body"},
    ]
    markdown, _ = compose(PAGE, observation(content))
    assert "[confirm dialog, accepted by policy: Proceed?]" in markdown
    assert "[download completed: r.csv /d/r.csv]" in markdown


def test_bars_and_separators_read_with_their_name_and_value() -> None:
    """progressbar, meter and separator entries (docs/observations.md "Content entries")."""
    content: list[dict[str, Any]] = [
        {"k": "heading", "t": "Upload", "l": 1},
        {"k": "progressbar", "t": "Copying", "d": {"v": "40%"}},
        {"k": "separator"},
        {"k": "meter", "t": "Disk"},
    ]
    text, _ = compose(PAGE, observation(content))
    assert "[progressbar Copying: 40%]" in text
    assert "[separator]" in text
    assert "[meter Disk]" in text


def test_a_message_reads_with_its_role() -> None:
    """A form's error in role=alert is a text entry under an `alert` context part; Markdown shows
    the role with it (docs/observations.md "Context paths")."""
    obs = observation(
        [{"k": "heading", "t": "Sign in", "l": 1}, {"k": "text", "t": "Wrong password.", "c": 1}]
    )
    obs["contexts"] = ["main", "main > form > alert"]
    text, _ = compose(PAGE, obs)
    assert "[alert] Wrong password." in text


def link(ref: str, name: str, dest: str) -> dict[str, Any]:
    return {"ref": ref, "role": "link", "name": name, "dest": dest}


def test_links_read_as_markdown_links_with_absolute_urls() -> None:
    """Issue 38 point 4: a link keeps where it goes, `[name](absolute URL)` where its name stands;
    the URL once (a later link to it is text); a link into this same document, a link in code,
    and an address that is none (other schemes, clipped) stay text."""
    elements = [
        link("e1", "await", "../ref/expr.html#await"),
        link("e2", "Tasks", "task.html"),
        link("e3", "Task", "task.html"),
        link("e4", "below", "#section"),
        link("e5", "mail us", "mailto:team@x.test"),
        link("e6", "open", "ftp://x.test/file"),
        link("e7", "long", "http://x.test/" + "p" * 30 + "…"),
        link("e8", "Guide", "/guide"),
        link("e9", "run()", "run.html"),
        link("e10", "x[1]", "https://other.test/x"),
        link("e11", "Mirror", "https://other.test/m"),
    ]
    content: list[dict[str, Any]] = [
        {"k": "heading", "t": "The Guide", "l": 1, "e": ["e8"]},
        {
            "k": "paragraph",
            "t": "An awaitable is what an await expression takes; see the Tasks.",
            "e": ["e1", "e2"],
        },
        {"k": "list_item", "t": "A Task again, and below, mail us.", "e": ["e3", "e4", "e5"]},
        {"k": "paragraph", "t": "open long", "e": ["e6", "e7"]},
        {"k": "code", "t": "run()", "e": ["e9"]},
        {"k": "table", "t": "T"},
        {"k": "table_row"},
        {"k": "table_cell", "t": "x[1]", "e": ["e10"]},
        {"k": "table_cell", "t": "Mirror", "e": ["e11"]},
    ]
    markdown, meta = compose(PAGE, observation(content, elements))
    here = "http://x.test/"
    assert "# The [Guide](http://x.test/guide)\n" in markdown
    # a whole word before a substring: "await" is the second one, not the start of "awaitable"
    assert (
        f"An awaitable is what an [await]({here}ref/expr.html#await) expression takes;"
        f" see the [Tasks]({here}task.html)." in markdown
    )
    assert "- A Task again, and below, [mail us](mailto:team@x.test)." in markdown
    assert "\n\nopen long\n\n```\nrun()\n```" in markdown
    assert "| [x\\[1\\]](https://other.test/x) | [Mirror](https://other.test/m) |" in markdown
    assert markdown.count("](") == 6
    assert meta["output_truncated"] is False
    assert meta["chars"] == len(markdown)


def test_page_text_cannot_forge_or_break_a_link() -> None:
    """The characters that mark a link while the read is cut are taken out of page text."""
    content: list[dict[str, Any]] = [
        {"k": "paragraph", "t": "a\x02b\x03c docs", "e": ["e1"]},
    ]
    markdown, _ = compose(PAGE, observation(content, [link("e1", "docs", "/d")]))
    assert markdown == "abc [docs](http://x.test/d)"


def linked_doc(sections: int, links: int, url: str = "http://x.test/pages/") -> dict[str, Any]:
    """A document of `sections` chapters, each a paragraph of words with `links` links in it to
    pages of their own (long URLs; names of two words, so a cut may fall inside one)."""
    content: list[dict[str, Any]] = [{"k": "heading", "t": "Guide", "l": 1}]
    elements: list[dict[str, Any]] = []
    for i in range(sections):
        content.append({"k": "heading", "t": f"Chapter {i}", "l": 2})
        refs = [f"e{i}_{j}" for j in range(links)]
        words = [f"word{i}x{j} topic{i}y{j} page" for j in range(links)]
        content.append({"k": "paragraph", "t": " filler ".join(words) + ".", "e": refs})
        elements += [
            link(ref, f"topic{i}y{j} page", f"{url}chapter-{i}/topic-{j}-{'long' * 8}.html")
            for j, ref in enumerate(refs)
        ]
    return observation(content, elements)


LINK = re.compile(r"\[((?:\\.|[^\]\\])*)\]\(([^)\s]*)\)")


def test_links_count_in_the_budget_and_a_cut_never_splits_one() -> None:
    """The Markdown stays within max_chars with its links; a cut text gives its links at most a
    quarter of the budget; every link written is whole (its name and its URL), at any budget."""
    obs = linked_doc(80, 6)
    targets = {
        f"topic{i}y{j} page": f"http://x.test/pages/chapter-{i}/topic-{j}-{'long' * 8}.html"
        for i in range(80)
        for j in range(6)
    }
    for max_chars in [*range(512, 3000, 37), 6000, 12000, 32768]:
        for query in (None, "topic3y2 topic50y1"):
            markdown, meta = compose(PAGE, obs, max_chars=max_chars, query=query)
            assert len(markdown) <= max_chars
            assert meta["chars"] == len(markdown)
            # unqueried, the text is cut (the two chapters a query finds are whole)
            assert meta["output_truncated"] is (query is None)
            assert "\x02" not in markdown
            assert "\x03" not in markdown
            found = LINK.findall(markdown)
            for name, url in found:
                assert targets[name] == url, (name, url)
            assert found  # every budget has room for a link
            if meta["output_truncated"]:
                assert sum(len(url) + 4 for _, url in found) <= max_chars // 4
            # no piece of a link is left: every "](" belongs to a whole link
            assert markdown.count("](") == len(found)
    markdown, _ = compose(PAGE, obs)
    assert len(LINK.findall(markdown)) >= 20  # the default budget gives links


def test_a_whole_text_keeps_its_text_and_its_links_take_what_is_left() -> None:
    """When the text fits whole, links never cut it: they take the characters left over, in
    reading order, and the rest stay text."""
    obs = linked_doc(6, 6)
    plain = [f"topic{i}y{j} page" for i in range(6) for j in range(6)]
    markdown, meta = compose(PAGE, obs, max_chars=1400)
    assert meta["output_truncated"] is False
    assert len(markdown) <= 1400
    found = LINK.findall(markdown)
    assert 0 < len(found) < 36
    text = LINK.sub(lambda m: m.group(1), markdown)
    assert all(name in text for name in plain)
    assert [name for name, _ in found] == plain[: len(found)]
    markdown, meta = compose(PAGE, obs, max_chars=32768)
    assert len(LINK.findall(markdown)) == 36


DOC = Path("/usr/share/doc")


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def docs() -> Iterator[str]:
    """A static HTTP server over /usr/share/doc (python3-doc's html is a link there)."""
    assert (DOC / "python3/html/library/asyncio.html").is_file(), "python3-doc: run make setup"
    with serving(functools.partial(_Quiet, directory=str(DOC))) as base:
        yield base


@pytest.mark.e2e
def test_a_link_read_on_a_real_page_is_followed_where_it_says(fresh: HostApp, docs: str) -> None:
    """Issue 38 point 4 on python3-doc's asyncio page: `svc read` gives its chapter links with
    their absolute URLs, `svc_read` the same Markdown, and navigating to a URL read there lands
    on that chapter."""
    page = f"{docs}/python3/html/library/asyncio.html"
    r = svc(fresh.port, "read", page, "--json", "--wait", "0")
    assert r.code == 0, r.err
    read = json.loads(r.out)
    chapter = f"{docs}/python3/html/library/asyncio-task.html"
    assert f"\n- [Coroutines and Tasks]({chapter})\n" in read["markdown"]
    # a link into another page of the docs, inside a sentence
    assert (
        f"[network IO and IPC]({docs}/python3/html/library/asyncio-stream.html#"
        in (read["markdown"])
    )
    assert len(read["markdown"]) <= 12000

    mcp = RawMcp(fresh.port)
    try:
        mcp.initialize("2025-06-18")
        arguments = {"session_id": read["session_id"]}
        answer = mcp.call(1, "tools/call", {"name": "svc_read", "arguments": arguments})
        result = answer["result"]
        assert not result.get("isError"), result
        assert result["content"][0]["text"] == read["markdown"]
    finally:
        assert mcp.close() == 0

    r = svc(fresh.port, "navigate", chapter, "--session-id", read["session_id"], "--wait", "0")
    assert r.code == 0, r.err
    assert json.loads(r.out)["page"]["url"] == chapter
    r = svc(fresh.port, "read", "--session-id", read["session_id"], "--json", "--max-chars", "512")
    assert r.code == 0, r.err
    landed = json.loads(r.out)
    assert landed["source_url"] == chapter
    assert landed["title"].startswith("Coroutines and Tasks — Python")
