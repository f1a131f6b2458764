# One-command setup: every target that needs the environment depends on $(STAMP), which is
# rebuilt only when pyproject.toml changes, so a no-op re-run takes seconds.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Debian packages that tests or benchmarks need; installed only when missing.
# xvfb, xdotool: the host app's real-window tests (a virtual screen, its keys and clicks);
# libxcb-icccm4/libxcb-keysyms1: Qt's xcb platform plugin;
# nodejs (with npm/npx): the MCP Inspector CLI run of tests/clients and the fingerprinting
# libraries (npm pack) of tests/host/test_e2e_detectors.py; python3-doc: the Python
# documentation's HTML, a corpus of real pages for the host tests (tests/host/test_e2e_corpus.py);
# chromium: the browser whose pages of other origins try to drive the agent
# (tests/agent/test_browser_origins.py), and the benchmarks' Playwright baseline (Debian's
# browser, never a downloaded one). postgresql: the key server's PostgreSQL store, run by its tests
# and benchmark as a throwaway cluster (initdb/pg_ctl). strace: the witness that a proxied session
# sends no DNS query (tests/host/test_e2e_dns.py). libjs-mathjax: MathJax 2 and its test pages, real
# typeset math; libstdc++-12-doc: libstdc++'s API pages as Doxygen writes them, with its script-built
# side tree (both tests/host/test_e2e_corpus.py). dunst: a desktop notification server on the
# window tests' screen (with dbus-daemon's session bus; dbus-bin: dbus-send), which shows the app's "needs you" notice
# and invokes its action (tests/host/test_gui_window.py). at-spi2-core, gir1.2-atspi-2.0, python3-gi:
# the accessibility bus and Debian's python3 reading it, how the window tests read the activity
# list's rows as a screen reader would (tests/host/test_gui_window.py).
DEBIAN_PACKAGES ?= xvfb xdotool libxcb-icccm4 libxcb-keysyms1 nodejs python3-doc sqlite3-doc libjs-jquery-ui-docs libjs-codemirror libjs-mathjax libstdc++-12-doc chromium postgresql strace dunst dbus-daemon dbus-bin at-spi2-core gir1.2-atspi-2.0 python3-gi
BENCH_DEBIAN_PACKAGES ?= chromium postgresql

export QT_QPA_PLATFORM ?= offscreen
export QTWEBENGINE_CHROMIUM_FLAGS ?= --no-sandbox --disable-gpu

.PHONY: setup test test-fast lint typecheck pytest bench clean debian-deps demo run bundle openapi \
	install-user uninstall-user

setup: $(STAMP) debian-deps

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev,bundle]'
	@touch $(STAMP)

debian-deps:
	@scripts/ensure-debian-packages $(DEBIAN_PACKAGES)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

typecheck: $(STAMP)
	$(BIN)/mypy

# The suite runs in PYTEST_WORKERS processes (pytest-xdist), a test module per worker at a time,
# the longest modules first (tests/conftest.py); PYTEST_WORKERS=0 runs it in one process. The
# tests marked `alone` (deadlines that a busy machine misses) run after it, with nothing beside.
PYTEST_WORKERS ?= 2
pytest: setup
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadfile --durations=20 -m "not alone"
	$(BIN)/pytest --durations=10 -m alone

test: setup lint pytest

# The tests that start no process (no agent, app, key server or window): seconds, for the edit loop;
# in PYTEST_WORKERS processes too (a third of its time was collecting, which each worker does
# beside the other).
test-fast: $(STAMP)
	$(BIN)/pytest -n $(PYTEST_WORKERS) -m "not e2e"

# glibc returns multi-megabyte blocks to the OS on every free, so that a run measures page faults
# rather than codecs, and unevenly between paths; keeping freed memory in the heap applies to
# both sides of every comparison alike.
bench: setup
	@scripts/ensure-debian-packages $(BENCH_DEBIAN_PACKAGES)
	MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=4294967296 $(BIN)/python -m benchmarks $(BENCH)

# Starts svc-app --headless on a temporary data folder, runs the main job on the bundled demo site
# through the HTTP API, prints what it did and where the files are, and stops the app.
demo: setup
	$(BIN)/python scripts/demo.py

# docs/openapi.yaml's request schemas rewritten from agent/api.py's structs (a test fails while
# they differ: tests/agent/test_openapi.py).
openapi: setup
	$(BIN)/python scripts/openapi.py

# The desktop app (tray icon, browser window); headless when there is no display.
run: setup
	env -u QT_QPA_PLATFORM $(BIN)/svc-app

# dist/svc/ (svc-app, svc, svc-mcp and QtWebEngine in one folder, with build metadata) and
# dist/svc.tar.gz; see packaging/README.md.
bundle: $(STAMP)
	$(BIN)/python packaging/bundle.py

# Desktop entry, icon and the commands on PATH for the current user, pointing at dist/svc/
# (built first when there is none).
install-user:
	@test -x dist/svc/install.sh || $(MAKE) bundle
	dist/svc/install.sh

uninstall-user:
	dist/svc/uninstall.sh

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis build dist
