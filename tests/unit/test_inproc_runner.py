"""`Cli` runs `svc` in this process by default (issue 34.6): it must still catch what running
the installed executable caught. Each test here is one way the in-process run could hide a
defect the process run showed: a traceback, the real exit code, what a pipe gives, a thread or
a file a command leaves behind, a crash point that would kill the test run, and state that a
new process would not have carried from one call to the next."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from tests import inproc
from tests.conftest import Cli, _base_env

import svc.__main__ as entry


@pytest.fixture
def both(tmp_path: Path) -> tuple[Cli, Cli]:
    """The same home run in this process and as the installed executable."""
    home = tmp_path / "home"
    home.mkdir()
    inside = Cli(home, {**_base_env(home), "SVC_BASE_URL": "http://127.0.0.1:9"})
    return inside, inside.as_process()


@pytest.mark.parametrize(
    "args",
    [
        ["--version"],
        ["help", "exit-codes"],
        ["poll", "task_1"],  # nothing listens: exit 9, one line, a JSON error on the pipe
        ["config", "set", "max_price_usd", "1,50"],  # usage: exit 2
        ["nonsense"],
        ["reply", "task_1", "--code", "12", "--json", "--jq", ".["],
        ["wallet", "address"],  # no wallet: the contract's exit code and hint
    ],
)
def test_a_call_in_this_process_answers_byte_for_byte_as_the_executable(
    both: tuple[Cli, Cli], args: list[str]
) -> None:
    inside, process = both
    here, there = inside(*args), process(*args)
    assert (here.returncode, here.stdout, here.stderr) == (
        there.returncode,
        there.stdout,
        there.stderr,
    )


def test_output_is_what_a_pipe_gives_utf_8_without_a_terminal(both: tuple[Cli, Cli]) -> None:
    inside, process = both
    value = "caf\u00e9 \u2603"
    for cli in (inside, process):
        cli.ok("config", "set", "email", f"{value}@example.com", input="")
    here = inside.ok("config", "get", "email", "--json")
    assert here.json()["value"] == f"{value}@example.com"
    assert here.stdout == process.ok("config", "get", "email", "--json").stdout


def test_an_exception_that_escapes_the_entry_point_fails_the_test_loudly(
    both: tuple[Cli, Cli], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(argv: list[str]) -> int | None:
        raise RuntimeError("a defect outside the error boundary")

    monkeypatch.setattr(entry, "_run", lambda: broken([]))
    with pytest.raises(AssertionError, match="Traceback") as failed:
        both[0]("--version")
    assert "RuntimeError: a defect outside the error boundary" in str(failed.value)
    code, _, stderr = inproc.run_main(["--version"], both[0].env, None, program="svc")
    assert code == 1 and stderr.startswith("Traceback"), (code, stderr)


def test_the_exit_code_is_the_one_sys_exit_was_given(both: tuple[Cli, Cli]) -> None:
    assert both[0]("poll", "task_1").returncode == 9
    assert both[0]("nonsense").returncode == 2
    assert both[0]("--version").returncode == 0


def test_a_thread_the_command_leaves_running_fails_the_call(
    both: tuple[Cli, Cli], monkeypatch: pytest.MonkeyPatch
) -> None:
    stop = threading.Event()

    def leaves_a_thread(argv: list[str]) -> int | None:
        threading.Thread(target=stop.wait, name="left-running", daemon=True).start()
        return 0

    monkeypatch.setattr(entry, "_run", lambda: leaves_a_thread([]))
    monkeypatch.setattr(inproc, "THREAD_GRACE", 0.2)
    try:
        with pytest.raises(inproc.LeftBehind, match="left-running"):
            both[0]("--version")
    finally:
        stop.set()


def test_a_thread_that_ends_soon_after_the_command_is_waited_for(
    both: tuple[Cli, Cli], monkeypatch: pytest.MonkeyPatch
) -> None:
    def short_thread(argv: list[str]) -> int | None:
        threading.Thread(target=time.sleep, args=(0.2,), daemon=True).start()
        return 0

    monkeypatch.setattr(entry, "_run", lambda: short_thread([]))
    assert both[0]("--version").returncode == 0


def test_a_file_the_command_leaves_open_fails_the_call(
    both: tuple[Cli, Cli], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    kept = []

    def leaves_a_file(argv: list[str]) -> int | None:
        kept.append(open(tmp_path / "left-open", "w"))  # noqa: SIM115 - the defect under test
        return 0

    monkeypatch.setattr(entry, "_run", lambda: leaves_a_file([]))
    try:
        with pytest.raises(inproc.LeftBehind, match="left-open"):
            both[0]("--version")
    finally:
        kept[0].close()


def test_a_crash_point_is_refused_in_this_process(both: tuple[Cli, Cli]) -> None:
    for name in inproc.PROCESS_ONLY_ENV:
        with pytest.raises(AssertionError, match=r"Cli\(process=True\)"):
            both[0]("--version", env={name: "proof_sent"})


def test_the_environment_streams_and_signal_handlers_are_put_back(
    both: tuple[Cli, Cli],
) -> None:
    import os
    import signal
    import sys

    before = (dict(os.environ), sys.stdin, sys.stdout, sys.stderr, sys.argv)
    handlers = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]
    both[0]("poll", "task_1", env={"SVC_ONLY_IN_THE_CALL": "1"})
    assert (dict(os.environ), sys.stdin, sys.stdout, sys.stderr, sys.argv) == before
    assert [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)] == handlers


def test_a_secret_told_in_one_call_is_not_redacted_from_the_next(
    both: tuple[Cli, Cli], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new process starts with nothing told: the vault of one call must not hide a string
    from the next call's output (found converting test_core: a 2FA code inside a request id)."""
    from svc import redact

    def tells(argv: list[str]) -> int | None:
        redact.told("0123456789")
        return 0

    monkeypatch.setattr(entry, "_run", lambda: tells([]))
    both[0]("--version")
    monkeypatch.undo()
    shown = both[0]("config", "set", "email", "a0123456789@example.com")
    assert shown.returncode == 0, shown.stderr
    assert both[0].ok("config", "get", "email", "--json").json()["value"] == (
        "a0123456789@example.com"
    )
