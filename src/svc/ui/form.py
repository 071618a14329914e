"""Form pieces for answering an ask on the terminal: a header, numbered choices, a review.

Every piece of server text (note, merchant, question, options) goes through `clean` here, so
the form never writes raw server bytes to the terminal. Secret values never reach this
module's output: the review shows them as `(hidden)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from svc.sanitize import clean
from svc.ui import prompts

HIDDEN: Final = "(hidden)"
SEND: Final = "send"
CANCEL: Final = "cancel"


@dataclass(frozen=True)
class Row:
    """One answer in the review; a secret one is shown as hidden, never its value."""

    label: str
    value: str
    secret: bool = False


def header(lines: list[str]) -> None:
    """What is asked, before the first prompt: the note, the merchant and amount."""
    for line in lines:
        prompts.say(clean(line, 500))


def show_choices(options: list[str]) -> None:
    """The options a question offers, numbered, so a person may type the number."""
    for number, option in enumerate(options, 1):
        prompts.say(f"  {number}) {clean(option, 80, single_line=True)}")


def pick(answer: str, options: list[str]) -> str | None:
    """The option an answer names: its text first (an option may itself be a number), then
    its number in the list, then its text in another case if only one option matches; None
    when it names none. The option's own spelling is returned, never the typed one."""
    if answer in options:
        return answer
    if answer.isascii() and answer.isdigit() and 1 <= int(answer) <= len(options):
        return options[int(answer) - 1]
    same = [option for option in options if option.casefold() == answer.casefold()]
    return same[0] if len(same) == 1 else None


# The review's question, as the README's tour names it (tests/unit/test_readme_review.py).
REVIEW_QUESTION: Final = "Send this answer?"


def review(rows: list[Row]) -> Literal["send", "cancel"] | int:
    """Show every answer (secrets hidden) and ask what to do: send, cancel, or the index
    (from 0) of the answer to edit."""
    prompts.say("Review:")
    for number, row in enumerate(rows, 1):
        shown = HIDDEN if row.secret else clean(row.value, 200, single_line=True)
        prompts.say(f"  {number}) {clean(row.label, 60, single_line=True)}: {shown}")
    while True:
        answer = prompts.ask_text(f"{REVIEW_QUESTION} (Y: send, e: edit, n: cancel)")
        answer = answer.strip().lower()
        if answer in ("", "y", "yes"):
            return SEND
        if answer in ("n", "no", "c", "cancel"):
            return CANCEL
        if answer in ("e", "edit"):
            if len(rows) == 1:
                return 0
            answer = prompts.ask_text(f"edit which answer (1-{len(rows)})").strip()
        if answer.isascii() and answer.isdigit() and 1 <= int(answer) <= len(rows):
            return int(answer) - 1
        prompts.say(f"answer y to send, n to cancel, or e (or a number 1-{len(rows)}) to edit")


# One wording for one decision: `svc watch` and `svc reply` ask a pending payment
# approval the same way. Enter never reads as "approve": approval happens only in the user's
# own payment-approval app, so the default sends nothing.
LEAVE_OR_DECLINE: Final = "Enter: leave it to the approval app, d: decline"


def decline_payment(amount: str, merchant: str) -> bool:
    """Whether the person declines a payment waiting for approval: `d`, then a second yes."""
    choice = prompts.ask_text(LEAVE_OR_DECLINE).strip().lower()
    if choice not in ("d", "decline"):
        return False
    return prompts.confirm_payment(
        f"Decline the payment{amount} to {merchant} for good? The task will fail"
    )


def resend_expired_approval(amount: str, merchant: str) -> bool:
    """Whether to send an expired approval request to the user's app again."""
    return prompts.confirm(
        f"The approval{amount} to {merchant} expired. Send it to the approval app again?"
    )
