"""Hostile server text (issue 6.3) on a real terminal (pexpect pty), and exact in JSON.

The sandbox's `#hostile` tag makes every string it writes carry terminal escapes (clear screen,
window title, OSC 52 clipboard write, OSC 8 hyperlinks, colours), C0/C1 controls, rich markup
(`[link=…]`, `[bold red]`), bidi overrides, and makes the result huge. On a terminal all of it
must be shown inert (no escape reaches the screen, markup printed literally) and bounded; with
--json the service's object must come out exactly as sent.
"""

from __future__ import annotations

import json
import uuid

import pexpect
import pytest
from tests.conftest import SVC, Cli, Sandbox, unique_email
from tests.reliability_report import record

from svc_sandbox.scenarios import HOSTILE

pytestmark = pytest.mark.e2e

# What must never reach the screen: escapes that act, controls, bidi overrides.
FORBIDDEN = (
    "\x1b]",
    "\x1b[2J",
    "\x1b[H",
    "\x1b[31m",
    "\x07",
    "\x08",
    "\x00",
    "\x9b",
    "\u202e",
    "\u2066",
    "\x7f",
)
SCREEN_BOUND = 40_000  # characters: the result alone is 300,000


def spawn(cli: Cli, *args: str) -> pexpect.spawn:
    env = {k: v for k, v in cli.env.items() if k != "CI"}  # a person's shell, not CI
    return pexpect.spawn(
        SVC,
        list(args),
        env=env,
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 160),
        codec_errors="replace",
    )


def submit(cli: Cli, text: str) -> str:
    rid = f"req_{uuid.uuid4().hex}"
    return str(cli.ok("submit", text, "--email", unique_email(), "--request-id", rid).json()["id"])


def _inert(screen: str) -> list[str]:
    return [repr(bad) for bad in FORBIDDEN if bad in screen]


def _record(surface: str, index: int, inert: bool, exact: bool) -> None:
    record(
        "hostile",
        f"{index:02d}",
        {
            "surface": surface,
            "inert": "yes" if inert else "NO",
            "json_exact": "yes" if exact else "NO",
            "faults": 1,
            "passed": inert and exact,
        },
        expected=6,
    )


def _json_exact(cli: Cli, sandbox: Sandbox, task_id: str) -> bool:
    """--json poll gives back the service's object exactly (control characters escaped)."""
    out = cli.ok("--json", "poll", task_id).stdout
    doc = json.loads(out)
    truth = sandbox.internals(task_id)["task"]
    return doc == truth and "\x1b" not in out and "\x07" not in out


def test_hostile_result_reason_and_events_are_inert_and_bounded(cli: Cli, sandbox: Sandbox) -> None:
    task_id = submit(cli, "Hostile result #complete #hostile")
    sandbox.advance(25)
    child = spawn(cli, "poll", task_id)
    child.expect(pexpect.EOF)
    screen = child.before or ""
    bad = _inert(screen)
    bounded = len(screen) < SCREEN_BOUND
    literal = "[link=https://evil.example/]rich link[/link]" in screen.replace("\r\n", "")
    exact = _json_exact(cli, sandbox, task_id)
    _record("result, reason, event payload (poll)", 0, not bad and bounded and literal, exact)
    assert not bad, bad
    assert bounded, len(screen)
    assert literal  # markup printed as text, never interpreted
    assert "completed" in screen and "…" in screen  # the huge output was cut
    assert exact


def test_hostile_2fa_question_inside_watch_is_inert(cli: Cli, sandbox: Sandbox) -> None:
    task_id = submit(cli, "Hostile ask #2fa #hostile")
    sandbox.advance(11)
    child = spawn(cli, "watch", task_id, "--interval", "1")
    child.expect("Enter the 6-digit code")
    child.expect(r"sms_code \(hidden\):")
    asked = (child.before or "") + (child.after or "")
    child.sendline("246810")
    child.expect(r"Send this answer\?")  # the review (issue 15.3)
    asked += (child.before or "") + (child.after or "")
    child.sendline("")
    child.expect("answer sent")
    sandbox.advance(25)
    child.expect(pexpect.EOF)
    screen = asked + (child.before or "")
    bad = _inert(screen)
    exact = _json_exact(cli, sandbox, task_id)
    _record("2FA question (watch prompt)", 1, not bad, exact)
    assert not bad, bad
    assert exact


def test_hostile_questions_and_note_in_the_reply_form_are_inert(cli: Cli, sandbox: Sandbox) -> None:
    task_id = submit(cli, "Hostile questions #questions #hostile")
    sandbox.advance(11)
    child = spawn(cli, "reply", task_id)
    child.expect("shipping_address")
    child.sendline("1 Main St")
    child.expect("phone")
    child.sendline("5550100")
    child.expect(r"\(window/aisle\)")
    screen = (child.before or "") + (child.after or "")
    child.sendline("aisle")
    child.expect(r"Send this answer\?")  # the review shows the answers, server text inert
    screen += (child.before or "") + (child.after or "")
    child.sendline("")
    child.expect(pexpect.EOF)
    screen += child.before or ""
    bad = _inert(screen)
    exact = cli.ok("--json", "poll", task_id).json()["state"] == "pending"
    _record("questions and note (reply form)", 2, not bad and "Window or aisle" in screen, exact)
    assert not bad, bad
    assert "Window or aisle" in screen


def test_hostile_merchant_name_is_inert(cli: Cli, sandbox: Sandbox) -> None:
    task_id = submit(cli, "Hostile merchant #decline #hostile")
    sandbox.advance(11)
    child = spawn(cli, "poll", task_id)
    child.expect(pexpect.EOF)
    screen = child.before or ""
    bad = _inert(screen)
    shown = "Example Air" in screen
    exact = _json_exact(cli, sandbox, task_id)
    _record("merchant name and note (payment ask)", 3, not bad and shown, exact)
    assert not bad, bad
    assert shown and exact


def test_hostile_error_detail_from_the_service_is_one_inert_line(
    cli: Cli, sandbox: Sandbox
) -> None:
    task_id = submit(cli, "Hostile error #2fa #hostile")
    sandbox.advance(11)
    child = spawn(cli, "reply", task_id, "--message", " ")
    child.expect(pexpect.EOF)
    child.close()
    screen = child.before or ""
    bad = _inert(screen)
    lines = [line for line in screen.splitlines() if line.startswith("svc:")]
    piped = cli("reply", task_id, "--message", " ")
    doc = json.loads(piped.stdout)
    exact = HOSTILE in doc["detail"] and piped.returncode == 2
    _record("error detail (422 from the service)", 4, not bad and len(lines) == 1, exact)
    assert child.exitstatus == 2
    assert "evil.example" in screen  # the service's hostile detail was shown, inert
    assert not bad, bad
    assert len(lines) == 1, screen
    assert exact, piped


def test_hostile_detail_in_an_injected_error_is_inert(cli: Cli, sandbox: Sandbox) -> None:
    task_id = submit(cli, "Plain #complete")
    sandbox.faults(
        {
            "kind": "status",
            "status": 409,
            "method": "GET",
            "path": "/svc/tasks/",
            "detail": HOSTILE * 50,
        }
    )
    child = spawn(cli, "poll", task_id)
    child.expect(pexpect.EOF)
    child.close()
    screen = child.before or ""
    bad = _inert(screen)
    lines = [line for line in screen.splitlines() if line.startswith("svc:")]
    bounded = all(len(line) <= 1100 for line in lines)
    sandbox.faults(
        {"kind": "status", "status": 409, "method": "GET", "path": "/svc/tasks/", "detail": HOSTILE}
    )
    piped = cli("poll", task_id)
    exact = json.loads(piped.stdout)["detail"].endswith(HOSTILE)
    _record("error detail (injected 409, 50x)", 5, not bad and len(lines) == 1 and bounded, exact)
    assert child.exitstatus == 8
    assert not bad, bad
    assert len(lines) == 1 and bounded, lines
    assert exact
