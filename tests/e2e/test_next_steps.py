"""After `submit` and `poll`, a person at a terminal is told the command to run next."""

from __future__ import annotations

import pytest
from tests.conftest import Cli, Sandbox, unique_email
from tests.person import finish, spawn_person

pytestmark = pytest.mark.e2e


def test_submit_and_poll_on_a_terminal_name_the_next_command(cli: Cli, sandbox: Sandbox) -> None:
    child = spawn_person(cli, "submit", "Next please #2fa", "--email", unique_email())
    child.expect(r"next: svc watch (task_\w+)")
    task_id = child.match.group(1)
    assert finish(child) == 0
    sandbox.advance(11)
    child = spawn_person(cli, "poll", task_id)
    child.expect(f"next: svc reply {task_id}")
    assert finish(child) == 0


def test_piped_output_carries_no_hint(cli: Cli) -> None:
    result = cli.ok("submit", "Next please", "--email", unique_email())
    assert "next:" not in result.stderr and "next:" not in result.stdout
    assert "next:" not in cli.ok("poll", result.json()["id"]).stderr
