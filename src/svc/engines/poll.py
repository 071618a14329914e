"""One GET of a task, shown: `svc poll`, its fast path, and `svc pay card`'s final answer."""

from __future__ import annotations

from typing import Any

from svc.engines.auth import free_call_auth
from svc.engines.task_state import remember
from svc.errors import ExitCode
from svc.ui import views
from svc.ui.face import FaceContext
from svc.ui.hints import next_steps

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


def poll_once(app: FaceContext, task_id: str, exit_status: bool) -> int:
    """One GET of the task, shown; the exit code (the state's with --exit-status, else 0)."""
    task = app.tasks.poll(task_id, auth=free_call_auth(app))
    remember(app, task)
    show_task(app, task.raw)
    if not app.output.json_mode:  # a person at a terminal: what to run next
        next_steps(app.output, task.raw)
    return exit_for_state(task.state) if exit_status else 0
