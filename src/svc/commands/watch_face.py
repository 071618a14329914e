"""`svc watch`'s face: the changes the follower yields (`svc.engines.watch`), drawn and acted on.

Each change is drawn (NDJSON, an event line, or for many tasks only the live status line),
handed to the observers (`--exec` hooks, run off this loop and bounded; `--notify` when a task
starts waiting on the person or ends), and an ask opens the answer form, one at a time, in its
own thread (`FormSession`), while the follower polls on. With prompting off the follower stops
at an ask and the end says how to answer (`watch_stop`). `svc watch` and `submit --wait` use it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from svc.commands.watch_form import LEAVE, FormSession
from svc.commands.watch_hooks import ExecHooks
from svc.commands.watch_status import Status
from svc.commands.watch_stop import outcome
from svc.engines.asks import left_text, plain_payload, summarize
from svc.engines.changes import TaskChange
from svc.engines.reply import send_body
from svc.engines.watch import Follower
from svc.engines.watch_parts import events_of
from svc.errors import Conflict
from svc.ui import terminal, views
from svc.ui.notify import Notifier

if TYPE_CHECKING:
    from svc.ui.face import FaceContext

MANY = 20  # above this many tasks a terminal gets a live summary, not a line per event
GONE_NAMED = 3  # a summary of tasks the service forgot names this many; the ledger has them all
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
    # The ledger's task states when `--all` has just read them (None: the follower reads them).
    known_states: dict[str, str | None] | None = None


class WatchFace:
    """One watch: the follower, what the person was shown and asked, and the observers."""

    def __init__(self, app: FaceContext, task_ids: list[str], opts: Following) -> None:
        self.app = app
        self.follower: Follower = Follower(
            app,
            task_ids,
            opts.interval,
            stop_at_ask=app.settings.no_input,  # no prompting: the end names the reply command
            from_ledger=opts.from_ledger,
            known_states=opts.known_states,
        )
        ids = self.follower.task_ids
        self.states: dict[str, str | None] = dict.fromkeys(ids)  # for the status line
        self.with_id: bool = len(ids) > 1  # one task's lines need no id on each
        self.many: bool = len(ids) > MANY
        self.finals: dict[str, dict[str, Any]] = {}
        self.blocked: dict[str, dict[str, Any]] = {}  # left waiting: prompting is off
        self.waiting: dict[str, dict[str, Any]] = {}  # waiting on the person, to be asked
        self.left_to_app: set[str] = set()  # payments the person leaves to the approval app
        # ask sent an answer -> (that ask, the events seen then): a poll sent before the answer
        # still shows it, and must not open its prompt again
        self.answered: dict[str, tuple[object, int]] = {}
        self.form: FormSession | None = None
        self.hooks: ExecHooks | None = _hooks(app, opts)
        self.notifier: Notifier | None = Notifier() if opts.notify else None
        self.status: Status | None = None
        self.gone: list[str] = []  # told once, at the end: 61 warnings buried the rest

    def run(self) -> int:
        """Watch until all are final or wait on a human; returns the exit code."""
        interval = self.follower.interval
        if interval.raised:
            self.app.output.warn(
                f"polling every {interval.asked}s is too often for "
                f"{self.app.settings.base_url}; using {interval.floor}s"
            )
        self.follower.start()
        self.status = Status(self.app.output, self.states)
        try:
            self._loop(self.status)
        except BaseException:
            if self.hooks is not None:
                self.hooks.abort()  # interrupted: no hook outlives the watch
            raise
        finally:
            if self.form is not None:
                self.form.withdraw()  # restores the terminal's echo if a hidden prompt was up
            self.status.stop()
            self.follower.close()
            self._tell_gone()
        if self.hooks is not None:
            self.hooks.close()  # the last changes' hooks still run (each bounded)
        if not self.app.output.json_mode:
            ended = [*self.finals.values(), *self.blocked.values()]
            views.watch_report(self.app.output, ended, MANY)
        return outcome(self.app.output, self.finals, self.blocked)

    def _loop(self, status: Status) -> None:
        while self.follower.following:
            # A Ctrl-C whose KeyboardInterrupt CPython lost (raised in a finalizer: printed as
            # ignored) was still noted by svc's handler: it ends the watch at its next step.
            terminal.raise_if_interrupted()
            live = self.form is not None or bool(status.countdowns)
            changes = self.follower.step(TICK if live else None)  # a live countdown: redrawn
            self._check_form()
            for change in changes:
                self._take(change)
            self._ask_next()
            status.refresh()

    def _take(self, change: TaskChange) -> None:
        if change.kind == "event":
            if not self.app.output.json_mode and not self.many:
                views.events(self.app.output, change.task, [change.event], with_id=self.with_id)
            return
        self.states[change.task_id] = change.state
        if change.kind == "gone":
            self._gone(change.task_id)
            return
        if self.app.output.json_mode:
            self.app.output.emit_line(change.task)  # one line per observed change
        self._observe(change)
        self._route(change)

    def _gone(self, tid: str) -> None:
        self.gone.append(tid)
        if self.app.output.json_mode:
            self.app.output.emit_line({"id": tid, "state": "gone"})

    def _tell_gone(self) -> None:
        """One line for every task the service no longer knows, naming a few of them."""
        if len(self.gone) == 1:
            self.app.output.warn(
                "task {tid} is unknown to the service (404), so it is marked gone in the ledger "
                "and not watched; `svc tasks forget {tid}` removes it",
                tid=self.gone[0],
            )
        elif self.gone:
            views.gone_tasks(self.app.output, self.gone, GONE_NAMED)

    def _observe(self, change: TaskChange) -> None:
        if self.hooks is not None:
            self.hooks.submit(change)
        tell = change.kind in ("ask", "final")  # the person is needed, or it is over
        if self.notifier is not None and change.moved and tell:
            what = summarize(change.task).what
            waits = "waits on you: " if change.kind == "ask" else ""
            self.notifier.notify(f"task {change.task_id} {waits}{what}")

    def _route(self, change: TaskChange) -> None:
        assert self.status is not None
        tid, task = change.task_id, change.task
        if change.kind == "ask" and self.follower.stop_at_ask:
            self.blocked[tid] = task
            return
        if change.kind == "ask":
            self._waiting(tid, task)
            return
        self.status.countdowns.pop(tid, None)
        self.waiting.pop(tid, None)
        self.left_to_app.discard(tid)
        self.answered.pop(tid, None)
        self._close_form(
            tid, f"task {tid} is {change.state} now, so the answer is no longer needed"
        )
        if change.kind == "final":
            self.finals[tid] = task

    def _waiting(self, tid: str, task: dict[str, Any]) -> None:
        """A task waits on the person: keep its countdown, and ask again if the ask changed."""
        assert self.status is not None
        summary = summarize(task)
        left = summary.seconds_left
        deadline = None if left is None else time.monotonic() + left
        self.status.countdowns[tid] = (summary.what, deadline)
        self.waiting[tid] = task
        form = self.form
        if form is not None and form.task_id == tid and _ask_of(form.task) != _ask_of(task):
            self._close_form(tid, f"the ask of task {tid} changed; asking again")

    def _ask_next(self) -> None:
        """Open the form of the first task that waits on the person and was not answered (one
        form at a time)."""
        if self.form is not None:
            return
        for tid, task in self.waiting.items():
            if tid in self.left_to_app or self._sent_already(tid, task):
                continue
            summary = summarize(task)
            views.task_panel(self.app.output, task, err=True)
            line = f"task {tid} {summary.what} · {left_text(summary.seconds_left)}"
            self.form = FormSession(task, line)
            return

    def _sent_already(self, tid: str, task: dict[str, Any]) -> bool:
        """The ask was answered and this poll shows it still (sent before the answer, or read
        before the service moved on): its prompt stays closed. A new ask opens one."""
        sent = self.answered.get(tid)
        return sent is not None and sent[0] == _ask_of(task) and len(events_of(task)) <= sent[1]

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
            return  # the task still waits: its form opens again
        try:
            answered = send_body(self.app, tid, body)
        except Conflict as exc:
            # Answered elsewhere or expired between the Enter and the send: the watch goes on
            # and the next poll shows what the task does now.
            self.app.output.warn(f"answer not taken: {exc.message}")
        else:
            self.app.output.note(
                "answer sent; task {id} is now {state}", id=tid, state=answered.state
            )
        seen = self.waiting.get(tid, asked)
        self.answered[tid] = (_ask_of(asked), len(events_of(seen)))  # closed for good
        self.follower.renew(tid)  # show the effect on the next poll

    def _close_form(self, tid: str, why: str) -> None:
        form = self.form
        if form is None or form.task_id != tid:
            return
        self.form = None  # an answer typed in the same instant is dropped: the ask is gone
        form.withdraw()
        self.app.output.warn(f"prompt closed: {why}")


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


def follow(app: FaceContext, task_ids: list[str], interval: float | None) -> int:
    """`submit --wait`: watch the one new task with the person's `notify` setting."""
    opts = Following(interval=interval, notify=app.settings.notify)
    return WatchFace(app, task_ids, opts).run()
