"""`svc` on a real terminal (a pty): live watch, hidden prompts, the reply form, rich output.

Driven with pexpect, as a person at a shell would: read the screen, type the answer.
"""

from __future__ import annotations

import uuid

import pexpect
import pytest
from tests.conftest import SVC, Cli, Sandbox, unique_email

pytestmark = pytest.mark.e2e


def spawn(cli: Cli, *args: str) -> pexpect.spawn:
    env = {k: v for k, v in cli.env.items() if k != "CI"}  # a person's shell, not CI
    return pexpect.spawn(
        SVC, list(args), env=env, encoding="utf-8", timeout=30, dimensions=(50, 160)
    )


def submit(cli: Cli, task: str) -> str:
    rid = f"req_{uuid.uuid4().hex}"
    return str(cli.ok("submit", task, "--email", unique_email(), "--request-id", rid).json()["id"])


def test_watch_prompts_for_the_2fa_code_hidden_and_finishes(cli: Cli, sandbox: Sandbox) -> None:
    task_id = submit(cli, "Pay my phone bill #2fa")
    sandbox.advance(11)
    child = spawn(cli, "watch", task_id)
    child.expect("Enter the 6-digit code")
    child.expect(r"sms_code \(hidden\):")
    child.sendline("654321")
    child.expect(r"1\) sms_code: \(hidden\)")  # the review (issue 15.3): the secret hidden
    child.expect(r"Send this answer\?")
    child.sendline("")
    child.expect("answer sent")
    sandbox.advance(25)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    screen = child.before or ""
    assert "654321" not in screen  # the hidden prompt never echoed it
    assert "completed" in screen
    assert sandbox.internals(task_id)["sensitive_values_stored"] == 0


def test_reply_form_asks_each_field_then_sends(cli: Cli, sandbox: Sandbox) -> None:
    task_id = submit(cli, "Ship it #questions")
    sandbox.advance(11)
    child = spawn(cli, "reply", task_id)
    child.expect("shipping_address")
    child.sendline("")  # empty is refused, asked again
    child.expect("a value is required")
    child.sendline("1 Main St")
    child.expect("phone")
    child.sendline("5550100")
    child.expect(r"Window or aisle\? \(window/aisle\)")
    child.sendline("aisle")
    child.expect(r"3\) seat_preference: aisle")  # the review before sending (issue 15.3)
    child.expect(r"Send this answer\?")
    child.sendline("")
    child.expect("answer sent")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert cli.ok("poll", task_id).json()["state"] == "pending"


def test_payment_ask_form_can_decline(cli: Cli, sandbox: Sandbox) -> None:
    task_id = submit(cli, "Buy the tickets #decline")
    sandbox.advance(11)
    child = spawn(cli, "reply", task_id)
    child.expect("Enter: leave it to the approval app, d: decline")
    child.sendline("d")
    child.expect("for good")  # a decline is final: it asks a second time
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert cli.ok("poll", task_id).json()["error"] == "payment_rejected"


def test_poll_on_a_terminal_shows_a_panel_not_json(cli: Cli) -> None:
    task_id = submit(cli, "Show me #complete")
    child = spawn(cli, "poll", task_id)
    child.expect(pexpect.EOF)
    screen = child.before or ""
    assert "state" in screen and "pending" in screen and task_id in screen
    assert '"state":' not in screen


def test_hostile_server_text_is_shown_inert_on_a_terminal(cli: Cli) -> None:
    hostile = (
        "Evil \x1b]8;;http://x\x07link\x1b]8;;\x07 [bold]markup[/bold] \x1b[31mred\u202e #complete"
    )
    task_id = submit(cli, hostile)
    child = spawn(cli, "poll", task_id)
    child.expect(pexpect.EOF)
    screen = child.before or ""
    assert "\x1b]8" not in screen and "\x1b[31m" not in screen and "\u202e" not in screen
    assert "[bold]markup[/bold]" in screen  # shown literally, not as markup
    raw = cli.ok("poll", task_id).json()
    assert raw["goal"] == hostile  # JSON output stays byte-exact


def test_ctrl_c_during_watch_exits_130_and_says_how_to_resume(cli: Cli) -> None:
    task_id = submit(cli, "Long one #slow")
    child = spawn(cli, "watch", task_id)
    child.expect("created")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert "interrupted" in (child.before or "")


def test_reply_form_hides_a_secret_key_of_a_structured_ask(cli: Cli, sandbox: Sandbox) -> None:
    """`svc reply` on a structured ask with a PIN among its keys: the PIN is typed hidden,
    shown hidden at the review, and the reply goes out sensitive (the wire has no per-key
    flag), so the service keeps it apart and nothing svc prints shows it."""
    import io

    task_id = submit(cli, "Ship it, with my PIN #questions-secret")
    sandbox.advance(11)
    child = spawn(cli, "reply", task_id)
    child.logfile_read = screen = io.StringIO()
    child.expect("shipping_address")
    child.sendline("1 Main St")
    child.expect(r"card_pin \(hidden\):")
    child.sendline("4321")
    child.expect(r"card_pin: \(hidden\)")  # the review
    child.expect(r"Send this answer\?")
    child.sendline("")
    child.expect("answer sent")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, screen.getvalue()
    assert "4321" not in screen.getvalue()
    sent = [e for e in cli.ok("poll", task_id).json()["events"] if e["type"] == "reply_received"]
    assert sent and sent[-1]["payload"]["sensitive"] is True
