"""The page scripts as files (host_app/scripts/, issue 39 point 1): what the page gets is what it
got when they were Python strings, every file is used, and each parses as JavaScript
(Debian's node, `node --check`) and carries no debugging left-overs.

The texts are read in a child process: host_app.engine.worker_cdp and host_app.engine.memory
import Qt, which this process keeps out of (`make test-fast`)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "host_app" / "scripts"

# The scripts the host sends (a constant, or a builder's output for a few arguments; of a
# `page_driver.Call`, its text): each must parse as the page gets it. (The move into files was checked against the sha256 of each, taken
# from the Python strings before it: 4d58a57; a script changed on purpose needs no golden.)
SENT = (
    "js.ANIMATIONS_LEFT",
    "js.DOC_SIZE",
    "js.INNER_HEIGHT",
    "js.OUTER_HTML",
    "js.PENDING_LOADS",
    "js.PROBE",
    "js.READY_STATE",
    "js.SCROLL_DRAWN",
    "js.SNAPSHOT",
    "js.TICK",
    "js.VIEWPORT",
    "js._FOCUS",
    "observe_js.CARET_END",
    "observe_js._CHECK",
    "observe_js._CHOICE",
    "observe_js._ELEMENT",
    "observe_js._ELEMENT_AT",
    "observe_js._FOCUS",
    "observe_js._OBSERVE",
    "observe_js._PROBE",
    "observe_js._SLOT",
    "worker_cdp.READ_TRAFFIC",
    "memory.DONE",
    "memory.SEND",
    "js.scroll_offsets(12.34, 5)",
    "js.element(3, 'a')",
    "js.focus(7, 'input')",
    "js.focus(7, 'div', True)",
    "observe_js.observe('full')",
    "observe_js.observe('visual', {'v': 10, 'pre': ['a'], 'lab': 'x'})",
    "observe_js.probe('[data-x]')",
    "observe_js.check([1, 2])",
    "observe_js.element(4)",
    "observe_js.choice(4)",
    "observe_js.element_at(5, 'select')",
    "observe_js.slot(2)",
    "observe_js.slot(2, (1.5, 3.0))",
    "observe_js.focus(6)",
    "observe_js.focus(6, True, True)",
    "worker_cdp.hook(False)",
    "worker_cdp.hook(True)",
    "js.together(observe_js.check([1]), js.TICK, js.PENDING_LOADS)",
    "js.together(js.PENDING_LOADS, js.ANIMATIONS_LEFT)",
    "observe_js.element(4).stub",
    "observe_js.check([1, 2]).stub",
    "observe_js.observe('full').stub",
    "js.together(observe_js.check([1]), js.TICK, js.PENDING_LOADS).stub",
)

# the one script that speaks through the console: the devtools page's hook hands what it reads
# to the app as console messages
CONSOLE = {"devtools_hook.js"}


@pytest.fixture(scope="module")
def sent() -> Mapping[str, str]:
    """Each expression of SENT and its value, evaluated in a child process."""
    code = (
        "import json, sys\n"
        "from host_app.engine import memory, worker_cdp\n"
        "from host_app.core import js, observe_js\n"
        "sent = {e: eval(e) for e in json.loads(sys.argv[1])}\n"
        "json.dump({e: getattr(v, 'code', v) for e, v in sent.items()}, sys.stdout)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(list(SENT))],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=ROOT,
    )
    texts: dict[str, str] = json.loads(done.stdout)
    return texts


def _files() -> list[Path]:
    return sorted(SCRIPTS.glob("*.js"))


# Compiles each text without running it, in one node process: as a whole script (what the page
# evaluates) or as a function's body (a file as node reads a CommonJS module, where a top-level
# `return` is allowed: element_info.js is a function's body). Answers {name: error} of those
# that do not parse.
PARSE = """
const vm = require('vm');
const out = {};
for (const [name, text, body] of JSON.parse(require('fs').readFileSync(0, 'utf8'))) {
  try { if (body) vm.compileFunction(text, [], {filename: name}); else new vm.Script(text, {filename: name}); }
  catch (e) { out[name] = String(e); }
}
process.stdout.write(JSON.stringify(out));
"""


def _unparsed(texts: list[tuple[str, str, bool]]) -> dict[str, str]:
    """The texts (name, text, whether it is a function's body) that node does not parse."""
    node = shutil.which("node")
    assert node is not None, "node missing: the Makefile installs Debian's nodejs"
    done = subprocess.run(
        [node, "-e", PARSE],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    failed: dict[str, str] = json.loads(done.stdout)
    return failed


def test_every_script_file_is_used_and_every_used_one_is_there() -> None:
    named: set[str] = set()
    for path in (ROOT / "host_app").rglob("*.py"):
        named |= set(re.findall(r"scripts\.(?:load|template)\(\s*\"([^\"]+)\"", path.read_text()))
    assert {p.name for p in _files()} == named


def test_every_script_file_parses() -> None:
    assert _unparsed([(p.name, p.read_text(), True) for p in _files()]) == {}


def test_every_script_sent_parses(sent: Mapping[str, str]) -> None:
    assert _unparsed([(e, text, False) for e, text in sent.items()]) == {}


def test_a_script_that_does_not_parse_is_told() -> None:
    assert set(_unparsed([("bad", "(function(){var a=;})", False), ("good", "1", False)])) == {
        "bad"
    }


def test_no_script_is_left_to_debug() -> None:
    from host_app import scripts

    found = []
    for path in _files():
        sent_text = scripts.template(path.name)  # without its description
        if re.search(r"\bdebugger\b", sent_text):
            found.append(f"{path.name}: debugger")
        if path.name not in CONSOLE and re.search(r"\bconsole\.", sent_text):
            found.append(f"{path.name}: console")
    assert found == []


def test_placeholders_are_filled_strictly() -> None:
    from host_app import scripts

    assert scripts.fill("{$A;var b=$B;}", A="x=1;", B="2") == "{x=1;var b=2;}"
    with pytest.raises(KeyError):
        scripts.fill("$A+$B", A="1")
    with pytest.raises(KeyError):
        scripts.fill("$A", A="1", C="3")


def test_reads_sent_together_answer_each_its_own() -> None:
    """`js.together`: one round trip, each part's answer in order; a part that throws or
    answers no string answers null, and the others are unharmed."""
    from host_app.core import js, observe_js
    from host_app.logic.page_answers import Tick

    parts = ["JSON.stringify({a:1})", "(function(){throw new Error('x')})()", "5", "'[2,3]'"]
    code = js.joined(*parts)
    # a together call's parts are its calls (its args, which the fakes answer one by one), and
    # each reads its own answer
    check, tick = observe_js.check([1]), js.TICK
    call = js.together(check, tick)
    assert call.args == (check, tick)
    assert call.code == js.joined(check.code, tick.code)
    counters = [1.5, 3, 4, 5, 6, 1, 0, 7, 1, 8]
    assert call.read([None, counters]) == (None, Tick.of(counters))
    assert call.read(None) == call.read([{"key": [1, 1]}]) == (None, Tick.of(None))
    node = shutil.which("node")
    assert node is not None
    done = subprocess.run(
        [node, "-e", "process.stdout.write(eval(require('fs').readFileSync(0, 'utf8')))"],
        input=code,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(done.stdout) == [{"a": 1}, None, None, [2, 3]]


def test_a_kept_function_is_called_by_its_stub_once_its_code_kept_it() -> None:
    """`page_driver.kept`: the stub answers UNKEPT in a world that keeps no function of the
    script (a new document), the code runs the function and keeps it, and the stub then calls
    it with its own arguments; another text of the same script is another function."""
    from host_app.core.page_driver import UNKEPT, Script, kept

    add = "(function(a,b){return JSON.stringify(a+b)})"
    code, stub = kept(Script.CHECK, add, "2,3")
    _, other = kept(Script.CHECK, add, "10,20")
    _, changed = kept(Script.CHECK, add.replace("a+b", "a*b"), "2,3")
    node = shutil.which("node")
    assert node is not None
    run = (
        "globalThis.window = globalThis; const out = [];"
        "for (const c of JSON.parse(require('fs').readFileSync(0, 'utf8'))) out.push(eval(c));"
        "process.stdout.write(JSON.stringify(out.map(x => JSON.parse(x))));"
    )
    done = subprocess.run(
        [node, "-e", run],
        input=json.dumps([stub, code, stub, other, changed]),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(done.stdout) == [UNKEPT, 5, 5, 30, UNKEPT]
