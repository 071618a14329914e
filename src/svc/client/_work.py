"""What each Client method does, over the engines the CLI and `svc mcp` use.

Kept apart from the Client class (_sync.py) so that `from svc import Client` loads none of
this (httpx, pydantic, the engines) until a Client is built. Every function that may pay or
fail runs in `one_call()`: its own record of what it paid, settled onto its error.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any, Protocol

from svc import redact, telemetry
from svc.api.models import TaskDetail
from svc.body_file import BodyFile
from svc.client._calls import one_call
from svc.client._context import (
    Approver,
    Arguments,
    LibraryContext,
    amount_argument,
    check_rail,
    id_argument,
    resolve_settings,
)
from svc.client._contexts import Contexts
from svc.client.types import DryRun, PaidAnswer, Submission, Task, rail_of
from svc.engines import dry_run as dry_run_engine
from svc.engines import submit as submit_engine
from svc.engines.asks import read_ask
from svc.engines.changes import TaskChange
from svc.engines.poll import poll_once
from svc.engines.reply import send, tell_secrets
from svc.engines.request import RequestSpec
from svc.engines.request import request as paid_request
from svc.engines.request_headers import refuse_headers
from svc.engines.validate import task_body
from svc.engines.watch import Follower
from svc.errors import HumanNeeded, NotFound, TaskFailed, UsageError
from svc.money import parse_usd
from svc.promises import refuse_sending
from svc.replies import Answer
from svc.settings import Settings
from svc.store.config import ConfigFile

STOP_CHECK = 1.0  # seconds between looks at a watch_many consumer's stop event


def open_contexts(args: Arguments, approve: Approver | None, trust_recipient: bool) -> Contexts:
    """The settings (resolved once, as `svc` resolves them) and the per-thread contexts."""
    telemetry.for_a_host()  # before the first HTTP client: its transport is traced then
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
    dry_run: bool,
) -> Task | DryRun:
    with one_call(app, "submit"):
        given = {"dry_run": dry_run, "request_id": request_id is not None}
        refuse_sending("library", given | {"allow_duplicate": allow_duplicate})
        cap = None if max_price is None else amount_argument("max_price", max_price)
        rail = check_rail(pay or app.settings.pay)
        body = task_body(task, _email(email, app.settings))
        if dry_run:
            return DryRun.from_document(dry_run_engine.dry_run(app, body, rail, cap))
        if request_id is None and not allow_duplicate:
            submit_engine.refuse_duplicate(app, body)
        result = submit_engine.submit(
            app,
            body,
            request_id=request_id or submit_engine.new_request_id(),
            max_price_usd=cap,
            trust_recipient=trust_recipient,
            rail=rail,
        )
        paid = Submission.of(result)
        return Task.from_service(result.task, paid)


def _email(given: str | None, settings: Settings) -> str:
    email = given or settings.email
    if not email:
        raise UsageError(
            "missing email: the person's e-mail address is required (no default in the profile)",
            hint="pass email=..., set SVC_EMAIL, or `svc config set email ADDRESS`",
        )
    return email


def get(app: LibraryContext, task_id: str) -> Task:
    id_argument("task_id", task_id)
    with one_call(app, "get"):
        return Task.from_service(_poll(app, task_id))


def _poll(app: LibraryContext, task_id: str) -> dict[str, Any]:
    return poll_once(app, task_id).raw


def reply(app: LibraryContext, task_id: str, answer: Answer) -> Task:
    id_argument("task_id", task_id)
    tell_secrets(answer)  # before anything could quote it
    with one_call(app, "reply"):
        raw = _poll(app, task_id)
        Task.from_service(raw)  # a shape the spec does not allow: ProtocolError
        answered = send(app, read_ask(TaskDetail.model_validate(raw)), answer)
        return Task.from_service(answered.raw)


def changes(
    app: LibraryContext,
    task_ids: list[str],
    interval: float | None,
    stop: threading.Event | None = None,
) -> Iterator[TaskChange]:
    """The watch engine's changes, one by one (Client.watch, watch_many)."""
    for batch in change_batches(app, task_ids, interval, stop):
        yield from batch


def change_batches(
    app: LibraryContext,
    task_ids: list[str],
    interval: float | None,
    stop: threading.Event | None = None,
) -> Iterator[list[TaskChange]]:
    """The watch engine's changes, scrubbed of told secrets, as many as have arrived together
    (polls go out in coalesced bursts, so their answers do too): AsyncClient.watch_many hands
    one batch to the event loop per wake-up, not one change. `stop` (set by a consumer that
    went away) is looked at every STOP_CHECK seconds."""
    with Follower(app, task_ids, interval) as follower:
        while follower.following and not (stop is not None and stop.is_set()):
            batch = follower.step(STOP_CHECK if stop is not None else None)
            while batch and follower.in_flight:  # the burst's other answers, if already in
                more = follower.step(0)
                if not more:
                    break
                batch.extend(more)
            if batch:
                yield [scrubbed(change) for change in batch]


def scrubbed(change: TaskChange) -> TaskChange:
    """A secret told earlier that the service echoes is never handed on."""
    if not redact.told_anything():
        return change  # nothing to scrub: no copy per change
    event = None if change.event is None else redact.scrub(change.event)
    return replace(change, task=redact.scrub(change.task), event=event)


class Following(Protocol):
    """What run_to_end needs of a Client (a protocol: this module is the Client's work)."""

    def watch(self, task_id: str, *, interval: float | None = None) -> Iterator[TaskChange]: ...

    def reply(self, task_id: str, answer: Answer) -> Task: ...


def run_to_end(
    client: Following,
    task: Task,
    answer: Callable[[Task], Answer | None] | None,
    interval: float | None,
) -> Task:
    """Follow a submitted task to its end, answering its asks through `answer` (Client.run)."""
    while True:
        last = None
        for last in client.watch(task.id, interval=interval):  # noqa: B007 (the last one)
            pass
        if last is None:  # nothing new at all: look again
            continue
        current = Task.from_service(last.task, task.submission)
        if last.kind == "final":
            return _ended(current)
        if last.kind == "gone":
            raise NotFound(f"the service no longer knows task {task.id}")
        reply = answer(current) if answer is not None else None
        if reply is None:
            raise HumanNeeded(
                f"task {task.id} asks the person something, and no answer was given",
                data={"task_id": task.id},
                hint="answer it with reply(task_id, ...), or pass answer= to run()",
            )
        client.reply(task.id, reply)


def _ended(task: Task) -> Task:
    if task.state == "completed":
        return task
    raise TaskFailed(
        f"task {task.id} ended {task.state}",
        data={"task": task.to_json()},
        hint="the task's result and events say why",
    )


MAX_BODY_HELD = 16 * 1024 * 1024  # a body returned in memory; larger ones go to `output`


def request(
    app: LibraryContext,
    url: str,
    *,
    method: str,
    headers: Mapping[str, str] | None,
    data: bytes | str | None,
    output: str | os.PathLike[str] | None,
    request_id: str | None,
    pay: str | None,
    max_price: object,
) -> PaidAnswer:
    """`svc request`'s engine; the body held (bounded) or written to `output` as it comes."""
    with one_call(app, "request"):
        cap = None if max_price is None else amount_argument("max_price", max_price)
        rail = None if pay is None else check_rail(pay)
        body = data.encode() if isinstance(data, str) else data
        spec = RequestSpec(method, url, tuple((headers or {}).items()), body)
        refuse_headers(headers or {})  # the body's framing is httpx's to write
        # Checked before anything is paid; it takes the body only once the body is whole.
        sink = BodyFile.checked(output) if output is not None else None
        try:
            answer = paid_request(app, spec, request_id=request_id, max_price_usd=cap, rail=rail)
            if sink is None:
                held = answer.held(MAX_BODY_HELD, "pass output=PATH")
            else:
                held = b""
                for chunk in answer.chunks:
                    sink.write(chunk)
                sink.commit()
        finally:
            if sink is not None:
                sink.discard()  # nothing, once committed: the file took the body
        doc = answer.summary()
        if answer.error is not None:
            answer.error.data |= {"response": doc}
            raise answer.error
        return PaidAnswer(
            status=answer.status,
            headers=doc["headers"],
            body=held,
            paid_usd=None if answer.paid_usd is None else parse_usd(answer.paid_usd, "paid_usd"),
            rail=rail_of(answer.rail) if answer.rail else None,
            request_id=answer.request_id,
        )
