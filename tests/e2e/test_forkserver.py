"""The fork server (tests/forkserver.py) gives what an exec of the installed `svc` gives.

Process-bound tests (signals, crash points, the fault storm) fork their processes from a server
that imported svc once. That is only sound while a forked child is indistinguishable from an
exec'd one after start-up: the same output, exit codes, signal dispositions, descriptors,
environment and directory, and the crash points and signals land the same way. Each test here
runs the same command both ways and compares.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.conftest import SVC, Cli, Sandbox, _base_env, unique_email, unique_request_id
from tests.forkserver import Forked, ForkServer

pytestmark = pytest.mark.e2e

Started = subprocess.Popen[str] | Forked


def _exec(
    cli: Cli,
    *args: str,
    cwd: Path | None = None,
    preexec_fn: Callable[[], object] | None = None,
) -> subprocess.Popen[str]:
    """The installed executable, exec'd as the tests used to run it."""
    return subprocess.Popen(
        [SVC, *args],
        env=cli.env,
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=preexec_fn,  # noqa: PLW1509 - the child is single-threaded Python
    )


@pytest.mark.parametrize(
    "args",
    [
        ["--version"],
        ["--help"],
        ["config", "list"],
        ["nonsense"],
        ["submit", "--help"],
        ["tasks", "--json"],
        ["poll", "task_nothing", "--json"],
    ],
    ids=" ".join,
)
def test_output_and_exit_code_match_an_exec(
    cli: Cli, fork_server: ForkServer, args: list[str]
) -> None:
    real = cli.as_process()(*args)
    forked = cli.as_forked(fork_server)(*args)
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        real.returncode,
        real.stdout,
        real.stderr,
    )


def test_stdin_is_the_callers(tmp_path: Path, fork_server: ForkServer) -> None:
    """A key read from a piped stdin, as `svc wallet import` reads it, into a fresh home."""
    key = "0x" + "11" * 32
    seen = []
    for name in ("exec", "fork"):
        home = tmp_path / name
        home.mkdir()
        cli = Cli(home, _base_env(home))
        run = cli.as_process() if name == "exec" else cli.as_forked(fork_server)
        done = run("wallet", "import", input=key + "\n")
        seen.append((done.returncode, done.stdout, done.stderr))
    assert seen[0] == seen[1]
    assert seen[0][0] == 0 and "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A" in seen[0][1]


def _waiting_mcp(cli: Cli, start: Callable[..., Started]) -> Started:
    """`svc mcp` on stdio, ready: it waits on stdin until its host closes it (ended here by
    closing stdin: a signal once it serves waits on anyio's worker thread, a bug of its own)."""
    proc = start()
    assert proc.stderr is not None
    assert "serving MCP" in proc.stderr.readline()
    return proc


def _process_facts(pid: int) -> dict[str, object]:
    """What the kernel says of a process: its descriptors (what each is), directory and signal
    masks (ignored, caught, blocked). Not /proc's environ: that is the block exec was given,
    never what the process set later (tests/forkserver.py's children set theirs)."""
    status = dict(
        line.split(":\t", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    fds = {}
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(FileNotFoundError):  # closed meanwhile
            fds[int(fd)] = re.sub(r":\[\d+\]$", "", os.readlink(f"/proc/{pid}/fd/{fd}"))
    return {
        "fds": dict(sorted(fds.items())),
        "cwd": os.readlink(f"/proc/{pid}/cwd"),
        "ignored": status["SigIgn"],
        "caught": status["SigCgt"],
        "blocked": status["SigBlk"],
    }


def _settled_alike(one: int, other: int, seconds: float = 15) -> tuple[object, object]:
    """Both processes' facts, once they agree (a server opens its event loop's descriptors just
    after its ready line) or `seconds` passed: a descriptor leaked into one never settles."""
    deadline = time.monotonic() + seconds
    while True:
        facts = _process_facts(one), _process_facts(other)
        if facts[0] == facts[1] or time.monotonic() > deadline:
            return facts
        time.sleep(0.1)


@pytest.mark.parametrize("hup", [signal.SIG_DFL, signal.SIG_IGN], ids=["default", "nohup"])
def test_a_waiting_process_looks_the_same_to_the_kernel(
    cli: Cli, fork_server: ForkServer, tmp_path: Path, hup: signal.Handlers
) -> None:
    """The same descriptors (nothing of the server leaks into the child), directory and signal
    dispositions, with SIGHUP as the starter left it either way."""
    real = _waiting_mcp(
        cli,
        lambda: _exec(
            cli, "mcp", cwd=tmp_path, preexec_fn=lambda: signal.signal(signal.SIGHUP, hup)
        ),
    )
    forked = _waiting_mcp(
        cli,
        lambda: fork_server.popen(["mcp"], env=cli.env, cwd=tmp_path, signals={signal.SIGHUP: hup}),
    )
    try:
        forked_facts, real_facts = _settled_alike(forked.pid, real.pid)
        assert forked_facts == real_facts
    finally:
        for proc in (real, forked):
            proc.communicate(timeout=30)
    assert real.returncode == forked.returncode == 0


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGKILL])
def test_a_signal_from_outside_ends_it_the_same_way(
    cli: Cli, fork_server: ForkServer, sig: signal.Signals
) -> None:
    """`svc watch` of a task that stays pending, signalled once it has printed the task (it is
    in its polling loop): the same exit code and the same last lines."""
    task_id = _slow_task(cli)
    ended = [
        signalled_watch(start, task_id, sig)
        for start in (
            lambda: _exec(cli, "watch", task_id, "--interval", "1"),
            lambda: fork_server.popen(["watch", task_id, "--interval", "1"], env=cli.env),
        )
    ]
    assert ended[0] == ended[1]
    assert ended[0][0] == (-sig if sig == signal.SIGKILL else 128 + sig)


def signalled_watch(
    start: Callable[[], Started], task_id: str, sig: signal.Signals
) -> tuple[int | None, str]:
    """A `svc watch TASK` started by `start`, sent `sig` once it printed the task (it is in
    its polling loop): its exit code and stderr."""
    proc = start()
    assert proc.stdout is not None
    assert task_id in proc.stdout.readline()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    return proc.returncode, err


@pytest.mark.parametrize("crash_signal", ["", "TERM"], ids=["SIGKILL", "SIGTERM"])
def test_a_crash_point_fires_the_same_way(
    cli: Cli, fork_server: ForkServer, sandbox: Sandbox, crash_signal: str
) -> None:
    """A paid submit stopped at `proof_journaled`, by SIGKILL or by SIGTERM (Ctrl-C's path):
    the same exit and the same last lines (request ids aside)."""
    env = {"SVC_TEST_CRASH_AT": "proof_journaled", "SVC_TEST_CRASH_SIGNAL": crash_signal}
    seen = []
    for run in (cli.as_process(), cli.as_forked(fork_server)):
        rid, email = unique_request_id(), unique_email()
        hit = run("submit", "Crash #complete", "--email", email, "--request-id", rid, env=env)
        seen.append((hit.returncode, hit.stderr.replace(rid, "RID").replace(email, "EMAIL")))
        assert sandbox.charges_for(rid) == []  # killed before the proof left
    assert seen[0] == seen[1]
    assert seen[0][0] == (-signal.SIGKILL if not crash_signal else 128 + signal.SIGTERM)


def test_a_timeout_ends_the_wait_and_kill_ends_the_child(cli: Cli, fork_server: ForkServer) -> None:
    """`run` past its timeout kills the child and raises, as subprocess.run does; `wait` past
    its timeout only raises, and `kill` then ends the child by SIGKILL."""
    started = time.monotonic()
    proc = fork_server.popen(["mcp"], env=cli.env)  # it waits while its stdin is open
    with pytest.raises(subprocess.TimeoutExpired):
        proc.wait(timeout=1)
    assert proc.poll() is None  # still waiting: a timeout alone does not end it
    proc.kill()
    assert proc.wait(timeout=30) == -signal.SIGKILL
    with pytest.raises(subprocess.TimeoutExpired):
        fork_server.run(["watch", _slow_task(cli), "--interval", "1"], env=cli.env, timeout=1)
    assert time.monotonic() - started < 30


def _slow_task(cli: Cli) -> str:
    return str(cli.ok("submit", "Slow #slow", "--email", unique_email()).json()["id"])


def test_an_interpreter_level_variable_other_than_the_servers_is_refused(
    cli: Cli, fork_server: ForkServer
) -> None:
    """The interpreter reads these at its start: a forked child could not honour them."""
    for name, value in (("PYTHONUTF8", "1"), ("LC_ALL", "C"), ("PYTHONHASHSEED", "1")):
        if cli.env.get(name) == value:
            continue
        with pytest.raises(AssertionError, match="exec the program instead"):
            fork_server.popen(["--version"], env={**cli.env, name: value})
