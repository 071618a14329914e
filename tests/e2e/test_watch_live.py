"""`svc watch` at the asks it exists for, on a real terminal (pexpect on a pty; issue 14.3-4).

Polling goes on while a prompt is open: a prompt the task no longer needs closes with a line
saying why. A payment approval is a waiting line (amount, merchant, who approves, time left);
leaving it to the app is the default, and a decline needs a second, explicit yes.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pexpect
import pytest
from tests.conftest import Cli, Sandbox, unique_email
from tests.person import fake_notify_send, finish
from tests.person import spawn_person as spawn

pytestmark = pytest.mark.e2e


def submit(cli: Cli, task: str) -> str:
    return str(cli.ok("submit", task, "--email", unique_email()).json()["id"])


def state(cli: Cli, task_id: str) -> str:
    return str(cli.ok("poll", task_id).json()["state"])


def test_approval_left_to_the_app_ends_at_0_after_the_sandbox_approves(
    cli: Cli, sandbox: Sandbox
) -> None:
    task_id = submit(cli, "Buy the flight #approval")
    sandbox.advance(11)
    child = spawn(cli, "watch", task_id, "--interval", "1")
    child.expect(r"42.50 USD to Example Air")
    child.expect(r"\(in the user's app\) · \d+m\d\ds left")
    child.expect("Enter: leave it to the approval app, d: decline")
    child.sendline("")  # the default: leave it to the app
    child.expect("left to the approval app")
    # The live waiting line (the status line, redrawn while nothing is asked) counts down.
    child.expect(
        r"waits for the approval of 42.50 USD to Example Air \(in the user's app\) · \d+m\d\ds left"
    )
    assert state(cli, task_id) == "blocked_on_user"  # nothing was sent
    sandbox.advance(30)  # the sandbox's user approves 40 s after creation
    child.expect("pending")
    sandbox.advance(25)
    assert finish(child) == 0
    assert state(cli, task_id) == "completed"


def test_an_approval_given_while_the_prompt_is_open_is_noticed(cli: Cli, sandbox: Sandbox) -> None:
    task_id = submit(cli, "Buy the train #approval")
    sandbox.advance(11)
    child = spawn(cli, "watch", task_id, "--interval", "1")
    child.expect("Enter: leave it to the approval app, d: decline")
    sandbox.admin("POST", f"/tasks/{task_id}/approve")  # approved in the app meanwhile
    child.expect(f"prompt closed: task {task_id} is pending now")
    sandbox.advance(25)
    assert finish(child) == 0


def test_a_decline_asks_for_confirmation_before_anything_is_sent(
    cli: Cli, sandbox: Sandbox
) -> None:
    task_id = submit(cli, "Buy the hotel #decline")
    sandbox.advance(11)
    child = spawn(cli, "watch", task_id, "--interval", "1")
    child.expect("Enter: leave it to the approval app, d: decline")
    child.sendline("d")
    child.expect(r"Decline the payment of 42.50 USD to Example Air for good\? .*\(y/N\)")
    assert state(cli, task_id) == "blocked_on_user"  # one keystroke declined nothing
    child.sendline("y")
    child.expect("answer sent")
    assert finish(child) == 3
    assert cli.ok("poll", task_id).json()["error"] == "payment_rejected"


def test_a_hidden_prompt_closes_when_the_ask_is_answered_elsewhere(
    cli: Cli, sandbox: Sandbox
) -> None:
    task_id = submit(cli, "Log in #2fa")
    sandbox.advance(11)
    child = spawn(cli, "watch", task_id, "--interval", "1")
    child.expect(r"sms_code \(hidden\):")
    cli.ok("reply", task_id, "--field", "sms_code", "--value-file", "-", input="111222\n")
    child.expect(f"prompt closed: task {task_id} is pending now")
    sandbox.advance(25)
    assert finish(child) == 0
    child_screen = child.before or ""
    assert "111222" not in child_screen


def replies_sent(sandbox: Sandbox, task_id: str) -> int:
    seen = sandbox.admin("GET", "/requests")["requests"]
    return sum(1 for r in seen if r["method"] == "POST" and r["path"].endswith(f"{task_id}/reply"))


def test_an_empty_2fa_answer_is_asked_again_and_nothing_is_sent(cli: Cli, sandbox: Sandbox) -> None:
    task_id = submit(cli, "Log in again #2fa")
    sandbox.advance(11)
    child = spawn(cli, "watch", task_id, "--interval", "1")
    child.expect(r"sms_code \(hidden\):")
    child.sendline("")  # an empty Enter
    child.expect("a value is required")  # asked again by the form itself, never sent
    child.expect(r"sms_code \(hidden\):")
    assert replies_sent(sandbox, task_id) == 0
    assert state(cli, task_id) == "blocked_on_user"
    child.sendline("246810")
    child.expect(r"1\) sms_code: \(hidden\)")  # the review (issue 15.3): the secret hidden
    child.expect(r"Send this answer\?")
    child.sendline("")
    child.expect("answer sent")
    assert replies_sent(sandbox, task_id) == 1
    sandbox.advance(25)
    assert finish(child) == 0


@pytest.mark.parametrize(
    ("tag", "shown"),
    [
        ("#2fa", r"asks for sms_code \(a secret\) · no expiry given"),
        ("#questions", r"asks for shipping_address, phone, seat_preference · 1[45]m\d\ds left"),
        ("#ask-expire", r"asks for shipping_address, phone, seat_preference · (1m00s|\d+s) left"),
    ],
)
def test_the_time_left_shows_on_the_terminal_when_the_ask_comes(
    cli: Cli, sandbox: Sandbox, tag: str, shown: str
) -> None:
    task_id = submit(cli, f"Timed {tag}")
    sandbox.advance(11)
    child = spawn(cli, "watch", task_id, "--interval", "1")
    child.expect(f"task {task_id} {shown}")
    child.sendintr()
    assert finish(child) == 130


def test_notify_on_a_pty_rings_at_the_ask_and_at_the_end_and_never_carries_the_secret(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    bin_dir, log = fake_notify_send(tmp_path)
    task_id = submit(cli, "Pay my bill #2fa")
    sandbox.advance(11)
    path = {"PATH": f"{bin_dir}{os.pathsep}{cli.env['PATH']}"}
    child = spawn(cli, "watch", task_id, "--notify", "--interval", "1", env=path)
    child.expect_exact(f"\x07\x1b]9;svc: task {task_id} waits on you: asks for sms_code")
    child.expect(r"sms_code \(hidden\):")
    child.sendline("987654")
    child.expect(r"1\) sms_code: \(hidden\)")  # the review (issue 15.3): the secret hidden
    child.expect(r"Send this answer\?")
    child.sendline("")
    child.expect("answer sent")
    sandbox.advance(25)
    child.expect_exact(f"\x1b]777;notify;svc;task {task_id} is completed\x07")
    assert finish(child) == 0
    for _ in range(50):
        if "is completed" in (log.read_text() if log.exists() else ""):
            break
        time.sleep(0.1)
    text = log.read_text()
    assert f"task {task_id} waits on you: asks for sms_code (a secret)" in text
    assert f"task {task_id} is completed" in text
    assert "987654" not in text


def test_events_of_other_tasks_wait_while_a_prompt_is_open_and_follow_it_in_order(
    cli: Cli, sandbox: Sandbox
) -> None:
    """Issue 22.3: with `--all`, other tasks' events scrolled an open hidden prompt away (the
    person typed a code blind) and landed on the prompt's own line. Now they are held while it
    is open and shown after it closes, in order, each on its own line."""
    asking = submit(cli, "Log in #2fa")  # the task whose prompt opens
    others = [submit(cli, f"Other {i} #complete") for i in range(3)]
    sandbox.advance(11)  # the 2fa task asks; the others are still pending
    child = spawn(cli, "watch", "--all", "--interval", "1")
    child.expect(r"sms_code \(hidden\):")
    sandbox.advance(15)  # the others complete while the prompt is open: three events each
    time.sleep(2)  # several polls happen meanwhile (the events they find must wait)
    try:
        open_screen = child.read_nonblocking(100_000, timeout=0.5)
    except pexpect.TIMEOUT:
        open_screen = ""  # nothing was written while the prompt was open
    assert not any(tid in open_screen for tid in others), open_screen
    child.sendline("135790")
    child.expect(r"Send this answer\?")
    child.sendline("")
    child.expect("answer sent")
    sandbox.advance(25)
    assert finish(child) == 0
    screen = (child.before or "").replace("\r", "")
    for line in screen.splitlines():
        if "(hidden):" in line or "Send this answer?" in line:
            assert not any(tid in line for tid in others), line  # never on a prompt's line
    assert asking in screen and all(tid in screen for tid in others)  # held, then shown
