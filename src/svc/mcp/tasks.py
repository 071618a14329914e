"""MCP Tasks (the `io.modelcontextprotocol/tasks` extension, 2026-07-28): `submit_task` and
`wait_for_task` answer a client that opts in with a task it polls, instead of a result.

Built on the MCP SDK's extension API (`mcp.server.extension`): an `Extension` whose
`intercept_tool_call` wraps `tools/call` and whose methods serve `tasks/get`,
`tasks/update` and `tasks/cancel`. The SDK applies extensions only inside its `MCPServer`;
`attach` does the same through the low-level `Server`'s public surface, which svc serves.

- Opt-in per request: a request at 2026-07-28 whose client capabilities name the extension.
  Any other request (no opt-in, an older protocol) gets today's tools, unchanged; `tasks/*`
  without the opt-in is the extension's -32021, and at an older protocol a method not found.
- The handle is durable: written in the ledger (svc.engines.task_handles) before its id goes
  out, so `tasks/get` answers after `svc mcp` restarts. Nothing runs in the background: each
  `tasks/get` looks at the service task (spaced by the poll gate, as every tool's poll) and
  moves the handle on (svc.mcp.task_states has the mapping).
- An ask is `input_required` with a form for the person; `tasks/update` carries the answer
  straight to the service through the reply engine, a secret marked sensitive and kept in the
  server's vault first, so no result, status message or ledger row ever holds it. A declined
  or empty form ends the task with today's "the person gave no ..." words; a client that
  cannot show forms never sees `input_required` (today's words: `svc reply` in a terminal).
- `tasks/cancel` stops svc following: the handle is `cancelled`, and its status message says
  the service task goes on (the service has no way to cancel one).
- Payment approval stays a round of the `tools/call` itself (resolved before the task exists,
  as the extension asks): the task starts once the paid submit went through.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

import mcp_types as types
from mcp.server.extension import Extension, MethodBinding, compose_tool_call_handler
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field, ValidationError

from svc.api.models import FINAL_STATES
from svc.engines.reply import send
from svc.engines.task_handles import TaskHandle, new_handle, read_handle, save_handle
from svc.errors import SvcError, UsageError
from svc.mcp.asks import describe
from svc.mcp.results import Outcome, bounded, error_doc, success
from svc.mcp.state import Call, PollGate
from svc.mcp.task_states import (
    CANCELLED,
    COMPLETED,
    INPUT_REQUIRED,
    TERMINAL,
    WORKING,
    Decision,
    Form,
    decide,
    form_for,
)
from svc.mcp.tools.follow import detail, poll
from svc.redact import Vault
from svc.replies import Answer
from svc.ui.face import FaceContext

if TYPE_CHECKING:
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
    from mcp.server.lowlevel import Server


class Handlers(Protocol):
    """What the extension takes of svc's server (svc.mcp.server.SvcServer): a call's parts, the
    tools it wraps, the poll spacing and the vault of what the person typed."""

    gate: PollGate
    vault: Vault

    def call_for(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams | None = None
    ) -> Call: ...

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult: ...


TASKS = "io.modelcontextprotocol/tasks"
RELATED = "io.modelcontextprotocol/related-task"  # where a result names its task
TASKABLE = frozenset({"submit_task", "wait_for_task"})
SUBMITTED = ("request_id", "rail", "replayed", "billing")  # a paid submit's own part
MIN_POLL_SECONDS = 1.0  # the interval a client is told: never busier than once a second
MESSAGE_LIMIT = 1000

# Checks a tool's arguments against its schema (svc.mcp.server's `check_arguments`, handed in:
# that module attaches this one): a UsageError naming the first argument that breaks it.
Checker = Callable[[str, dict[str, Any]], None]


class TaskIdParams(types.RequestParams):
    task_id: str = Field(max_length=200)  # the wire's `taskId` (the models' camel aliases)


class UpdateTaskParams(TaskIdParams):
    input_responses: dict[str, Any]


def opted_in(ctx: ServerRequestContext[Any, Any]) -> bool:
    """The client named the extension in this request's capabilities (2026-07-28 only)."""
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return False
    caps = ctx.session.client_capabilities
    return bool(caps is not None and caps.extensions and TASKS in caps.extensions)


def require_opt_in(ctx: ServerRequestContext[Any, Any]) -> None:
    if not opted_in(ctx):
        raise MCPError(
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            f"this request does not declare the {TASKS} extension",
            {"requiredCapabilities": {"extensions": {TASKS: {}}}},
        )


def stamp(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TasksExtension(Extension):
    identifier = TASKS

    def __init__(self, handlers: Handlers, check: Checker) -> None:
        self.handlers = handlers
        self.check = check

    def settings(self) -> dict[str, Any]:
        return {}  # exactly {}: the TypeScript extension client refuses any other value

    def methods(self) -> list[MethodBinding]:
        modern = frozenset(MODERN_PROTOCOL_VERSIONS)
        return [
            MethodBinding("tasks/get", TaskIdParams, self.get, modern),
            MethodBinding("tasks/update", UpdateTaskParams, self.update, modern),
            MethodBinding("tasks/cancel", TaskIdParams, self.cancel, modern),
        ]

    # --- tools/call ---------------------------------------------------------------------

    async def intercept_tool_call(
        self,
        params: types.CallToolRequestParams,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
    ) -> HandlerResult:
        if params.name not in TASKABLE or not opted_in(ctx):
            return await call_next(ctx)  # today's tool, unchanged
        if params.name == "wait_for_task":
            return await self._follow(ctx, params, call_next)
        # The submit itself, payment rounds included: the task starts once it went through.
        return await self._started(ctx, params, await call_next(ctx))

    async def _follow(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.CallToolRequestParams,
        call_next: CallNext,
    ) -> HandlerResult:
        """`wait_for_task` as a task: one look at the service task (an unknown one is today's
        tool error), then the handle; the client polls instead of a call that waits."""
        args = dict(params.arguments or {})
        try:
            self.check("wait_for_task", args)
        except UsageError:
            return await call_next(ctx)  # today's tool names what is wrong
        looked = params.model_copy(
            update={"name": "get_task", "arguments": {"task_id": args["task_id"]}}
        )
        return await self._started(ctx, params, await self.handlers.call_tool(ctx, looked))

    async def _started(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.CallToolRequestParams,
        result: HandlerResult,
    ) -> HandlerResult:
        """A task for the service task the tool's result names; any other result as it is
        (a refusal, an error, a dry run, a payment round)."""
        if not isinstance(result, types.CallToolResult) or result.is_error:
            return result
        doc = result.structured_content or {}
        task = doc.get("task")
        service_id = task.get("id") if isinstance(task, dict) else None
        if not isinstance(service_id, str):
            return result
        submitted = (
            {k: doc[k] for k in SUBMITTED if k in doc} if params.name == "submit_task" else None
        )
        head = f"Task {service_id} submitted; svc follows it." if submitted else ""
        # The budget warnings the call raised ride after the first text: the person's too.
        notes = [c.text for c in result.content[1:] if isinstance(c, types.TextContent)]
        said = " ".join([head or f"svc follows task {service_id}.", *notes])[:MESSAGE_LIMIT]

        def made(app: FaceContext) -> TaskHandle:
            kept = json.dumps(submitted) if submitted else None
            rid = submitted.get("request_id") if submitted else None
            return new_handle(
                app, service_id, params.name, request_id=rid, submitted=kept, said=said
            )

        try:
            handle = await self.handlers.call_for(ctx).run(made)
        except SvcError:  # no ledger to keep it in: the tool's own result, which stands
            return result
        return {"resultType": "task", **self._wire(handle)}

    # --- tasks/get, tasks/update, tasks/cancel ------------------------------------------

    async def get(
        self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams
    ) -> dict[str, Any]:
        call, handle = await self._open(ctx, params.task_id)
        form = None
        if handle.status not in TERMINAL:
            handle, form = await self._look(call, handle)
        return {"resultType": "complete", **self._wire(handle, form, detailed=True)}

    async def update(
        self, ctx: ServerRequestContext[Any, Any], params: UpdateTaskParams
    ) -> dict[str, Any]:
        call, handle = await self._open(ctx, params.task_id)
        key = handle.input_key
        raw = params.input_responses.get(key) if key and handle.status == INPUT_REQUIRED else None
        if raw is None:  # no answer to the open question: the extension says to ignore it
            return {}
        try:
            response = types.ElicitResult.model_validate(raw)
        except ValidationError:
            raise MCPError(
                INVALID_PARAMS, f"inputResponses.{key}: not an elicitation result"
            ) from None
        task = await self._polled(call, handle.service_task_id)
        form = form_for(detail(task)) if task is not None else None
        if task is None or form is None or form.ask_id != handle.input_ask:
            # The ask is gone (answered elsewhere, superseded): the key is spent.
            await self._save(call, replace(handle, status=WORKING, input_key=None))
            return {}
        accepted = response.action == "accept"
        answer = form.answer(response.content) if accepted else None
        if answer is None:
            await self._gave_nothing(call, handle, task, form)
            return {}
        await self._send(call, handle, form, answer)
        return {}

    async def cancel(
        self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams
    ) -> dict[str, Any]:
        call, handle = await self._open(ctx, params.task_id)
        service_id = handle.service_task_id
        if handle.status in TERMINAL:
            return {}
        recent = call.gate.recent(service_id)
        state = recent[1].get("state") if recent is not None else None
        goes_on = state not in FINAL_STATES
        message = (
            f"svc stopped following task {service_id}; the service task itself goes on (the "
            "service has no way to cancel it): follow it with get_task or wait_for_task, or "
            f"`svc watch {service_id}` in a terminal."
            if goes_on
            else f"svc stopped following task {service_id}, which had already ended ({state})."
        )
        changed = replace(handle, status=CANCELLED, status_message=message, input_key=None)
        await self._save(call, changed)
        return {"_meta": {"svc/service_task": {"id": service_id, "goes_on": goes_on}}}

    # --- the steps ------------------------------------------------------------------------

    async def _open(
        self, ctx: ServerRequestContext[Any, Any], task_id: str
    ) -> tuple[Call, TaskHandle]:
        """This request's call and the handle it names (-32602 when there is none)."""
        require_opt_in(ctx)
        call = self.handlers.call_for(ctx)
        call.pool.refresh()  # what a person set since counts, as for a tool call
        try:
            handle = await call.run(lambda app: read_handle(app, task_id))
        except SvcError as exc:
            raise MCPError(INTERNAL_ERROR, error_doc(exc, call.vault)["detail"]) from None
        if handle is None:
            raise MCPError(INVALID_PARAMS, "Failed to retrieve task: Task not found")
        return call, handle

    async def _look(self, call: Call, handle: TaskHandle) -> tuple[TaskHandle, Form | None]:
        """The service task looked at (no sooner than the poll gate allows) and the handle
        moved on; with the open question's form while it waits on the person."""
        task = await self._polled(call, handle.service_task_id)
        if task is None:  # not read this time: said, and tried again at the next tasks/get
            return replace(handle, status=WORKING, status_message=self._missed), None
        try:
            decision = decide(detail(task), can_ask=call.human.reachable)
        except SvcError as exc:  # a task the spec does not allow: said, tried again later
            return replace(handle, status=WORKING, status_message=exc.message), None
        if decision.status == COMPLETED:
            return await self._finish(call, handle, task, decision), None
        changed = replace(handle, status=decision.status, status_message=decision.message)
        form = decision.form
        if form is not None and (handle.input_key is None or handle.input_ask != form.ask_id):
            asked = handle.asked + 1  # a new question: a key this task never used
            changed = replace(
                changed, input_key=f"svc-ask-{asked}", input_ask=form.ask_id, asked=asked
            )
        if form is None:
            changed = replace(changed, input_key=None)
        if changed != handle:
            changed = await self._save(call, changed)
        return changed, form

    _missed = "svc could not read the service task just now; it tries again at the next look"

    async def _polled(self, call: Call, service_id: str) -> dict[str, Any] | None:
        """The service task as polled within the gate's spacing, or polled now; None when
        the service could not be read (its error is the next look's business)."""
        recent = call.gate.recent(service_id)
        if recent is not None:
            return recent[1]
        try:
            return await poll(call, service_id)
        except SvcError:
            return None

    async def _finish(
        self, call: Call, handle: TaskHandle, task: dict[str, Any], decision: Decision
    ) -> TaskHandle:
        """The handle completed with the tool's result, as today's tool gives it."""
        doc: dict[str, Any] = {"task": task}
        if handle.submitted:
            doc |= json.loads(handle.submitted)
        result = success(Outcome(doc, decision.message), call.vault)
        result.is_error = decision.is_error
        result.meta = {RELATED: {"taskId": handle.task_id}}
        kept = json.dumps(result.model_dump(by_alias=True, mode="json", exclude_none=True))
        message = bounded(decision.message, MESSAGE_LIMIT, call.vault)
        done = replace(
            handle, status=COMPLETED, status_message=message, input_key=None, result=kept
        )
        return await self._save(call, done)

    async def _gave_nothing(
        self, call: Call, handle: TaskHandle, task: dict[str, Any], form: Form
    ) -> None:
        """A declined or empty form: the task ends in today's words; the ask stays open on
        the service for whoever answers it next."""
        words = describe(detail(task), can_ask=True)
        said = f"{words} The person gave no {form.what} when asked."
        await self._finish(call, handle, task, Decision(COMPLETED, said))

    async def _send(self, call: Call, handle: TaskHandle, form: Form, answer: Answer) -> None:
        """The person's answer to the service: secrets into the vault first, sent marked
        sensitive by the reply engine; the handle keeps only that it went."""
        for value in form.secrets(answer):
            call.vault.add(value)
        try:
            answered = await call.run(lambda app: send(app, form.asked, answer).raw)
        except SvcError as exc:  # not taken: the next look asks again, under a new key
            why = error_doc(exc, call.vault)["detail"]
            said = f"The service did not take the person's answer: {why}"
            await self._save(
                call, replace(handle, status=WORKING, status_message=said, input_key=None)
            )
            return
        call.gate.record(form.asked.task_id, answered)  # the next look sees it answered
        said = f"The person's answer went to the service; task {form.asked.task_id} goes on."
        await self._save(call, replace(handle, status=WORKING, status_message=said, input_key=None))

    async def _save(self, call: Call, handle: TaskHandle) -> TaskHandle:
        try:
            return await call.run(lambda app: save_handle(app, handle))
        except SvcError as exc:
            raise MCPError(INTERNAL_ERROR, error_doc(exc, call.vault)["detail"]) from None

    # --- the wire -----------------------------------------------------------------------

    def _wire(
        self, handle: TaskHandle, form: Form | None = None, *, detailed: bool = False
    ) -> dict[str, Any]:
        """The task as the extension shapes it: a dict, since the SDK drops a model's None
        fields and `ttlMs` is required even when null."""
        spacing = max(self.handlers.gate.spacing, MIN_POLL_SECONDS)
        out: dict[str, Any] = {
            "taskId": handle.task_id,
            "status": handle.status,
            "createdAt": stamp(handle.created_at),
            "lastUpdatedAt": stamp(handle.updated_at),
            "ttlMs": handle.ttl_ms,
            "pollIntervalMs": int(spacing * 1000),
        }
        if handle.status_message:
            out["statusMessage"] = self.handlers.vault.scrub(handle.status_message)
        if detailed and handle.status == INPUT_REQUIRED and form and handle.input_key:
            out["inputRequests"] = {handle.input_key: form.elicitation()}
        if detailed and handle.status == COMPLETED and handle.result:
            out["result"] = json.loads(handle.result)
        return out


def attach(server: Server[Any], handlers: Handlers, check: Checker) -> TasksExtension:
    """What the SDK's `MCPServer` does with an extension, on svc's low-level server: the
    methods (gated to their protocol versions), the capability, and `tools/call` wrapped."""
    extension = TasksExtension(handlers, check)
    for binding in extension.methods():
        server.add_request_handler(binding.method, binding.params_type, _gated(binding))
    server.extensions[extension.identifier] = extension.settings()
    wrapped = compose_tool_call_handler([extension], handlers.call_tool)
    server.add_request_handler("tools/call", types.CallToolRequestParams, wrapped)
    return extension


def _gated(binding: MethodBinding) -> Any:
    """The method at its protocol versions only; at any other, a method not found."""
    versions = binding.protocol_versions or frozenset()

    async def gated(ctx: ServerRequestContext[Any, Any], params: Any) -> HandlerResult:
        if ctx.protocol_version not in versions:
            raise MCPError(METHOD_NOT_FOUND, "Method not found", binding.method)
        return await binding.handler(ctx, params)

    return gated
