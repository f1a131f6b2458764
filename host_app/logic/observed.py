"""The observation script's answer (host_app/scripts/observe.js) as typed values, decoded once
where a driver receives it: one document's read (`Observed`), its content entries (`Entry`), its
elements (`Element`) and its iframes (`Slot`). No Qt here.

The script keeps its short keys on the wire; each field names the key it is read from
(`name=`). A key the script leaves out when it has nothing to say is a field's default, and
`omit_defaults` leaves it out again in the wire form (`page_answers.wire`), which is what the
observation's encoding (bridge_protocol.observation.encode_semantics) reads:
`host_app.core.observations.build` hands it the entries in that form.
"""

from __future__ import annotations

import msgspec
from msgspec import field

from .page_events import PageEvent, Scalar


class Entry(msgspec.Struct, frozen=True, omit_defaults=True):
    """A content entry: its kind, text and context (an index into the document's contexts,
    -1: none), the refs it holds, its details (a name other than its text, a value)."""

    kind: str = field(name="k")
    text: str = field(default="", name="t")
    context: int = field(default=-1, name="c")
    refs: list[str] = field(default_factory=list, name="e")
    details: dict[str, Scalar] = field(default_factory=dict, name="d")
    level: int | None = field(default=None, name="l")  # a heading's
    header: int = field(default=0, name="h")  # a table cell's: 1 column header, 2 row header
    # a frame's placeholder: the iframe's slot number, where the frame's content goes
    frame: int | None = field(default=None, name="f")

    @classmethod
    def of(cls, event: PageEvent) -> Entry:
        """A page event (a dialog, a popup, a download) as the content entry it is reported as
        (`PageEvent.entry`)."""
        return msgspec.convert(event.entry(), cls)


class Element(msgspec.Struct, frozen=True, omit_defaults=True):
    """An element the observation offers: its ref (`e<N>`, N its registry number in its
    document until `frames.merge` makes it public), role, name, value, a link's destination, its
    states, a select's options (value, label) and its context (-1: none)."""

    ref: str
    role: str
    name: str = ""
    value: str = ""
    dest: str = ""
    states: list[str] = field(default_factory=list, name="st")
    options: list[tuple[str, str]] = field(default_factory=list, name="opts")
    context: int = field(default=-1, name="c")


class Slot(msgspec.Struct, frozen=True):
    """An iframe as its parent document's script saw it: its registry number, html name and
    src; x, y, w, h its content box in the parent's viewport (CSS px); its label, the context
    parts of where it sits, and how many of the parent's elements come before it."""

    n: int
    name: str = field(default="", name="nm")
    src: str = ""
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = 0.0
    label: str = field(default="", name="lab")
    parts: tuple[str, ...] = field(default=(), name="p")
    insert_at: int = field(default=0, name="ei")


class Observed(msgspec.Struct, omit_defaults=True):
    """One document's observation (observe_js.observe): its key (time origin, generation),
    URL, title, viewport [scroll x, scroll y, width, height] and document size; its contexts,
    content, elements and their signatures (registry number, tag|role|name); what the bounds
    left out and the texts clipped; for frames, its registry id, iframes and what it used of
    the bounds; in the main frame, whether the page waits for a person (logic.person).
    Mutable: `frames.merge` and `frame_reads.read` count what they leave out."""

    key: tuple[float, int]
    url: str = field(default="", name="u")
    title: str = field(default="", name="ti")
    viewport: tuple[float, float, float, float] = field(default=(0, 0, 0, 0), name="vp")
    document: tuple[float, float] = field(default=(0, 0), name="dc")
    contexts: list[str] = field(default_factory=list, name="cx")
    content: list[Entry] = field(default_factory=list, name="ct")
    elements: list[Element] = field(default_factory=list, name="el")
    signatures: list[tuple[int, str]] = field(default_factory=list, name="sg")
    omitted: int = field(default=0, name="om")
    clipped: int = field(default=0, name="cl")
    frame_id: str = field(default="", name="fid")
    slots: list[Slot] = field(default_factory=list, name="fr")
    visited: int = field(default=0, name="vs")
    used_bytes: int = field(default=0, name="ub")
    used_element_bytes: int = field(default=0, name="ueb")
    person: list[str] | None = field(default=None, name="np")  # logic.person reads it
