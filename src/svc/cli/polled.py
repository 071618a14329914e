"""One polled task as the CLI presents it: drawn (a panel, or the service's JSON as returned),
what to run next for a person, and the exit code its state means with `--exit-status`. Used by
`svc poll`, its fast path (`svc.cli.fastpath`, without Typer) and `svc pay card`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from svc.errors import ExitCode
from svc.ui import views
from svc.ui.face import FaceContext
from svc.ui.hints import next_steps

if TYPE_CHECKING:
    from svc.api.answers import Task

STATE_EXIT = {
    "completed": ExitCode.OK,
    "failed": ExitCode.TASK_FAILED,
    "cancelled": ExitCode.TASK_FAILED,
    "blocked_on_user": ExitCode.HUMAN_NEEDED,
}


def exit_for_state(state: str) -> int:
    """The exit code that follows a task's state (a live state has its own: 11, pending)."""
    return int(STATE_EXIT.get(state, ExitCode.PENDING))


def show_task(app: FaceContext, task: dict[str, Any]) -> None:
    app.output.show(task, views.task)


def present(app: FaceContext, task: Task, exit_status: bool) -> int:
    """The task shown; the exit code (the state's with --exit-status, else 0)."""
    show_task(app, task.raw)
    if not app.output.json_mode:  # a person at a terminal: what to run next
        next_steps(app.output, task.raw)
    return exit_for_state(task.state) if exit_status else 0
