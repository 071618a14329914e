"""One call of the library: its own record of what it paid, and errors that say so.

Each Client method runs in a fresh `paid_record.scoped()` (as `svc mcp` runs each tool call),
so one call's payment does not colour another call's error. An error raised after this call
paid is settled as the CLI's exit path settles it (never a code that reads as "nothing was
charged": exit 1, or 10 if an outcome is unknown) and carries what was paid in
`error.data["paid"]`: [{"request_id": ..., "task_id": ...}]. Its words are scrubbed of every
secret this process was told, as the CLI's error line is: a service may echo an answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from svc import paid_record, redact, telemetry
from svc.api.deadline import capped
from svc.api.http import whole_seconds
from svc.context import AppContext
from svc.errors import SvcError
from svc.next_words import library as _next


@contextmanager
def one_call(app: AppContext | None = None, method: str = "") -> Iterator[paid_record.PaidRecord]:
    """One call's record; with `app`, the call ends within its `timeout` (Client(timeout=)),
    every request and retry of it included. Traced as `svc.Client.METHOD` when the program
    traces (svc.telemetry `for_a_host`): the call's requests and payment are its children."""
    bound = whole_seconds(app.settings.timeout) if app is not None else None
    name = f"svc.Client.{method}" if method else "svc.Client"
    with paid_record.scoped() as paid, capped(bound), telemetry.span(name):
        try:
            yield paid
        except SvcError as error:
            _next.present(error)  # before settle, which adds what was paid to the hint
            settled(error, paid)
            raise


def settled(error: SvcError, paid: paid_record.PaidRecord) -> SvcError:
    """`error` settled against what `paid` holds, naming it, and scrubbed (also a batch
    line's error, against what that line paid)."""
    paid.settle(error)
    if paid.requests():
        error.data["paid"] = paid.as_json()
    _scrub(error)
    return error


def _scrub(error: SvcError) -> None:
    error.message = redact.scrub(error.message)
    error.hint = redact.scrub(error.hint or error.default_hint)
    # What a traceback shows (str(error) says the same): the message and the way on.
    error.args = (str(error),)
    error.body = redact.scrub(error.body)
    error.data = redact.scrub(error.data)
