"""Showing the advisor's answers on a terminal: the status in words, the guide as Markdown."""

from __future__ import annotations

from typing import TYPE_CHECKING

from svc.sanitize import clean

if TYPE_CHECKING:
    from svc.ui.output import Output

MAX_GUIDE_CHARS = 200_000

STATUS_WORDS = {
    "quoted": "the service can do this; the price in the guide applies per submitted task",
    "ready": "everything needed is in the goal: you can submit it as it is",
    "needs_input": "details are missing: ask the user for them before submitting",
    "blocked": "something stands in the way; submitting now would not succeed",
    "unknown": "the advisor cannot tell whether the service can do this",
    "unsupported": "the service does not do this kind of task: do not submit it",
    "unavailable": "the service cannot do this right now: try again later",
}


def status_words(status: str) -> str:
    return STATUS_WORDS.get(status, "a status this version of svc does not know")


def show_markdown(output: Output, text: str) -> None:
    """Server Markdown rendered by rich, with control characters and escapes removed first."""
    from rich.markdown import Markdown

    output.draw(Markdown(clean(text, MAX_GUIDE_CHARS), hyperlinks=False))
