"""Fixtures of the host tests: one fixture site per run, one headless app per module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .hostproc import HostApp


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostApp]:
    app = HostApp(tmp_path_factory.mktemp("host")).start()
    try:
        yield app
    finally:
        app.stop()


@pytest.fixture
def session(host: HostApp) -> Iterator[str]:
    sid = host.new_session()
    yield sid
    r = host.client.delete(f"/v1/sessions/{sid}")
    assert r.status_code in (200, 404)
