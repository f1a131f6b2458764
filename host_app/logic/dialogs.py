"""JavaScript dialogs (alert, confirm, prompt, beforeunload): who answers, what the answer is, and
what the agent is told. Qt-free; host_app/engine/dialogs.py is the Qt edge.

A dialog blocks its page's renderer until answered, and while a person's dialog is open
QtWebEngine holds back the browser-side work of every page (host_app/engine/dialogs.py). So the host
answers at once whenever nobody could answer or an agent could be kept waiting: headless, while an
agent operation runs on any session, when the session is not the one shown in the browser window,
or while another dialog is already in front of the person. Only otherwise does a person see it
(docs/decisions.md "Dialogs").
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .page_events import PageEvent, Scalar

# QtWebEngine (widgets) hands a beforeunload prompt to javaScriptConfirm with this fixed text
# (QWebEnginePagePrivate::javascriptDialog, UnloadDialog); the page's own text never reaches us.
BEFOREUNLOAD_TEXT = (
    "Are you sure you want to leave this page? Changes that you made may not be saved."
)
TRUST = "untrusted_website_content"
MESSAGE_LIMIT = 2048  # UTF-8 bytes, the observation's text bound (spec §8)


class DialogKind(StrEnum):
    ALERT = "alert"
    CONFIRM = "confirm"
    PROMPT = "prompt"
    BEFOREUNLOAD = "beforeunload"


class Responder(StrEnum):
    POLICY = "policy"
    PERSON = "person"


@dataclass(frozen=True, slots=True)
class Dialog:
    kind: DialogKind
    message: str  # website-controlled (except beforeunload's fixed text)
    origin: str
    default_text: str = ""  # prompt only


@dataclass(frozen=True, slots=True)
class Answer:
    accepted: bool  # OK / leave the page
    text: str | None  # prompt only: the text given back to the page (None when dismissed)
    by: Responder


def kind_of_confirm(message: str) -> DialogKind:
    """A javaScriptConfirm call is a beforeunload prompt when it carries Qt's fixed text."""
    return DialogKind.BEFOREUNLOAD if message == BEFOREUNLOAD_TEXT else DialogKind.CONFIRM


def responder(
    *, headless: bool, agent_busy: bool, shown_in_window: bool, other_dialog_open: bool
) -> Responder:
    """Who answers a dialog that arrives now."""
    if headless or agent_busy or not shown_in_window or other_dialog_open:
        return Responder.POLICY
    return Responder.PERSON


def policy_answer(dialog: Dialog) -> Answer:
    """Alert and confirm accepted, prompt answered with its default text, beforeunload leaves."""
    text = dialog.default_text if dialog.kind is DialogKind.PROMPT else None
    return Answer(accepted=True, text=text, by=Responder.POLICY)


def answer_word(kind: DialogKind, accepted: bool) -> str:
    if kind is DialogKind.BEFOREUNLOAD:
        return "left_page" if accepted else "stayed"
    return "accepted" if accepted else "dismissed"


def clip(text: str, limit: int = MESSAGE_LIMIT) -> str:
    data = text.encode()
    if len(data) <= limit:
        return text
    return data[: limit - 3].decode("utf-8", "ignore") + "…"


def report(dialog: Dialog, answer: Answer) -> PageEvent:
    """The content entry of the next observation (its details are the session log's data too)."""
    details: dict[str, Scalar] = {
        "dialog": dialog.kind.value,
        "answer": answer_word(dialog.kind, answer.accepted),
        "by": answer.by.value,
        "origin": dialog.origin,
        "trust": TRUST,
    }
    if dialog.kind is DialogKind.PROMPT:
        if dialog.default_text:
            details["default"] = clip(dialog.default_text)
        if answer.text is not None:
            details["value"] = clip(answer.text)
    return PageEvent("dialog", clip(dialog.message), details)


def log_message(dialog: Dialog, answer: Answer) -> str:
    """The session log line: says what happened without quoting the website's text."""
    return (
        f"{dialog.kind.value} dialog from {dialog.origin or 'the page'} "
        f"{answer_word(dialog.kind, answer.accepted).replace('_', ' ')} by {answer.by.value}"
    )
