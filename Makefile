# One-command setup: every target that needs the environment depends on $(STAMP), which is
# rebuilt only when pyproject.toml changes, so a no-op re-run takes seconds.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Debian packages that tests or benchmarks need; installed only when missing.
DEBIAN_PACKAGES ?=
BENCH_DEBIAN_PACKAGES ?=

export QT_QPA_PLATFORM ?= offscreen
export QTWEBENGINE_CHROMIUM_FLAGS ?= --no-sandbox --disable-gpu

.PHONY: setup test lint typecheck pytest bench clean debian-deps

setup: $(STAMP) debian-deps

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

debian-deps:
	@scripts/ensure-debian-packages $(DEBIAN_PACKAGES)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: setup
	$(BIN)/pytest

test: setup lint pytest

bench: setup
	@scripts/ensure-debian-packages $(BENCH_DEBIAN_PACKAGES)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
