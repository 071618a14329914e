"""tests/fork_launch.py: what a host that starts `svc` itself (an MCP host) sees through the
launcher is what it sees of an exec'd `svc`: output, exit code, stdin, end-of-file, signals and
the end by SIGKILL; and an environment the fork server cannot honour is exec'd."""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from tests.conftest import SVC, Cli, _base_env, unique_email
from tests.e2e.test_forkserver import signalled_watch
from tests.forkserver import ForkServer

pytestmark = pytest.mark.e2e


def _start(command: list[str], cli: Cli, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        command,
        env={**cli.env, **env},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _both(fork_server: ForkServer, *args: str) -> tuple[list[str], list[str]]:
    return [SVC, *args], fork_server.launch_command(*args)


def _forked_children(fork_server: ForkServer) -> set[int]:
    assert fork_server._server is not None
    parent = str(fork_server._server.pid)
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if stat.rsplit(")", 1)[1].split()[1] == parent:
                found.add(int(entry.name))
    return found


@pytest.mark.parametrize(
    "args", [["--version"], ["config", "list"], ["nonsense"], ["tasks", "--json"]], ids=" ".join
)
def test_output_and_exit_code_are_an_execs(
    cli: Cli, fork_server: ForkServer, args: list[str]
) -> None:
    seen = []
    for command in _both(fork_server, *args):
        done = _start(command, cli)
        out, err = done.communicate(timeout=60)
        seen.append((done.returncode, out, err))
    assert seen[0] == seen[1]


def test_stdin_is_the_hosts(tmp_path: Path, fork_server: ForkServer) -> None:
    key = "0x" + "11" * 32
    seen = []
    for n, command in enumerate(_both(fork_server, "wallet", "import")):
        home = tmp_path / str(n)
        home.mkdir()
        done = _start(command, Cli(home, _base_env(home)))
        out, err = done.communicate(key + "\n", timeout=60)
        seen.append((done.returncode, out, err))
    assert seen[0] == seen[1]
    assert "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A" in seen[0][1]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_to_the_launcher_ends_svc_as_it_ends_an_exec(
    cli: Cli, fork_server: ForkServer, sig: signal.Signals
) -> None:
    """`svc watch` of a pending task, signalled in its polling loop: the same exit code and
    last lines, the launcher's exit being the child's."""
    task_id = str(cli.ok("submit", "Slow #slow", "--email", unique_email()).json()["id"])
    ended = [
        signalled_watch(functools.partial(_start, command, cli), task_id, sig)
        for command in _both(fork_server, "watch", task_id, "--interval", "1")
    ]
    assert ended[0] == ended[1]
    assert ended[0][0] == 128 + sig


def test_end_of_file_comes_when_svc_ends_and_sigkill_ends_both(
    cli: Cli, fork_server: ForkServer
) -> None:
    """A host closing `svc mcp`'s stdin reads end-of-file and exit 0, and the launcher holds
    none of the host's pipes meanwhile; a host killing the launcher (stdin still open, so svc
    would wait on) leaves no `svc` behind."""
    proc = _start(fork_server.launch_command("mcp"), cli)
    assert proc.stderr is not None and "serving MCP" in proc.stderr.readline()
    held = {fd: os.readlink(f"/proc/{proc.pid}/fd/{fd}") for fd in (0, 1, 2)}
    assert held == dict.fromkeys((0, 1, 2), os.devnull)
    out, _ = proc.communicate(timeout=30)
    assert (proc.returncode, out) == (0, "")
    before = _forked_children(fork_server)
    proc = _start(fork_server.launch_command("mcp"), cli)
    assert proc.stderr is not None and "serving MCP" in proc.stderr.readline()
    started = _forked_children(fork_server) - before
    assert len(started) == 1
    proc.kill()
    assert proc.wait(timeout=30) == -signal.SIGKILL
    deadline = time.monotonic() + 15
    while started & _forked_children(fork_server) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not started & _forked_children(fork_server), "svc outlived its killed launcher"


def test_an_ignored_sighup_starts_ignored(cli: Cli, fork_server: ForkServer) -> None:
    """nohup's promise holds through the launcher: the child starts with SIGHUP ignored."""
    before = _forked_children(fork_server)
    proc = subprocess.Popen(
        fork_server.launch_command("mcp"),
        env=cli.env,
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN),  # noqa: PLW1509
    )
    assert proc.stderr is not None and "serving MCP" in proc.stderr.readline()
    (child,) = _forked_children(fork_server) - before
    ignored = next(
        line
        for line in Path(f"/proc/{child}/status").read_text().splitlines()
        if line.startswith("SigIgn")
    )
    assert int(ignored.split()[1], 16) & (1 << (signal.SIGHUP - 1))
    proc.communicate(timeout=30)
    assert proc.returncode == 0


def test_an_environment_the_server_cannot_honour_is_execd(
    cli: Cli, fork_server: ForkServer
) -> None:
    """PYTHONUTF8 is read at an interpreter's start: the launcher becomes svc itself."""
    name, value = "PYTHONUTF8", "0" if cli.env.get("PYTHONUTF8") == "1" else "1"
    proc = _start(fork_server.launch_command("mcp"), cli, **{name: value})
    assert proc.stderr is not None and "serving MCP" in proc.stderr.readline()
    cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes().split(b"\0")
    assert os.fsencode(SVC) in cmdline and b"-I" not in cmdline
    proc.communicate(timeout=30)
    assert proc.returncode == 0


def test_svc_killed_by_a_signal_ends_the_launcher_by_the_same(
    cli: Cli, fork_server: ForkServer
) -> None:
    """SIGKILL sent to svc itself (an OOM killer, a person's kill -9): the host sees -9 from
    the launcher, as from an exec'd svc."""
    ended = []
    for command in _both(fork_server, "mcp"):
        before = _forked_children(fork_server)
        proc = _start(command, cli)
        assert proc.stderr is not None and "serving MCP" in proc.stderr.readline()
        forked = _forked_children(fork_server) - before
        os.kill(forked.pop() if forked else proc.pid, signal.SIGKILL)
        ended.append(proc.wait(timeout=30))
        proc.communicate(timeout=30)
    assert ended == [-signal.SIGKILL, -signal.SIGKILL]


def test_a_signal_before_the_child_exists_is_passed_on_once_it_does() -> None:
    """The launcher's relay, on its own: a signal caught while the fork is being asked for is
    kept, then passed on, in order, once the child exists; later ones go at once."""
    from tests.fork_launch import _Relay

    class Child:
        def __init__(self) -> None:
            self.got: list[int] = []

        def relay_signal(self, sig: int) -> None:
            self.got.append(sig)

    relay, child = _Relay(), Child()
    relay(signal.SIGTERM, None)
    relay(signal.SIGHUP, None)
    relay.started(child)  # type: ignore[arg-type]
    relay(signal.SIGINT, None)
    assert child.got == [signal.SIGTERM, signal.SIGHUP, signal.SIGINT]
