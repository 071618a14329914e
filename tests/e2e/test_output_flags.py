"""gh-grade output flags (issue 15.5): `--json FIELDS`, `--jq EXPR`, `--template TPL` on every
command that prints JSON (and per line on NDJSON streams), and a pager for long terminal
output, off when piped. Through the `svc` executable, against the sandbox."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pexpect
import pytest
from tests.conftest import SVC, Cli, Sandbox, unique_email

pytestmark = pytest.mark.e2e

FORBIDDEN = ("\x1b]", "\x1b[2J", "\x07", "\x9b", "\u202e", "\x08")


def submit(cli: Cli, text: str) -> tuple[str, str]:
    rid = f"req_{uuid.uuid4().hex}"
    task = cli.ok("submit", text, "--email", unique_email(), "--request-id", rid).json()
    return str(task["id"]), rid


def spawn(
    cli: Cli,
    *args: str,
    env: dict[str, str] | None = None,
    rows: int = 50,
    keep_svc_pager: bool = True,
) -> str:
    """What a person's terminal shows (CI unset: a person's shell; without SVC_PAGER when
    `keep_svc_pager` is False, so PAGER decides)."""
    drop = {"CI"} if keep_svc_pager else {"CI", "SVC_PAGER"}
    full = {**{k: v for k, v in cli.env.items() if k not in drop}, "NO_COLOR": "1", **(env or {})}
    child = pexpect.spawn(
        SVC, list(args), env=full, encoding="utf-8", timeout=30, dimensions=(rows, 120)
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    return str(child.before)


def test_json_fields_keep_only_those_on_objects_lists_and_streams(
    cli: Cli, sandbox: Sandbox
) -> None:
    task_id, rid = submit(cli, "Fields #complete")
    assert cli.ok("poll", task_id, "--json=id,state").json() == {"id": task_id, "state": "pending"}
    assert cli.ok("poll", "--json", "state,id", task_id).json() == {
        "state": "pending",
        "id": task_id,
    }
    rows = cli.ok("tasks", "--json=request_id,task_id").json()
    assert {"request_id": rid, "task_id": task_id} in rows and all(len(r) == 2 for r in rows)
    sandbox.advance(25)
    lines = cli.ok("watch", task_id, "--interval", "1", "--json=id,state").lines()
    assert lines[-1] == {"id": task_id, "state": "completed"}
    assert all(set(line) == {"id", "state"} for line in lines)


@pytest.mark.parametrize(
    "args",
    [("--json", "poll", "{id}"), ("poll", "--json", "{id}"), ("poll", "{id}", "--json")],
)
def test_a_bare_json_never_swallows_the_command_or_the_id(
    cli: Cli, sandbox: Sandbox, args: tuple[str, ...]
) -> None:
    task_id, _ = submit(cli, "Bare #complete")
    doc = cli.ok(*(a.format(id=task_id) for a in args)).json()
    assert doc["id"] == task_id and "events" in doc  # the whole detail


def test_an_unknown_field_is_null_and_named_with_the_ones_there_are(
    cli: Cli, sandbox: Sandbox
) -> None:
    task_id, _ = submit(cli, "Typo #complete")
    result = cli("poll", task_id, "--json=id,stat")
    assert result.returncode == 0  # a typo never turns a paid success into a failure exit
    assert result.json() == {"id": task_id, "stat": None}
    assert "no field 'stat' in this output" in result.stderr and "state" in result.stderr


def test_jq_prints_strings_raw_and_other_values_as_json(cli: Cli, sandbox: Sandbox) -> None:
    task_id, _ = submit(cli, "Jq #complete")
    assert cli.ok("poll", task_id, "--jq", ".state").stdout == "pending\n"
    assert cli.ok("poll", task_id, "--jq", "{id, n: (.events | length)}").json()["id"] == task_id
    listed = cli.ok("tasks", "--jq", ".[].task_id").stdout.split()
    assert task_id in listed


def test_template_formats_objects_and_lists(cli: Cli, sandbox: Sandbox) -> None:
    task_id, _ = submit(cli, "Template #complete")
    out = cli.ok("poll", task_id, "--template", "{{ id }} is {{ state }}").stdout
    assert out == f"{task_id} is pending\n"
    listed = cli.ok(
        "tasks", "--template", "{% for t in items %}{{ t.task_id }};{% endfor %}"
    ).stdout
    assert f"{task_id};" in listed


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--jq", ".[[[", "--jq: jq: error"),
        ("--template", "{{ id ", "--template: unexpected end of template"),
        ("--json=id,", "", "is not a field name"),
    ],
)
def test_a_bad_expression_is_exit_2_before_anything_is_paid(
    cli: Cli, sandbox: Sandbox, flag: str, value: str, message: str
) -> None:
    rid = f"req_{uuid.uuid4().hex}"
    args = ["submit", "Never sent #complete", "--email", unique_email(), "--request-id", rid]
    result = cli(*args, *([flag, value] if value else [flag]))
    assert result.returncode == 2 and message in result.stderr
    assert sandbox.charges_for(rid) == []  # compiled at start: nothing sent, nothing signed


def test_a_jq_error_at_run_time_is_one_line(cli: Cli, sandbox: Sandbox) -> None:
    task_id, _ = submit(cli, "Runtime #complete")
    result = cli("poll", task_id, "--jq", ".state | tonumber")
    assert result.returncode == 2 and "cannot be parsed as a number" in result.stderr


def test_server_text_out_of_jq_and_template_is_inert_on_a_terminal(
    cli: Cli, sandbox: Sandbox
) -> None:
    task_id, _ = submit(cli, "Hostile #complete #hostile")
    sandbox.advance(25)
    shown = ("--jq", ".result.output.hostile"), ("--template", "{{ result.summary }} {{ reason }}")
    for flag, value in shown:
        screen = spawn(cli, "poll", task_id, flag, value)
        assert "rich link" in screen  # shown, as text
        assert not [bad for bad in FORBIDDEN if bad in screen], (flag, screen[:300])
    piped = cli.ok("poll", task_id, "--jq", ".result.output.hostile").stdout
    assert "\x1b]0;pwned" in piped  # into a pipe: the server's text as it came, for the script


def _recording_pager(tmp_path: Path) -> tuple[str, Path]:
    marker = tmp_path / "paged.txt"
    script = tmp_path / "pager.sh"
    script.write_text(f"#!/bin/sh\ncat > {marker}\necho PAGED\n")
    script.chmod(0o755)
    return str(script), marker


def test_long_terminal_output_goes_through_the_pager(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    pager, marker = _recording_pager(tmp_path)
    screen = spawn(cli, "llms", env={"SVC_PAGER": pager}, rows=10)
    assert "PAGED" in screen and marker.read_text().count("\n") > 10
    assert not [bad for bad in FORBIDDEN if bad in marker.read_text()]


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (("--no-pager", "llms"), {"SVC_PAGER": "{pager}"}),
        (("llms",), {"SVC_PAGER": "", "PAGER": "{pager}"}),
        (("llms",), {"PAGER": "cat"}),
    ],
)
def test_the_pager_can_be_turned_off(
    cli: Cli, sandbox: Sandbox, tmp_path: Path, args: tuple[str, ...], env: dict[str, str]
) -> None:
    pager, marker = _recording_pager(tmp_path)
    env = {name: value.format(pager=pager) for name, value in env.items()}
    screen = spawn(cli, *args, env=env, rows=10, keep_svc_pager="SVC_PAGER" in env)
    assert "PAGED" not in screen and not marker.exists()


def test_no_pager_into_a_pipe_or_for_short_output(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    pager, marker = _recording_pager(tmp_path)
    piped = cli.ok("llms", env={"SVC_PAGER": pager})
    assert "PAGED" not in piped.stdout and not marker.exists()
    task_id, _ = submit(cli, "Short #complete")
    screen = spawn(cli, "poll", task_id, env={"SVC_PAGER": pager}, rows=50)
    assert task_id in screen and not marker.exists()


def test_jq_on_poll_costs_under_30_ms_or_a_quarter_of_the_poll(cli: Cli, sandbox: Sandbox) -> None:
    """Best of alternating runs, on the poll fast path, against plain --json, in the child's
    own CPU time: wall time on a loaded machine measures the other processes (a loaded run
    saw 80 ms of wall for jq's share where its CPU cost had not changed)."""
    import resource
    import subprocess

    task_id, _ = submit(cli, "Timing #complete")
    env = {**os.environ, **cli.env}

    def once(*extra: str) -> float:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(
            [SVC, "poll", task_id, "--json", *extra], env=env, capture_output=True, check=True
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)

    plain, jq = [], []
    for _ in range(9):  # alternating, so load on this shared machine hits both alike
        plain.append(once())
        jq.append(once("--jq", ".state"))
    extra_ms = 1000 * (min(jq) - min(plain))  # the least disturbed run of each
    plain_ms = 1000 * min(plain)
    print(f"--jq adds {extra_ms:.1f} ms of CPU to svc poll --json ({plain_ms:.1f} ms; best of 9)")
    # 30 ms on an idle machine; a loaded one slows every run alike (caches, frequency), so
    # the budget grows with the plain run (a quarter of it), never below 30 ms.
    budget_ms = max(30.0, plain_ms / 4)
    assert extra_ms < budget_ms, (extra_ms, plain_ms)
    # Only the state (pending, or completed once the sandbox's clock ran past it meanwhile).
    shaped = json.loads(cli.ok("poll", task_id, "--jq", "{state}").stdout)
    assert list(shaped) == ["state"] and shaped["state"] in ("pending", "completed"), shaped


def test_jq_and_template_together_and_a_template_failing_at_run_time_are_exit_2(
    cli: Cli, sandbox: Sandbox
) -> None:
    task_id, _ = submit(cli, "Both #complete")
    both = cli("poll", task_id, "--jq", ".id", "--template", "{{ id }}")
    assert both.returncode == 2 and "--jq and --template cannot be combined" in both.stderr
    assert both.stdout == ""  # --jq/--template: stdout stays empty on a failure (issue 30.1)
    failing = cli("poll", task_id, "--template", "{{ 1 // 0 }}")
    assert failing.returncode == 2 and "--template: " in failing.stderr
    assert "Traceback" not in failing.stderr
