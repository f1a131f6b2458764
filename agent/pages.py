"""Page references: the shorthand current page of a session and attached pages (process-local)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any


def new_page_id() -> str:
    return "page_" + uuid.uuid4().hex


@dataclass
class Page:
    """A page reference: the session's shorthand current page, or an attached page pinned to the
    session, URL and proxy of its attach time."""

    id: str
    session_id: str
    url: str
    attached: bool = False
    proxy_alias: str | None = None

    def ref(self) -> dict[str, Any]:
        return {"id": self.id, "session_id": self.session_id, "url": self.url}
