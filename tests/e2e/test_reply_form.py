"""`svc reply ID` with no answer flags, on a terminal: the form (issues 14.4-5 and 15.3).

Answers the ask cannot take (empty, or outside a question's options) are asked again on the
spot and never sent; a decline needs a second yes; an ask about to expire is announced, and one
that has expired is exit 8 with the time it expired, before anything is typed or sent.
"""

from __future__ import annotations

import pytest
from tests.conftest import Cli, Sandbox, unique_email
from tests.person import finish
from tests.person import spawn_person as spawn

pytestmark = pytest.mark.e2e


def blocked(cli: Cli, sandbox: Sandbox, task: str) -> str:
    task_id = str(cli.ok("submit", task, "--email", unique_email()).json()["id"])
    sandbox.advance(11)  # the sandbox asks 10 s after creation
    assert cli.ok("poll", task_id).json()["state"] == "blocked_on_user"
    return task_id


def replies(sandbox: Sandbox, task_id: str) -> list[dict[str, object]]:
    """The replies that reached the sandbox (its request log), whatever it made of them."""
    seen = sandbox.admin("GET", "/requests")["requests"]
    return [r for r in seen if r["method"] == "POST" and r["path"].endswith(f"{task_id}/reply")]


def test_an_answer_outside_the_options_is_asked_again_and_never_sent(
    cli: Cli, sandbox: Sandbox
) -> None:
    task_id = blocked(cli, sandbox, "Book a seat #questions")
    child = spawn(cli, "reply", task_id)
    child.expect("We need a few details to finish your booking")  # the ask's note, first
    child.expect("shipping_address")
    child.sendline("")  # empty: asked again
    child.expect("a value is required")
    child.sendline("1 Main St")
    child.expect("phone")
    child.sendline("5550100")
    child.expect(r"Window or aisle\? \(window/aisle\)")
    child.sendline("middle")
    child.expect("please answer one of: window, aisle")
    assert replies(sandbox, task_id) == []  # nothing went out while the form was open
    child.sendline("aisle")
    child.expect(r"Send this answer\?")
    assert replies(sandbox, task_id) == []  # nor during the review
    child.sendline("")
    assert finish(child) == 0, child.before
    assert len(replies(sandbox, task_id)) == 1


def test_set_outside_the_options_is_exit_2_and_nothing_is_sent(cli: Cli, sandbox: Sandbox) -> None:
    task_id = blocked(cli, sandbox, "Book a seat #questions")
    sets = ["--set", "shipping_address=1 Main St", "--set", "phone=5550100"]
    result = cli("reply", task_id, *sets, "--set", "seat_preference=middle")
    assert result.returncode == 2, result.stderr
    assert "'middle' is not one of the options the question offers: window, aisle" in (
        result.stderr
    )
    assert replies(sandbox, task_id) == []
    cli.ok("reply", task_id, *sets, "--set", "seat_preference=window")


def test_an_empty_hidden_code_is_asked_again_and_never_sent(cli: Cli, sandbox: Sandbox) -> None:
    task_id = blocked(cli, sandbox, "Sign in #2fa")
    child = spawn(cli, "reply", task_id)
    child.expect(r"sms_code \(hidden\):")
    child.sendline("")
    child.expect("a value is required")
    assert replies(sandbox, task_id) == []
    child.expect(r"sms_code \(hidden\):")
    child.sendline("123456")
    child.expect(r"Send this answer\?")
    child.sendline("")
    assert finish(child) == 0, child.before
    assert "123456" not in (child.before or "")  # hidden: never echoed
    assert len(replies(sandbox, task_id)) == 1


def test_an_ask_about_to_expire_is_announced(cli: Cli, sandbox: Sandbox) -> None:
    task_id = blocked(cli, sandbox, "Book a seat #ask-expire")
    child = spawn(cli, "reply", task_id)
    child.expect(r"this ask expires soon \((\d+)m(\d+)s left, at \S+\)")
    assert 0 < int(child.match.group(1)) * 60 + int(child.match.group(2)) <= 60
    child.expect("shipping_address")
    child.sendcontrol("c")
    assert finish(child) == 130
    assert replies(sandbox, task_id) == []


def test_an_ask_that_expired_on_the_server_is_exit_8_and_says_so(
    cli: Cli, sandbox: Sandbox
) -> None:
    """The shared sandbox's clock runs ahead of ours (tests advance it), so here only the
    service knows the ask expired: its 410 is exit 8 with its word. The client's own check,
    before the form, is tested in-process (tests/unit/test_reply_expiry.py)."""
    task_id = blocked(cli, sandbox, "Book a seat #ask-expire")
    sandbox.advance(75)  # past the 60 s lifetime; the task fails 5 min later
    child = spawn(cli, "reply", task_id)
    for prompt, answer in (("shipping_address", "1 Main St"), ("phone", "5550100")):
        child.expect(prompt)
        child.sendline(answer)
    child.expect("Window or aisle")
    child.sendline("window")
    child.expect(r"Send this answer\?")
    child.sendline("")
    child.expect("expired")
    assert finish(child) == 8


def test_declining_a_payment_in_the_form_needs_a_second_yes(cli: Cli, sandbox: Sandbox) -> None:
    task_id = blocked(cli, sandbox, "Buy the flight #approval")
    child = spawn(cli, "reply", task_id)
    # Issue 30.11: the words `svc watch` uses; Enter never reads as "approve".
    child.expect("Enter: leave it to the approval app, d: decline")
    child.sendline("d")
    child.expect("Decline the payment of 42.50 USD to Example Air for good")
    child.sendline("")  # the default is no: nothing declined
    finish(child)
    assert replies(sandbox, task_id) == []
    assert cli.ok("poll", task_id).json()["state"] == "blocked_on_user"
    child = spawn(cli, "reply", task_id)
    child.expect("d: decline")
    child.sendline("d")
    child.expect("for good")
    child.sendline("y")
    assert finish(child) == 0, child.before
    assert len(replies(sandbox, task_id)) == 1


def test_keeping_a_payment_in_the_form_leaves_it_to_the_app_and_is_not_an_error(
    cli: Cli, sandbox: Sandbox
) -> None:
    task_id = blocked(cli, sandbox, "Buy the flight #approval")
    child = spawn(cli, "reply", task_id)
    child.expect("Enter: leave it to the approval app, d: decline")
    child.sendline("")  # the default: leave it, the user approves it in their app
    child.expect("left to the approval app")
    child.expect(f"svc watch {task_id}")
    assert finish(child) == 0, child.before  # not exit 2 "nothing to reply"
    assert replies(sandbox, task_id) == []
    assert cli.ok("poll", task_id).json()["state"] == "blocked_on_user"


def test_keeping_a_payment_under_json_reports_the_outcome(cli: Cli, sandbox: Sandbox) -> None:
    task_id = blocked(cli, sandbox, "Buy the flight #approval")
    child = spawn(cli, "--json", "reply", task_id)
    child.expect("d: decline")
    child.sendline("")
    child.expect('"outcome": ?"left_to_approval_app"')
    assert finish(child) == 0, child.before
    assert replies(sandbox, task_id) == []


# --- the review and numbered options (issue 15.3) ------------------------------------------


def test_an_option_is_taken_by_its_number_and_an_answer_can_be_edited_at_the_review(
    cli: Cli, sandbox: Sandbox
) -> None:
    task_id = blocked(cli, sandbox, "Book a seat #questions")
    child = spawn(cli, "reply", task_id)
    for prompt, answer in (("shipping_address", "1 Main St"), ("phone", "5550100")):
        child.expect(prompt)
        child.sendline(answer)
    child.expect(r"1\) window")
    child.expect(r"2\) aisle")
    child.expect(r"Window or aisle\? \(window/aisle\)")
    child.sendline("2")
    child.expect(r"Review:")
    child.expect(r"2\) phone: 5550100")
    child.expect(r"3\) seat_preference: aisle")
    child.expect(r"Send this answer\? \(Y: send, e: edit, n: cancel\)")
    child.sendline("e")
    child.expect(r"edit which answer \(1-3\)")
    child.sendline("2")
    child.expect("phone")
    child.sendline("5550199")
    child.expect(r"2\) phone: 5550199")
    assert replies(sandbox, task_id) == []  # nothing left while reviewing and editing
    child.expect(r"Send this answer\?")
    child.sendline("y")
    child.expect("answer sent")
    assert finish(child) == 0, child.before
    assert len(replies(sandbox, task_id)) == 1


def test_cancelling_at_the_review_sends_nothing_and_is_exit_2(cli: Cli, sandbox: Sandbox) -> None:
    task_id = blocked(cli, sandbox, "Book a seat #questions")
    child = spawn(cli, "reply", task_id)
    for prompt, answer in (("shipping_address", "1 Main St"), ("phone", "5550100")):
        child.expect(prompt)
        child.sendline(answer)
    child.expect("Window or aisle")
    child.sendline("window")
    child.expect(r"Send this answer\?")
    child.sendline("n")
    child.expect("reply not sent: cancelled at the review")
    child.expect(f"svc reply {task_id} answers it later")
    assert finish(child) == 2
    assert replies(sandbox, task_id) == []
    assert cli.ok("poll", task_id).json()["state"] == "blocked_on_user"


def test_a_secret_is_shown_hidden_in_the_review_and_never_echoed(
    cli: Cli, sandbox: Sandbox
) -> None:
    task_id = blocked(cli, sandbox, "Sign in #2fa")
    child = spawn(cli, "reply", task_id)
    child.expect(r"sms_code \(hidden\):")
    child.sendline("271828")
    child.expect(r"1\) sms_code: \(hidden\)")
    child.expect(r"Send this answer\?")
    screen = (child.before or "") + (child.after or "")
    child.sendline("")
    child.expect("answer sent")
    assert finish(child) == 0, child.before
    screen += child.before or ""
    assert "271828" not in screen


def test_a_payment_ask_shows_its_note_merchant_and_amount_first(cli: Cli, sandbox: Sandbox) -> None:
    task_id = blocked(cli, sandbox, "Buy the flight #approval")
    child = spawn(cli, "reply", task_id)
    child.expect("Approve the payment of 42.50 USD to Example Air in your payment-approval app")
    child.expect("Payment: 42.50 USD to Example Air")
    child.expect("Enter: leave it to the approval app, d: decline")
    child.sendline("")
    assert finish(child) == 0, child.before
    assert replies(sandbox, task_id) == []


def test_cancelling_at_the_review_inside_watch_ends_the_watch_and_sends_nothing(
    cli: Cli, sandbox: Sandbox
) -> None:
    task_id = blocked(cli, sandbox, "Sign in #2fa")
    child = spawn(cli, "watch", task_id, "--interval", "1")
    child.expect(r"sms_code \(hidden\):")
    child.sendline("161803")
    child.expect(r"1\) sms_code: \(hidden\)")
    child.expect(r"Send this answer\?")
    child.sendline("n")
    child.expect("reply not sent: cancelled at the review")
    assert finish(child) == 2
    assert "161803" not in (child.before or "")
    assert replies(sandbox, task_id) == []
    assert cli.ok("poll", task_id).json()["state"] == "blocked_on_user"
