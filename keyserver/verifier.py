"""Background user verification: fetch each user's proof, record its status, re-check periodically.

The only place the key server makes outbound requests. Every failure of the fetch is turned into
a status here (connection-fail, resource-not-found, ...); anything unexpected becomes `fail` and
is logged, so one bad proof never stops the loop.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Final

import httpx
import trio

from .config import Config
from .store import Store, StoreUnavailable, UserRecord
from .users import (
    NeedsConfiguration,
    Outcome,
    Status,
    User,
    check_proof,
    proof_request,
    status_for_http,
)

log = logging.getLogger("keyserver.verifier")

MAX_PROOF_BYTES: Final = 1024 * 1024
_QUEUE_SIZE: Final = 1024
_NONCE_PURGE_EVERY_S: Final = 60.0
USER_AGENT: Final = "svc-keyserver/0.1 (keys.pub compatible)"


def _read_token(config: Config) -> str | None:
    path: Path | None = config.twitter_bearer_token_file
    if path is not None:
        try:
            token = path.read_text(encoding="utf-8").strip()
        except OSError:
            token = ""
        if token:
            return token
    return config.twitter_bearer_token or None


class Verifier:
    """Checks users' proofs in the background. `schedule` is safe to call from request handlers."""

    def __init__(self, config: Config, store: Store, now_ms: Callable[[], int]) -> None:
        self._config = config
        self._store = store
        self._now_ms = now_ms
        self._send, self._receive = trio.open_memory_channel[str](_QUEUE_SIZE)
        self._pending: set[str] = set()
        # How long a user handed out for a re-check is not handed to another process sharing the
        # database: longer than a check waits in the queue and runs.
        self._lease_s = max(10 * config.check_timeout_s, 60.0)

    def schedule(self, kid: str) -> None:
        """Queue a check of `kid`'s user; a no-op when one is already queued or running."""
        if kid in self._pending:
            return
        try:
            self._send.send_nowait(kid)
        except trio.WouldBlock:
            # The periodic re-check picks it up later (its `ts` is old or unknown).
            log.warning("verification queue full; %s waits for the periodic re-check", kid)
            return
        self._pending.add(kid)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        timeout = httpx.Timeout(self._config.check_timeout_s)
        async with (
            httpx.AsyncClient(
                timeout=timeout,
                follow_redirects=True,
                max_redirects=5,
                headers={"User-Agent": USER_AGENT},
            ) as client,
            trio.open_nursery() as nursery,
        ):
            for _ in range(self._config.check_concurrency):
                nursery.start_soon(self._worker, client)
            nursery.start_soon(self._recheck_loop)
            nursery.start_soon(self._purge_loop)
            task_status.started()

    async def _worker(self, client: httpx.AsyncClient) -> None:
        async for kid in self._receive:
            try:
                record = await self._store.user_get(kid)
                if record is not None:
                    outcome = await self.check(client, record)
                    await self._record(record, outcome)
            except StoreUnavailable as exc:
                log.warning("checking the user of %s: database unavailable: %s", kid, exc)
            except Exception:
                log.exception("checking the user of %s failed", kid)
            finally:
                self._pending.discard(kid)

    async def _record(self, record: UserRecord, outcome: Outcome) -> None:
        now = self._now_ms()
        verified_at = now if outcome.status is Status.OK else record.verified_at
        updated = await self._store.user_set_status(
            record.kid,
            record.seq,
            status=outcome.status.value,
            ts=now,
            verified_at=verified_at,
            err=outcome.err,
        )
        log.info(
            "user %s (%s) is %s%s%s",
            record.id,
            record.kid,
            outcome.status.value,
            ": " if outcome.err else "",
            outcome.err,
        )
        if not updated:
            log.info("user of %s changed during its check; result dropped", record.kid)

    async def check(self, client: httpx.AsyncClient, record: UserRecord) -> Outcome:
        user = User(
            kid=record.kid, name=record.name, seq=record.seq, service=record.service, url=record.url
        )
        try:
            request = proof_request(user, self._config.services, _read_token(self._config))
        except NeedsConfiguration as exc:
            return Outcome(Status.FAIL, str(exc))
        try:
            async with client.stream("GET", request.url, headers=request.headers) as response:
                failed = status_for_http(response.status_code)
                if failed is not None:
                    return failed
                body = bytearray()
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > MAX_PROOF_BYTES:
                        return Outcome(Status.CONTENT_INVALID, "proof resource is too large")
        except httpx.HTTPError as exc:
            return Outcome(Status.CONNECTION_FAIL, f"{type(exc).__name__}: {exc}")
        return check_proof(user, bytes(body))

    async def _recheck_loop(self) -> None:
        interval_ms = int(self._config.recheck_interval_s * 1000)
        tick = min(max(self._config.recheck_interval_s / 4, 0.05), 60.0)
        while True:
            await trio.sleep(tick)
            try:
                now = self._now_ms()
                due = await self._store.users_due(
                    now - interval_ms,
                    _QUEUE_SIZE // 2,
                    now_ms=now,
                    lease_ms=int(self._lease_s * 1000),
                )
            except StoreUnavailable as exc:
                log.warning("listing users to re-check: database unavailable: %s", exc)
                continue
            except Exception:
                log.exception("listing users to re-check failed")
                continue
            for record in due:
                self.schedule(record.kid)

    async def _purge_loop(self) -> None:
        while True:
            await trio.sleep(_NONCE_PURGE_EVERY_S)
            try:
                purged = await self._store.purge_nonces(self._now_ms())
            except StoreUnavailable as exc:
                log.warning("purging expired nonces: database unavailable: %s", exc)
                continue
            except Exception:
                log.exception("purging expired nonces failed")
                continue
            if purged:
                log.debug("purged %d expired nonces", purged)
