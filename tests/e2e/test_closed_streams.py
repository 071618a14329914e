"""A closed stdout or stderr never changes what a command's exit code says (the contract's
table), never ends in a traceback, and never cuts a `--wait` short.

Every command runs three times as a real process (forked from the tests' fork server): with
both streams open, with stdout a pipe whose reader is gone (`svc ... | true`: EPIPE), and with
stderr such a pipe; the three exit codes must be equal. Then the same with the descriptor not
open at all (`>&-`, `2>&-`), exec'd through a shell as a user types it.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest
from tests.conftest import SVC, Cli, Sandbox, unique_email
from tests.forkserver import ForkServer

pytestmark = pytest.mark.e2e


def commands() -> list[list[str]]:
    """One invocation of every command (a fresh task text for each paid one, so a run is not
    a duplicate of the last), each run as a script runs it."""
    paid = f"Renew my library books {uuid.uuid4().hex[:6]}"
    return [
        ["--version"],
        ["--help"],
        ["submit", "--help"],
        ["poll", "task_nope"],
        ["watch", "task_nope"],
        ["reply", "task_nope", "--message", "yes"],
        ["tasks"],
        ["spend"],
        ["budget"],
        ["receipt", "task_nope"],
        ["config", "list"],
        ["config", "path"],
        ["wallet", "address"],
        ["quote", "Renew my library books"],
        ["guide", "Renew my library books"],
        ["services"],
        ["manifest"],
        ["llms"],
        ["api", "search", "tasks"],
        ["identity", "status"],
        ["entitlements"],
        ["doctor"],
        ["sandbox", "tags"],
        ["submit", paid, "--email", unique_email(), "--dry-run"],
        ["submit", paid, "--email", unique_email(), "--max-price", "1.00"],
        ["submit", "--bogus-flag"],
    ]


def run(
    fork_server: ForkServer, cli: Cli, args: list[str], tmp: Path, closed: str | None
) -> tuple[int, str]:
    """(exit code, stderr or what reached the open stream) with `closed` ("stdout", "stderr"
    or None) a pipe whose reader is gone."""
    read, write = os.pipe()
    os.close(read)
    kept = tmp / f"kept-{uuid.uuid4().hex[:8]}.txt"
    with kept.open("w+") as other:
        out = write if closed == "stdout" else other.fileno()
        err = write if closed == "stderr" else other.fileno()
        child = fork_server.popen(
            args, env=cli.env, stdin=subprocess.DEVNULL, stdout=out, stderr=err
        )
        os.close(write)
        code = child.wait(60)
    return code, kept.read_text()


def test_no_command_changes_its_exit_code_for_a_closed_pipe(
    cli: Cli, sandbox: Sandbox, fork_server: ForkServer, tmp_path: Path
) -> None:
    differing = []
    for args in commands():
        codes = {}
        for closed in (None, "stdout", "stderr"):
            code, text = run(fork_server, cli, args, tmp_path, closed)
            assert "Traceback" not in text, (args, closed, text)
            codes[closed] = code
        if len(set(codes.values())) != 1:
            differing.append((args, codes))
    assert not differing


@pytest.mark.parametrize("redirect", [">&-", "2>&-", "<&- >&- 2>&-"])
def test_a_descriptor_not_open_at_all_is_as_good_as_dev_null(
    cli: Cli, sandbox: Sandbox, redirect: str
) -> None:
    for args, expected in ((["poll", "task_nope"], 7), (["tasks"], 0), (["--version"], 0)):
        script = f'exec "{SVC}" "$@" {redirect}'
        proc = subprocess.run(
            ["sh", "-c", script, "sh", *args],
            env=cli.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert proc.returncode == expected, (args, redirect, proc.stderr)
        assert "Traceback" not in proc.stderr


def test_wait_follows_the_task_to_its_end_when_stdout_goes_away(
    cli: Cli, sandbox: Sandbox, fork_server: ForkServer, tmp_path: Path
) -> None:
    task = f"Paint my shed #fail {uuid.uuid4().hex[:6]}"
    args = ["submit", task, "--email", unique_email(), "--wait", "--json"]
    code, stderr = run(fork_server, cli, args, tmp_path, "stdout")
    assert code == 3, stderr  # the task failed: never 0, never "nothing charged"
    assert "stdout was closed before the answer was written" in stderr
    assert "ended failed" in stderr
    assert stderr.count("stdout was closed") == 1
