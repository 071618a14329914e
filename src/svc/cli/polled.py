"""One polled task as the CLI presents it: drawn (a panel, or the service's JSON as returned),
what to run next for a person, and the exit code its state means with `--exit-status`. Used by
`svc poll` and `svc pay card`; machine mode is `svc.cli.polled_json`'s."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from svc.cli.polled_json import STATE_EXIT, exit_for_state, present_machine
from svc.ui import views
from svc.ui.face import FaceContext
from svc.ui.hints import next_steps

if TYPE_CHECKING:
    from svc.api.answers import Task

__all__ = ["STATE_EXIT", "exit_for_state", "present", "show_task"]


def show_task(app: FaceContext, task: dict[str, Any]) -> None:
    app.output.show(task, views.task)


def present(app: FaceContext, task: Task, exit_status: bool) -> int:
    """The task shown; the exit code (the state's with --exit-status, else 0)."""
    if app.output.json_mode:
        return present_machine(app, task, exit_status)
    show_task(app, task.raw)
    next_steps(app.output, task.raw)  # a person at a terminal: what to run next
    return exit_for_state(task.state) if exit_status else 0
