"""User statements verified in the background against local fake GitHub, Reddit, Twitter and
HTTPS proof hosts; user lookup and search."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from keyserver.armor import armor

from .client import Key, Sigchain, now_ms, user_json, user_proof
from .conftest import RECHECK_INTERVAL_S, Api, Proof, make_proof, serve_proof, user_statement
from .fakes import FakeServices, Route
from .process import wait_for

SERVICES = ["github", "reddit", "https", "twitter"]


def _name(service: str) -> str:
    ident = os.urandom(5).hex()
    return f"{ident}.example.org" if service == "https" else f"u{ident}"


@pytest.fixture
def twitter_token(twitter_token_file: Path) -> str:
    token = "test-bearer-" + os.urandom(4).hex()
    twitter_token_file.write_text(token)
    return token


def _new_user(
    api: Api, fakes: FakeServices, service: str, route: Route | None
) -> tuple[Sigchain, Proof]:
    chain = Sigchain(Key.generate())
    proof = make_proof(service, _name(service), os.urandom(4).hex())
    if route is not None:
        serve_proof(fakes, proof, route)
    api.add(chain, chain.next(b"first statement"))
    api.add(chain, user_statement(chain, proof))
    return chain, proof


@pytest.mark.usefixtures("twitter_token")
@pytest.mark.parametrize("service", SERVICES)
def test_ok(api: Api, fakes: FakeServices, service: str) -> None:
    chain = Sigchain(Key.generate())
    proof = make_proof(service, _name(service), os.urandom(4).hex())
    serve_proof(fakes, proof, Route(body=proof.page(chain.key)))
    before = now_ms()
    api.add(chain, chain.next(b"first statement"))
    api.add(chain, user_statement(chain, proof))

    user = api.wait_user_status(chain.key.kid, "ok")
    assert user == {
        "id": f"{proof.name}@{service}",
        "name": proof.name,
        "kid": chain.key.kid,
        "seq": 2,
        "service": service,
        "url": proof.url,
        "status": "ok",
        "verifiedAt": user["verifiedAt"],
        "ts": user["ts"],
    }
    assert before <= user["verifiedAt"] <= now_ms()
    assert before <= user["ts"] <= now_ms()
    assert [u["kid"] for u in api.search(q=chain.key.kid)] == [chain.key.kid]
    assert [u["kid"] for u in api.search(q=f"{proof.name}@{service}")] == [chain.key.kid]


@pytest.mark.usefixtures("twitter_token")
@pytest.mark.parametrize("service", SERVICES)
def test_resource_not_found(api: Api, fakes: FakeServices, service: str) -> None:
    chain, _ = _new_user(api, fakes, service, None)
    user = api.wait_user_status(chain.key.kid, "resource-not-found")
    assert "verifiedAt" not in user
    assert api.search(q=chain.key.kid) == []


@pytest.mark.usefixtures("twitter_token")
@pytest.mark.parametrize("service", SERVICES)
def test_content_not_found(api: Api, fakes: FakeServices, service: str) -> None:
    chain = Sigchain(Key.generate())
    proof = make_proof(service, _name(service), os.urandom(4).hex())
    serve_proof(fakes, proof, Route(body=proof.page(chain.key, message="no proof here")))
    api.add(chain, user_statement(chain, proof))
    user = api.wait_user_status(chain.key.kid, "content-not-found")
    assert user["err"] == "user signed message content not found"


@pytest.mark.usefixtures("twitter_token")
@pytest.mark.parametrize("service", SERVICES)
def test_statement_invalid(api: Api, fakes: FakeServices, service: str) -> None:
    chain = Sigchain(Key.generate())
    proof = make_proof(service, _name(service), os.urandom(4).hex())
    # Signed by another key.
    forged = user_proof(Key.generate(), proof.name, service)
    serve_proof(fakes, proof, Route(body=proof.page(chain.key, message=forged)))
    api.add(chain, user_statement(chain, proof))
    user = api.wait_user_status(chain.key.kid, "statement-invalid")
    assert "signature" in user["err"]


@pytest.mark.parametrize(("field", "value"), [("n", "someone-else"), ("sr", "reddit")])
def test_statement_invalid_when_the_signed_user_differs(
    api: Api, fakes: FakeServices, field: str, value: str
) -> None:
    chain = Sigchain(Key.generate())
    proof = make_proof("github", _name("github"), os.urandom(4).hex())
    claimed = {"n": proof.name, "sr": "github"} | {field: value}
    message = armor(chain.key.sign_combined(user_json(chain.key.kid, claimed["n"], claimed["sr"])))
    serve_proof(fakes, proof, Route(body=proof.page(chain.key, message=message)))
    api.add(chain, user_statement(chain, proof))
    user = api.wait_user_status(chain.key.kid, "statement-invalid")
    assert "mismatch" in user["err"]


@pytest.mark.usefixtures("twitter_token")
@pytest.mark.parametrize("service", SERVICES)
def test_content_invalid(api: Api, fakes: FakeServices, service: str) -> None:
    chain = Sigchain(Key.generate())
    proof = make_proof(service, _name(service), os.urandom(4).hex())
    if service == "https":
        # Web proofs have no envelope to get wrong; an oversized page is the invalid content.
        body = b"x" * (1024 * 1024 + 1)
    else:
        # The proof is posted by another account.
        body = proof.page(chain.key, login="mallory")
    serve_proof(fakes, proof, Route(body=body))
    api.add(chain, user_statement(chain, proof))
    api.wait_user_status(chain.key.kid, "content-invalid")


def test_content_invalid_shapes(api: Api, fakes: FakeServices) -> None:
    from .conftest import reddit_json

    cases = [
        ("github", b"not json"),
        ("github", b'{"owner":{"login":"%(name)s"},"files":{}}'),
        ("reddit", b"[]"),
        ("reddit", None),  # wrong subreddit
    ]
    kids = []
    for service, body in cases:
        chain = Sigchain(Key.generate())
        proof = make_proof(service, _name(service), os.urandom(4).hex())
        if body is None:
            page = reddit_json(proof.name, user_proof(chain.key, proof.name, service), "pics")
        else:
            page = body % {b"name": proof.name.encode()}
        serve_proof(fakes, proof, Route(body=page))
        api.add(chain, user_statement(chain, proof))
        kids.append(chain.key.kid)
    for kid in kids:
        api.wait_user_status(kid, "content-invalid")


@pytest.mark.usefixtures("twitter_token")
@pytest.mark.parametrize("service", SERVICES)
def test_connection_fail(api: Api, fakes: FakeServices, service: str) -> None:
    chain, _ = _new_user(api, fakes, service, Route(status=503, body=b"busy"))
    user = api.wait_user_status(chain.key.kid, "connection-fail")
    assert "503" in user["err"]
    dropped, _ = _new_user(api, fakes, service, Route(drop=True))
    api.wait_user_status(dropped.key.kid, "connection-fail")


def test_unknown_until_the_first_check_finishes(api: Api, fakes: FakeServices) -> None:
    gate = threading.Event()
    chain = Sigchain(Key.generate())
    proof = make_proof("github", _name("github"), os.urandom(4).hex())
    serve_proof(fakes, proof, Route(body=proof.page(chain.key), gate=gate))
    try:
        api.add(chain, user_statement(chain, proof))
        wait_for(lambda: fakes.requests_to(proof.path) or None, 10, "the check to start")
        r = api.user(chain.key.kid)
        assert r.status_code == 200
        user = r.json()["user"]
        assert user["status"] == "unknown"
        assert "verifiedAt" not in user
        assert api.search(q=proof.name) == []  # only users verified ok are indexed
    finally:
        gate.set()
    api.wait_user_status(chain.key.kid, "ok")


def test_twitter_needs_a_bearer_token(
    api: Api, fakes: FakeServices, twitter_token_file: Path
) -> None:
    twitter_token_file.write_text("")
    chain = Sigchain(Key.generate())
    proof = make_proof("twitter", _name("twitter"), os.urandom(4).hex())
    serve_proof(fakes, proof, Route(body=proof.page(chain.key)))
    api.add(chain, user_statement(chain, proof))
    user = api.wait_user_status(chain.key.kid, "fail")
    assert user["err"] == "twitter bearer token is not configured"
    assert fakes.requests_to(proof.path) == []

    # The token file is read at each check: the periodic re-check picks it up.
    twitter_token_file.write_text("rotated-token\n")
    api.wait_user_status(chain.key.kid, "ok", timeout=10 * RECHECK_INTERVAL_S)
    assert fakes.requests_to(proof.path)[-1].headers["authorization"] == "Bearer rotated-token"


def test_requests_carry_the_service_details(api: Api, fakes: FakeServices) -> None:
    chain, proof = Sigchain(Key.generate()), make_proof("https", _name("https"), "")
    serve_proof(fakes, proof, Route(body=proof.page(chain.key), content_type="text/html"))
    api.add(chain, user_statement(chain, proof))
    api.wait_user_status(chain.key.kid, "ok")
    seen = [s for s in fakes.requests_to("/keyspub.txt") if s.headers["host"] == proof.name]
    assert seen, "the https proof is fetched with Host: <domain>"

    chain, proof = Sigchain(Key.generate()), make_proof("github", _name("github"), "abc")
    serve_proof(fakes, proof, Route(body=proof.page(chain.key)))
    api.add(chain, user_statement(chain, proof))
    api.wait_user_status(chain.key.kid, "ok")
    assert fakes.requests_to("/github/gists/abc")[0].headers["accept"] == (
        "application/vnd.github.v3+json"
    )


def test_well_known_https_url(api: Api, fakes: FakeServices) -> None:
    chain = Sigchain(Key.generate())
    name = _name("https")
    proof = Proof(
        "https",
        name,
        f"https://{name}/.well-known/keyspub.txt",
        "/.well-known/keyspub.txt",
        host=name,
    )
    serve_proof(
        fakes,
        proof,
        Route(body=user_proof(chain.key, name, "https").encode(), content_type="text/plain"),
    )
    api.add(chain, user_statement(chain, proof))
    api.wait_user_status(chain.key.kid, "ok")


def test_user_lookup_by_kex_and_kbx(api: Api, fakes: FakeServices) -> None:
    chain = Sigchain(Key.generate())
    proof = make_proof("reddit", _name("reddit"), os.urandom(4).hex())
    serve_proof(fakes, proof, Route(body=proof.page(chain.key)))
    api.add(chain, user_statement(chain, proof))
    user = api.wait_user_status(chain.key.kid, "ok")

    r = api.user(chain.key.kbx)
    assert r.status_code == 200
    assert r.json()["user"]["kid"] == chain.key.kid
    assert [u["kid"] for u in api.search(q=chain.key.kid)] == [chain.key.kid]
    assert [u["kid"] for u in api.search(q=chain.key.kbx)] == [chain.key.kid]
    assert api.search(q=chain.key.kbx)[0]["id"] == user["id"]

    stranger = Key.generate()
    for kid in (stranger.kid, stranger.kbx):
        r = api.user(kid)
        assert r.status_code == 404
        assert r.json() == {"error": {"code": 404, "message": "user not found"}}
        assert api.search(q=kid) == []
    r = api.user("nobody")
    assert r.status_code == 404


def test_search_prefix_sort_limit(api: Api, fakes: FakeServices) -> None:
    prefix = "s" + os.urandom(4).hex()
    names = [f"{prefix}-{i:03d}" for i in range(105)]
    kids = {}
    for name in reversed(names):
        chain = Sigchain(Key.generate())
        proof = make_proof("github", name, "g" + name)
        serve_proof(fakes, proof, Route(body=proof.page(chain.key)))
        api.add(chain, user_statement(chain, proof))
        kids[name] = chain.key.kid

    def all_ok() -> list[dict[str, object]] | None:
        found = api.search(q=prefix, limit=1000)
        return found if len(found) == 105 else None

    found = wait_for(all_ok, 30, "105 users to verify", interval=0.1)
    assert [u["id"] for u in found] == [f"{n}@github" for n in names]  # sorted by name@service
    assert [u["kid"] for u in found] == [kids[n] for n in names]
    assert len(api.search(q=prefix)) == 100  # default limit
    assert [u["name"] for u in api.search(q=prefix, limit=3)] == names[:3]
    assert [u["name"] for u in api.search(q=f"{prefix}-10")] == names[100:]
    assert api.search(q=f"{prefix}-10", limit=2)[0]["name"] == names[100]
    assert api.search(q=prefix.upper()) == []  # case-sensitive
    assert api.search(q=f"{prefix}-000@github") == [found[0]]
    assert api.search(q="zzzz-nothing-here") == []
    # Empty q lists everything indexed, in order.
    everyone = api.search(q="", limit=1000)
    assert [u["id"] for u in everyone] == sorted(u["id"] for u in everyone)
    assert {u["status"] for u in everyone} == {"ok"}
    assert {u["kid"] for u in found} <= {u["kid"] for u in everyone}
    for bad in ("0", "x"):
        r = api.http.get(f"{api.base}/user/search", params={"q": prefix, "limit": bad})
        assert r.status_code == 400


def test_revoked_user_is_removed(api: Api, fakes: FakeServices) -> None:
    chain = Sigchain(Key.generate())
    proof = make_proof("github", _name("github"), os.urandom(4).hex())
    serve_proof(fakes, proof, Route(body=proof.page(chain.key)))
    api.add(chain, user_statement(chain, proof))
    api.wait_user_status(chain.key.kid, "ok")
    api.add(chain, chain.next(type="revoke", revoke=1))
    assert api.user(chain.key.kid).status_code == 404
    assert api.search(q=proof.name) == []

    # Once revoked, another key may claim the name.
    other = Sigchain(Key.generate())
    other_proof = make_proof("github", proof.name, os.urandom(4).hex())
    serve_proof(fakes, other_proof, Route(body=other_proof.page(other.key)))
    api.add(other, user_statement(other, other_proof))
    api.wait_user_status(other.key.kid, "ok")
    assert [u["kid"] for u in api.search(q=proof.name)] == [other.key.kid]


def test_periodic_recheck(api: Api, fakes: FakeServices) -> None:
    chain = Sigchain(Key.generate())
    proof = make_proof("github", _name("github"), os.urandom(4).hex())
    serve_proof(fakes, proof, Route(body=proof.page(chain.key)))
    api.add(chain, user_statement(chain, proof))
    first = api.wait_user_status(chain.key.kid, "ok")

    # The proof disappears: a later re-check notices and search drops the user.
    serve_proof(fakes, proof, Route(status=404))
    gone = api.wait_user_status(
        chain.key.kid, "resource-not-found", timeout=10 * RECHECK_INTERVAL_S
    )
    assert gone["verifiedAt"] == first["verifiedAt"]  # when it was last ok
    assert gone["ts"] > first["ts"]
    assert api.search(q=proof.name) == []

    serve_proof(fakes, proof, Route(body=proof.page(chain.key)))
    back = api.wait_user_status(chain.key.kid, "ok", timeout=10 * RECHECK_INTERVAL_S)
    assert back["verifiedAt"] > first["verifiedAt"]
    assert [u["kid"] for u in api.search(q=proof.name)] == [chain.key.kid]
