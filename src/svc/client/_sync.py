"""`svc.Client`: what the CLI knows, as one importable, typed API over the same engines.

    from svc import Client, Secret

    with Client(max_price="1.50", approve=lambda offer: offer.amount_usd <= 2) as svc:
        task = svc.submit("Book a table for two #2fa", "ada@example.com")
        for change in svc.watch(task.id):
            if change.kind == "ask":
                svc.reply(task.id, Secret("123456"))

Money is handled exactly as `svc submit` handles it (engines/submit): the request is
journaled before its first byte leaves, the policy (price cap, rails, networks, assets, the
recipient pinned per origin, the daily cap) decides before anything is signed, and a request
id resumes a submission without paying again. Nothing prompts: a payment is approved by the
`approve(offer)` callback when one is given, else by the policy's limits alone; svc's notes
and warnings go to the `logging` logger "svc".
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterable, Iterator, Mapping
from decimal import Decimal
from types import TracebackType
from typing import Any

from svc.api.models import TaskDetail
from svc.client._calls import one_call
from svc.client._context import Approver, Arguments, LibraryContext, check_rail, resolve_settings
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


class Client:
    """A client of the task service with this machine's (or `profile`'s) settings, wallet,
    secret store, ledger, payment policy and daily cap.

    Arguments stand where the CLI's flags stand: given, they win over the environment, which
    wins over the profile, which wins over the defaults. `approve(offer) -> bool` is asked
    before any payment is signed (and about a recipient other than the one pinned for this
    service); without it the policy's limits alone decide and a changed recipient is refused
    unless `trust_recipient`. Safe to use from several threads (one context per thread).
    """

    def __init__(
        self,
        *,
        profile: str | None = None,
        base_url: str | None = None,
        auth_base: str | None = None,
        ledger_url: str | None = None,
        max_price: Decimal | str | None = None,
        daily_cap: Decimal | str | None = None,
        pay: str | None = None,
        email: str | None = None,
        approve: Approver | None = None,
        trust_recipient: bool = False,
    ) -> None:
        config = ConfigFile()
        args = Arguments(profile, base_url, auth_base, ledger_url, max_price, daily_cap, pay, email)
        self.settings: Settings = resolve_settings(args, config)
        self._contexts = Contexts(
            self.settings, config, approve=approve, trust_recipient=trust_recipient
        )

    # --- life ---------------------------------------------------------------------------

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the HTTP pools and ledgers this client opened (in every thread)."""
        self._contexts.close()

    @property
    def _app(self) -> LibraryContext:
        return self._contexts.get()

    # --- tasks --------------------------------------------------------------------------

    def submit(
        self,
        task: str,
        email: str | None = None,
        *,
        request_id: str | None = None,
        pay: str | None = None,
        max_price: Decimal | str | None = None,
        trust_recipient: bool = False,
        allow_duplicate: bool = False,
    ) -> Task:
        """Submit and pay for a task (1.50 USD); the accepted task, `task.submission` saying
        how it was paid. With the `request_id` of an earlier submission it resumes that one
        (re-sending its journaled proof, never signing a second): the way to recover after a
        crash, a lost answer (OutcomeUnknown) or a cancelled call. Without one, the same task
        for the same e-mail within the duplicate window is refused (UsageError) unless
        `allow_duplicate`, since paying for it twice is the costly mistake."""
        with one_call():
            app = self._app
            body = task_body(task, _email(email, app.settings))
            if request_id is None and not allow_duplicate:
                _refuse_duplicate(app, body)
            rid = request_id or submit_engine.new_request_id()
            result = submit_engine.submit(
                app,
                body,
                request_id=rid,
                max_price_usd=None if max_price is None else usd_amount("max_price", max_price),
                trust_recipient=trust_recipient,
                rail=check_rail(pay or app.settings.pay),
            )
            paid = Submission(result.request_id, result.rail, result.billing, result.replayed)
            return Task.from_service(result.task, paid)

    def submit_many(
        self, lines: Iterable[Mapping[str, Any]], *, email: str | None = None
    ) -> Iterator[BatchResult]:
        """Submit the tasks of a batch file's lines ({"task", "email"?, "request_id"?}), one
        result per line in order. Every line is checked before the first is paid (a bad one
        is a UsageError naming it, nothing sent); a line without a request id gets the one
        `svc submit --from` derives, so running the same lines again pays nothing twice."""
        checked = _checked_lines(lines, email or self.settings.email)
        for index, line in enumerate(checked):
            yield self._submit_line(index, line)

    def _submit_line(self, index: int, line: Line) -> BatchResult:
        body, rid = line.body, line.request_id
        try:
            task = self.submit(body["task"], body["email"], request_id=rid)
        except SvcError as error:
            return BatchResult(index, rid, "failed", error=error)
        return BatchResult(index, rid, "submitted", task=task)

    def get(self, task_id: str) -> Task:
        """The task as the service has it now, with its events (one free poll)."""
        with one_call():
            return Task.from_service(self._poll(task_id).raw)

    def _poll(self, task_id: str) -> Any:
        app = self._app
        polled = app.tasks.poll(task_id, auth=app.free_call_auth())
        app.remember(polled)
        return polled

    def watch(self, task_id: str, *, interval: float | None = None) -> Iterator[TaskChange]:
        """The task's changes as they happen, until it is final or asks something (the last
        change is then `final` or `ask`). Polled as `svc watch` polls: never sooner than the
        service allows, backing off while nothing changes."""
        return self.watch_many([task_id], interval=interval)

    def watch_many(
        self, task_ids: Iterable[str], *, interval: float | None = None
    ) -> Iterator[TaskChange]:
        """The changes of many tasks, interleaved as they happen, until each is final or asks
        something: one scheduler and at most 8 polls in flight, however many tasks."""
        return self._changes(list(task_ids), interval)

    def _changes(
        self, task_ids: list[str], interval: float | None, stop: threading.Event | None = None
    ) -> Iterator[TaskChange]:
        return Follower(self._app, task_ids, interval, stop).changes()

    def _release_thread(self) -> None:
        """Close the context of a thread that ends (AsyncClient's watch scheduler)."""
        self._contexts.release()

    def reply(self, task_id: str, answer: Answer) -> Task:
        """Answer the task's ask with a neutral answer (svc.replies: Message, Value, Secret,
        Fields, Approve, Decline), checked against the ask as `svc reply` checks it; the task
        as the service answered. A Secret is never logged, echoed or shown in a repr."""
        tell_secrets(answer)  # before anything could quote it
        with one_call():
            app = self._app
            raw = self._poll(task_id).raw
            Task.from_service(raw)  # a shape the spec does not allow: ProtocolError
            detail = TaskDetail.model_validate(raw)
            answered = app.tasks.reply(
                task_id, reply_body(detail, answer), auth=app.free_call_auth()
            )
            app.remember(answered)
            return Task.from_service(answered.raw)


def _email(given: str | None, settings: Settings) -> str:
    email = given or settings.email
    if not email:
        raise UsageError(
            "missing email: the person's e-mail address is required (no default in the profile)",
            hint="pass email=..., set SVC_EMAIL, or `svc config set email ADDRESS`",
        )
    return email


def _refuse_duplicate(app: LibraryContext, body: dict[str, Any]) -> None:
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


def _checked_lines(lines: Iterable[Mapping[str, Any]], email: str | None) -> list[Line]:
    """The lines through the batch file's own reader and rules; the first bad one raised."""
    text = "".join(json.dumps(dict(line), ensure_ascii=False) + "\n" for line in lines)
    checked: list[Line] = []
    for item in parse_lines(io.BytesIO(text.encode("utf-8", "surrogatepass")), email):
        if isinstance(item, UsageError):
            raise item
        checked.append(item)
    return checked
