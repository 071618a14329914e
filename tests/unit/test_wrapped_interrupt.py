"""A Ctrl-C that CPython wraps is still a Ctrl-C (found by `make test`: a SIGINT that landed
while `ipaddress` was being imported, inside a class's `__set_name__`, reached svc as
RuntimeError "Error calling __set_name__ ..." and ended the run as a traceback, exit 1)."""

from __future__ import annotations

import subprocess
import sys

from svc.ui.terminal import caused_by_interrupt


class Interrupting:
    def __set_name__(self, owner: type, name: str) -> None:
        raise KeyboardInterrupt  # the signal, at the instant a class is made


def wrapped_interrupt() -> BaseException:
    try:
        type("Made", (), {"field": Interrupting()})
    except BaseException as error:  # RuntimeError on 3.11, the interrupt itself on 3.12+
        return error
    raise AssertionError("the class was made")


def test_an_interrupt_wrapped_by_cpython_is_known_as_one() -> None:
    assert caused_by_interrupt(wrapped_interrupt())
    assert not caused_by_interrupt(RuntimeError("a real one"))
    try:
        raise ValueError("outer") from OSError("inner")
    except ValueError as error:
        assert not caused_by_interrupt(error)


ENTRY = """
import svc.__main__ as entry
def interrupted_import():
    type("Made", (), {"field": Interrupting()})
class Interrupting:
    def __set_name__(self, owner, name):
        raise KeyboardInterrupt
entry._run = interrupted_import
entry.main()
"""


def test_the_entry_point_ends_a_wrapped_interrupt_as_ctrl_c() -> None:
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, "watch", "task_x"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 130, done.stderr
    assert done.stderr.strip() == "svc: interrupted" and "Traceback" not in done.stderr
