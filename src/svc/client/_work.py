"""What each Client method does, over the engines the CLI and `svc mcp` use.

Kept apart from the Client class (_sync.py) so that `from svc import Client` loads none of
this (httpx, pydantic, the engines) until a Client is built. Every function that may pay or
fail runs in `one_call()`: its own record of what it paid, settled onto its error.
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from svc.api.models import TaskDetail
from svc.client._calls import one_call
from svc.client._context import (
    Approver,
    Arguments,
    LibraryContext,
    check_rail,
    resolve_settings,
)
from svc.client._contexts import Contexts
from svc.client._follow import Follower
from svc.client._reply import reply_body, tell_secrets
from svc.client.types import BatchResult, Submission, Task
from svc.engines import submit as submit_engine
from svc.engines.batch_file import Line, parse_lines
from svc.engines.changes import TaskChange
from svc.engines.validate import task_body
from svc.errors import SvcError, UsageError
from svc.replies import Answer
from svc.settings import Settings, usd_amount
from svc.store.config import ConfigFile


def open_contexts(args: Arguments, approve: Approver | None, trust_recipient: bool) -> Contexts:
    """The settings (resolved once, as `svc` resolves them) and the per-thread contexts."""
    config = ConfigFile()
    settings = resolve_settings(args, config)
    return Contexts(settings, config, approve=approve, trust_recipient=trust_recipient)


def submit(
    app: LibraryContext,
    task: str,
    email: str | None,
    *,
    request_id: str | None,
    pay: str | None,
    max_price: object,
    trust_recipient: bool,
    allow_duplicate: bool,
) -> Task:
    with one_call():
        body = task_body(task, _email(email, app.settings))
        if request_id is None and not allow_duplicate:
            _refuse_duplicate(app, body)
        result = submit_engine.submit(
            app,
            body,
            request_id=request_id or submit_engine.new_request_id(),
            max_price_usd=None if max_price is None else usd_amount("max_price", max_price),
            trust_recipient=trust_recipient,
            rail=check_rail(pay or app.settings.pay),
        )
        paid = Submission(result.request_id, result.rail, result.billing, result.replayed)
        return Task.from_service(result.task, paid)


def _email(given: str | None, settings: Settings) -> str:
    email = given or settings.email
    if not email:
        raise UsageError(
            "missing email: the person's e-mail address is required (no default in the profile)",
            hint="pass email=..., set SVC_EMAIL, or `svc config set email ADDRESS`",
        )
    return email


def _refuse_duplicate(app: LibraryContext, body: dict[str, Any]) -> None:
    """The same task for the same person a moment ago: a retrying program is the usual cause,
    and paying twice the costly outcome (svc mcp refuses it the same way)."""
    earlier = submit_engine.recent_duplicate(app, body)
    if earlier is None:
        return
    raise UsageError(
        f"not submitted: the same task for {body['email']} was submitted a moment ago "
        f"(request {earlier.request_id}); submitting it again pays again",
        code="duplicate_submission",
        hint=f"resume the earlier one with request_id={earlier.request_id!r}, or pass "
        "allow_duplicate=True to pay for it again on purpose",
    )


def checked_lines(lines: Iterable[Mapping[str, Any]], email: str | None) -> list[Line]:
    """The lines through the batch file's own reader and rules (engines/batch_file): the first
    bad one raised, naming its number, before anything is paid; a line without a request id
    gets the id `svc submit --from` derives, so the same lines again pay nothing twice."""
    text = "".join(json.dumps(dict(line), ensure_ascii=False) + "\n" for line in lines)
    checked: list[Line] = []
    for item in parse_lines(io.BytesIO(text.encode("utf-8", "surrogatepass")), email):
        if isinstance(item, UsageError):
            raise item
        checked.append(item)
    return checked


def submit_many(
    submit_line: Callable[..., Task], lines: Iterable[Mapping[str, Any]], email: str | None
) -> Iterator[BatchResult]:
    """Each checked line through `submit_line` (Client.submit: one call each, its own paid
    record); a line that fails is a result with its error, and the others go on."""
    for index, line in enumerate(checked_lines(lines, email)):
        body, rid = line.body, line.request_id
        try:
            task = submit_line(body["task"], body["email"], request_id=rid)
        except SvcError as error:
            yield BatchResult(index, rid, "failed", error=error)
        else:
            yield BatchResult(index, rid, "submitted", task=task)


def get(app: LibraryContext, task_id: str) -> Task:
    with one_call():
        return Task.from_service(_poll(app, task_id))


def _poll(app: LibraryContext, task_id: str) -> dict[str, Any]:
    polled = app.tasks.poll(task_id, auth=app.free_call_auth())
    app.remember(polled)
    return polled.raw


def reply(app: LibraryContext, task_id: str, answer: Answer) -> Task:
    tell_secrets(answer)  # before anything could quote it
    with one_call():
        raw = _poll(app, task_id)
        Task.from_service(raw)  # a shape the spec does not allow: ProtocolError
        body = reply_body(TaskDetail.model_validate(raw), answer)
        answered = app.tasks.reply(task_id, body, auth=app.free_call_auth())
        app.remember(answered)
        return Task.from_service(answered.raw)


def changes(
    app: LibraryContext,
    task_ids: list[str],
    interval: float | None,
    stop: threading.Event | None = None,
) -> Iterator[TaskChange]:
    return Follower(app, task_ids, interval, stop).changes()
