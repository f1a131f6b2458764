"""`svc`'s command line without processes (issue 38): which first words are captures and which
are unknown commands, the suggestion an unknown command gets, and how results are rendered for a
terminal and for a program."""

from __future__ import annotations

import argparse
import io
import json
import re

import pytest

from clients.agent_client import AgentClient
from clients.cli import render
from clients.cli.commands import Context
from clients.cli.parser import (
    COMMANDS,
    SUBCOMMANDS,
    UsageError,
    build,
    could_be_host,
    parse,
    unknown_command,
)

CAPTURED = [
    "example.com",
    "example.com/docs?q=1",
    "localhost",
    "LOCALHOST",
    "localhost/login",
    "localhost:8000",
    "localhost:8000/login",
    "myhost:8080",
    "myhost:8080/path",
    "127.0.0.1",
    "10.0.0.2:3128",
    "[::1]",
    "[::1]:8080/x",
    "https://intranet/",
    "http://helth",
    "intranet.",
    "me@example.com",
    "about:blank",  # a scheme: refused by the capture's URL rule, not called a command
]
REFUSED = [
    "helth",
    "ping",
    "logs",
    "intranet",
    "8080",
    "helth/",
    "helth/page.html",  # the dot is in the path, not the host
    "helth?x=a.b",
    "me@helth",
    "two words",
]


@pytest.mark.parametrize("word", CAPTURED)
def test_a_word_that_could_be_a_host_is_a_capture(word: str) -> None:
    assert could_be_host(word)
    args = parse([word, "--wait", "0"])
    assert (args.command, args.url, args.wait) == ("capture", word, 0)


@pytest.mark.parametrize("word", REFUSED)
def test_a_bare_word_that_is_no_command_and_no_host_is_a_usage_error(word: str) -> None:
    assert not could_be_host(word)
    with pytest.raises(UsageError) as caught:
        parse([word, "--wait", "0"])
    assert str(caught.value).startswith(f"unknown command {word!r}")


@pytest.mark.parametrize(
    ("word", "message"),
    [
        ("helth", "unknown command 'helth'; did you mean 'health'?"),
        ("Health", "unknown command 'Health'; did you mean 'health'?"),
        ("stauts", "unknown command 'stauts'; did you mean 'status'?"),
        ("navigat", "unknown command 'navigat'; did you mean 'navigate'?"),
        ("sesion", "unknown command 'sesion'; did you mean 'session'?"),
        ("ping", "unknown command 'ping'; did you mean 'session ping'?"),
        ("attach", "unknown command 'attach'; did you mean 'page attach'?"),
        (
            "list",
            "unknown command 'list'; did you mean 'session list', 'proxy list' or 'profile list'?",
        ),
        (
            "logs",
            "unknown command 'logs' (see svc --help); to capture a host without a dot, give its "
            "scheme: svc https://logs/",
        ),
    ],
)
def test_an_unknown_command_names_the_closest_one(word: str, message: str) -> None:
    assert unknown_command(word) == message
    with pytest.raises(UsageError, match=f"^{re.escape(message)}$"):
        parse([word])


def test_commands_and_explicit_captures_are_not_second_guessed() -> None:
    assert parse(["health"]).command == "health"
    assert parse(["session", "ping", "Session1"]).session_command == "ping"
    # `svc capture WORD` says it is a URL: a host without a dot is captured as asked
    args = parse(["capture", "intranet"])
    assert (args.command, args.url) == ("capture", "intranet")
    with pytest.raises(UsageError, match="a command or URL is required"):
        parse([""])
    with pytest.raises(UsageError, match="unrecognized arguments"):
        parse(["--nonsense"])


def _tree(parser: argparse.ArgumentParser) -> dict[str, set[str]]:
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    tree: dict[str, set[str]] = {}
    for name, sub in subs.choices.items():
        nested = [a for a in sub._actions if isinstance(a, argparse._SubParsersAction)]
        tree[name] = set(nested[0].choices) if nested else set()
    return tree


def test_the_command_table_is_the_parser_tree() -> None:
    assert _tree(build()) == {name: set(subs) for name, subs in SUBCOMMANDS.items()}
    assert frozenset(SUBCOMMANDS) == COMMANDS


def test_help_says_how_results_are_printed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert (
        "results are JSON on stdout, indented when stdout is a terminal and compact (one line) "
        "when it is a pipe or a file" in text
    )
    assert "A first word that is neither a command nor a host" in text


VALUE = {"page": {"url": "https://example.org/é", "n": [1, 2]}, "ok": True, "none": None}


def test_results_are_indented_for_a_terminal_and_compact_for_a_program() -> None:
    assert render.result(VALUE, terminal=False) == (
        '{"page":{"url":"https://example.org/é","n":[1,2]},"ok":true,"none":null}\n'
    )
    assert render.result(VALUE, terminal=True) == json.dumps(
        VALUE, indent=2, ensure_ascii=False
    ) + ("\n")
    for terminal in (False, True):
        out = io.BytesIO()
        ctx = Context(env={}, client=AgentClient(1), out=out, err=io.StringIO(), terminal=terminal)
        ctx.print(VALUE)
        assert out.getvalue().decode() == render.result(VALUE, terminal=terminal)
