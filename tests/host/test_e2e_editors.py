"""Code editors nobody on this team wrote, typed into through refs as an agent would: CodeMirror 5
as Debian's `libjs-codemirror` ships it (its own examples), Ace and Monaco from npm (pinned,
`npm pack`). Each reads keys from an input a person never sees (a hidden textarea, an
EditContext box) and takes them once the editor is clicked; what the tests assert is the
editor's text as the agent reads it back."""

from __future__ import annotations

import functools
import json
import tarfile
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from tests import npm
from tests.host.obs_pages import observation_of
from tests.httpserver import serving

from .hostproc import HostApp
from .test_e2e_observations import act
from .test_e2e_widgets import after

pytestmark = pytest.mark.e2e

CODEMIRROR = Path("/usr/share/doc/libjs-codemirror/examples")
PACKAGES = {"monaco": "monaco-editor@0.55.1", "ace": "ace-builds@1.43.4"}
# each page mirrors the editor's text into #out on every change (what the agent reads back)
MONACO = """<!doctype html><html><head><meta charset=utf-8><title>Monaco</title></head><body>
<h1>Monaco</h1><p id=out>unchanged</p><div id=ed style="width:700px;height:300px"></div>
<script src="monaco/min/vs/loader.js"></script>
<script>require.config({paths:{vs:'monaco/min/vs'}});
require(['vs/editor/editor.main'],function(){var ed=monaco.editor.create(
document.getElementById('ed'),{value:'function hello() {\\n  return 1;\\n}\\n',language:'javascript'});
ed.onDidChangeModelContent(function(){document.getElementById('out').textContent=ed.getValue()});
document.getElementById('out').textContent='ready'});</script></body></html>"""
ACE = """<!doctype html><html><head><meta charset=utf-8><title>Ace</title></head><body>
<h1>Ace</h1><p id=out>unchanged</p><div id=ed style="width:700px;height:300px">function hello() {
  return 1;
}</div>
<script src="ace/src-min-noconflict/ace.js"></script>
<script>var ed=ace.edit('ed');
ed.on('change',function(){document.getElementById('out').textContent=ed.getValue()});
document.getElementById('out').textContent='ready'</script></body></html>"""


class _Files(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def send_head(self) -> Any:
        # CodeMirror's examples name their scripts relative to /usr/share/doc/libjs-codemirror;
        # the npm editors and their pages are in the served folder
        if not self.path.startswith(("/usr/share/doc/libjs-codemirror/", "/usr/share/javascript/")):
            self.path = "/editors" + self.path
        return super().send_head()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    assert (CODEMIRROR / "complete.html").is_file(), "libjs-codemirror: run make setup"
    root = tmp_path_factory.mktemp("editors")
    folder = root / "editors"
    folder.mkdir()
    for name, spec in PACKAGES.items():
        with tarfile.open(npm.pack(spec, root)) as tar:
            tar.extractall(root / name, filter="data")
        (root / name / "package").rename(folder / name)
    (folder / "monaco.html").write_text(MONACO)
    (folder / "ace.html").write_text(ACE)
    # /usr/share is served as is: the handler maps everything else into the folder
    (root / "usr").symlink_to("/usr")
    with serving(functools.partial(_Files, directory=str(root))) as base:
        yield base


def observe(host: HostApp, session: str, url: str, ready: str) -> dict[str, Any]:
    """The page's observation once its editor has loaded (`ready` in the text)."""
    obs = observation_of(
        host.ok("POST", "/v1/navigate/observe", {"url": url, "session_id": session})
    )
    for _ in range(75):
        if ready in json.dumps(obs["content"]):
            return obs
        obs = observation_of(host.ok("POST", "/v1/observe", {"session_id": session, "wait": 0.2}))
    raise AssertionError(obs)


def texts(obs: dict[str, Any], kind: str) -> list[str]:
    return [str(c.get("t")) for c in obs["content"] if c["k"] == kind]


def test_monaco_takes_typed_text_at_its_end_and_is_cleared(
    host: HostApp, site: str, session: str
) -> None:
    """Monaco's input is a zero-width EditContext box: `type` answered "the element is not
    editable"; a focus() of it alone is ignored by the editor. The editor is clicked first,
    as a person does, and the text goes after the editor's text (ctrl+End, its own binding)."""
    obs = observe(host, session, f"{site}/monaco.html", "ready")
    editor = [e for e in obs["elements"] if e["role"] == "textbox"]
    assert [e.get("name") for e in editor] == ["Editor content"]
    ref = editor[0]["ref"]
    obs = after(act(host, obs["id"], {"action": "type", "ref": ref, "text": "let x = 2;"}))
    assert texts(obs, "paragraph")[0] == "function hello() { return 1; } let x = 2;"
    obs = after(
        act(
            host,
            obs["id"],
            {"action": "clear", "ref": ref},
            {"action": "type", "ref": ref, "text": "done"},
        )
    )
    assert texts(obs, "paragraph")[0] == "done"


def test_ace_takes_typed_text_at_its_end(host: HostApp, site: str, session: str) -> None:
    """Ace's input is a 1 px textarea of opacity 0: it was no element (taken for a hidden
    field no person fills)."""
    obs = observe(host, session, f"{site}/ace.html", "ready")
    editor = [e for e in obs["elements"] if e["role"] == "textbox"]
    assert len(editor) == 1
    assert texts(obs, "code") == ["function hello() {\n  return 1;\n}"]
    obs = after(act(host, obs["id"], {"action": "type", "ref": editor[0]["ref"], "text": "x();"}))
    assert texts(obs, "code") == ["function hello() {\n  return 1;\n}x();"]
    assert texts(obs, "paragraph")[0] == "function hello() { return 1; }x();"


def test_codemirror_5_takes_typed_text_at_its_end(host: HostApp, site: str, session: str) -> None:
    """CodeMirror 5's input is a textarea inside a box of no height that hides its overflow:
    each of the example's two editors was no element, so nothing could be typed. Each is a
    textbox now; text typed into the second ends its code."""
    url = f"{site}{CODEMIRROR}/complete.html"
    obs = observe(host, session, url, "Autocomplete Demo")
    editors = [e for e in obs["elements"] if e["role"] == "textbox"]
    assert len(editors) == 2
    before = texts(obs, "code")
    assert len(before) == 2
    obs = after(
        act(host, obs["id"], {"action": "type", "ref": editors[1]["ref"], "text": "x = 1;"})
    )
    code = texts(obs, "code")
    assert code[0] == before[0]
    # the editor's text ends with a line break: the typed text is its new last line
    assert code[1] == before[1] + "\nx = 1;"
