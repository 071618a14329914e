"""How a service task reads to an MCP Tasks client (the `io.modelcontextprotocol/tasks`
extension, svc.mcp.tasks): the service's state as one of the extension's five, and an ask as
the form the person fills. Pure: the handlers poll, send and write; this decides.

- pending, running, any state not final and not waiting on the person: `working`, with
  today's words for it as the status message;
- `blocked_on_user` with an ask a form can carry, and a client that shows forms:
  `input_required`, the form in `inputRequests` (a secret field says it goes straight to the
  service; the answer is sent marked sensitive and never reaches a result);
- `blocked_on_user` and a client that cannot show forms: `completed`, with today's result,
  whose words send the person to `svc reply` in a terminal (never the model);
- `completed`: `completed` with today's result;
- `failed` and `cancelled`: `completed` with that result marked `isError`: the extension keeps
  `failed` for JSON-RPC errors, and a tool result with `isError` is a completed task;
- a client's `tasks/cancel`: `cancelled` (svc.mcp.tasks): svc stops following, and the
  service task goes on, as the service has no way to cancel one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from svc.api.models import TaskDetail
from svc.engines.asks import Asked, read_ask
from svc.mcp.asks import describe, from_service, secret_prompt
from svc.mcp.human import secret_schema
from svc.replies import Answer, Approve, Decline, Fields, Message, Secret, Value
from svc.sanitize import clean

WORKING = "working"
INPUT_REQUIRED = "input_required"
COMPLETED = "completed"
FAILED = "failed"
CANCELLED = "cancelled"
TERMINAL = frozenset({COMPLETED, FAILED, CANCELLED})
VALUE_LIMIT = 4000  # characters of one answer, as `svc reply` takes them
PAYMENT = "payment"  # the form's key for a payment ask's decision


@dataclass(frozen=True)
class Form:
    """One ask of the service as the form a person fills, and how its content answers it."""

    ask_id: str  # which ask: a new ask of the same task is a new question, with a new key
    message: str
    schema: dict[str, Any]
    asked: Asked
    what: str  # what the person is asked for, in "the person gave no ..."

    def elicitation(self) -> dict[str, Any]:
        """The entry of `inputRequests`: an elicitation request, as a direct one would be."""
        params = {"mode": "form", "message": self.message, "requestedSchema": self.schema}
        return {"method": "elicitation/create", "params": params}

    def answer(self, content: Mapping[str, Any] | None) -> Answer | None:
        """The reply the form's content makes; None when the person gave nothing usable."""
        if not content:
            return None
        if self.asked.plain:
            return _plain_answer(self.asked, content)
        return _structured_answer(self.asked, content)

    def secrets(self, answer: Answer) -> list[str]:
        """The values of `answer` no output may ever carry."""
        if isinstance(answer, Secret):
            return [answer.value]
        if isinstance(answer, Fields | Approve | Decline):
            return [v for k, v in answer.values.items() if k in self.asked.secret_keys]
        return []


@dataclass(frozen=True)
class Decision:
    """What a task handle becomes after a look at its service task."""

    status: str
    message: str
    form: Form | None = None
    is_error: bool = False  # with COMPLETED: the tool's result is an error result


def decide(task: TaskDetail, *, can_ask: bool) -> Decision:
    """The handle's next status for the service task as last polled."""
    words = describe(task, can_ask=can_ask)
    if task.is_final:
        return Decision(COMPLETED, words, is_error=task.state != "completed")
    if task.state != "blocked_on_user":
        return Decision(WORKING, words)
    form = form_for(task)
    if form is None or not can_ask:  # today's words: the person answers in a terminal
        return Decision(COMPLETED, describe(task, can_ask=False))
    return Decision(INPUT_REQUIRED, f"Task {task.id} waits for the person's answer.", form)


def form_for(task: TaskDetail) -> Form | None:
    """The form for the task's present ask (None: it waits on nothing a form can answer)."""
    if task.state != "blocked_on_user":
        return None
    asked = read_ask(task)
    ask_id = _ask_id(task)
    if not asked.plain:
        return _structured_form(task, asked, ask_id)
    field = asked.field
    if field is None:
        message = _words(asked, "The task asks a question.") + _goes("as the task's message")
        return Form(ask_id, message, _text_schema("message", "Answer"), asked, "answer")
    if asked.field_secret:
        return Form(ask_id, secret_prompt(asked, field), secret_schema(field), asked, field)
    message = _words(asked, f"The task asks for {field}.") + _goes(f"as {field}")
    return Form(ask_id, message, _text_schema("value", field), asked, field)


def _ask_id(task: TaskDetail) -> str:
    """A name for the ask the task waits on: its ask event and what it asks."""
    events = [e.id for e in task.events if e.type in ("input_requested", "ask", "question")]
    ask = task.info_request.model_dump(mode="json") if task.info_request else task.plain_ask()
    named = json.dumps([events[-1:], ask], sort_keys=True, default=str)
    return hashlib.sha256(named.encode()).hexdigest()[:24]


def _words(asked: Asked, otherwise: str) -> str:
    said = asked.words
    head = f"The service asks: {from_service(said)}" if said else otherwise
    return f"{head}\n\nTask {clean(asked.task_id, 80, single_line=True)}"


def _goes(how: str) -> str:
    return f": your answer goes to the service {how}."


def _text_schema(key: str, title: str) -> dict[str, Any]:
    prop = {"type": "string", "title": title[:64], "minLength": 1, "maxLength": VALUE_LIMIT}
    return {"type": "object", "properties": {key: prop}, "required": [key]}


def _structured_form(task: TaskDetail, asked: Asked, ask_id: str) -> Form | None:
    ask = task.info_request
    if ask is None or not (asked.keys or asked.payment):
        return None
    props: dict[str, Any] = {key: _key_schema(asked, key) for key in asked.keys}
    if asked.payment:
        props[PAYMENT] = {
            "type": "string",
            "title": "Payment",
            "description": "approve: send the approval to your app again; decline: refuse it",
            "enum": ["approve", "decline"],
        }
    schema = {"type": "object", "properties": props, "required": list(props)}
    note = f"The service's note: {from_service(ask.note)}\n\n" if ask.note else ""
    secret = ", ".join(asked.secret_keys)
    hidden = (
        f" {secret}: secret, sent marked sensitive; the AI agent never sees it." if secret else ""
    )
    message = f"{note}Task {clean(task.id, 80, single_line=True)} asks you.{hidden}"
    return Form(ask_id, message, schema, asked, "answer")


def _key_schema(asked: Asked, key: str) -> dict[str, Any]:
    prop: dict[str, Any] = {"type": "string", "title": key[:64]}
    options = asked.options.get(key)
    if options:
        prop["enum"] = list(options)
    else:
        prop |= {"minLength": 1, "maxLength": VALUE_LIMIT}
    if key in asked.secret_keys:
        prop["description"] = "A secret: it goes straight to the service, never to the AI agent."
    return prop


def _text(content: Mapping[str, Any], key: str) -> str | None:
    value = content.get(key)
    if not isinstance(value, str) or not value.strip() or len(value) > VALUE_LIMIT:
        return None
    return value


def _plain_answer(asked: Asked, content: Mapping[str, Any]) -> Answer | None:
    if asked.field is None:
        text = _text(content, "message")
        return None if text is None else Message(text)
    value = _text(content, "value")
    if value is None:
        return None
    return Secret(value, asked.field) if asked.field_secret else Value(value, asked.field)


def _structured_answer(asked: Asked, content: Mapping[str, Any]) -> Answer | None:
    values = {key: _text(content, key) for key in asked.keys}
    given = {key: value for key, value in values.items() if value is not None}
    if len(given) != len(asked.keys):
        return None
    sensitive = bool(asked.secret_keys)
    if not asked.payment:
        return Fields(given, sensitive=sensitive)
    decision = content.get(PAYMENT)
    if decision == "approve":
        return Approve(given, sensitive=sensitive)
    return Decline(given, sensitive=sensitive) if decision == "decline" else None
