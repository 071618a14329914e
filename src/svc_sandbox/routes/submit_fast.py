"""POST /svc/tasks without FastAPI's per-request machinery (the sandbox's CPU).

Every paid task is two of these requests, and FastAPI's route (its routers, the dependency
solver, the body's parsing and validation, the thread-pool hop) cost more CPU than the
submit itself. This pure ASGI layer sits inside the fault and request-log middleware (so
faults and the log see every request as before) and takes a submit whose body is exactly what
the route would accept: `application/json`, JSON that `TaskSubmission` validates. Anything
else (another content type, bad JSON, an unknown field, a disconnect) goes on to FastAPI's
route with the same messages replayed, so its 400 and 422 answers keep FastAPI's words.

Both run `tasks.submit_answer`. A request carrying a proof runs it in the same thread pool the
route uses (`run_in_threadpool`), so concurrent paid submits still interleave as they did; an
unpaid one (its answer is the 402, which settles nothing) runs on the event loop.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request
from fastapi.responses import Response
from pydantic import ValidationError
from starlette._utils import is_async_callable
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from svc_sandbox.payments import rails
from svc_sandbox.routes.tasks import TaskSubmission, submit_answer
from svc_sandbox.state.sandbox import SandboxState

PATH = "/svc/tasks"
JSON_TYPE = b"application/json"


class SubmitFastPath:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not _is_submit(scope):
            await self.app(scope, receive, send)
            return
        messages, error = await _read_all(receive)
        replay = _replaying(messages, error, receive)
        submission = None if error is not None else _submission(scope, messages)
        if submission is None:
            await self.app(scope, replay, send)
            return
        request = Request(scope, replay, send)
        state = scope["app"].state.sandbox
        assert isinstance(state, SandboxState)
        raw = b"".join(m.get("body", b"") for m in messages)
        try:
            if rails.method_of(request.headers) is None:
                response = submit_answer(state, submission, request, raw)
            else:
                response = await run_in_threadpool(submit_answer, state, submission, request, raw)
        except Exception as exc:
            response = await _handled(request, exc)
        await response(scope, replay, send)


def _is_submit(scope: Scope) -> bool:
    return (
        scope["type"] == "http"
        and scope["method"] == "POST"
        and scope["path"] == PATH
        and not scope.get("root_path")
    )


async def _read_all(receive: Receive) -> tuple[list[Message], Exception | None]:
    """Every message up to the body's end (or a disconnect), and what receive raised, if it
    did: FastAPI's route is to meet the same."""
    messages: list[Message] = []
    try:
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request" or not message.get("more_body", False):
                return messages, None
    except Exception as exc:
        return messages, exc


def _replaying(messages: list[Message], error: Exception | None, receive: Receive) -> Receive:
    pending = list(messages)

    async def replay() -> Message:
        if pending:
            return pending.pop(0)
        if error is not None:
            raise error
        return await receive()

    return replay


def _submission(scope: Scope, messages: list[Message]) -> TaskSubmission | None:
    """The body as the route's `TaskSubmission`, when the route would take it as one."""
    if messages[-1]["type"] != "http.request":
        return None  # a disconnect: the route's own words for it
    content_type = next((v for k, v in scope["headers"] if k.lower() == b"content-type"), None)
    if content_type is None or content_type.strip().lower() != JSON_TYPE:
        return None
    body = b"".join(m.get("body", b"") for m in messages)
    try:
        doc = json.loads(body)
    except (ValueError, RecursionError):  # undecodable or too deep: the route's 422 or 400
        return None
    if not isinstance(doc, dict):
        return None
    try:
        return TaskSubmission.model_validate(doc)
    except ValidationError:
        return None


async def _handled(request: Request, exc: Exception) -> Response:
    """What Starlette's ExceptionMiddleware would answer: the app's handler for the status (an
    HTTPException) or the class; an exception with neither goes up to the server error
    middleware, as it does from the route (500 and `Exception` are that middleware's)."""
    handlers: dict[Any, Any] = request.app.exception_handlers
    handler = None
    if isinstance(exc, HTTPException) and exc.status_code != 500:
        handler = handlers.get(exc.status_code)
    classes = [cls for cls in type(exc).__mro__ if cls is not Exception and cls in handlers]
    if handler is None and classes:
        handler = handlers[classes[0]]
    if handler is None:
        raise exc
    if is_async_callable(handler):
        response = await handler(request, exc)
    else:
        response = await run_in_threadpool(handler, request, exc)
    assert isinstance(response, Response)
    return response
