"""A Ctrl-C that CPython loses still ends the command (found under load, issue 22.5's test).

A SIGINT that arrives while a finalizer runs raises its KeyboardInterrupt inside it, where
CPython prints "Exception ignored" and goes on: `svc reply` then opened its form as if nothing
had been pressed. svc's handler notes every Ctrl-C first, and a prompt checks before it waits.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import time

import pytest

from svc.ui import terminal


@pytest.fixture
def handler() -> object:
    saved = signal.getsignal(signal.SIGINT)
    terminal._interrupts.clear()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    terminal.let_a_person_interrupt()
    yield signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, saved)
    terminal._interrupts.clear()


def test_a_ctrl_c_swallowed_on_the_way_still_ends_the_command_at_its_prompt(
    handler: object,
) -> None:
    assert handler is terminal._on_interrupt  # the person's Ctrl-C is ours to count
    with contextlib.suppress(KeyboardInterrupt):  # as a finalizer does: printed, then ignored
        signal.raise_signal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        terminal.prompting()


def test_no_ctrl_c_no_interruption(handler: object) -> None:
    with terminal.prompting():
        pass


# A finalizer that takes the Ctrl-C: the handler runs inside `__del__` (its loop lets CPython
# run the pending handler there), where the KeyboardInterrupt is printed as ignored; then the
# process waits, as a prompt waits on its read.
LOST_THEN_WAIT = """
import signal, sys, time
from svc.ui import terminal
terminal.let_a_person_interrupt()

class TakesTheSignal:
    def __del__(self):
        signal.raise_signal(signal.SIGINT)
        for _ in range(100_000):
            pass

TakesTheSignal()
print("waiting", flush=True)
try:
    time.sleep(20)
except KeyboardInterrupt:
    print("interrupted", terminal.interrupt_exit_code())
    sys.exit(0)
print("not interrupted")
"""


def test_a_ctrl_c_lost_in_a_finalizer_after_the_check_still_ends_the_wait() -> None:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", LOST_THEN_WAIT],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.stdout.split("\n")[:2] == ["waiting", "interrupted 130"], done
    assert "Exception ignored" not in done.stderr and "KeyboardInterrupt" not in done.stderr
    assert time.monotonic() - started < 15
