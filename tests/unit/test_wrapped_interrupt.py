"""A Ctrl-C that CPython wraps is still a Ctrl-C (found by `make test`: a SIGINT that landed
while `ipaddress` was being imported, inside a class's `__set_name__`, reached svc as
RuntimeError "Error calling __set_name__ ..." and ended the run as a traceback, exit 1)."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest
from pydantic_core import SchemaError, SchemaValidator, core_schema

from svc.cli.runtime import run_guarded
from svc.ui import terminal
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


class ReprTakesTheSignal:
    """A literal whose repr pydantic-core asks for while it builds a validator, when the
    person's Ctrl-C arrives: svc's handler runs there and raises inside pydantic-core."""

    def __repr__(self) -> str:
        signal.raise_signal(signal.SIGINT)
        return "never"


def _build_a_validator() -> int:
    SchemaValidator(core_schema.literal_schema([ReprTakesTheSignal()]))
    return 0


@pytest.fixture
def svc_handler() -> Iterator[None]:
    saved = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    terminal.let_a_person_interrupt()
    yield
    signal.signal(signal.SIGINT, saved)
    terminal._interrupts.clear()
    terminal._signals.clear()


def test_an_interrupt_pydantic_core_keeps_as_text_ends_as_ctrl_c(
    svc_handler: None, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SchemaError, match="KeyboardInterrupt") as raised:
        _build_a_validator()
    assert raised.value.__cause__ is None and raised.value.__context__ is None  # text only
    assert run_guarded(_build_a_validator, []) == 130
    assert capsys.readouterr().err.strip().endswith("svc: interrupted")


def test_a_schema_error_with_no_ctrl_c_is_an_internal_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def broken() -> int:
        raise SchemaError("Error building validator")

    assert run_guarded(broken, []) == 1
    assert "internal error: SchemaError" in capsys.readouterr().err
