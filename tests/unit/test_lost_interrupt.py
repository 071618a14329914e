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


def python_script(script: str) -> subprocess.CompletedProcess[str]:
    """`script` in a Python process of its own, as svc's is: its signals are its own."""
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )


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

try:
    TakesTheSignal()
    print("waiting", flush=True)
    time.sleep(20)
except KeyboardInterrupt:  # wherever it lands once the finalizer is over: the command ends
    print("interrupted", terminal.interrupt_exit_code())
    sys.exit(0)
print("not interrupted")
"""


def test_a_ctrl_c_lost_in_a_finalizer_after_the_check_still_ends_the_wait() -> None:
    started = time.monotonic()
    done = python_script(LOST_THEN_WAIT)
    assert done.stdout.endswith("interrupted 130\n"), done  # wherever it landed, it ended
    assert "Exception ignored" not in done.stderr and "KeyboardInterrupt" not in done.stderr
    assert time.monotonic() - started < 15


def test_the_lost_interrupt_test_passes_every_time() -> None:
    """The interrupt is raised again from another thread, wherever the main thread is then:
    the test above must not depend on where (a review saw it fail 15 of 40 runs)."""
    for _ in range(15):
        test_a_ctrl_c_lost_in_a_finalizer_after_the_check_still_ends_the_wait()


# The command was interrupted and is ending (main() says so); a second Ctrl-C lands in the
# first of the exit's clean-ups. CPython cuts that one short; the others still run.
SECOND_CTRL_C_AT_EXIT = """
import atexit, os, signal, sys, time
from svc.ui import terminal
terminal.let_a_person_interrupt()
terminal.note_interrupt(signal.SIGINT)

def work(name):
    def cb():
        t = time.monotonic()
        while time.monotonic() - t < 0.05:
            pass
        os.write(1, f"{name} done\\n".encode())
    return cb

for i in range(5, 0, -1):
    atexit.register(work(f"cleanup {i}"))

def second_ctrl_c():
    signal.raise_signal(signal.SIGINT)
    for _ in range(100_000):
        pass

atexit.register(second_ctrl_c)
terminal.RESENDS.over = True  # as the entry marks the command ended
sys.exit(130)
"""


def test_a_ctrl_c_during_the_exit_costs_one_clean_up_not_all() -> None:
    done = python_script(SECOND_CTRL_C_AT_EXIT)
    ran = [line for line in done.stdout.splitlines() if line.endswith(" done")]
    assert len(ran) == 5, (ran, done.stderr[-500:])
    assert done.returncode == 130


# A main thread that lives in slow finalizers drops most interrupts raised in them: one Ctrl-C
# is raised again a bounded number of times, each time the same Ctrl-C (noted once).
FINALIZERS_ALL_ALONG = """
import atexit, os, signal, time
from svc.ui import terminal
terminal.let_a_person_interrupt()

def counts():  # however the loop ends: the interrupt may land outside a finalizer at last
    os.write(1, f"{len(terminal._signals)} {terminal.RESENDS.sent}\\n".encode())

atexit.register(counts)

class Slow:
    first = True

    def __del__(self):
        if Slow.first:
            Slow.first = False
            signal.raise_signal(signal.SIGINT)  # the Ctrl-C arrives in a finalizer
        t = time.monotonic()
        while time.monotonic() - t < 0.002:
            pass

end = time.monotonic() + 0.8
while time.monotonic() < end:
    Slow()
"""


def test_a_ctrl_c_is_raised_again_a_bounded_number_of_times() -> None:
    for _ in range(5):
        done = python_script(FINALIZERS_ALL_ALONG)
        noted, sent = map(int, done.stdout.split())
        assert noted == 1 and 1 <= sent <= terminal._Resend.MOST, done
