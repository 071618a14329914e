"""A closed stdout after a payment (svc.ui.output.Output.after_payment): one warning naming the
paid task, later writes go nowhere and the command goes on; a write the Output cannot catch
(a drawing's) still ends the block, marked cut, so `submit --wait` never reads it as
"completed"."""

from __future__ import annotations

import io

import pytest

from svc.ui.output import Output


class _Gone(io.StringIO):
    """A stdout whose reader went away: every write is a broken pipe."""

    writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        raise BrokenPipeError(32, "gone")


def test_a_write_after_payment_warns_once_and_the_command_goes_on() -> None:
    out, err = _Gone(), io.StringIO()
    output = Output(json_mode=True, stdout=out, stderr=err)
    with output.after_payment("task_1") as cut:
        output.emit_line({"state": "pending"})
        output.emit_line({"state": "failed"})  # not tried again: its reader is gone
    assert not cut.cut
    assert out.writes == 1
    assert err.getvalue().count("stdout was closed before the answer was written") == 1
    assert "task task_1 was submitted and paid all the same" in err.getvalue()


def test_a_broken_pipe_the_output_did_not_catch_marks_the_block_cut() -> None:
    err = io.StringIO()
    output = Output(json_mode=True, stdout=io.StringIO(), stderr=err)
    with output.after_payment("task_2") as cut:
        raise BrokenPipeError(32, "from a drawing")
    assert cut.cut
    assert "task task_2 was submitted and paid" in err.getvalue()


def test_before_a_payment_a_broken_pipe_is_the_callers() -> None:
    output = Output(json_mode=True, stdout=_Gone(), stderr=io.StringIO())
    with pytest.raises(BrokenPipeError):
        output.emit_line({"state": "pending"})
