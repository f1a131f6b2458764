"""Download naming and reporting (host_app.logic.downloads): names from the server cannot leave
the folder, taken names are numbered, the report carries what the agent needs."""

from __future__ import annotations

import pytest

from host_app.logic.downloads import (
    FALLBACK_NAME,
    NAME_LIMIT,
    Download,
    DownloadState,
    Mark,
    expects_download,
    free_name,
    numbered,
    report,
    safe_name,
)


@pytest.mark.parametrize(
    ("suggested", "name"),
    [
        ("report.csv", "report.csv"),
        ("../report.csv", "report.csv"),
        ("../../etc/passwd", "passwd"),
        ("/etc/passwd", "passwd"),
        ("..\\..\\win.ini", "win.ini"),
        ("C:\\Users\\x\\a.txt", "a.txt"),
        ("evil\x01\x1f\x7f.txt", "evil.txt"),
        ("line\nbreak.txt", "linebreak.txt"),
        ("bidi\u202egpj.exe", "bidigpj.exe"),
        ("..", FALLBACK_NAME),
        (".", FALLBACK_NAME),
        ("", FALLBACK_NAME),
        ("../", FALLBACK_NAME),
        (".bashrc", "bashrc"),
        ("a:b*c?.txt", "a_b_c_.txt"),
        ("  spaced.txt  ", "spaced.txt"),
        ("trailing.", "trailing"),
    ],
)
def test_names_stay_inside_the_folder(suggested: str, name: str) -> None:
    assert safe_name(suggested) == name


def test_no_safe_name_escapes_or_hides() -> None:
    for suggested in ["../x", "/x", "x/../../y", "\\\\server\\share\\z", "..\x00/..", "a/.."]:
        name = safe_name(suggested)
        assert "/" not in name
        assert "\\" not in name
        assert name not in (".", "..")
        assert not name.startswith(".")
        assert all(ord(c) >= 32 and c != "\x7f" for c in name)


def test_long_names_keep_their_extension_within_the_bound() -> None:
    name = safe_name("ü" * 300 + ".pdf")
    assert len(name.encode()) <= NAME_LIMIT
    assert name.endswith(".pdf")


def test_taken_names_are_numbered_before_the_extension() -> None:
    assert numbered("report.csv", 0) == "report.csv"
    assert numbered("report.csv", 2) == "report (2).csv"
    assert numbered("README", 1) == "README (1)"
    taken = {"report.csv", "report (1).csv"}
    assert free_name("report.csv", taken.__contains__) == "report (2).csv"
    assert free_name("new.csv", taken.__contains__) == "new.csv"


def test_a_completed_download_reports_its_file_a_failed_one_its_reason() -> None:
    done = Download(
        "http://a/r.csv", "r.csv", "/d/Session1/r.csv", "text/csv", DownloadState.COMPLETED, 8, 8
    )
    assert report(done).entry() == {
        "k": "download",
        "t": "r.csv (completed)",
        "d": {
            "state": "completed",
            "file_name": "r.csv",
            "url": "http://a/r.csv",
            "output_path": "/d/Session1/r.csv",
            "bytesize": 8,
            "mime_type": "text/csv",
            "trust": "untrusted_website_content",
        },
    }
    failed = report(
        Download("http://a/x", "x", "/d/x", "", DownloadState.FAILED, 1000, 100000, "network")
    ).details
    assert failed["state"] == "failed"
    assert "output_path" not in failed
    assert (failed["bytesize"], failed["reason"]) == (1000, "network")


def test_a_download_fetch_without_its_download_means_a_download_is_coming() -> None:
    mark = Mark(fetches=3, requested=0)
    assert expects_download(mark, Mark(4, 0))  # `<a download>`: fetched, not announced yet
    assert not expects_download(mark, Mark(4, 1))  # the download was announced
    assert not expects_download(mark, mark)  # navigations, redirected or not, fetch nothing
