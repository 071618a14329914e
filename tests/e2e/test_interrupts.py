"""Ctrl-C is never lost (issue 22.5).

What lost it: a non-interactive shell starts a background job (`make test &`, a CI step run
with `&`) with SIGINT ignored; Python then installs no KeyboardInterrupt handler, every process
below inherits the SIG_IGN, and a Ctrl-C typed on the pty of `svc watch` did nothing until the
test's 30 s timeout ("fails under load", since loaded runs were the ones started in the
background). Here every child starts with SIGINT ignored, exactly as such a job would, and
Ctrl-C arrives at many points of the start-up of watch and reply: each must end the command
with exit 130 (or, before Python is up, by the signal itself), within seconds.

Each spawn waits for a ready marker where there is one, never a sleep; the delays below are
the point of the test (a signal at every stage of start-up), not a wait for readiness.
"""

from __future__ import annotations

import signal
import time

import pexpect
import pytest
from tests.conftest import SVC, Cli, Sandbox, unique_email

pytestmark = pytest.mark.e2e

DELAYS = (0.0, 0.01, 0.03, 0.06, 0.1, 0.15, 0.25, 0.4, 0.6, 0.9)


def on_a_pty(cli: Cli, *args: str, sigint: object = signal.SIG_IGN) -> pexpect.spawn:
    """`svc ARGS` on a pty; by default as a script's background job starts it: SIGINT ignored."""
    env = {k: v for k, v in cli.env.items() if k != "CI"}
    return pexpect.spawn(
        SVC,
        list(args),
        env=env,
        encoding="utf-8",
        timeout=20,
        dimensions=(50, 160),
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),  # type: ignore[arg-type]
    )


# What CPython prints when SIGINT lands in its own start-up, before any svc code runs
# (pylifecycle's init_sys_streams and init_import_site, pymain_run_file's __main__.__loader__
# set-up).
PYTHON_START_UP_ABORTS = (
    "init_sys_streams",
    "init_import_site",
    "failed to set __main__.__loader__",
)


def interpreter_start_up(output: str) -> bool:
    """The interrupt hit CPython's start-up: its own abort message, and no frame of svc."""
    return any(m in output for m in PYTHON_START_UP_ABORTS) and "svc/" not in output


def ended_by_ctrl_c(child: pexpect.spawn) -> None:
    try:
        child.expect(pexpect.EOF, timeout=15)
    except pexpect.TIMEOUT:  # the whole screen: pexpect's own message keeps 100 characters
        child.close(force=True)
        raise AssertionError(f"Ctrl-C did not end the command; its screen:\n{child.before}")
    child.close()
    by_us = child.exitstatus == 130
    before_python = child.signalstatus == signal.SIGINT  # no handler yet: the default action
    # Inside Python's own start-up (opening the standard streams, importing `site`, or setting
    # up `__main__` before the entry script's first line runs), the interpreter aborts on it with exit 1 and a
    # traceback of its own frozen modules: no line of svc has run yet, so none can catch it.
    in_python_start_up = child.exitstatus == 1 and interpreter_start_up(child.before or "")
    assert by_us or before_python or in_python_start_up, (
        child.exitstatus,
        child.signalstatus,
        child.before,
    )


def submit(cli: Cli, task: str) -> str:
    return str(cli.ok("submit", task, "--email", unique_email()).json()["id"])


def test_ctrl_c_on_the_terminal_stops_watch_even_with_sigint_ignored(cli: Cli) -> None:
    task_id = submit(cli, "Long one #slow")
    child = on_a_pty(cli, "watch", task_id)
    child.expect("created")  # the ready marker: the watch is drawing
    child.sendintr()  # the person's Ctrl-C, through the terminal
    ended_by_ctrl_c(child)
    assert "interrupted" in (child.before or "")


def test_ctrl_c_at_a_prompt_stops_reply_even_with_sigint_ignored(
    cli: Cli, sandbox: Sandbox
) -> None:
    task_id = submit(cli, "Code please #2fa")
    sandbox.advance(11)
    child = on_a_pty(cli, "reply", task_id)
    child.expect("sms_code")  # the prompt is open
    child.sendintr()
    ended_by_ctrl_c(child)


@pytest.mark.parametrize("command", ["watch", "reply"])
def test_sigint_at_every_point_of_start_up_ends_the_command(
    cli: Cli, sandbox: Sandbox, command: str
) -> None:
    """With SIGINT as a terminal's foreground job gets it (not ignored), a signal at any
    stage of start-up, from exec to the open prompt, ends the command."""
    task_id = submit(cli, "Long one #slow" if command == "watch" else "Code please #2fa")
    sandbox.advance(11)
    started = time.monotonic()
    for delay in DELAYS:
        child = on_a_pty(cli, command, task_id, sigint=signal.SIG_DFL)
        time.sleep(delay)  # deliberately not a marker: every stage of start-up gets its signal
        child.kill(signal.SIGINT)
        ended_by_ctrl_c(child)
    assert time.monotonic() - started < 60


@pytest.mark.parametrize("command", ["watch", "reply"])
def test_with_sigint_ignored_every_point_after_the_first_output_ends_it(
    cli: Cli, sandbox: Sandbox, command: str
) -> None:
    """Inherited SIG_IGN: a signal before svc's first instruction is discarded by the kernel
    (nothing can catch it); from the first thing svc shows on, none is lost."""
    task_id = submit(cli, "Long one #slow" if command == "watch" else "Code please #2fa")
    sandbox.advance(11)
    for delay in DELAYS[:6]:
        child = on_a_pty(cli, command, task_id)
        child.expect(r"\S")  # the first thing svc drew: it is running its own code
        time.sleep(delay)
        child.kill(signal.SIGINT)
        ended_by_ctrl_c(child)


def test_a_ctrl_c_whose_interrupt_python_lost_still_ends_a_watch(
    cli: Cli, sandbox: Sandbox
) -> None:
    """CPython drops a KeyboardInterrupt raised while a finalizer runs (it prints it as
    ignored and goes on): svc's handler had noted the Ctrl-C, but a watch started a moment
    before polled on until its tasks ended (a full loaded run caught one spinning 15 s after
    the signal). Here the handler's note arrives without its exception, as it does then: the
    watch must end as interrupted at its next step, not follow the task to its end."""
    import threading

    from svc.ui import terminal

    task_id = submit(cli, "Long one #slow")
    lost = threading.Timer(1.0, terminal.note_interrupt, args=(signal.SIGINT,))
    rescue = threading.Timer(15.0, sandbox.advance, args=(700,))  # ends it anyway if it fails
    lost.start()
    rescue.start()
    started = time.monotonic()
    try:
        result = cli("watch", task_id, "--interval", "2")
    finally:
        lost.cancel()
        rescue.cancel()
    assert result.returncode == 130, (result.returncode, result.stderr)
    assert time.monotonic() - started < 10
    assert "interrupted" in result.stderr


# The console script's entry, with a C-level exit handler that aborts: it stands for OpenSSL's
# (OPENSSL_cleanup, which frees libcrypto's locks when exit() runs). The interpreter's own exit
# runs such handlers while daemon threads may still be inside that library: a loaded run caught
# an interrupted watch dying by SIGSEGV after its last line, its poll thread building an SSL
# context as OPENSSL_cleanup ran. A marker says when the first poll is in flight.
EXIT_HANDLER_PROBE = """
import ctypes, sys
libc = ctypes.CDLL(None)
libc["__cxa_atexit"](ctypes.cast(libc.abort, ctypes.c_void_p), None, None)
import svc.engines.watch_parts as parts
send = parts.Pollers.send
def sending(self, task_id):
    send(self, task_id)
    print("poll in flight", file=sys.stderr, flush=True)
parts.Pollers.send = sending
from svc.__main__ import process_main
sys.argv[0] = "svc"
process_main()
"""


def test_an_interrupt_beside_a_poll_in_flight_ends_before_c_exit_handlers(
    cli: Cli, sandbox: Sandbox
) -> None:
    """Ctrl-C while a poll is in flight: its daemon thread is still in a socket read when the
    command ends, so the process ends at once (exit 130) without the C-level exit handlers
    that may free a library under that thread."""
    import sys

    task_id = submit(cli, "Long one #slow")
    hang = {"kind": "delay", "seconds": 8, "method": "GET", "path": f"/svc/tasks/{task_id}"}
    sandbox.faults(hang)
    env = {k: v for k, v in cli.env.items() if k != "CI"}
    child = pexpect.spawn(
        sys.executable,
        ["-c", EXIT_HANDLER_PROBE, "watch", task_id],
        env=env,
        encoding="utf-8",
        timeout=20,
        dimensions=(50, 160),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    child.expect("poll in flight")  # the poll's thread waits on the delayed answer
    child.kill(signal.SIGINT)
    child.expect(pexpect.EOF, timeout=15)
    child.close()
    assert (child.exitstatus, child.signalstatus) == (130, None), child.before
    assert "interrupted" in (child.before or "")
