"""`svc watch ID...` / `svc watch --all`: follow tasks until final, showing changes live.

Many tasks are followed in one process: one HTTP connection pool, a few worker threads that
only send polls, and one main thread that owns the schedule (`svc.flows.schedule`), the output,
the ledger and any prompt. Polls are spread and jittered, and no task is polled more often than
the interval allows.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import TYPE_CHECKING, Any

import typer

from svc.api.ids import task_id_arg
from svc.cli.app import current
from svc.cli.common import remember_state
from svc.context import AppContext
from svc.errors import HumanNeededError, TaskEndedError, UsageError
from svc.settings import positive_seconds

if TYPE_CHECKING:
    from svc.ui.output import Progress

app = typer.Typer(rich_markup_mode=None)

FINAL = ("completed", "failed", "cancelled")
MAX_COALESCE = 0.25  # seconds a due poll may wait to join others (of a 15-60 s interval)
MAX_WORKERS = 8  # concurrent polls in flight; the pool keeps as many connections
MANY = 20  # above this many tasks a terminal gets a live summary, not a line per event


@app.command(
    help="Poll tasks until every one is final, showing state changes and events live.\n\n"
    "On a terminal, an ask (blocked_on_user) is answered in place; with --no-input (or in CI, "
    "or when stdin is not a terminal) watch stops with exit 6 so a script can reply. "
    "The exit code follows the final states: 0 all completed, 3 one failed or was cancelled, "
    "6 one waits on the user. Interrupted, it can simply be started again.\n\n"
    "With --json: NDJSON, one task detail per observed change; the last line of each task is "
    "its final detail.\n\n"
    "Thousands of tasks can be watched at once (--all: every live task in the ledger): polls "
    "are spread over the interval with jitter, on real hosts unchanged tasks back off towards "
    "60 s, and a terminal shows counts per state instead of every event.\n\n"
    "\b\nExamples:\n"
    "  svc watch tsk_1\n"
    "  svc watch tsk_1 tsk_2 --json | jq -r '.id + \" \" + .state'\n"
    "  svc watch --all --no-input\n"
    "  svc watch tsk_1 --no-input || svc reply tsk_1 ..."
)
def watch(
    task_ids: list[str] | None = typer.Argument(None, metavar="ID...", help="Task ids."),
    all_live: bool = typer.Option(
        False, "--all", help="Also every task the ledger knows as live (for this base URL)."
    ),
    interval: float | None = typer.Option(
        None,
        "--interval",
        metavar="S",
        help="Seconds between polls of one task (15-60 for real hosts; the loopback sandbox may be polled faster).",
    ),
) -> None:
    app_ctx = current()
    ids = [task_id_arg(t) for t in task_ids or []]  # all checked before any poll goes out
    if all_live:
        ids += live_task_ids(app_ctx)
        if not ids:
            app_ctx.output.note("no live task in the ledger for " + app_ctx.settings.base_url)
            return
    elif not ids:
        raise UsageError("missing ID: give task ids, or --all for every live task in the ledger")
    raise typer.Exit(follow(app_ctx, list(dict.fromkeys(ids)), interval))


def live_task_ids(app: AppContext) -> list[str]:
    """Task ids the ledger knows for this base URL whose last known state is not final."""
    from svc.store.ledger import ledger_path

    if "ledger" not in app.__dict__ and not ledger_path().exists():
        return []
    base = app.settings.base_url
    rows = app.ledger.submissions()
    return [
        str(row.task_id)
        for row in reversed(rows)  # oldest first
        if row.task_id and row.base_url == base and row.state not in FINAL
    ]


def _ledger_states(app: AppContext) -> dict[str, str | None]:
    """Task id -> the state the ledger already has (one read instead of a write per task)."""
    from svc.store.ledger import ledger_path

    if "ledger" not in app.__dict__ and not ledger_path().exists():
        return {}
    return {str(row.task_id): row.state for row in app.ledger.submissions() if row.task_id}


def effective_interval(app: AppContext, requested: float | None) -> float:
    settings = app.settings
    if requested is None:
        value = settings.default_poll_interval()  # checked where the settings were resolved
    else:
        value = positive_seconds("--interval", requested)
    floor = settings.min_poll_interval()
    if value < floor:
        app.output.warn(
            f"polling every {value}s is too often for {settings.base_url}; using {floor}s"
        )
        value = floor
    return min(value, 60.0) if not settings.is_loopback else value


class _Seen:
    __slots__ = ("events", "state", "updated")

    def __init__(self) -> None:
        self.state: str | None = None
        self.events = 0
        self.updated: Any = None


class _Pollers:
    """A few daemon threads sending polls through the one shared HTTP client.

    Daemon threads: an interrupted watch exits at once instead of waiting on requests.
    """

    def __init__(self, app: AppContext, size: int) -> None:
        self.app = app
        self.size = size
        self.jobs: queue.SimpleQueue[str] = queue.SimpleQueue()
        self.results: queue.SimpleQueue[tuple[str, dict[str, Any] | None, BaseException | None]]
        self.results = queue.SimpleQueue()
        self.in_flight = 0
        self._threads: list[threading.Thread] = []

    def send(self, task_id: str) -> None:
        if len(self._threads) < min(self.size, self.in_flight + 1):
            thread = threading.Thread(target=self._work, name="svc-poll", daemon=True)
            thread.start()
            self._threads.append(thread)
        self.in_flight += 1
        self.jobs.put(task_id)

    def receive(
        self, timeout: float | None
    ) -> tuple[str, dict[str, Any] | None, BaseException | None] | None:
        try:
            item = self.results.get(timeout=timeout)
        except queue.Empty:
            return None
        self.in_flight -= 1
        return item

    def _work(self) -> None:
        while True:
            task_id = self.jobs.get()
            try:
                task = self.app.tasks.poll(task_id, auth=self.app.free_call_auth())
            except BaseException as exc:  # handed to the main thread, which raises it
                self.results.put((task_id, None, exc))
            else:
                self.results.put((task_id, task, None))


def follow(app: AppContext, task_ids: list[str], interval: float | None) -> int:
    """Watch until all are final or wait on a human; returns the exit code."""
    from svc.flows.schedule import PollSchedule

    every = effective_interval(app, interval)
    task_ids = list(dict.fromkeys(task_ids))
    schedule = PollSchedule(task_ids, every)
    coalesce = min(MAX_COALESCE, every / 60)
    seen = {tid: _Seen() for tid in task_ids}
    finals: dict[str, dict[str, Any]] = {}
    blocked: dict[str, dict[str, Any]] = {}
    app.tasks  # noqa: B018 - build the shared client here, not racing in the workers
    known = _ledger_states(app)
    pollers = _Pollers(app, min(MAX_WORKERS, len(task_ids)))
    status = _Status(app, seen)
    try:
        while len(schedule) or pollers.in_flight:
            now = time.monotonic()
            while pollers.in_flight < pollers.size:
                due = schedule.pop_due(now)
                if due is None:
                    break
                pollers.send(due)
            wait = None
            nxt = schedule.next_due()
            if nxt is not None and pollers.in_flight < pollers.size:
                # Idle until a little after the next poll is due, so polls that fall due close
                # together go out as one small burst: a warm process polls at half the CPU cost
                # of one woken for each. Only ever later than due, never sooner.
                wait = max(0.0, nxt - now) + (coalesce if not pollers.in_flight else 0.0)
            if wait is None and not pollers.in_flight:
                break
            item = pollers.receive(wait)
            if item is None:
                status.refresh()
                continue
            tid, task, error = item
            if error is not None:
                raise error
            assert task is not None
            changed = _show_changes(app, tid, task, seen[tid], verbose_events=len(seen) <= MANY)
            if changed and known.get(tid) != task["state"]:
                remember_state(app, task)  # a durable write: only when the ledger is behind
                known[tid] = str(task["state"])
            state = str(task["state"])
            if state in FINAL:
                finals[tid] = task
                schedule.drop(tid)
            elif state == "blocked_on_user" and app.settings.no_input:
                blocked[tid] = task
                schedule.drop(tid)
            elif state == "blocked_on_user":
                status.pause()
                _answer(app, task)
                seen[tid].state = None  # show the answer's effect on the next poll
                schedule.polled(tid, changed=True)
            else:
                schedule.polled(tid, changed=changed)
            status.refresh()
    finally:
        status.stop()
    if not app.output.json_mode:
        _final_report(app, finals, blocked)
    return _outcome(finals, blocked)


def _final_report(
    app: AppContext, finals: dict[str, dict[str, Any]], blocked: dict[str, dict[str, Any]]
) -> None:
    from svc.ui import views

    views.watch_report(app.output, [*finals.values(), *blocked.values()], MANY)


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


def _show_changes(
    app: AppContext, tid: str, task: dict[str, Any], seen: _Seen, *, verbose_events: bool = True
) -> bool:
    """Print what changed since the last poll of this task; whether anything did."""
    events = task.get("events") if isinstance(task.get("events"), list) else []
    assert isinstance(events, list)
    changed = (
        task.get("state") != seen.state
        or len(events) != seen.events
        or task.get("updated_at") != seen.updated
    )
    if not changed:
        return False
    if app.output.json_mode:
        app.output.emit_line(task)
    elif verbose_events:
        from svc.ui import views

        views.events(app.output, tid, events[seen.events :])
    seen.state, seen.events, seen.updated = (
        str(task.get("state")),
        len(events),
        task.get("updated_at"),
    )
    return True


def _answer(app: AppContext, task: dict[str, Any]) -> None:
    from svc.api.models import TaskDetail
    from svc.flows.reply import body_from_form
    from svc.ui import views

    views.task_panel(app.output, task, err=True)
    body = body_from_form(TaskDetail.model_validate(task))
    answered = app.tasks.reply(str(task["id"]), body, auth=app.free_call_auth())
    app.output.note(
        "answer sent; task {id} is now {state}", id=task["id"], state=answered.get("state")
    )


class _Status:
    """A live status line on stderr when it is a terminal (counts per state when many tasks)."""

    MIN_REFRESH = 0.25  # seconds between redraws

    def __init__(self, app: AppContext, seen: dict[str, _Seen]) -> None:
        self._app = app
        self._seen = seen
        self._status: Progress | None = None
        self._drawn = 0.0
        self._start(f"watching {len(seen)} task(s)…")

    def _start(self, message: str) -> None:
        if self._app.output.stderr_tty and not self._app.output.json_mode:
            self._status = self._app.output.progress(message)

    def refresh(self) -> None:
        if self._status is None:
            self._start("watching…")
        if self._status is None or time.monotonic() - self._drawn < self.MIN_REFRESH:
            return
        self._drawn = time.monotonic()
        counts: dict[str, int] = {}
        for entry in self._seen.values():
            key = entry.state or "not polled yet"
            counts[key] = counts.get(key, 0) + 1
        text = ", ".join(f"{n} {state}" for state, n in sorted(counts.items()))
        self._status.update(f"{len(self._seen)} task(s): {text}")

    def pause(self) -> None:
        """Before an answer form: the form owns the terminal until the next refresh."""
        self.stop()

    def stop(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None
