"""`get_task` and `wait_for_task`: the CLI's poll and its follower engine, spaced as the spec
asks, and secret asks answered by the person through elicitation."""

from __future__ import annotations

from typing import Any

import anyio
import anyio.from_thread

from svc.api.models import TaskDetail
from svc.engines.asks import read_ask, secret_field
from svc.engines.poll import poll_once
from svc.engines.reply import send
from svc.engines.watch import Follower
from svc.engines.watch_parts import poll_interval
from svc.errors import ProtocolError
from svc.mcp import stopping
from svc.mcp.asks import describe, secret_prompt
from svc.mcp.pace import wait_budget
from svc.mcp.results import Outcome
from svc.mcp.state import Call
from svc.replies import Secret
from svc.ui.face import FaceContext

CHECK_SECONDS = 1.0  # the longest a follow waits before it looks whether the call was cancelled


def detail(task: dict[str, Any]) -> TaskDetail:
    """The task as a model; a shape the spec does not allow is the server's fault."""
    from pydantic import ValidationError

    try:
        return TaskDetail.model_validate(task)
    except ValidationError as exc:
        where = ".".join(str(p) for p in exc.errors()[0]["loc"]) or "task"
        raise ProtocolError(f"the server's task is not one the spec allows ({where})") from None


async def poll(call: Call, task_id: str) -> dict[str, Any]:
    def work(app: FaceContext) -> dict[str, Any]:
        return poll_once(app, task_id).raw

    task = await call.run(work)
    call.gate.record(task_id, task)
    return task


async def get_task(call: Call, args: dict[str, Any]) -> Outcome:
    task_id = str(args["task_id"])
    recent = call.gate.recent(task_id)
    note = ""
    if recent is not None:  # polled moments ago: the spec's interval forbids another poll yet
        age, task = recent
        note = (
            f" (as polled {age:.0f} s ago: the service allows one poll every "
            f"{call.gate.spacing:g} s)"
        )
    else:
        task = await poll(call, task_id)
    return Outcome({"task": task}, describe(detail(task), can_ask=call.human.reachable) + note)


async def answer_secret(call: Call, task: TaskDetail, field: str) -> dict[str, Any] | None:
    """Ask the person for the secret and send it marked sensitive; None if they gave none.

    The value joins the server's vault first, so no later result, of this call or any other,
    can carry it.
    """

    value = await call.human.secret(secret_prompt(read_ask(task), field), field, task.id)
    if value is None:
        return None
    call.vault.add(value)
    return await call.run(lambda app: send(app, read_ask(task), Secret(value, field)).raw)


async def wait_for_task(call: Call, args: dict[str, Any]) -> Outcome:
    task_id = str(args["task_id"])
    # One call never outlasts the clients' request timeouts (60 s in the TypeScript SDK, and
    # its progress does not reset it): the model is told to call again instead.
    budget = wait_budget()
    timeout = min(float(args.get("timeout_seconds", budget)), budget)
    interval = poll_interval(call.settings, None).seconds
    wait = call.gate.wait_time(task_id)
    if wait > timeout:
        return await get_task(call, {"task_id": task_id})
    await stopping.sleep(wait)
    if stopping.under_way():
        return await get_task(call, {"task_id": task_id})
    waiting = Waiting(call, task_id, timeout)
    while True:
        task, stopped = await call.run(waiting.follow)
        model = detail(task)
        if stopped:  # final, or it waits on the person
            field = _secret_to_ask(call, model)
            if field:
                await call.progress(f"task {task_id} waits for the person's {field}", timeout)
            answered = await answer_secret(call, model, field) if field else None
            if answered is None:
                gave = f" The person gave no {field} when asked." if field else ""
                return Outcome({"task": task}, describe(model, can_ask=call.human.reachable) + gave)
            task, model = answered, detail(answered)
        elapsed = call.elapsed()
        # No poll sooner than the interval; a stopping server ends the wait as a spent budget.
        if not stopped or elapsed + interval > timeout or stopping.under_way():
            return Outcome(
                {"task": task},
                f"{describe(model, can_ask=call.human.reachable)} Still waiting after "
                f"{elapsed:.0f} s: call wait_for_task again to go on.",
            )
        await call.progress(f"task {task_id} is {model.state} ({waiting.polls} polls)", timeout)
        await stopping.sleep(interval)


class Waiting:
    """One wait_for_task call's following: the follower engine, run in one worker thread (its
    ledger writes stay in the thread whose context opened the ledger), each answer recorded
    in the poll gate and reported as progress."""

    def __init__(self, call: Call, task_id: str, timeout: float) -> None:
        self.call = call
        self.task_id = task_id
        self.timeout = timeout
        self.polls: int = 0  # answers this call had, over every follow
        self._before = 0  # answers before the present follow

    def follow(self, app: FaceContext) -> tuple[dict[str, Any], bool]:
        """Until the task is final or waits on the person (True), or its next poll would not
        fit in the call's budget (False); with the task as last answered."""
        self._before = self.polls
        with Follower(app, [self.task_id]) as follower:
            while True:
                changes = follower.step(CHECK_SECONDS)
                last = self._record(follower)
                stop = [c for c in changes if c.kind in ("final", "ask")]
                if stop:
                    return stop[-1].task, True
                anyio.from_thread.check_cancelled()  # the call was cancelled: stop here
                if last is not None and (stopping.under_way() or not self._fits(follower)):
                    return last, False

    def _record(self, follower: Follower) -> dict[str, Any] | None:
        """The last answer; a new one is checked, recorded in the gate, and, when the task
        goes on, reported."""
        answer = follower.last_answer(self.task_id)
        if answer is None:
            return None
        task, count = answer
        if self._before + count > self.polls:
            self.polls = self._before + count
            model = detail(task)  # a shape the spec does not allow ends the call
            self.call.gate.record(self.task_id, task)
            if not (model.is_final or model.state == "blocked_on_user") and self._fits(follower):
                message = f"task {self.task_id} is {model.state} ({self.polls} polls)"
                anyio.from_thread.run(self.call.progress, message, self.timeout)
        return task

    def _fits(self, follower: Follower) -> bool:
        """Whether the next poll goes out within the call's budget."""
        due = follower.next_poll_in()
        return due is None or self.call.elapsed() + due <= self.timeout


def _secret_to_ask(call: Call, model: TaskDetail) -> str | None:
    """The secret field to ask the person for now, if the task waits on one and they can be
    asked; any other ask goes back to the agent."""
    field = None if model.is_final else secret_field(model)
    return field if field is not None and call.human.reachable else None
