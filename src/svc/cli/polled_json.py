"""One polled task in machine mode (JSON, `--jq`, `--template`, a pipe): the service's object as
returned and the exit code its state means with `--exit-status`.

Apart from `svc.cli.polled` (which draws the panel and the next steps for a person): machine
mode loads none of the presentation modules; `polled.present` hands it here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from svc.errors import ExitCode

if TYPE_CHECKING:
    from svc.api.answers import Task
    from svc.ui.face import FaceContext

STATE_EXIT = {
    "completed": ExitCode.OK,
    "failed": ExitCode.TASK_FAILED,
    "cancelled": ExitCode.TASK_FAILED,
    "blocked_on_user": ExitCode.HUMAN_NEEDED,
}


def exit_for_state(state: str) -> int:
    """The exit code that follows a task's state (a live state has its own: 11, pending)."""
    return int(STATE_EXIT.get(state, ExitCode.PENDING))


def present_machine(app: FaceContext, task: Task, exit_status: bool) -> int:
    """The task as JSON (shaped if asked: what `Output.show` does in JSON mode); the exit code
    (the state's with --exit-status, else 0)."""
    app.output.emit_json(task.raw)
    return exit_for_state(task.state) if exit_status else 0
