"""User statements and their proofs: what keys.pub's `user`, `user/validate` and
`user/services` packages decide, without the I/O.

A `user` statement's data is `{"k":kid,"n":name,"sq":seq,"sr":service,"u":url}` in canonical
form. Its proof is a page at `u` holding an armored signed message of `{"k","n","sr"}` by the
key. `proof_request` says what to fetch for a user; `check_proof` turns the fetched response
into a status.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

import msgspec

from .armor import ArmorError, b62decode, find_message
from .keys import InvalidKeyId, open_signed, parse_signing_kid
from .sigchain import StatementError, canonical_json


class Status(enum.StrEnum):
    OK = "ok"
    RESOURCE_NOT_FOUND = "resource-not-found"
    CONTENT_NOT_FOUND = "content-not-found"
    STATEMENT_INVALID = "statement-invalid"
    CONTENT_INVALID = "content-invalid"
    CONNECTION_FAIL = "connection-fail"
    FAIL = "fail"
    UNKNOWN = "unknown"


SERVICES: Final = ("github", "reddit", "https", "twitter")


class UserError(ValueError):
    """A user statement that is not valid (HTTP 400 at PUT)."""


@dataclass(frozen=True, slots=True)
class User:
    kid: str
    name: str
    seq: int
    service: str
    url: str

    @property
    def id(self) -> str:
        return f"{self.name}@{self.service}"

    def to_bytes(self) -> bytes:
        return canonical_json(
            [
                ("k", self.kid),
                ("n", self.name),
                ("sq", self.seq),
                ("sr", self.service),
                ("u", self.url),
            ]
        )

    def signed_message_bytes(self) -> bytes:
        """What the proof signs: the user without seq and URL (keys.pub `NewForSigning`)."""
        return canonical_json([("k", self.kid), ("n", self.name), ("sr", self.service)])


class _UserWire(msgspec.Struct, forbid_unknown_fields=True):
    k: str
    n: str
    sr: str
    sq: int = 0
    u: str = ""


_USER_DECODER: Final = msgspec.json.Decoder(_UserWire)

_GITHUB_NAME: Final = re.compile(r"[a-z0-9-]{1,39}")
_REDDIT_NAME: Final = re.compile(r"[a-z0-9_-]{1,20}")
_TWITTER_NAME: Final = re.compile(r"[a-z0-9_]{1,15}")
_HOST_LABEL: Final = re.compile(r"[a-z0-9]|[a-z0-9][a-z0-9-]*[a-z0-9]")
_IP_LIKE: Final = re.compile(r"[0-9].*\.[0-9].*\.[0-9].*\.[0-9].*")


def _valid_domain(name: str) -> bool:
    if not name.isascii() or len(name) > 256 or _IP_LIKE.fullmatch(name):
        return False
    parts = name.split(".")
    return len(parts) >= 2 and all(_HOST_LABEL.fullmatch(p) for p in parts) and len(parts[-1]) >= 2


def validate_name(service: str, name: str) -> None:
    ok = {
        "github": lambda: bool(_GITHUB_NAME.fullmatch(name)),
        "reddit": lambda: bool(_REDDIT_NAME.fullmatch(name)),
        "twitter": lambda: bool(_TWITTER_NAME.fullmatch(name)),
        "https": lambda: _valid_domain(name),
    }.get(service)
    if ok is None:
        raise UserError(f"unsupported service {service!r}")
    if not ok():
        raise UserError(f"invalid {service} name {name!r}")


def _https_url_parts(url: str) -> tuple[str, list[str]]:
    parts = urlsplit(url)
    if parts.scheme != "https":
        raise UserError(f"invalid scheme for url {url}")
    return parts.netloc, parts.path.removeprefix("/").split("/")


def validate_url(service: str, name: str, url: str) -> None:
    """keys.pub's per-service proof URL rules."""
    try:
        host, path = _https_url_parts(url)
    except ValueError as exc:
        raise UserError(f"invalid url {url}: {exc}") from None
    if service == "github":
        if host != "gist.github.com" or len(path) != 2 or path[0] != name or not path[1]:
            raise UserError(f"invalid github gist url {url}")
    elif service == "reddit":
        pruned = name.replace("-", "")
        if not (
            host in ("reddit.com", "old.reddit.com", "www.reddit.com")
            and len(path) >= 5
            and path[:3] == ["r", "keyspubmsgs", "comments"]
            and path[4] == pruned
        ):
            raise UserError(f"invalid reddit post url {url}")
    elif service == "twitter":
        if host not in ("twitter.com", "mobile.twitter.com") or len(path) != 3 or path[0] != name:
            raise UserError(f"invalid twitter status url {url}")
    elif service == "https":
        if url not in (f"https://{name}/keyspub.txt", f"https://{name}/.well-known/keyspub.txt"):
            raise UserError(f"invalid https proof url {url}")
    else:
        raise UserError(f"unsupported service {service!r}")


def parse_user(data: bytes, kid: str, seq: int) -> User:
    """The user of a `user` statement (`kid`, `seq` of that statement); raises UserError."""
    try:
        wire = _USER_DECODER.decode(data)
    except msgspec.DecodeError as exc:
        raise UserError(f"invalid user statement data: {exc}") from None
    user = User(kid=wire.k, name=wire.n, seq=wire.sq, service=wire.sr, url=wire.u)
    try:
        canonical = user.to_bytes()
    except StatementError as exc:
        raise UserError(f"invalid user statement data: {exc}") from None
    if canonical != data:
        raise UserError("user statement data is not in canonical form")
    if user.kid != kid:
        raise UserError("user kid does not match the statement kid")
    if user.seq != seq:
        raise UserError("user seq does not match the statement seq")
    validate_name(user.service, user.name)
    validate_url(user.service, user.name, user.url)
    return user


@dataclass(frozen=True, slots=True)
class ServiceURLs:
    """Where each service is reached; every one can point at a local server (tests)."""

    github_api: str = "https://api.github.com"
    reddit: str = "https://www.reddit.com"
    twitter_api: str = "https://api.twitter.com"
    # None: fetch https://<domain>/...; else fetch <https_base><path> with Host: <domain>.
    https_base: str | None = None


@dataclass(frozen=True, slots=True)
class ProofRequest:
    url: str
    headers: dict[str, str]


class NeedsConfiguration(Exception):
    """The proof cannot be fetched with this server's configuration (status `fail`)."""


def proof_request(user: User, urls: ServiceURLs, twitter_bearer_token: str | None) -> ProofRequest:
    _host, path = _https_url_parts(user.url)
    if user.service == "github":
        return ProofRequest(
            f"{urls.github_api.rstrip('/')}/gists/{path[1]}",
            {"Accept": "application/vnd.github.v3+json"},
        )
    if user.service == "reddit":
        post = "/" + "/".join(path).rstrip("/")
        return ProofRequest(f"{urls.reddit.rstrip('/')}{post}.json", {})
    if user.service == "twitter":
        if not twitter_bearer_token:
            raise NeedsConfiguration("twitter bearer token is not configured")
        return ProofRequest(
            f"{urls.twitter_api.rstrip('/')}/2/tweets/{path[2]}?expansions=author_id",
            {"Authorization": f"Bearer {twitter_bearer_token}"},
        )
    if user.service == "https":
        if urls.https_base is None:
            return ProofRequest(user.url, {})
        return ProofRequest(urls.https_base.rstrip("/") + "/" + "/".join(path), {"Host": user.name})
    raise NeedsConfiguration(f"unsupported service {user.service!r}")


@dataclass(frozen=True, slots=True)
class Outcome:
    status: Status
    err: str = ""


def verify_message(armored_body: str, user: User) -> Outcome:
    """Check the base62 body of a found message against the user (keys.pub `user.Verify`)."""
    try:
        signed = b62decode(armored_body)
    except ArmorError as exc:
        return Outcome(Status.STATEMENT_INVALID, f"failed to decode message: {exc}")
    try:
        kid = parse_signing_kid(user.kid)
    except InvalidKeyId as exc:
        return Outcome(Status.STATEMENT_INVALID, str(exc))
    message = open_signed(kid, signed)
    if message is None:
        return Outcome(Status.STATEMENT_INVALID, "failed to user verify: invalid signature")
    try:
        claimed: Any = msgspec.json.decode(message)
    except msgspec.DecodeError:
        return Outcome(Status.STATEMENT_INVALID, "failed to user verify: message is not JSON")
    if not isinstance(claimed, dict):
        return Outcome(Status.STATEMENT_INVALID, "failed to user verify: message is not an object")
    for field, expected, label in (
        ("k", user.kid, "kid"),
        ("sr", user.service, "service"),
        ("n", user.name, "name"),
    ):
        value = claimed.get(field)
        if not value:
            return Outcome(Status.STATEMENT_INVALID, f"failed to user verify: no {label}")
        if value != expected:
            return Outcome(
                Status.STATEMENT_INVALID, f"failed to user verify: {label} mismatch {value}"
            )
    return Outcome(Status.OK)


def find_verify(text: str, user: User, is_html: bool) -> Outcome:
    body = find_message(text, is_html)
    if not body:
        return Outcome(Status.CONTENT_NOT_FOUND, "user signed message content not found")
    return verify_message(body, user)


def _json(body: bytes) -> Any:
    return msgspec.json.decode(body)


def _check_github(body: bytes, user: User) -> Outcome:
    gist = _json(body)
    login = str(gist["owner"]["login"])
    if login.lower() != user.name:
        return Outcome(Status.CONTENT_INVALID, f"invalid gist owner login {login}")
    files = gist.get("files") or {}
    if not isinstance(files, dict) or not files:
        return Outcome(Status.CONTENT_INVALID, "no gist files")
    outcomes = [find_verify(str(f.get("content", "")), user, False) for f in files.values()]
    for outcome in outcomes:
        if outcome.status is Status.OK:
            return outcome
    # The most telling failure: a message that does not verify beats no message at all.
    return min(outcomes, key=lambda o: o.status is Status.CONTENT_NOT_FOUND)


def _check_reddit(body: bytes, user: User) -> Outcome:
    posts = _json(body)
    if not posts:
        return Outcome(Status.CONTENT_INVALID, "no posts")
    children = posts[0]["data"]["children"]
    if not children:
        return Outcome(Status.CONTENT_INVALID, "no listing children")
    post = children[0]["data"]
    author = str(post["author"])
    if author.lower() != user.name:
        return Outcome(Status.CONTENT_INVALID, f"invalid author {author}")
    subreddit = str(post["subreddit"])
    if subreddit != "keyspubmsgs":
        return Outcome(Status.CONTENT_INVALID, f"invalid subreddit {subreddit}")
    return find_verify(str(post["selftext"]), user, False)


def _check_twitter(body: bytes, user: User) -> Outcome:
    tweet = _json(body)
    data = tweet["data"]
    author_id = data["author_id"]
    users = (tweet.get("includes") or {}).get("users") or []
    for entry in users:
        if entry.get("id") == author_id:
            username = str(entry.get("username", ""))
            if username.lower() != user.name:
                return Outcome(Status.CONTENT_INVALID, f"invalid tweet username {username}")
            return find_verify(str(data["text"]), user, False)
    return Outcome(Status.CONTENT_INVALID, "tweet username not found")


def _check_https(body: bytes, user: User) -> Outcome:
    return find_verify(body.decode("utf-8", errors="replace"), user, True)


_CHECKERS: Final = {
    "github": _check_github,
    "reddit": _check_reddit,
    "twitter": _check_twitter,
    "https": _check_https,
}


def check_proof(user: User, body: bytes) -> Outcome:
    """The status of a proof whose resource answered 2xx with `body`."""
    checker = _CHECKERS.get(user.service)
    if checker is None:
        return Outcome(Status.FAIL, f"unsupported service {user.service!r}")
    try:
        return checker(body, user)
    except (msgspec.DecodeError, KeyError, IndexError, TypeError, AttributeError) as exc:
        return Outcome(Status.CONTENT_INVALID, f"unexpected {user.service} response: {exc!r}")


def status_for_http(status_code: int) -> Outcome | None:
    """None for a success; else the status keys.pub gives an HTTP failure."""
    if 200 <= status_code < 300:
        return None
    if status_code == 404:
        return Outcome(Status.RESOURCE_NOT_FOUND, "resource not found")
    return Outcome(Status.CONNECTION_FAIL, f"http error {status_code}")
