"""Pages and files for the download tests (host and MCP): `<a download>`, a
`Content-Disposition: attachment` answer, a name that tries to leave the folder, a download
whose connection drops, one whose server answers late, and forms posted to a redirect or to a
file."""

from __future__ import annotations

from collections.abc import Callable

from .routes import Reply, html, redirect

NOTES = b"first line\nsecond line\n"
REPORT = b"item,price\napple,1\n"
BROKEN_SIZE = 200_000
SLOW_STALL = 8.0  # seconds a slow download sends nothing
# a one-page PDF, served inline: the engine's PDF viewer is off, so a browser downloads it
MANUAL = (
    b"%PDF-1.1\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]"
    b"/Count 1>>endobj 3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 100 100]>>endobj\n"
    b"trailer<</Root 1 0 R>>\n%%EOF\n"
)

PAGE = """<!doctype html><html><head><title>Downloads</title></head><body>
<p><a id=notes href="/files/notes.txt" download>Notes</a></p>
<p><a id=report href="/report">Report</a></p>
<p><a id=evil href="/evil">Evil</a></p>
<p><a id=broken href="/broken" download>Broken</a></p>
<p><a id=slow href="/slow" download>Slow</a></p>
<p><a id=manual href="/files/manual.pdf">Manual</a></p>
</body></html>"""

LATE = 1.0  # seconds a late download's server takes to answer: less than the announce bound
# a search form answered by a redirect (an agent's everyday step), a form whose answer is a file,
# and an `<a download>` whose server answers late
FORMS = """<!doctype html><html><head><title>Forms</title></head><body>
<form method=post action=/search><input name=q value=apples><button>Search</button></form>
<form method=post action=/export><button>Export</button></form>
<p><a id=late href="/late.txt" download>Late notes</a></p>
<p><a href="/hop">Hop</a></p>
</body></html>"""
# a page that sends the browser on from its load handler (a sign-in's last hop)
HOP = """<!doctype html><html><head><title>Hop</title></head><body><p>Moving on</p>
<script>addEventListener('load', function(){
  setTimeout(function(){ location.replace('/results'); }, 0); });</script>
</body></html>"""
RESULTS = """<!doctype html><html><head><title>Results</title></head><body><main>
<h1>Results</h1><p>Three apples found.</p><p><a href="/forms">Search again</a></p>
</main></body></html>"""

ROUTES: dict[str, Callable[[], Reply]] = {
    "/downloads": lambda: html(PAGE),
    "/forms": lambda: html(FORMS),
    "/search": lambda: redirect("/results"),
    "/results": lambda: html(RESULTS),
    "/hop": lambda: html(HOP),
    "/export": lambda: Reply(
        REPORT, "text/csv", {"Content-Disposition": 'attachment; filename="export.csv"'}
    ),
    "/late.txt": lambda: Reply(NOTES, "text/plain", delay=LATE),
    "/files/notes.txt": lambda: Reply(NOTES, "text/plain"),
    "/files/manual.pdf": lambda: Reply(MANUAL, "application/pdf"),
    "/report": lambda: Reply(
        REPORT, "text/csv", {"Content-Disposition": 'attachment; filename="../../report.csv"'}
    ),
    # RFC 5987 form: decodes to "../.evil\x01.sh"
    "/evil": lambda: Reply(
        b"echo no\n",
        "application/octet-stream",
        {"Content-Disposition": "attachment; filename*=UTF-8''..%2F.evil%01.sh"},
    ),
    "/broken": lambda: Reply(b"x" * BROKEN_SIZE, "application/octet-stream", drop_after=1000),
    "/slow": lambda: Reply(
        b"x" * BROKEN_SIZE, "application/octet-stream", drop_after=1000, stall=SLOW_STALL
    ),
}
