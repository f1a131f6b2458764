"""The exit statuses of `svc` (spec 2 §7), in one table."""

from __future__ import annotations

OK = 0  # help, version, or a successful operation (`status` also needs overall_status ok)
FAILURE = 1  # usage, transport, protocol or API failure, or an unhealthy status
INTERRUPTED = 130  # terminated by SIGINT (128 + 2)
# `svc URL` / `svc capture URL` exit with the capture's own exit_code (capture.finished):
# 0 success, 1 unsuccessful (completed with a target status >= 400, or failed).
