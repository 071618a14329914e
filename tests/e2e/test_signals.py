"""Every terminating signal is a Ctrl-C (issue 29.3).

SIGTERM is what a CI cancel, `timeout`, systemd and Kubernetes send; SIGHUP what a closed
terminal sends. By default both end a Python process without a `finally`: a paid request then
vanished without its request id. Each signal is sent at each step of a paid submit's lifecycle
(`SVC_TEST_CRASH_SIGNAL` at `SVC_TEST_CRASH_AT`): the exit is 128 + n, the line names the way
back, and running that way back pays exactly once.
"""

from __future__ import annotations

import re
import shlex
import signal
import subprocess
import time
from pathlib import Path

import pytest
from tests.conftest import SVC, Cli, Sandbox, unique_email, unique_request_id
from tests.forkserver import ForkServer
from tests.reliability_report import record

from svc.testing_hooks import SUBMIT_STEPS

pytestmark = pytest.mark.e2e

SIGNALS = ("TERM", "HUP", "INT")


@pytest.mark.parametrize("step", SUBMIT_STEPS)
def test_each_signal_at_each_step_names_the_way_back_and_pays_once(
    cli: Cli, forked_cli: Cli, sandbox: Sandbox, step: str
) -> None:
    """Each hit is a real process (forked from one that imported svc: tests/forkserver.py), so
    the signal lands in a process of its own; the resume runs in this one."""
    for name in SIGNALS:
        rid = unique_request_id()
        email = unique_email()
        task = f"Signal {name} at {step} #complete"
        env = {"SVC_TEST_CRASH_AT": step, "SVC_TEST_CRASH_SIGNAL": name}
        hit = forked_cli("submit", task, "--email", email, "--request-id", rid, env=env)
        way_back = _way_back(hit.stderr)
        if way_back.startswith("svc watch "):  # it follows the task to its end: move the
            sandbox.advance(25)  # sandbox's clock there, not the test's (20 s a signal)
        resumed = cli(*shlex.split(way_back)[1:]) if way_back else None
        charges = len(sandbox.charges_for(rid))
        expected = f"svc submit --request-id {rid} --email {email} {shlex.quote(task)}"
        if step == "response_recorded":  # accepted and recorded: the task is named
            expected = f"svc watch {sandbox.charges_for(rid)[0]['task_id']}"
        passed = (
            hit.returncode == 128 + getattr(signal, f"SIG{name}")
            and "interrupted" in hit.stderr
            and way_back == expected
            and resumed is not None
            and resumed.returncode == 0
            and charges == 1
        )
        record(
            "signals",
            f"{SUBMIT_STEPS.index(step)}-{step}-{name}",
            {
                "signal": f"SIG{name}",
                "step": step,
                "exit": hit.returncode,
                "way_back": _shape(way_back) if way_back else "none",
                "resumed": resumed.returncode if resumed else "-",
                "charges": charges,
                "passed": passed,
            },
            expected=len(SUBMIT_STEPS) * len(SIGNALS),
        )
        assert passed, (name, step, hit.returncode, hit.stderr, way_back, charges)


def _shape(command: str) -> str:
    """The command without its random ids, so the report reads the same every run."""
    command = re.sub(r"req_[0-9a-f]+", "REQUEST_ID", command.split(" --email", maxsplit=1)[0])
    return re.sub(r"task_[0-9a-f]+", "TASK_ID", command)


def _way_back(stderr: str) -> str:
    """The command the interrupted submit's last lines name."""
    _, found, rest = stderr.partition("without paying again: ")
    return rest.splitlines()[0] if found else ""


def _mcp_server(cli: Cli, hup: object) -> subprocess.Popen[str]:
    """`svc mcp` on pipes, ready (it waits on stdin until the host closes it)."""
    proc = subprocess.Popen(
        [SVC, "mcp"],
        env=cli.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGHUP, hup),  # type: ignore[arg-type]  # noqa: PLW1509
    )
    assert proc.stderr is not None
    assert "serving MCP" in proc.stderr.readline()
    return proc


def test_sighup_ends_a_server_as_ctrl_c_does_unless_nohup_ignored_it(cli: Cli) -> None:
    """Signalled as soon as the server is ready, before it has read a request; a server that
    has answered `initialize` and reads stdin (where the exit once waited on the stdin reader
    until the host closed stdin) is tests/e2e/test_mcp_signals.py's, for every signal."""
    served = _mcp_server(cli, signal.SIG_DFL)
    served.send_signal(signal.SIGHUP)
    assert served.wait(timeout=30) == 128 + signal.SIGHUP
    kept = _mcp_server(cli, signal.SIG_IGN)  # nohup's promise: an ignored SIGHUP stays so
    kept.send_signal(signal.SIGHUP)
    time.sleep(0.5)
    assert kept.poll() is None
    assert kept.stdin is not None
    kept.stdin.close()
    assert kept.wait(timeout=30) == 0


@pytest.mark.parametrize("count", [40, 4], ids=["while-feeding", "while-finishing"])
def test_sigterm_during_a_batch_names_the_command_that_resumes_it(
    cli: Cli, fork_server: ForkServer, sandbox: Sandbox, tmp_path: Path, count: int
) -> None:
    """40 lines: the signal comes while lines are still queued; 4 lines (all queued at once):
    while the last ones finish, where it used to lose the resume command and the stdin copy."""
    email = unique_email()
    lines = [f'{{"task": "term batch {i} #complete", "email": "{email}"}}' for i in range(count)]
    source = tmp_path / "b.jsonl"
    source.write_text("\n".join(lines) + "\n")
    slow = {"kind": "delay", "seconds": 0.3, "method": "POST", "path": "/svc/tasks", "count": 200}
    sandbox.faults(slow)
    proc = fork_server.popen(  # a real process (forked): the signal lands in it
        ["submit", "--from", "-", "--concurrency", "2"],
        env={**cli.env, "SVC_DAILY_CAP": "none"},  # 40 tasks: more than the default cap
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(source.read_text())
    proc.stdin.close()
    first = proc.stdout.readline()  # one line has its result: the batch is paying
    assert '"outcome":"accepted"' in first
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    assert proc.stderr is not None
    err = proc.stderr.read()
    assert proc.returncode == 143, err
    assert "interrupted" in err
    command = err.split("accepted lines are not sent again): ", 1)[1].splitlines()[0]
    spooled = shlex.split(command)[3]
    assert Path(spooled).is_file() and Path(spooled).stat().st_mode & 0o777 == 0o600
    sandbox.clear_faults()
    resumed = cli(*shlex.split(command)[1:], env={"SVC_DAILY_CAP": "none"})
    assert resumed.returncode == 0, resumed.stderr
    outcomes = [doc["outcome"] for doc in resumed.lines()]
    assert len(outcomes) == count
    assert set(outcomes) <= {"accepted", "replayed", "already_accepted"}
    assert "already_accepted" in outcomes  # what the first run paid is not sent again
    request_ids = [doc["request_id"] for doc in resumed.lines()]
    assert all(len(sandbox.charges_for(r)) == 1 for r in request_ids)


def test_a_terminal_that_hangs_up_ends_a_watch_with_129_not_a_crash(
    cli: Cli, sandbox: Sandbox
) -> None:
    """Closing the terminal sends SIGHUP, and then every write to it fails (EIO): the last
    lines cannot be read by anyone, but the exit still says what happened (129), where the
    failed write of 'interrupted' used to end it as an internal error (exit 1)."""
    import os

    import pexpect

    submitted = cli.ok("submit", "Slow #slow", "--email", unique_email()).json()
    env = {k: v for k, v in cli.env.items() if k != "CI"}
    child = pexpect.spawn(SVC, ["watch", submitted["id"]], env=env, encoding="utf-8", timeout=20)
    child.expect("created")  # the ready marker: the watch is drawing
    os.close(child.child_fd)  # the terminal goes away
    _, status = os.waitpid(child.pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 128 + signal.SIGHUP, status
