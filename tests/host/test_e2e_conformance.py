"""Names and roles by the web's own conformance pages (issue 36, points 1 and 2): every page of
`../shared/wpt/` (web-platform-tests' accname, wai-aria role and html-aam pages, each test element
carrying its expectation as `data-expectedlabel` / `data-expectedrole`) is observed by the real
engine, and each test element's name and role are read from what the observation gave for it, the
way docs/observations.md "Roles" says an agent reads them. Playwright (Debian's Chromium) reads
the same pages with its aria snapshot, in the same test: svc must meet at least 95% of the name
expectations and never fewer of either kind than Playwright. The misses of both are printed.

The engine runs in a child process (the conformance reader, `observe_js.probe`, asks the page's
isolated world which node gave which entry; the agent's API has no such call), beside Playwright
in this one."""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from tests.httpserver import serving

from .inengine import ROOT, child_env, configure, load, scenario_result, start_engine

pytestmark = pytest.mark.e2e

# a copy of ../shared/wpt (tests/wpt/README.md): a clone of this repository alone runs it
WPT = ROOT / "tests" / "wpt"
CHROMIUM = "/usr/bin/chromium"
EXPECTED = "[data-expectedlabel],[data-expectedrole]"
NAME_GOAL = 0.95

# the role a content entry's kind stands for (docs/observations.md "Roles")
KIND_ROLE = {
    "heading": "heading",
    "paragraph": "paragraph",
    "list_item": "listitem",
    "quote": "blockquote",
    "code": "code",
    "image": "img",
    "table": "table",
    "table_caption": "caption",
    "table_row": "row",
    "text": "generic",
}
# kinds whose text is their name (name from content, or the image's alternative)
NAMED_BY_TEXT = {"heading", "image", "table", "table_cell", "progressbar", "meter", "separator"}


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@dataclass(frozen=True)
class Reading:
    page: str
    test: str
    expected_name: str | None
    expected_role: str | None
    name: str
    role: str


def squash(s: str) -> str:
    return " ".join(s.split())


def role_met(expected: str, role: str) -> bool:
    expected = expected.lower()
    synonyms = {"image": "img", "presentation": "none"}
    expected = synonyms.get(expected, expected)
    role = synonyms.get(role, role)
    if expected in ("none", "generic"):
        # an element of no role of its own is read as the text around it
        return role in ("", "generic", "none")
    return role == expected


def counted_role(expected: str | None) -> bool:
    """Placeholders of WPT (SPEC_AMBIGUOUS_LOG_VALUE, a question) are no expectation."""
    return expected is not None and re.fullmatch(r"[a-z-]+", expected) is not None


def svc_reading(
    rep: list[list[Any]],
    content: list[dict[str, Any]],
    offset: int,
    elements: list[dict[str, Any]],
) -> tuple[str, str]:
    """The role and name of one node from what the observation gave for it: its element, else
    its content entry, else its context part; nothing is no role and no name."""
    order = {"el": 0, "ct": 1, "cx": 2}
    for kind, where in sorted(rep, key=lambda r: order[r[0]]):
        if kind == "el":
            e = elements[where]
            if e["role"] == "clickable" and len(rep) > 1:
                continue  # a ref of a box that has a role of its own (a focusable heading)
            role = e["role"]
            return ("generic" if role == "clickable" else role), e.get("name", "")
        if kind == "ct":
            e = content[offset + where]
            k = e["k"]
            d = e.get("d") or {}
            if k == "table_cell":
                role = {1: "columnheader", 2: "rowheader"}.get(e.get("h", 0), "cell")
            else:
                role = KIND_ROLE.get(k, k)
            name = d.get("n", e.get("t", "") if k in NAMED_BY_TEXT else "")
            return role, name
        m = re.fullmatch(r'([a-z]+)(?: "(.*)")?', where)
        assert m is not None, where
        return m.group(1), m.group(2) or ""
    return "", ""


_LINE = re.compile(r'^- ([a-z]+)(?: "((?:[^"\\]|\\.)*)")?')


def playwright_readings(base: str, pages: list[str]) -> list[Reading]:
    """Playwright's role and name of each test element: the first line of its aria snapshot."""
    from playwright.sync_api import sync_playwright

    out: list[Reading] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"], headless=True
        )
        page = browser.new_page()
        for path in pages:
            page.goto(f"{base}/{path}")
            found = page.locator(EXPECTED)
            for i in range(found.count()):
                el = found.nth(i)
                snap = el.aria_snapshot(timeout=5000)
                m = _LINE.match(snap.splitlines()[0] if snap else "")
                role = m.group(1) if m else ""
                name = json.loads(f'"{m.group(2) or ""}"') if m else ""
                out.append(
                    Reading(
                        path,
                        el.get_attribute("data-testname") or "",
                        el.get_attribute("data-expectedlabel"),
                        el.get_attribute("data-expectedrole"),
                        name,
                        role,
                    )
                )
        browser.close()
    return out


@dataclass
class Score:
    names_met: int = 0
    names: int = 0
    roles_met: int = 0
    roles: int = 0


def score(readings: list[Reading], misses: list[str]) -> Score:
    s = Score()
    for r in readings:
        if r.expected_name is not None:
            s.names += 1
            if squash(r.name) == squash(r.expected_name):
                s.names_met += 1
            else:
                misses.append(f"name {r.page} [{r.test}]: {r.name!r}, expected {r.expected_name!r}")
        if counted_role(r.expected_role):
            assert r.expected_role is not None
            s.roles += 1
            if role_met(r.expected_role, r.role):
                s.roles_met += 1
            else:
                misses.append(f"role {r.page} [{r.test}]: {r.role!r}, expected {r.expected_role!r}")
    return s


@pytest.fixture(scope="module")
def wpt_base() -> Iterator[str]:
    assert (WPT / "index.json").is_file(), f"{WPT}: the conformance pages are missing"
    with serving(functools.partial(_Quiet, directory=str(WPT))) as base:
        yield base


def pages() -> list[str]:
    index = json.loads((WPT / "index.json").read_text())
    return [f["path"] for f in index["files"]]


def test_names_and_roles_meet_the_conformance_pages(wpt_base: str, tmp_path: Path) -> None:
    paths = pages()
    child = subprocess.Popen(
        [sys.executable, "-m", __name__, str(tmp_path / "data"), wpt_base, *paths],
        cwd=ROOT,
        env=child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        theirs = playwright_readings(wpt_base, paths)
        out, err = child.communicate(timeout=240)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 0, err.decode()[-4000:]
    result = json.loads(out.decode().strip().splitlines()[-1])
    assert "error" not in result, result["error"]
    ours = [Reading(**r) for r in result["readings"]]
    assert len(ours) == len(theirs)
    our_misses: list[str] = []
    their_misses: list[str] = []
    s, p = score(ours, our_misses), score(theirs, their_misses)
    print(f"svc:        names {s.names_met}/{s.names}, roles {s.roles_met}/{s.roles}")
    print(f"Playwright: names {p.names_met}/{p.names}, roles {p.roles_met}/{p.roles}")
    print("svc misses:\n  " + "\n  ".join(our_misses))
    print("Playwright misses:\n  " + "\n  ".join(their_misses))
    assert s.names == p.names
    assert s.roles == p.roles
    assert s.names_met >= NAME_GOAL * s.names, "\n".join(our_misses)
    assert s.names_met >= p.names_met, "\n".join(our_misses)
    assert s.roles_met >= p.roles_met, "\n".join(our_misses)


# --- the child process ----------------------------------------------------------------------


def run(data_dir: Path, base: str, paths: list[str]) -> dict[str, Any]:
    import msgspec

    from bridge_protocol import observation as wire
    from host_app.core import observations, observe_js

    app, engine = start_engine(data_dir, "svc-conformance-test")
    sid = configure(engine, 1)
    out: dict[str, Any] = {"readings": []}

    async def scenario() -> None:
        b = engine.browser(sid)
        for path in paths:
            url = f"{base}/{path}"
            assert await load(engine, b, url), url
            obs = await observations.observe(b, engine.observations, sid, "semantic")
            decoded = wire.decode(msgspec.to_builtins(obs), url)
            probed = await b.run(observe_js.probe(EXPECTED))
            content = decoded.get("content", [])
            elements = decoded.get("elements", [])
            # the page events (none on these loads) come before the document's entries
            offset = sum(1 for e in content if e["k"] in ("popup", "dialog", "download"))
            for r in probed:
                role, name = svc_reading([list(p) for p in r.places], content, offset, elements)
                at = r.attributes
                out["readings"].append(
                    {
                        "page": path,
                        "test": at.get("data-testname", ""),
                        "expected_name": at.get("data-expectedlabel"),
                        "expected_role": at.get("data-expectedrole"),
                        "name": name,
                        "role": role,
                    }
                )

    return scenario_result(app, engine, scenario(), out, limit_ms=200_000)


if __name__ == "__main__":
    print(json.dumps(run(Path(sys.argv[1]), sys.argv[2], sys.argv[3:])))
