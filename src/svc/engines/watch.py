"""The watch engine: follow tasks until final, showing changes live (`svc watch`).

Many tasks are followed in one process: one HTTP connection pool, a few worker threads that
only send polls (`Pollers`), and one main thread that owns the schedule
(`svc.engines.schedule`), the output and the ledger. An answer form runs in its own thread
(`FormSession`) so polling goes on while it is open. Observers see every change: `--exec`
hooks (run off this loop, bounded) and `--notify` (when a task starts waiting on the person
or ends).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from svc.engines.asks import AskSummary, left_text, plain_payload, summarize
from svc.engines.auth import free_call_auth
from svc.engines.hooks import Change, ExecHooks
from svc.engines.schedule import PollSchedule
from svc.engines.task_state import remember_state
from svc.engines.watch_parts import (
    FINAL,
    Pollers,
    Seen,
    Status,
    effective_interval,
    ledger_states,
)
from svc.engines.watch_prompt import LEAVE, FormSession
from svc.errors import ConflictError, HumanNeededError, NotFoundError, TaskEndedError
from svc.store.ledger.rows import GONE
from svc.ui import views
from svc.ui.notify import Notifier

if TYPE_CHECKING:
    from svc.engines.hooks import ExecHooks
    from svc.engines.schedule import PollSchedule
    from svc.engines.watch_prompt import FormSession
    from svc.ui.face import FaceContext
    from svc.ui.notify import Notifier

MAX_COALESCE = 0.25  # seconds a due poll may wait to join others (of a 15-60 s interval)
MAX_WORKERS = 8  # concurrent polls in flight; the pool keeps as many connections
MANY = 20  # above this many tasks a terminal gets a live summary, not a line per event
TICK = 0.5  # longest idle wait while a countdown or a form is on screen


@dataclass(frozen=True)
class Following:
    """How to follow: the poll interval, and who hears of a change (notifications, hooks)."""

    interval: float | None = None
    notify: bool = False
    exec_command: str | None = None
    exec_timeout: float = 30.0
    # Ids taken from the ledger (`--all`): one the service no longer knows (404) is marked
    # gone and skipped, and the others are watched; an id the person typed stays exit 7.
    from_ledger: frozenset[str] = frozenset()


class Watch:
    """One watch: the schedule, what was seen, the open form and the observers."""

    def __init__(self, app: FaceContext, task_ids: list[str], opts: Following) -> None:
        self.app = app
        every = effective_interval(app, opts.interval)
        self.schedule: PollSchedule = PollSchedule(task_ids, every)
        self.coalesce = min(MAX_COALESCE, every / 60)
        self.seen = {tid: Seen() for tid in task_ids}
        self.states: dict[str, str] = {}  # the last state observed (for SVC_TASK_PREVIOUS_STATE)
        self.finals: dict[str, dict[str, Any]] = {}
        self.blocked: dict[str, dict[str, Any]] = {}
        self.left_to_app: set[str] = set()  # payments the person leaves to the approval app
        # ask sent an answer -> (that ask, the events seen then): a poll sent before the answer
        # still shows it, and must not open its prompt again (issue 30.11)
        self.answered: dict[str, tuple[object, int]] = {}
        self.form: FormSession | None = None
        self.hooks = _hooks(app, opts)
        self.notifier = _notifier(opts)
        self.known: dict[str, str | None] = {}
        self.status: Status | None = None
        self.from_ledger = opts.from_ledger

    def follow(self) -> int:
        """Watch until all are final or wait on a human; returns the exit code."""
        app = self.app
        app.tasks  # noqa: B018 - build the shared client here, not racing in the workers
        self.known = ledger_states(app)
        pollers = Pollers(app, min(MAX_WORKERS, len(self.seen)))
        self.status = Status(app, self.seen)
        try:
            self._loop(pollers, self.status)
        except BaseException:
            if self.hooks is not None:
                self.hooks.abort()  # interrupted: no hook outlives the watch
            raise
        finally:
            if self.form is not None:
                self.form.withdraw()  # restores the terminal's echo if a hidden prompt was up
            self.status.stop()
        if self.hooks is not None:
            self.hooks.close()  # the last changes' hooks still run (each bounded)
        if not app.output.json_mode:
            views.watch_report(app.output, [*self.finals.values(), *self.blocked.values()], MANY)
        return self._outcome()

    def _loop(self, pollers: Pollers, status: Status) -> None:
        while len(self.schedule) or pollers.in_flight:
            now = time.monotonic()
            while pollers.in_flight < pollers.size:
                due = self.schedule.pop_due(now)
                if due is None:
                    break
                pollers.send(due)
            wait = None
            nxt = self.schedule.next_due()
            if nxt is not None and pollers.in_flight < pollers.size:
                # Idle until a little after the next poll is due, so polls that fall due close
                # together go out as one small burst: a warm process polls at half the CPU cost
                # of one woken for each. Only ever later than due, never sooner.
                wait = max(0.0, nxt - now) + (self.coalesce if not pollers.in_flight else 0.0)
            if self.form is not None or status.countdowns:
                wait = TICK if wait is None else min(wait, TICK)  # keep the countdown live
            if wait is None and not pollers.in_flight:
                break
            item = pollers.receive(wait)
            self._check_form()
            if item is not None:
                self._take(*item)
            status.refresh()

    def _take(self, tid: str, task: dict[str, Any] | None, error: BaseException | None) -> None:
        if isinstance(error, NotFoundError) and tid in self.from_ledger:
            self._gone(tid)
            return
        if error is not None:
            raise error
        assert task is not None
        previous = self.states.get(tid)
        state = str(task["state"])
        changed = self._show_changes(tid, task, self.seen[tid])
        if changed:
            if self.known.get(tid) != state:
                remember_state(self.app, tid, state)  # durable: only when behind
            self.known[tid] = state
            self._observe(task, previous)
        self.states[tid] = state
        self._route(tid, task, state, changed)

    def _gone(self, tid: str) -> None:
        """A task the ledger listed as live that the service no longer knows (a sandbox that
        restarted forgets its tasks): marked in the ledger, named once, and not polled again;
        the others are watched as before (issue 30.4)."""
        self.schedule.drop(tid)
        self.seen[tid].state = GONE
        if self.known.get(tid) != GONE:
            remember_state(self.app, tid, GONE)
        self.known[tid] = GONE
        self.app.output.warn(
            f"task {tid} is unknown to the service (404), so it is marked gone in the ledger "
            f"and not watched; `svc tasks forget {tid}` removes it"
        )
        if self.app.output.json_mode:
            self.app.output.emit_line({"id": tid, "state": GONE})

    def _observe(self, task: dict[str, Any], previous: str | None) -> None:
        state = str(task["state"])
        if self.hooks is not None:
            self.hooks.submit(Change(task, previous))
        tell = state == "blocked_on_user" or state in FINAL
        if self.notifier is not None and state != previous and tell:
            what = summarize(task).what
            waits = "waits on you: " if state == "blocked_on_user" else ""
            self.notifier.notify(f"task {task['id']} {waits}{what}")

    def _route(self, tid: str, task: dict[str, Any], state: str, changed: bool) -> None:
        assert self.status is not None
        if state == "blocked_on_user" and self.app.settings.no_input:
            self.blocked[tid] = task
            self.schedule.drop(tid)
            return
        if state == "blocked_on_user":
            self._waiting(tid, task, changed)
            self.schedule.polled(tid, changed=True)  # a live ask: keep the prompt's news fresh
            return
        self.status.countdowns.pop(tid, None)
        self.left_to_app.discard(tid)
        self.answered.pop(tid, None)
        self._close_form(tid, f"task {tid} is {state} now, so the answer is no longer needed")
        if state in FINAL:
            self.finals[tid] = task
            self.schedule.drop(tid)
        else:
            self.schedule.polled(tid, changed=changed)

    def _waiting(self, tid: str, task: dict[str, Any], changed: bool) -> None:
        """A task waits on the person: keep its countdown, and ask (one form at a time)."""

        assert self.status is not None
        summary = summarize(task)
        left = summary.seconds_left
        deadline = None if left is None else time.monotonic() + left
        self.status.countdowns[tid] = (summary.what, deadline)
        form = self.form
        if form is not None and form.task_id == tid:
            if changed and _ask_of(form.task) != _ask_of(task):
                self._close_form(tid, f"the ask of task {tid} changed; asking again")
            return
        if form is not None or tid in self.left_to_app or self._sent_already(tid, task):
            return

        views.task_panel(self.app.output, task, err=True)
        self.form = FormSession(task, f"task {tid} {summary.what} · {left_text(left)}")

    def _sent_already(self, tid: str, task: dict[str, Any]) -> bool:
        """The ask was answered and this poll shows it still (sent before the answer, or read
        before the service moved on): its prompt stays closed. A new ask opens one."""
        sent = self.answered.get(tid)
        events = task.get("events")
        count = len(events) if isinstance(events, list) else 0
        return sent is not None and sent[0] == _ask_of(task) and count <= sent[1]

    def _check_form(self) -> None:
        """A form that finished: raise its error, or send its answer."""
        form = self.form
        if form is None or not form.done.is_set():
            return
        self.form = None
        if form.error is not None:
            raise form.error

        tid = form.task_id
        if form.body == LEAVE:
            self.left_to_app.add(tid)
            self.app.output.note(f"left to the approval app; watching task {tid} for it")
        elif isinstance(form.body, dict):
            self._send(tid, form.body, form.task)

    def _send(self, tid: str, body: dict[str, Any], asked: dict[str, Any]) -> None:
        if _blank(body):
            # Never sent: the service would refuse it (422) and the person can simply retype.
            self.app.output.warn("an empty answer is not sent; asking again")
            return  # the task still waits: the next poll opens the form again
        try:
            answered = self.app.tasks.reply(tid, body, auth=free_call_auth(self.app))
        except ConflictError as exc:
            # Answered elsewhere or expired between the Enter and the send: the watch goes on
            # and the next poll shows what the task does now.
            self.app.output.warn(f"answer not taken: {exc.message}")
        else:
            self.app.output.note(
                "answer sent; task {id} is now {state}", id=tid, state=answered.state
            )
        self.answered[tid] = (_ask_of(asked), self.seen[tid].events)  # closed for good
        self.seen[tid].state = None  # show the effect on the next poll

    def _close_form(self, tid: str, why: str) -> None:
        form = self.form
        if form is None or form.task_id != tid:
            return
        self.form = None  # an answer typed in the same instant is dropped: the ask is gone
        form.withdraw()
        self.app.output.warn(f"prompt closed: {why}")

    def _show_changes(self, tid: str, task: dict[str, Any], seen: Seen) -> bool:
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
        if self.app.output.json_mode:
            self.app.output.emit_line(task)
        elif len(self.seen) <= MANY:
            many = len(self.seen) > 1  # one task's lines need no id on each
            views.events(self.app.output, task, events[seen.events :], with_id=many)
        seen.state, seen.events = str(task.get("state")), len(events)
        seen.updated = task.get("updated_at")
        return True

    def _outcome(self) -> int:
        if self.blocked:
            raise _stopped_at_asks(self.app, self.blocked)
        failed = {tid: t for tid, t in self.finals.items() if t.get("state") != "completed"}
        if failed:
            tid, task = next(iter(failed.items()))
            why = task.get("error") or task.get("state")
            reason = f": {task['reason']}" if task.get("reason") else ""
            more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
            raise TaskEndedError(
                f"task {tid} ended {task.get('state')} ({why}){reason}{more}", json_report=False
            )
        return 0


def _stopped_at_asks(app: FaceContext, blocked: dict[str, dict[str, Any]]) -> HumanNeededError:
    """Exit 6 that says how to answer: the reply command and the time left (and, with --json,
    one stop line per task carrying the same)."""

    summaries = {tid: summarize(task) for tid, task in blocked.items()}
    if app.output.json_mode:
        for tid, summary in summaries.items():
            app.output.emit_line({"id": tid, "state": "blocked_on_user", **summary.as_json()})
    if len(summaries) > FEW_ASKS:
        return _many_stopped(summaries)
    ids = " ".join(blocked)
    asks = [f"{s.what}, {left_text(s.seconds_left)}" for s in summaries.values()]
    if len(summaries) == 1:
        message = f"task {ids} waits on the user and prompting is off: it {asks[0]}"
    else:
        each = "; ".join(f"{tid} {ask}" for tid, ask in zip(summaries, asks, strict=True))
        message = f"{len(summaries)} tasks wait on the user and prompting is off: {each}"
    steps = [s.next_step() for s in summaries.values()]
    then = (
        "" if all(s.kind == "payment" for s in summaries.values()) else f", then `svc watch {ids}`"
    )
    return HumanNeededError(message, hint="; ".join(steps) + then, json_report=False)


FEW_ASKS = 3  # above this many waiting tasks, the stop message counts them (issue 30.9)


def _many_stopped(summaries: dict[str, AskSummary]) -> HumanNeededError:
    """A count, the first few answers and where the rest are listed: 60 ids on one line were
    cut with `…` in the middle of an id."""
    first = list(summaries.values())[:FEW_ASKS]
    soonest = min(
        (s.seconds_left for s in summaries.values() if s.seconds_left is not None), default=None
    )
    message = f"{len(summaries)} tasks wait on the user and prompting is off"
    if soonest is not None and soonest <= 0:
        message += "; an ask has expired"
    elif soonest is not None:
        message += f"; the first ask expires in {left_text(soonest).removesuffix(' left')}"
    rest = len(summaries) - len(first)
    listed = "`svc tasks --state blocked_on_user` lists them"
    asked = "on a terminal `svc watch --all` asks each in turn"
    hint = "; ".join([f"`{s.reply_command}`" for s in first] + [f"and {rest} more: {listed}"])
    hint += f"; {asked}"
    return HumanNeededError(message, hint=hint, json_report=False)


def _blank(body: dict[str, Any]) -> bool:
    """A plain answer whose value or message is empty (a structured one is checked by its form)."""
    return any(key in body and not str(body[key] or "").strip() for key in ("value", "message"))


def _ask_of(task: dict[str, Any]) -> object:
    """What identifies the ask itself (not the task's other news)."""

    return (task.get("info_request"), plain_payload(task))


def _hooks(app: FaceContext, opts: Following) -> ExecHooks | None:
    if not opts.exec_command:
        return None

    return ExecHooks(opts.exec_command, app.output.warn, opts.exec_timeout)


def _notifier(opts: Following) -> Notifier | None:
    if not opts.notify:
        return None

    return Notifier()


def follow(app: FaceContext, task_ids: list[str], interval: float | None) -> int:
    """`submit --wait`: watch the one new task with the person's `notify` setting."""
    opts = Following(interval=interval, notify=app.settings.notify)
    return Watch(app, list(dict.fromkeys(task_ids)), opts).follow()
