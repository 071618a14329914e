"""Once a request is paid, its outcome decides the exit code (issue 22.1): an output flag that
fails, a misspelt field or a closed stdout is a warning naming the task, never exit 2
("nothing was sent or charged"), which a script would answer by paying again.

And one rule for a field the output lacks, on every command and every flag: null (empty in a
template) with one warning; a jq program or template that fails outright is exit 2 on a free
command.
"""

from __future__ import annotations

import json
import subprocess
import uuid

import pytest
from tests.conftest import SVC, Cli, Result, Sandbox, unique_email

pytestmark = pytest.mark.e2e


def paid_submit(cli: Cli, *flags: str) -> tuple[Result, str]:
    request_id = f"req_{uuid.uuid4().hex}"
    args = ("submit", "Paid #complete", "--email", unique_email(), "--request-id", request_id)
    return cli(*args, *flags), request_id


def the_paid_task_stands(cli: Cli, sandbox: Sandbox, result: Result, request_id: str) -> str:
    """Exit 0, one charge, the task id on stderr and in the ledger."""
    assert result.returncode == 0, result.stderr
    [charge] = sandbox.charges_for(request_id)
    task_id = str(charge["task_id"])
    assert f"task {task_id}" in result.stderr, result.stderr
    rows = cli.ok("tasks", "--json").json()
    assert any(row["task_id"] == task_id for row in rows)
    return task_id


@pytest.mark.parametrize(
    "flags",
    [
        ("--jq", ".id | tonumber"),  # a jq error at run time
        ("--template", "{{ (id | int) / 0 }}"),  # a template error at run time
    ],
    ids=["jq-error", "template-error"],
)
def test_a_failing_output_flag_after_paying_is_a_warning_and_the_exit_stays_0(
    cli: Cli, sandbox: Sandbox, flags: tuple[str, ...]
) -> None:
    result, request_id = paid_submit(cli, *flags)
    task_id = the_paid_task_stands(cli, sandbox, result, request_id)
    warning = next(line for line in result.stderr.splitlines() if "warning:" in line)
    assert flags[0] in warning and f"svc poll {task_id}" in warning and "paid" in warning
    assert "output_flag_error" not in result.stdout


@pytest.mark.parametrize(
    ("flags", "shown"),
    [
        (("--template", "{{ task_id }}"), "empty"),
        (("--json=task_id",), "null"),
        (("--jq", ".task_id"), "null"),
    ],
    ids=["template", "json-fields", "jq"],
)
def test_a_misspelt_field_is_one_warning_with_every_flag(
    cli: Cli, sandbox: Sandbox, flags: tuple[str, ...], shown: str
) -> None:
    result, request_id = paid_submit(cli, *flags)
    assert result.returncode == 0, result.stderr
    assert f"no field 'task_id' in this output (shown as {shown}); fields: " in result.stderr
    assert len(sandbox.charges_for(request_id)) == 1


def test_a_closed_stdout_after_paying_keeps_exit_0_and_names_the_task(
    cli: Cli, sandbox: Sandbox
) -> None:
    request_id = f"req_{uuid.uuid4().hex}"
    args = ["submit", "Paid #complete", "--email", unique_email(), "--request-id", request_id]
    proc = subprocess.Popen(
        [SVC, *args], env=cli.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader went away before svc wrote the answer
    stderr = proc.stderr.read()
    assert proc.wait(timeout=60) == 0, stderr
    [charge] = sandbox.charges_for(request_id)
    assert f"task {charge['task_id']}" in stderr


def test_batch_lines_that_fail_their_output_flag_after_paying_keep_the_batch_exit(
    cli: Cli, sandbox: Sandbox, tmp_path
) -> None:
    email = unique_email()
    source = tmp_path / "tasks.jsonl"
    source.write_text(
        "\n".join(json.dumps({"task": f"batch {i} #complete", "email": email}) for i in range(2))
    )
    result = cli("submit", "--from", str(source), "--jq", ".task_id | tonumber")
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("was submitted and paid all the same") == 2


def test_on_a_free_command_a_failing_flag_is_exit_2_and_a_missing_field_is_not(
    cli: Cli, sandbox: Sandbox
) -> None:
    result, _ = paid_submit(cli)
    task_id = result.json()["id"]
    bad = cli("poll", task_id, "--jq", ".id | tonumber")
    assert bad.returncode == 2 and "--jq" in bad.stderr
    missing = cli("poll", task_id, "--template", "{{ nope.x }}|{{ state }}")
    assert missing.returncode == 0, missing.stderr  # the same rule as --json=nope
    assert missing.stdout.startswith("|")
    assert "--template: no field 'nope' in this output (shown as empty)" in missing.stderr
