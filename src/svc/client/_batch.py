"""`Client.submit_many`: the batch engine (engines/batch.run_batch, what `svc submit --from`
runs) with a Python face.

The engine runs in a thread of its own (with its own app context, released at the end) inside
one `one_call()`: its workers run in copies of that thread's context, so the run has one record
of what it paid. `ResultSink` is the engine's BatchSink here: each line's result becomes a
`BatchResult` in the worker that finished it and goes onto a queue that `BatchRun.next` reads.
`BatchRun.stop` (the iterator closed early) sets the engine's stop event: no new line is sent,
the ones in flight finish (each journaled, so the same lines again resume them, paying nothing
twice), and it returns once they have.
"""

from __future__ import annotations

import json
import os
import queue
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from svc import paid_record
from svc.client._calls import one_call, settled
from svc.client._context import amount_argument, check_rail
from svc.client._contexts import Contexts
from svc.client.types import BatchResult, Submission, Task
from svc.engines.batch import LineResult, Options, Summary, line_ranges, run_batch
from svc.engines.batch_file import BatchSource
from svc.errors import SvcError, UsageError
from svc.next_words import library as _next
from svc.words import plural

Lines = Iterable[Mapping[str, Any]] | str | os.PathLike[str]


@dataclass(frozen=True)
class _End:
    """The engine thread's last word: done, or the error the reader raises."""

    error: BaseException | None = None


class ResultSink:
    """The engine's BatchSink: each line's result as a BatchResult onto the reader's queue.
    Bad lines wait until the run starts sending (skip_bad_lines): held back, the run is one
    UsageError naming them all, with no result before it."""

    def __init__(self, out: queue.Queue[BatchResult | _End], paid: paid_record.PaidRecord) -> None:
        self._out = out
        self._paid = paid
        self._lock = threading.Lock()
        self._sending = False
        self.bad: list[SvcError] = []

    @property
    def sending(self) -> bool:
        return self._sending

    def start(self, total: int, summary: Summary) -> None:
        with self._lock:
            self._sending = True
            for error in self.bad:
                self._out.put(_invalid(error))

    def total(self, count: int, summary: Summary) -> None:
        """Nothing to do: a program counts the results it reads."""

    def result(self, result: LineResult, summary: Summary) -> None:
        if result.outcome == "invalid" and result.error is not None:  # never sent, never paid
            with self._lock:
                self.bad.append(result.error)
                if self._sending:  # turned bad since the check: its result now
                    self._out.put(_invalid(result.error))
            return
        self._out.put(self._converted(result))

    def finish(self, summary: Summary) -> None:
        """Nothing to do: the engine thread ends the queue when run_batch returns."""

    def _converted(self, result: LineResult) -> BatchResult:
        doc = result.doc
        rid, task_id = doc.get("request_id"), doc.get("task_id")
        if result.error is not None:
            error = self._settled(rid, result.error)
            return BatchResult(result.line, rid, "failed", None, task_id, error)
        if result.outcome == "already_accepted":
            return BatchResult(result.line, rid, "already_accepted", task_id=task_id)
        submitted = result.submitted
        try:
            assert submitted is not None  # accepted or replayed: the engine's result is there
            task = Task.from_service(submitted.task, Submission.of(submitted))
        except SvcError as error:  # paid, then a task the spec does not allow
            return BatchResult(result.line, rid, "failed", None, task_id, self._settled(rid, error))
        return BatchResult(result.line, rid, "submitted", task, task.id)

    def _settled(self, request_id: str | None, error: SvcError) -> SvcError:
        """A line's error as a submit's: settled against what this line paid, not the run."""
        return settled(error, self._paid.only(request_id))


def _invalid(error: SvcError) -> BatchResult:
    return BatchResult(int(error.body["line"]), None, "invalid", error=error)


def held(bad: list[SvcError], skipping: bool) -> UsageError:
    """The run refused: every bad line named, nothing sent or paid."""
    numbers = [int(error.body["line"]) for error in bad]
    reasons = "; ".join(error.message for error in bad[:10])
    more = f"; and {len(bad) - 10} more" if len(bad) > 10 else ""
    error = UsageError(
        f"nothing was sent or paid: {plural(len(bad), 'bad line')} ({line_ranges(numbers)}): "
        f"{reasons}{more}",
        code="invalid_lines",
        hint=None if skipping else "fix them, or pass skip_bad_lines=True to pay for the good ones",
    )
    error.data["bad_lines"] = [
        {"line": n, "detail": e.message} for n, e in zip(numbers, bad, strict=True)
    ]
    return error


def source_of(lines: Lines) -> BatchSource:
    """A JSONL file as it is (read by the engine, twice), or a program's mappings written one
    JSON object a line to a private copy, which the engine reads as a batch file."""
    if isinstance(lines, str | os.PathLike):
        return BatchSource(str(Path(lines).absolute()))  # never "-": a library reads no stdin
    return BatchSource("the lines given", _encoded(lines))


def _encoded(lines: Iterable[Mapping[str, Any]]) -> Iterator[bytes]:
    for number, line in enumerate(lines, 1):
        try:
            text = json.dumps(dict(line), ensure_ascii=False)
        except (TypeError, ValueError) as exc:  # not a mapping, or not JSON-able: a bug
            raise UsageError(
                f"line {number}: not a JSON object ({exc}); nothing was sent"
            ) from None
        # a lone surrogate stays one, for the reader to name ("not UTF-8 text")
        yield text.encode("utf-8", "surrogatepass") + b"\n"


class BatchRun:
    """One submit_many: started by the first `next`, stopped by `stop` (or at its end)."""

    def __init__(self, contexts: Contexts, lines: Lines, options: Options) -> None:
        self._contexts = contexts
        self._lines = lines
        self._options = options
        self._stop = options.stop = threading.Event()
        self._out: queue.Queue[BatchResult | _End] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._ended = False

    def next(self) -> BatchResult | None:
        """The next line's result as it finishes; None when every line sent has reported."""
        if self._ended:
            return None
        if self._thread is None:
            self._contexts.started(self)  # a Client closed meanwhile stops it
            self._thread = threading.Thread(target=self._run, name="svc-batch", daemon=True)
            self._thread.start()
        item = self._out.get()
        if isinstance(item, _End):
            self._ended = True
            if item.error is not None:
                raise item.error
            return None
        return item

    def stop(self) -> None:
        """No new line is sent; returns once the lines in flight have finished."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        self._contexts.ended(self)

    def _run(self) -> None:
        try:
            with one_call(method="submit_many") as paid:
                sink = ResultSink(self._out, paid)
                app = self._contexts.get()
                summary = run_batch(app, source_of(self._lines), self._options, sink)
                if summary.held and not sink.sending and not self._stop.is_set():
                    raise held(sink.bad, self._options.skip_bad_lines)
            self._out.put(_End())
        except BaseException as error:  # handed to the reader, which raises it
            self._out.put(_End(error))
        finally:
            self._contexts.release()


def prepared(
    contexts: Contexts,
    lines: Lines,
    *,
    email: str | None,
    concurrency: int,
    skip_bad_lines: bool,
    pay: str | None,
    max_price: object,
    trust_recipient: bool,
) -> BatchRun:
    """The run `svc submit --from` would make of these arguments (no confirmation: each
    payment is the approve() callback's and the policy's, as a submit's is)."""
    settings = contexts.settings
    options = Options(
        default_email=email or settings.email,
        concurrency=concurrency,
        max_price_usd=None if max_price is None else amount_argument("max_price", max_price),
        trust_recipient=trust_recipient,
        rail=check_rail(pay or settings.pay),
        skip_bad_lines=skip_bad_lines,
        resume="the same lines again, with the same request ids (client.submit_many)",
        present=_next.present,  # a line's next step in the Client's words
    )
    return BatchRun(contexts, lines, options)


def results(run: BatchRun) -> Iterator[BatchResult]:
    """The run's results; closing this early (or an error in the reader) stops the run."""
    try:
        while (result := run.next()) is not None:
            yield result
    finally:
        run.stop()
