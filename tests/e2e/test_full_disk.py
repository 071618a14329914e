"""A full or read-only disk is a clear answer (issue 29.9), through the `svc` executable.

The journal cannot be written: exit 9, one line naming the ledger's path and the cause, and
nothing paid (the row is written before the first byte). After the service accepted a paid
request, the paid outcome wins with a warning naming the task. `svc spend`, `svc tasks` and
`svc doctor` read what the ledger holds and say what failed. The config file and the secret
store: one line naming the file, exit 1, the old file intact.

How the disk fails, for real and without root tricks that CI may lack:
- a full disk is the kernel's file size limit (RLIMIT_FSIZE 0, SIGXFSZ ignored): every write to
  a file fails with EFBIG, for root too, in any container; and where a mount namespace can be
  made (`unshare`), also a tiny tmpfs that is really full;
- a read-only disk is a read-only bind mount in a mount namespace where one can be made; where
  not, the same promises are checked on the file size limit, which also refuses every write.
"""

from __future__ import annotations

import functools
import resource
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.conftest import SVC, Cli, Result, Sandbox, unique_email, unique_request_id

pytestmark = pytest.mark.e2e

UNAVAILABLE = 9
SIZE_LIMIT = "the file size limit (ulimit -f) is reached"


def _no_file_writes() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.RLIM_INFINITY))


def run_limited(cli: Cli, *args: str, input: str | None = None) -> Result:
    """`svc ARGS` that can write no byte to any file (pipes still work)."""
    proc = subprocess.run(
        [SVC, *args],
        input=input,
        capture_output=True,
        text=True,
        env=cli.env,
        timeout=60,
        check=False,
        preexec_fn=_no_file_writes,
    )
    return Result([SVC, *args], proc.returncode, proc.stdout, proc.stderr)


@functools.cache
def _namespace_prefix() -> tuple[str, ...] | None:
    """How to run a command in a mount namespace of its own here, if at all."""
    for prefix in (("unshare", "-rm"), ("unshare", "-m")):
        probe = [*prefix, "sh", "-c", "mount -t tmpfs -o size=4k tmpfs /mnt 2>/dev/null"]
        try:
            done = subprocess.run(probe, check=False, capture_output=True, timeout=10)
            if done.returncode == 0:
                return prefix
        except (OSError, subprocess.TimeoutExpired):
            continue
    return None


def run_mounted(cli: Cli, setup: str, *args: str) -> Result:
    """`svc ARGS` in a mount namespace after the shell `setup` (mounts over the data dir)."""
    prefix = _namespace_prefix()
    assert prefix is not None
    script = f'{setup} && exec "$0" "$@"'
    proc = subprocess.run(
        [*prefix, "sh", "-c", script, SVC, *args],
        capture_output=True,
        text=True,
        env=cli.env,
        timeout=60,
        check=False,
    )
    return Result([SVC, *args], proc.returncode, proc.stdout, proc.stderr)


def read_only(cli: Cli) -> tuple[Callable[..., Result], str]:
    """A runner whose data dir cannot be written, and the cause svc should name."""
    if _namespace_prefix() is None:  # no namespaces here: the size limit refuses writes too
        return size_limit(cli)
    data = cli.env["SVC_DATA_DIR"]
    setup = f"mount --bind {data} {data} && mount -o remount,bind,ro {data}"
    return functools.partial(run_mounted, cli, setup), "the file system is read-only"


def size_limit(cli: Cli) -> tuple[Callable[..., Result], str]:
    """A runner that can write no byte to a file, on any machine."""
    return functools.partial(run_limited, cli), SIZE_LIMIT


def full_disk(cli: Cli) -> tuple[Callable[..., Result], str]:
    """A runner whose data dir is on a full disk, and the cause svc should name."""
    if _namespace_prefix() is None:
        return size_limit(cli)
    data = cli.env["SVC_DATA_DIR"]
    setup = (
        f"mkdir -p {data} && mount -t tmpfs -o size=4k tmpfs {data} && "
        f"(cat /dev/zero > {data}/filler 2>/dev/null; true)"
    )
    return functools.partial(run_mounted, cli, setup), "the disk is full"


def one_clear_line(result: Result, *words: str) -> str:
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    said = [line for line in result.stderr.splitlines() if line.startswith(("svc:", "warning:"))]
    assert said, result.stderr
    for word in words:
        assert word in said[0], result.stderr
    return said[0]


def paid_submit(cli: Cli, *extra: str) -> tuple[list[str], str]:
    rid = unique_request_id()
    args = ["submit", "write it down", "--email", unique_email(), "--request-id", rid, *extra]
    return args, rid


# --- the journal cannot be written: nothing paid, exit 9 -------------------------------------


@pytest.mark.parametrize("disk", [full_disk, read_only, size_limit])
def test_a_submit_on_a_disk_that_takes_no_write_pays_nothing(
    cli: Cli, sandbox: Sandbox, disk: Callable[[Cli], tuple[Callable[..., Result], str]]
) -> None:
    Path(cli.env["SVC_DATA_DIR"]).mkdir(parents=True, exist_ok=True)  # a fresh machine's
    run, cause = disk(cli)
    args, rid = paid_submit(cli)
    result = run(*args)
    assert result.returncode == UNAVAILABLE, result.stderr
    ledger = str(Path(cli.env["SVC_DATA_DIR"]) / "ledger.sqlite3")
    one_clear_line(result, "cannot write the ledger", ledger, cause)
    assert "nothing was paid" in result.stderr
    assert sandbox.charges_for(rid) == []
    assert result.json()["exit_code"] == UNAVAILABLE


def test_a_resume_on_a_read_only_ledger_pays_nothing(cli: Cli, sandbox: Sandbox) -> None:
    """An existing ledger (opened to read) refuses the journal's first write: exit 9."""
    cli.ok(*paid_submit(cli)[0])
    run, cause = read_only(cli)
    args, rid = paid_submit(cli)
    result = run(*args)
    assert result.returncode == UNAVAILABLE, result.stderr
    one_clear_line(result, "cannot write the ledger", cause)
    assert sandbox.charges_for(rid) == []


# --- after the service accepted: the paid outcome wins ---------------------------------------


def test_a_disk_full_after_acceptance_is_a_warning_naming_the_task(
    cli: Cli, sandbox: Sandbox
) -> None:
    args, rid = paid_submit(cli)
    result = cli.as_process()(*args, env={"SVC_TEST_DISK_FULL_AT": "proof_sent"})
    assert result.returncode == 0, result.stderr  # paid and accepted: never "nothing charged"
    task = result.json()
    assert task["id"].startswith("task_")
    warning = next(line for line in result.stderr.splitlines() if line.startswith("warning:"))
    assert task["id"] in warning and "could not record it" in warning, result.stderr
    assert f"svc submit --request-id {rid}" in warning and SIZE_LIMIT in warning
    assert len(sandbox.charges_for(rid)) == 1
    again = cli.ok(*args)  # the named resume records the same task, and pays nothing more
    assert again.json()["id"] == task["id"]
    assert len(sandbox.charges_for(rid)) == 1
    assert cli.ok("tasks").json()[0]["task_id"] == task["id"]


def test_a_disk_full_before_the_proof_leaves_pays_nothing_and_resumes(
    cli: Cli, sandbox: Sandbox
) -> None:
    """The proof is journaled, the disk fills before it is marked sent: nothing leaves, exit
    9; the resume sends that journaled proof once."""
    args, rid = paid_submit(cli)
    result = cli.as_process()(*args, env={"SVC_TEST_DISK_FULL_AT": "proof_journaled"})
    assert result.returncode == UNAVAILABLE, result.stderr
    line = one_clear_line(result, "cannot write the ledger", SIZE_LIMIT)
    assert result.stderr.count("nothing was") == 1, result.stderr  # said once, not twice
    assert sandbox.charges_for(rid) == [], line
    cli.ok(*args)
    assert len(sandbox.charges_for(rid)) == 1


# --- the readers read what they can and say what failed ---------------------------------------


@pytest.mark.parametrize("disk", [read_only, size_limit])
def test_spend_tasks_and_doctor_read_a_ledger_that_cannot_be_written(
    cli: Cli, disk: Callable[[Cli], tuple[Callable[..., Result], str]]
) -> None:
    paid = cli.ok(*paid_submit(cli)[0]).json()
    run, cause = disk(cli)
    spend = run("spend")
    assert spend.returncode == 0, spend.stderr
    assert spend.json()["paid_usd"] == "1.500000"
    one_clear_line(spend, "warning: showing what the ledger holds", "cannot write", cause)
    tasks = run("tasks")
    assert tasks.returncode == 0, tasks.stderr
    assert [row["task_id"] for row in tasks.json()] == [paid["id"]]
    one_clear_line(tasks, "cannot write the ledger", cause)
    doctor = run("doctor")
    assert doctor.returncode == UNAVAILABLE, doctor.stderr  # nothing could be paid here
    findings = {f["check"]: f for f in doctor.json()["checks"]}
    assert findings["ledger"]["status"] == "fail"
    assert "readable, but cannot write the ledger" in findings["ledger"]["detail"]
    assert findings["money"]["status"] == "ok"  # read all the same


# --- the config file and the secret store ------------------------------------------------------


def test_config_set_on_a_full_disk_is_one_line_and_keeps_the_file(cli: Cli) -> None:
    cli.ok("config", "set", "max_price_usd", "1.20")
    config = Path(cli.env["SVC_CONFIG_DIR"]) / "config.toml"
    before = config.read_text()
    result = run_limited(cli, "config", "set", "max_price_usd", "1.40")
    assert result.returncode == 1, result.stderr
    one_clear_line(result, "cannot write the config file", str(config), SIZE_LIMIT)
    assert config.read_text() == before
    assert [p.name for p in config.parent.glob("*.tmp")] == []


def test_a_secret_store_write_on_a_full_disk_is_one_line(cli: Cli) -> None:
    secrets = Path(cli.env["SVC_CONFIG_DIR"]) / "secrets.json"
    before = secrets.read_bytes()
    result = run_limited(cli, "wallet", "create", "--force")
    assert result.returncode == 1, result.stderr
    one_clear_line(result, "cannot write the secret store", str(secrets), SIZE_LIMIT)
    assert secrets.read_bytes() == before  # the old key is still there
