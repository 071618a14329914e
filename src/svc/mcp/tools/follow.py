"""`get_task` and `wait_for_task`: the CLI's poll, spaced as the spec asks, and secret asks
answered by the person through elicitation."""

from __future__ import annotations

from typing import Any

import anyio

from svc.api.models import TaskDetail
from svc.context import AppContext
from svc.engines.auth import free_call_auth
from svc.engines.reply import body_for
from svc.engines.task_state import remember
from svc.errors import ProtocolError
from svc.mcp.asks import describe, secret_field, secret_prompt
from svc.mcp.results import Outcome
from svc.mcp.schemas import WAIT_BUDGET_SECONDS
from svc.mcp.state import Call
from svc.replies import Secret


def detail(task: dict[str, Any]) -> TaskDetail:
    """The task as a model; a shape the spec does not allow is the server's fault."""
    from pydantic import ValidationError

    try:
        return TaskDetail.model_validate(task)
    except ValidationError as exc:
        where = ".".join(str(p) for p in exc.errors()[0]["loc"]) or "task"
        raise ProtocolError(f"the server's task is not one the spec allows ({where})") from None


async def poll(call: Call, task_id: str) -> dict[str, Any]:
    def work(app: AppContext) -> dict[str, Any]:
        task = app.tasks.poll(task_id, free_call_auth(app))
        remember(app, task)
        return task.raw

    task = await call.run(work)
    call.gate.record(task_id, task)
    return task


async def send_reply(call: Call, task_id: str, body: dict[str, Any]) -> dict[str, Any]:
    def work(app: AppContext) -> dict[str, Any]:
        answered = app.tasks.reply(task_id, body, auth=free_call_auth(app))
        remember(app, answered)
        return answered.raw

    return await call.run(work)


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

    value = await call.human.secret(secret_prompt(task, field), field, task.id)
    if value is None:
        return None
    call.vault.add(value)
    body = body_for(task, Secret(value, field))
    return await send_reply(call, task.id, body)


async def wait_for_task(call: Call, args: dict[str, Any]) -> Outcome:
    task_id = str(args["task_id"])
    # One call never outlasts the clients' request timeouts (60 s in the TypeScript SDK, and
    # its progress does not reset it): the model is told to call again instead.
    timeout = min(float(args.get("timeout_seconds", WAIT_BUDGET_SECONDS)), WAIT_BUDGET_SECONDS)
    settings = call.settings
    interval = max(settings.default_poll_interval(), settings.min_poll_interval())
    wait = call.gate.wait_time(task_id)
    if wait > timeout:
        return await get_task(call, {"task_id": task_id})
    await anyio.sleep(wait)
    polls = 0
    while True:
        task = await poll(call, task_id)
        polls += 1
        model = detail(task)
        if model.is_final or model.state == "blocked_on_user":
            field = _secret_to_ask(call, model)
            if field:
                await call.progress(f"task {task_id} waits for the person's {field}", timeout)
            answered = await answer_secret(call, model, field) if field else None
            if answered is None:
                gave = f" The person gave no {field} when asked." if field else ""
                return Outcome({"task": task}, describe(model, can_ask=call.human.reachable) + gave)
            task, model = answered, detail(answered)
        elapsed = call.elapsed()
        if elapsed + interval > timeout:  # no poll sooner than the interval, even the last one
            return Outcome(
                {"task": task},
                f"{describe(model, can_ask=call.human.reachable)} Still waiting after "
                f"{elapsed:.0f} s: call wait_for_task again to go on.",
            )
        await call.progress(f"task {task_id} is {model.state} ({polls} polls)", timeout)
        await anyio.sleep(interval)


def _secret_to_ask(call: Call, model: TaskDetail) -> str | None:
    """The secret field to ask the person for now, if the task waits on one and they can be
    asked; any other ask goes back to the agent."""
    field = None if model.is_final else secret_field(model)
    return field if field is not None and call.human.reachable else None
