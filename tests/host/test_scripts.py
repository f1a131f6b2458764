"""The page scripts as files (host_app/scripts/, issue 39 point 1): what the page gets is what it
got when they were Python strings, every file is used, and each parses as JavaScript
(Debian's node, `node --check`) and carries no debugging left-overs.

The texts are read in a child process: host_app.worker_cdp and host_app.memory import Qt, which
this process keeps out of (`make test-fast`)."""

from __future__ import annotations

import hashlib
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

# sha256 of each script the host sends (a constant, or a builder's output for a few arguments),
# taken from the Python strings before the move into files. A script changed on purpose changes
# its line here. Left out: the fragments and templates that are never sent as they are
# (observe_js._COMMON, _COVER and _ELEMENT_INFO, which lost their surrounding line breaks in the
# move, js._SCROLL_OFFSETS and worker_cdp._HOOK, which hold placeholders): the scripts that
# hold them are here.
SENT = {
    "js.ANIMATIONS_LEFT": "cc9cf83057e5c3d4060e0c5c3756304e36ea5bb809fd1b3b28e26d2c1e26bd3a",
    "js.DOC_SIZE": "1f72ad779bb8a6c70a62d7c536d8475beecc161b90d3840cef9d6a8a3180f66d",
    "js.INNER_HEIGHT": "dd1a9240e04b59269fbdd874a9793de7223762c4329e15b3358594fe5fe7ba3e",
    "js.OUTER_HTML": "854ace93bc896ddd9a8f4d9cee9c15db02cbcec2c72e7c46f59496ce160e14c9",
    "js.PENDING_LOADS": "2445ce389adb2f2f5ad896352d6596e874dc2e2dc748e67b4d563268a85ccc75",
    "js.PROBE": "330227152371fa69bf95c77fbf89baa6b22e938a10fd217c353c329fc9e9b26e",
    "js.SCROLL_OFFSETS": "87280b38a92908d9c435070d3d6cab2590d1f03d2b1fd40a4ef33fd14b50db4e",
    "js.SNAPSHOT": "37b8c19c54581e943d0983ed609fd5889942fe31e2b61ba869beffc408219d6f",
    "js.TICK": "8e49c2aca03fb95d39ca4537493d8b7d8df14af1f1a3587f763d20171c3d7a6e",
    "js._FOCUS": "a5ba239de01d75ef36638ae85eedaf4681f44332f747835ebae47eb6f88bb779",
    "observe_js.CARET_END": "176ccd7636c2424083ddd93b88f458cdaae083abd77f5a5b5c292c97d13e0659",
    "observe_js._CHECK": "f5aa6ad0b1845ef0f7635d48367b76170859bec6315f118f7304c58a75081b00",
    "observe_js._ELEMENT": "47f710ad4d650d04ed720c433317d5180c9fe0b5e2ceca2b0b8917ea8a6b1d90",
    "observe_js._ELEMENT_AT": "4de29470fd9ac1c39ff88a8997fdbc7cc85a8572425b4edb2e1057271fcf75c0",
    "observe_js._FOCUS": "267c33b2f151aafff2f6853ecb876dc17c9077456dafd55c4910c5e47a4f014f",
    "observe_js._OBSERVE": "ba812139a90c482f5c8584abb3a55a0431030fe3b240532630bd0f908b9bcedb",
    "observe_js._PROBE": "6bb0ec72c94ecdd4c90b08e526308a2d78e3a57fcaf95467b4702123479e593c",
    "observe_js._SLOT": "fb6db90d7d51d342f46116230171a963edfd7b4c2d282218dd200b11cd8518e2",
    "worker_cdp.READ_TRAFFIC": "43a5e40fcd047a3b0bffc0d1d4248203a0fee04c28d60a1c4d277980293e9c47",
    "memory.DONE": "09c12ea14832f2c4ec03dc1a67227dfa830c5796221254c715a6461ad4dc979d",
    "memory.SEND": "29f513dfa0f7eed2a0b035588480916e9c34bef0e964d3d93dac35ffa73238a0",
    "js.scroll_offsets(12.34, 5)": "5efb0c0fb6f90f5a9660d94078a7b71bea0cf31c8286dfe64964b3dd799cdeda",
    "js.element(3, 'a')": "c4d10f971f878d9ad6a8437e90ceb82bf1cebd2f68f0903bae166109b62e1ed7",
    "js.focus(7, 'input')": "12ae6063b7dd9552baa216af9ffc8514506f79297dfa8d75c147c39218462a5b",
    "js.focus(7, 'div', True)": "c1eb41a2df7647d67cc12dbb5122ce1a4076dca0d53a102194a5a2ba8c77ed66",
    "observe_js.observe('full')": "03b06bfc7e1d78c156285b132ec82398eaf5be9ac9aa762f2d27e28928ae9d38",
    "observe_js.observe('visual', {'v': 10, 'pre': ['a'], 'lab': 'x'})": (
        "999d7301e94eedaf3eb6ab6b6b5f6204d27d195883d98a0f09d82a4d521c5855"
    ),
    "observe_js.probe('[data-x]')": "9dcbedb91f1822ef592f8b323b8affd1f299943565afa6e76425bf515ae4fc4b",
    "observe_js.check([1, 2])": "a764f720d0125ed155beba3047d0e6ccdc073669d91f9315f0f2f7aeb0021d3e",
    "observe_js.element(4)": "6a278fff861fb911970eb4143159460633baad656ae40b23062f6cab1ae6a953",
    "observe_js.element_at(5, 'select')": (
        "e8fb0f2bdf54a88df53721d2f5289f55f866c0f995637d2d4c968348727b8a5b"
    ),
    "observe_js.slot(2)": "ae36099ad10e10834cd36596bac60c9cd4cfd4749567726b298fcedece20a751",
    "observe_js.slot(2, (1.5, 3.0))": "5b97ed30464d1f616012b17828dbcb29f8f4d8174736142a7823eca91c8c373a",
    "observe_js.focus(6)": "706982684823a3a1bbfbc777558a9382b519c2d06c1ca03e044fef5efc685a3d",
    "observe_js.focus(6, True, True)": "aced34f3fdb98dbaf2f8b949c0509193cf3e1cbf06d15ab9842c5df5a2c8e5f4",
    "worker_cdp.hook(False)": "ad297827fe7befd44d2446cd86bac796a70b46ad9eb7eaa1f026d4e6ff693ab9",
    "worker_cdp.hook(True)": "0f37eb091294381abaf22697e1be16dabf7ea8a6743ca2fbbf36fdf0212c3896",
}

# the one script that speaks through the console: the devtools page's hook hands what it reads
# to the app as console messages
CONSOLE = {"devtools_hook.js"}


@pytest.fixture(scope="module")
def sent() -> Mapping[str, str]:
    """Each expression of SENT and its value, evaluated in a child process."""
    code = (
        "import json, sys\n"
        "from host_app import js, memory, observe_js, worker_cdp\n"
        "json.dump({e: eval(e) for e in json.loads(sys.argv[1])}, sys.stdout)\n"
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


def test_the_page_gets_the_scripts_it_got_before(sent: Mapping[str, str]) -> None:
    got = {e: hashlib.sha256(text.encode()).hexdigest() for e, text in sent.items()}
    assert {e for e in SENT if got[e] != SENT[e]} == set()


def test_every_script_file_is_used_and_every_used_one_is_there() -> None:
    named: set[str] = set()
    for path in (ROOT / "host_app").rglob("*.py"):
        named |= set(re.findall(r"scripts\.(?:load|template)\(\s*\"([^\"]+)\"", path.read_text()))
    assert {p.name for p in _files()} == named


def test_every_script_file_parses() -> None:
    assert _unparsed([(p.name, p.read_text(), True) for p in _files()]) == {}


def test_every_script_sent_parses(sent: Mapping[str, str]) -> None:
    # js.SCROLL_OFFSETS is only the start of every scroll_offsets script
    whole = [(e, text, False) for e, text in sent.items() if e != "js.SCROLL_OFFSETS"]
    assert _unparsed(whole) == {}


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
