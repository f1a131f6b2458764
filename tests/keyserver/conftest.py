"""One real key server for the key server tests, with fake proof services beside it.

The server runs once per store: on SQLite, and on PostgreSQL (a throwaway cluster for the
session, see postgres.py); every test that talks to it through `server` or `api` runs on both.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from .client import Key, Sigchain, Statement, sign_request, user_json, user_proof
from .fakes import FakeServices, Route, running_fakes
from .postgres import PostgresCluster, running_cluster
from .process import KeyServerProcess, wait_for

RECHECK_INTERVAL_S = 1.0

# The PostgreSQL runs start a database server: end-to-end, like every process test.
STORES = [pytest.param("sqlite"), pytest.param("postgresql", marks=pytest.mark.e2e)]


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresCluster]:
    """A PostgreSQL cluster for the session, stopped and removed at its end."""
    with running_cluster() as cluster:
        yield cluster


@pytest.fixture(scope="session", params=STORES)
def store_kind(request: pytest.FixtureRequest) -> str:
    kind: str = request.param
    return kind


def database_for(request: pytest.FixtureRequest, store_kind: str, name: str) -> str | None:
    """`--db` for a new database named `name` on `store_kind` (None: the process's SQLite file).
    The cluster is only started when a PostgreSQL run asks for it."""
    if store_kind == "sqlite":
        return None
    cluster: PostgresCluster = request.getfixturevalue("postgres")
    return cluster.create_database(name)


@pytest.fixture(scope="session")
def fakes() -> Iterator[FakeServices]:
    with running_fakes() as services:
        yield services


@pytest.fixture(scope="session")
def twitter_token_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Starts empty: twitter checks fail until a test writes a token.
    return tmp_path_factory.mktemp("twitter") / "bearer-token"


def service_args(fakes: FakeServices, twitter_token_file: Path) -> list[str]:
    return [
        "--github-api-url",
        f"{fakes.url}/github",
        "--reddit-url",
        f"{fakes.url}/reddit",
        "--twitter-api-url",
        f"{fakes.url}/twitter",
        "--https-base-url",
        fakes.url,
        "--twitter-bearer-token-file",
        str(twitter_token_file),
        "--recheck-interval",
        str(RECHECK_INTERVAL_S),
        "--check-timeout",
        "5",
    ]


@pytest.fixture(scope="session")
def server(
    request: pytest.FixtureRequest,
    store_kind: str,
    tmp_path_factory: pytest.TempPathFactory,
    fakes: FakeServices,
    twitter_token_file: Path,
) -> Iterator[KeyServerProcess]:
    proc = KeyServerProcess(
        tmp_path_factory.mktemp("keyserver"),
        service_args(fakes, twitter_token_file),
        db=database_for(request, store_kind, "suite"),
    ).start()
    try:
        yield proc
    finally:
        code = proc.terminate()
        assert code == 0, proc.log()


@dataclass
class Api:
    """Talks to the server over real HTTP the way a keys.pub client would."""

    http: httpx.Client
    base: str

    def vault(
        self,
        method: str,
        key: Key,
        body: bytes = b"",
        query: str = "",
        *,
        path_kid: str | None = None,
        header_kid: str | None = None,
        **sign: Any,
    ) -> httpx.Response:
        """A signed vault request by `key` (path and header kid default to its own)."""
        url = f"{self.base}/vault/{path_kid or key.kid}" + (f"?{query}" if query else "")
        signed = sign_request(key, method, url, body, kid=header_kid, **sign)
        return self.http.request(
            method, signed.url, content=body, headers={"Authorization": signed.authorization}
        )

    def post_items(self, key: Key, items: list[bytes], method: str = "POST") -> httpx.Response:
        import base64

        body = msgspec.json.encode([{"data": base64.b64encode(i).decode()} for i in items])
        return self.vault(method, key, body)

    def put_statement(self, st: Statement | bytes, kid: str = "", seq: int = 0) -> httpx.Response:
        raw = st if isinstance(st, bytes) else st.to_bytes()
        if isinstance(st, Statement):
            kid, seq = kid or st.kid, seq or st.seq
        return self.http.put(f"{self.base}/sigchain/{kid}/{seq}", content=raw)

    def add(self, chain: Sigchain, st: Statement) -> bytes:
        r = self.put_statement(st)
        assert r.status_code == 200, r.text
        assert r.json() == {}
        return chain.accept(st)

    def user(self, kid: str) -> httpx.Response:
        return self.http.get(f"{self.base}/user/{kid}")

    def wait_user_status(self, kid: str, status: str, timeout: float = 10) -> dict[str, Any]:
        def probe() -> dict[str, Any] | None:
            r = self.user(kid)
            if r.status_code == 200 and r.json()["user"]["status"] == status:
                user: dict[str, Any] = r.json()["user"]
                return user
            return None

        return wait_for(probe, timeout, f"user of {kid} to be {status}", interval=0.05)

    def search(self, **params: Any) -> list[dict[str, Any]]:
        r = self.http.get(f"{self.base}/user/search", params=params)
        assert r.status_code == 200, r.text
        users: list[dict[str, Any]] = r.json()["users"]
        return users


@pytest.fixture
def api(server: KeyServerProcess) -> Iterator[Api]:
    with httpx.Client(timeout=20) as http:
        yield Api(http, server.url)


# Proof pages as each service serves them.


def gist_json(login: str, content: str) -> bytes:
    return msgspec.json.encode(
        {"id": "1", "owner": {"login": login}, "files": {"keys.pub.md": {"content": content}}}
    )


def reddit_json(author: str, selftext: str, subreddit: str = "keyspubmsgs") -> bytes:
    child = {"kind": "t3", "data": {"subreddit": subreddit, "selftext": selftext, "author": author}}
    return msgspec.json.encode([{"kind": "Listing", "data": {"children": [child]}}])


def tweet_json(username: str, text: str) -> bytes:
    return msgspec.json.encode(
        {
            "data": {"id": "9", "text": text, "author_id": "42"},
            "includes": {"users": [{"id": "42", "name": username, "username": username}]},
        }
    )


@dataclass
class Proof:
    """Where a user's proof lives: its URL in the statement and the fake path that serves it."""

    service: str
    name: str
    url: str
    path: str
    host: str | None = None

    def page(self, key: Key, *, login: str | None = None, message: str | None = None) -> bytes:
        message = user_proof(key, self.name, self.service) if message is None else message
        who = login or self.name
        if self.service == "github":
            return gist_json(who, message)
        if self.service == "reddit":
            return reddit_json(who, message)
        if self.service == "twitter":
            return tweet_json(who, message)
        return f"<html><body><pre>{message}</pre></body></html>".encode()


def make_proof(service: str, name: str, ident: str) -> Proof:
    if service == "github":
        return Proof(
            service, name, f"https://gist.github.com/{name}/{ident}", f"/github/gists/{ident}"
        )
    if service == "reddit":
        post = f"/r/keyspubmsgs/comments/{ident}/{name.replace('-', '')}"
        return Proof(service, name, f"https://www.reddit.com{post}/", f"/reddit{post}.json")
    if service == "twitter":
        return Proof(
            service,
            name,
            f"https://twitter.com/{name}/status/{ident}",
            f"/twitter/2/tweets/{ident}?expansions=author_id",
        )
    return Proof(service, name, f"https://{name}/keyspub.txt", "/keyspub.txt", host=name)


def serve_proof(fakes: FakeServices, proof: Proof, route: Route) -> None:
    fakes.set(proof.path, route, host=proof.host)


def user_statement(chain: Sigchain, proof: Proof) -> Statement:
    seq = len(chain.statements) + 1
    data = user_json(chain.key.kid, proof.name, proof.service, proof.url, seq)
    return chain.next(data, type="user")
