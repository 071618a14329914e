"""Next-step hints (issue 15): for a person only, never built from unchecked server text."""

from __future__ import annotations

import io

import pytest

from svc.ui.hints import next_step, next_steps
from svc.ui.output import Output


class Tty(io.StringIO):
    encoding = "utf-8"

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("task", "step"),
    [
        ({"id": "task_1", "state": "pending"}, "svc watch task_1"),
        ({"id": "task_1", "state": "blocked_on_user"}, "svc reply task_1"),
        ({"id": "task_1", "state": "pending", "info_request": {"field": "x"}}, "svc reply task_1"),
        (
            {
                "id": "t1",
                "state": "blocked_on_user",
                "info_request": {"payment_status": "pending_approval"},
            },
            "svc reply t1 --approve-payment (or --decline-payment)",
        ),
        ({"id": "task_1", "state": "completed"}, None),
        ({"id": "task_1", "state": "failed"}, None),
        ({"id": "task_1; rm -rf ~", "state": "pending"}, None),  # hostile id: no command
        ({"id": "\x1b[2Jx", "state": "pending"}, None),
        ({"state": "pending"}, None),
    ],
)
def test_next_step(task: dict[str, object], step: str | None) -> None:
    assert next_step(task) == step


def test_a_person_sees_the_hint_on_stderr() -> None:
    out_screen, err_screen = Tty(), Tty()
    out = Output(stdout=out_screen, stderr=err_screen)
    next_steps(out, {"id": "task_1", "state": "pending"})
    assert "next: svc watch task_1" in err_screen.getvalue()
    assert out_screen.getvalue() == ""


@pytest.mark.parametrize("json_mode", [True, False])
def test_scripts_never_see_it(json_mode: bool) -> None:
    piped, err_screen = io.StringIO(), Tty()  # stdout piped: JSON mode either way
    next_steps(Output(json_mode=json_mode, stdout=piped, stderr=err_screen), {"id": "t1"})
    assert err_screen.getvalue() == "" and piped.getvalue() == ""
    tty_out, piped_err = Tty(), io.StringIO()
    next_steps(Output(stdout=tty_out, stderr=piped_err), {"id": "t1", "state": "pending"})
    assert piped_err.getvalue() == ""
