"""What waits for a person on a session's page (an observation's `needs_person`: a bot check, a
sign-in), remembered with the document it was found in until the page moves on."""

from __future__ import annotations

from typing import Protocol

from bridge_protocol import NeedsPerson

from .session_page import SessionPage


class PersonOwner(Protocol):
    @property
    def page(self) -> SessionPage | None: ...


class PersonWatch:
    def __init__(self, owner: PersonOwner) -> None:
        self._owner = owner
        # what the last observation found, the URL and the document (SessionPage.documents)
        # it was found in
        self._person: tuple[NeedsPerson, str, int] | None = None

    def saw(self, person: NeedsPerson | None) -> bool:
        """An observation's `needs_person`; True when it is new (nothing, or another page,
        waited before): the person is told then."""
        before = self.waiting()
        self._person = (person, *self._document()) if person is not None else None
        return person is not None and before is None

    def waiting(self) -> NeedsPerson | None:
        """What waits for a person on the page, until the page has moved on: another URL, or
        another document at the same one (a solved bot check reloads its address)."""
        if self._person is None or self._owner.page is None:
            return None
        person, url, document = self._person
        return person if self._document() == (url, document) else None

    def _document(self) -> tuple[str, int]:
        """The current page's URL and how many documents it has started."""
        page = self._owner.page
        if page is None:
            return "", 0
        return page.url().toString(), getattr(page, "documents", 0)
