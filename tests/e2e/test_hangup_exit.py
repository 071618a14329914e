"""A terminal that hangs up ends a command with 129, never with Python's own exit 120.

Python exits 120 when its last flush of stdout or stderr fails ("Exception ignored ...").
After a hang-up every write to the terminal fails (EIO), and a failed write stays in the
stream's buffer for that last flush. These tests put the hang-up at the moments that used to
leave such a write behind, instead of waiting for a loaded machine to find them.
"""

from __future__ import annotations

import os
import signal
import sys
import textwrap

import pytest
from tests.conftest import SVC, Cli, Sandbox, unique_email

pytestmark = pytest.mark.e2e

HUNG_UP = 128 + signal.SIGHUP


def _exit_code(pid: int) -> int:
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status), status
    return os.WEXITSTATUS(status)


def test_a_hang_up_while_the_progress_line_is_drawn_ends_with_129(
    cli: Cli, sandbox: Sandbox
) -> None:
    """The spinner is on the line when the terminal goes: erasing it fails, and that failure
    used to replace the interrupt (and its report then failed too: exit 120)."""
    import pexpect

    submitted = cli.ok("submit", "Slow #slow", "--email", unique_email()).json()
    env = {k: v for k, v in cli.env.items() if k != "CI"}
    child = pexpect.spawn(SVC, ["watch", submitted["id"]], env=env, encoding="utf-8", timeout=20)
    child.expect("created")
    child.expect("1 task: 1 pending")  # the progress line is drawn again after the event
    os.close(child.child_fd)  # the terminal goes away
    assert _exit_code(child.pid) == HUNG_UP


LATE_WRITER = textwrap.dedent(
    """
    import sys
    import time
    from svc.ui import terminal

    terminal.let_a_person_interrupt()
    try:
        terminal.write(sys.stdout, "ready\\n")
        time.sleep(60)  # until the terminal hangs up: SIGHUP, a Ctrl-C here
    except KeyboardInterrupt:
        pass
    terminal.settle_streams()
    # What is written after the streams were settled (a daemon thread, a finalizer) waits in
    # stdout's buffer for Python's last flush: that flush must find somewhere that takes it.
    print("late", end="")
    sys.exit(terminal.interrupt_exit_code())
    """
)


def test_what_is_written_after_the_streams_are_settled_cannot_make_the_exit_120() -> None:
    """Both buffers are empty when the streams are settled, so their flush succeeds on a
    terminal that is gone: the settling must still find out, or the late write fails at exit."""
    import pexpect

    # without PYTHONUNBUFFERED the late write waits in a buffer, as it does for svc's users
    dropped = ("CI", "PYTHONUNBUFFERED")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    child = pexpect.spawn(sys.executable, ["-c", LATE_WRITER], env=env, encoding="utf-8")
    child.expect("ready")
    os.close(child.child_fd)
    assert _exit_code(child.pid) == HUNG_UP
