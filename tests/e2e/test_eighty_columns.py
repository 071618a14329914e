"""80 columns (issue 30.9): every view drawn on a terminal 80 columns wide wraps between words.

A word split by the terminal (`(i` / `n the user's app)`, a request id across two lines) is a
word of the narrow screen that the same view at 400 columns never shows: each view is drawn at
both widths on a pty, and every word of the narrow one must be a word of the wide one.
"""

from __future__ import annotations

import re
import sys
import uuid
from typing import Any

import pexpect
import pytest
from tests.conftest import SVC, Cli, Sandbox, unique_email

pytestmark = pytest.mark.e2e

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"  # the progress line's frames on a UTF-8 terminal
BOX = "│┃━╇─╭╮╰╯┏┓┗┛┡┩╭╮"


def drawn(
    cli: Cli, *args: str, columns: int, code: int = 0, env: dict[str, str] | None = None
) -> str:
    """What a person sees on a pty `columns` wide (stdout and stderr, colours off); the
    progress line's redraws are left out."""
    full = {**cli.env, "NO_COLOR": "1", "COLUMNS": str(columns), **(env or {})}
    full.pop("CI", None)
    child = pexpect.spawn(
        SVC, list(args), env=full, dimensions=(100, columns), encoding="utf-8", timeout=60
    )
    child.logfile_read = sys.stderr
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == code, child.before
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", str(child.before))
    kept = []
    for line in text.replace("\r\n", "\n").split("\n"):
        pieces = [p for p in line.split("\r") if p.strip() and p.strip()[0] not in SPINNER]
        kept.append(pieces[-1] if pieces else "")
    return "\n".join(kept)


def words(screen: str) -> set[str]:
    """The words of a screen; bare numbers are left out (a latency differs between runs)."""
    return {w for w in re.findall(rf"[^\s{BOX}]+", screen) if not w.isdigit()}


def assert_fits(cli: Cli, *args: str, code: int = 0, **kwargs: Any) -> str:
    narrow = drawn(cli, *args, columns=80, code=code, **kwargs)
    wide = drawn(cli, *args, columns=400, code=code, **kwargs)
    split = words(narrow) - words(wide)
    assert not split, f"split at 80 columns: {sorted(split)}\n{narrow}"
    assert all(fits(line) for line in narrow.splitlines()), narrow
    return narrow


def fits(line: str) -> bool:
    """Within 80 columns, or one word longer than that alone on its line (a test's temp path
    is: split, it could not be copied)."""
    return len(line) <= 80 or len(line.split()) == 1


def submit(cli: Cli, text: str) -> str:
    rid = f"req_{uuid.uuid4().hex}"
    return str(cli.ok("submit", text, "--email", unique_email(), "--request-id", rid).json()["id"])


def test_a_task_and_its_events(cli: Cli, sandbox: Sandbox) -> None:
    task_id = submit(cli, "Buy the flight to Lisbon for the whole family #approval")
    sandbox.advance(30)
    shown = assert_fits(cli, "poll", task_id)
    events = [line for line in shown.splitlines() if "created" in line or "state_changed" in line]
    assert events and not any(task_id in line for line in events), shown  # no repeated id
    assert "ago" in shown or "just now" in shown  # relative, as `svc tasks` shows times
    assert "T" in cli.ok("poll", task_id).json()["events"][0]["created_at"]  # JSON keeps ISO


def test_a_payment_ask_left_waiting(cli: Cli, sandbox: Sandbox) -> None:
    task_id = submit(cli, "Buy the flight #approval")
    sandbox.advance(30)
    shown = assert_fits(cli, "watch", task_id, "--no-input", code=6)
    assert "(in the user's app)" in " ".join(shown.split()), shown
    assert f"`svc watch {task_id}`" in shown and f"`svc reply {task_id} --decline-payment`" in shown


def test_tables_for_money_and_the_catalog(cli: Cli, sandbox: Sandbox) -> None:
    submit(cli, "Table at eighty #complete")
    cli.ok("config", "set", "daily_cap_usd", "9")
    spent = assert_fits(cli, "spend")
    assert "refunded" in spent and "refund…" not in spent  # headers are never cut
    assert_fits(cli, "tasks")
    assert_fits(cli, "services", "show", "tasks")
    assert_fits(cli, "manifest")


def test_doctor_and_a_resume_hint(cli: Cli, sandbox: Sandbox) -> None:
    assert_fits(cli, "doctor", code=0)
    paid = {"method": "POST", "path": "/svc/tasks", "header": "x-payment", "count": 9}
    sandbox.faults({"kind": "drop_after", **paid})  # the paid answer is lost: exit 10
    args = ["submit", "A long enough task to make the resume hint wrap", "--email", unique_email()]
    narrow = drawn(cli, *args, "--request-id", f"req_{uuid.uuid4().hex}", columns=80, code=10)
    request_ids = re.findall(r"req_[0-9a-f]+", narrow)
    assert request_ids and all(len(rid) == 36 for rid in request_ids), narrow  # never split
    assert all(fits(line) for line in narrow.splitlines()), narrow


def test_many_waiting_tasks_are_counted_not_listed(cli: Cli, sandbox: Sandbox) -> None:
    """`watch --all --no-input` with many waiting tasks: a count and the first few reply
    commands, never one line of ids cut with `…`."""
    ids = [submit(cli, f"Wait {n} #questions") for n in range(8)]
    sandbox.advance(30)
    shown = assert_fits(cli, "watch", "--all", "--no-input", code=6)
    assert "8 tasks wait on the user" in shown and "…" not in shown, shown
    assert "and 5 more" in shown and "svc tasks --state blocked_on_user" in shown, shown
    assert sum(task_id in shown for task_id in ids) >= 3
