"""The body of `svc poll`, free of Typer so the fast path in `svc.cli.fastpath` runs it too."""

from __future__ import annotations

from svc.cli.common import exit_for_state, show_task
from svc.context import AppContext
from svc.ui.hints import next_steps


def poll_once(app_ctx: AppContext, task_id: str, exit_status: bool) -> int:
    """One GET of the task, shown; the exit code (the state's with --exit-status, else 0)."""
    task = app_ctx.tasks.poll(task_id, auth=app_ctx.free_call_auth())
    app_ctx.remember(task)
    show_task(app_ctx, task.raw)
    if not app_ctx.output.json_mode:  # a person at a terminal: what to run next
        next_steps(app_ctx.output, task.raw)
    return exit_for_state(task.state) if exit_status else 0
