"""`svc submit --from FILE` in JSON mode runs without Typer (svc.cli.fastpath, issue 34): the
same answers as the full app's command, byte for byte where nothing is paid and line for line
where something is; anything the fast path does not read plainly goes to the full app."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import Cli, Sandbox, unique_email
from tests.e2e.test_batch import write_lines

from svc.cli.fastpath import BATCH_SWITCHES, BATCH_VALUES, parse_batch

pytestmark = pytest.mark.e2e

FULL_APP = {"SVC_NO_FASTPATH": "1"}
HEAVY = {"typer", "click", "pydantic", "pydantic_core", "rich"}


def _file(path: Path, lines: list[object]) -> str:
    return str(write_lines(path, lines))


def test_a_paid_batch_imports_neither_typer_nor_pydantic(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    email = unique_email()
    source = _file(
        tmp_path / "b.jsonl", [{"task": f"lean {i} #slow", "email": email} for i in (1, 2)]
    )
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "svc", "submit", "--from", source],
        capture_output=True,
        text=True,
        env=cli.env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert [json.loads(line)["outcome"] for line in proc.stdout.splitlines()] == ["accepted"] * 2
    loaded = {
        line.rsplit("|", 1)[1].strip().split(".")[0]
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert not loaded & HEAVY, loaded & HEAVY


@pytest.mark.parametrize(
    "extra",
    [
        ["--concurrency", "0"],
        ["--concurrency", "65"],
        ["--pay", "bogus"],
        ["--max-price", "abc"],
        ["--max-price", "１.50"],  # a fullwidth digit: the one amount parser refuses it
        ["--json", "--concurrency=3"],
        ["--jq", ".outcome", "--yes"],
        ["--base-url", "http://example.com"],  # cleartext to a remote host
        ["--profile", "nope"],
    ],
)
def test_refusals_are_the_full_apps_byte_for_byte(
    cli: Cli, sandbox: Sandbox, tmp_path: Path, extra: list[str]
) -> None:
    """Nothing is paid in these (a bad line holds the batch, or an option is refused), so the
    two runs must say exactly the same."""
    source = _file(tmp_path / "bad.jsonl", [{"task": "x #slow", "email": "not-an-address"}])
    fast = cli("submit", "--from", source, *extra)
    full = cli("submit", "--from", source, *extra, env=FULL_APP)
    assert fast.returncode != 0
    assert (fast.returncode, fast.stdout, fast.stderr) == (
        full.returncode,
        full.stdout,
        full.stderr,
    )


def test_clicks_completion_variable_changes_neither_path(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    """svc completes through `svc __complete`; Click's `_SVC_COMPLETE`, read before parsing,
    made the full app answer "Shell complete not supported" (exit 1) where the fast path ran
    the batch: one command, two outcomes. Now both run it."""
    source = _file(tmp_path / "bad.jsonl", [{"task": "x #slow", "email": "not-an-address"}])
    plain = cli("submit", "--from", source)
    assert plain.returncode == 2
    for value in ("bash_complete", "bash_source", "zsh_complete"):
        for extra in ({}, FULL_APP):
            got = cli("submit", "--from", source, env={"_SVC_COMPLETE": value, **extra})
            assert (got.returncode, got.stdout, got.stderr) == (
                plain.returncode,
                plain.stdout,
                plain.stderr,
            )


def test_a_missing_file_is_the_full_apps_line(cli: Cli, tmp_path: Path) -> None:
    missing = str(tmp_path / "absent.jsonl")
    fast = cli("submit", "--from", missing, "--email", "a@b.co")
    full = cli("submit", "--from", missing, "--email", "a@b.co", env=FULL_APP)
    assert fast.returncode == 2
    assert (fast.returncode, fast.stdout, fast.stderr) == (
        full.returncode,
        full.stdout,
        full.stderr,
    )


def _shape(stdout: str, stderr: str) -> tuple[list[tuple[object, ...]], list[str]]:
    """A paid batch's results without what differs from run to run (ids, times, rates, and
    the order the workers finished in)."""
    lines = [json.loads(line) for line in stdout.splitlines()]
    rows = sorted((d["line"], d["outcome"], sorted(d), d.get("exit_code")) for d in lines)
    said = re.sub(r"in \d+\.\d+s \([\d.]+ tasks/s\)", "in Ts (R tasks/s)", stderr)
    return rows, sorted(said.splitlines())


def test_a_paid_batch_reads_as_the_full_apps(cli: Cli, sandbox: Sandbox, tmp_path: Path) -> None:
    """Each run pays its own lines (a re-run would find them accepted): the results must have
    the same lines, outcomes, fields and summary."""
    runs = []
    for name, env in (("fast", {}), ("full", FULL_APP)):
        email = unique_email()
        lines: list[object] = [{"task": f"{name} {i} #complete"} for i in range(3)]
        lines.append({"task": f"{name} refused #complete", "email": "x"})
        source = _file(tmp_path / f"{name}.jsonl", lines)
        args = ["submit", "--skip-bad-lines", "-e", email, "--from", source, "-y"]
        result = cli(*args, "--concurrency", "2", "--max-price=1.50", "--pay", "x402", env=env)
        assert result.returncode == 0, result.stderr
        runs.append(_shape(result.stdout, result.stderr.replace(email, "EMAIL")))
    assert runs[0] == runs[1]
    assert [row[1] for row in runs[0][0]].count("accepted") == 3


@pytest.mark.parametrize(
    "argv",
    [
        ["submit"],  # no --from
        ["submit", "task text", "--from", "f"],  # a task beside the file
        ["submit", "--from"],
        ["submit", "--from", ""],
        ["submit", "--from="],
        ["submit", "--from", "--concurrency", "3"],  # an option where the path goes
        ["submit", "--from", "f", "--wait"],
        ["submit", "--from", "f", "--help"],
        ["submit", "--from", "f", "--dry-run"],
        ["submit", "--from", "f", "--request-id", "r1"],
        ["submit", "--from", "f", "--", "x"],
        ["submit", "--from", "f", "--concurrency", "８"],  # fullwidth: Typer's own error
        ["submit", "--from", "f", "--concurrency", "-1"],
        ["submit", "--from", "f", "--concurrency", "+3"],
        ["submit", "--from", "f", "--concurrency", "1" * 10],
        ["submit", "--from", "f", "-e=a@b.co"],  # Click reads `=a@b.co` as the value
        ["submit", "--from", "f", "--yes=1"],
        ["--from", "f", "submit"],  # the command's option before its name
        ["poll", "--from", "f"],
        ["submit", "--from", "f", "submit"],
    ],
)
def test_anything_unusual_goes_to_the_full_app(argv: list[str]) -> None:
    assert parse_batch(argv) is None, argv


def test_the_fast_path_reads_what_click_reads() -> None:
    got = parse_batch(
        ["--json", "submit", "--from=-", "-e", "a@b.co", "--concurrency", "08", "-y", "-v"]
    )
    assert got is not None
    assert got.flags == {"json_output": True, "verbose": True}
    assert got.options == {"from_file": "-", "email": "a@b.co", "concurrency": "08", "yes": True}
    later = parse_batch(["submit", "--from", "a", "--from", "b", "--pay", "mpp", "--pay=card"])
    assert later is not None and later.options == {"from_file": "b", "pay": "card"}


def test_the_batch_options_are_the_typer_commands() -> None:
    """Each spelling the fast path reads is an option of `svc submit` that takes a value or is
    a switch as it is read, named as the command's parameter: an option renamed or changed in
    the command cannot leave the fast path reading the old one."""
    import typer

    from svc.commands import submit

    command = typer.main.get_command(submit.app)
    by_flag = {flag: param for param in command.params for flag in param.opts}
    for table, is_switch in ((BATCH_SWITCHES, True), (BATCH_VALUES, False)):
        for flag, name in table.items():
            param = by_flag[flag]
            assert param.name == name, flag
            assert getattr(param, "is_flag", False) is is_switch, flag
