"""`svc watch ID...`: follow tasks until final, showing changes live and answering asks."""

from __future__ import annotations

import time
from typing import Any

import typer

from svc.api.errors import HumanNeededError, TaskEndedError, UsageError
from svc.cli.app import current
from svc.cli.common import remember_state
from svc.context import AppContext

app = typer.Typer(rich_markup_mode=None)

FINAL = ("completed", "failed", "cancelled")


@app.command(
    help="Poll tasks until every one is final, showing state changes and events live.\n\n"
    "On a terminal, an ask (blocked_on_user) is answered in place; with --no-input (or in CI, "
    "or when stdin is not a terminal) watch stops with exit 6 so a script can reply. "
    "The exit code follows the final states: 0 all completed, 3 one failed or was cancelled, "
    "6 one waits on the user. Interrupted, it can simply be started again.\n\n"
    "With --json: NDJSON, one task detail per observed change; the last line of each task is "
    "its final detail.\n\n"
    "\b\nExamples:\n"
    "  svc watch tsk_1\n"
    "  svc watch tsk_1 tsk_2 --json | jq -r '.id + \" \" + .state'\n"
    "  svc watch tsk_1 --no-input || svc reply tsk_1 ..."
)
def watch(
    task_ids: list[str] = typer.Argument(..., metavar="ID...", help="Task ids."),
    interval: float | None = typer.Option(
        None,
        "--interval",
        metavar="S",
        help="Seconds between polls (15-60 for real hosts; the loopback sandbox may be polled faster).",
    ),
) -> None:
    raise typer.Exit(follow(current(), list(dict.fromkeys(task_ids)), interval))


def effective_interval(app: AppContext, requested: float | None) -> float:
    settings = app.settings
    value = requested if requested is not None else settings.default_poll_interval()
    if value <= 0:
        raise UsageError("--interval must be positive")
    floor = settings.min_poll_interval()
    if value < floor:
        app.output.warn(
            f"polling every {value}s is too often for {settings.base_url}; using {floor}s"
        )
        value = floor
    return min(value, 60.0) if not settings.is_loopback else value


class _Seen:
    def __init__(self) -> None:
        self.state: str | None = None
        self.events = 0
        self.updated: Any = None


def follow(app: AppContext, task_ids: list[str], interval: float | None) -> int:
    """Watch until all are final or wait on a human; returns the exit code."""
    every = effective_interval(app, interval)
    seen = {tid: _Seen() for tid in task_ids}
    live = list(task_ids)
    finals: dict[str, dict[str, Any]] = {}
    blocked: dict[str, dict[str, Any]] = {}
    status = _Status(app, len(task_ids))
    try:
        while live:
            for tid in list(live):
                task = app.tasks.poll(tid, auth=app.free_call_auth())
                remember_state(app, task)
                _show_changes(app, tid, task, seen[tid])
                state = str(task["state"])
                if state in FINAL:
                    finals[tid] = task
                    live.remove(tid)
                elif state == "blocked_on_user":
                    if app.settings.no_input:
                        blocked[tid] = task
                        live.remove(tid)
                    else:
                        status.pause()
                        _answer(app, task)
            if live:
                status.update(live, every)
                time.sleep(every)
    finally:
        status.stop()
    if not app.output.json_mode:
        from svc.ui.render import task_panel

        for task in [*finals.values(), *blocked.values()]:
            app.output.console.print(task_panel(task))
    return _outcome(finals, blocked)


def _outcome(finals: dict[str, dict[str, Any]], blocked: dict[str, dict[str, Any]]) -> int:
    if blocked:
        ids = " ".join(blocked)
        raise HumanNeededError(
            f"task {ids} waits on the user and prompting is off",
            hint=f"answer with `svc reply {next(iter(blocked))} ...`, then `svc watch {ids}`",
            json_report=False,
        )
    failed = {tid: t for tid, t in finals.items() if t.get("state") != "completed"}
    if failed:
        tid, task = next(iter(failed.items()))
        why = task.get("error") or task.get("state")
        reason = f": {task['reason']}" if task.get("reason") else ""
        more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
        raise TaskEndedError(
            f"task {tid} ended {task.get('state')} ({why}){reason}{more}", json_report=False
        )
    return 0


def _show_changes(app: AppContext, tid: str, task: dict[str, Any], seen: _Seen) -> None:
    events = task.get("events") if isinstance(task.get("events"), list) else []
    assert isinstance(events, list)
    changed = (
        task.get("state") != seen.state
        or len(events) != seen.events
        or task.get("updated_at") != seen.updated
    )
    if not changed:
        return
    if app.output.json_mode:
        app.output.emit_line(task)
    else:
        from svc.ui.render import event_line

        for event in events[seen.events :]:
            if isinstance(event, dict):
                app.output.console.print(event_line(tid, event))
    seen.state, seen.events, seen.updated = (
        str(task.get("state")),
        len(events),
        task.get("updated_at"),
    )


def _answer(app: AppContext, task: dict[str, Any]) -> None:
    from svc.api.models import TaskDetail
    from svc.flows.reply import body_from_form
    from svc.ui.render import task_panel

    app.output.err_console.print(task_panel(task))
    body = body_from_form(TaskDetail.model_validate(task))
    answered = app.tasks.reply(str(task["id"]), body, auth=app.free_call_auth())
    app.output.note(f"answer sent; task {task['id']} is now {answered.get('state')}")


class _Status:
    """A one-line live status on stderr when it is a terminal; nothing otherwise."""

    def __init__(self, app: AppContext, count: int) -> None:
        self._status: Any = None
        if app.output.stderr_tty and not app.output.json_mode:
            self._status = app.output.err_console.status(f"watching {count} task(s)…")
            self._status.start()

    def update(self, live: list[str], every: float) -> None:
        if self._status is not None:
            self._status.update(f"{len(live)} live task(s); next poll in {every:g}s")
            self._status.start()

    def pause(self) -> None:
        if self._status is not None:
            self._status.stop()

    def stop(self) -> None:
        if self._status is not None:
            self._status.stop()
