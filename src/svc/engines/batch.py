"""`svc submit --from FILE`: many paid submissions from a JSON-lines file, a few at a time.

* The file is checked whole first (`svc.engines.batch_file`): one bad line and nothing is
  paid (exit 2, every bad line named), unless `skip_bad_lines`, which pays the good ones.
* On a terminal the person confirms the most it can cost before the first payment.
* Every line is its own submission: one ledger row, one idempotency key, at most one payment
  (the single-task flow `svc.engines.submit.submit` does each one). Re-running the file maps
  each line to the same request id: accepted lines are not sent again, interrupted ones
  resume with their journaled proof.
* The lines are read ahead for the workers in bursts (`svc.engines.backlog`): a queue of a few
  lines woke the reading thread for every line taken, a hand-off of the GIL each time.
* Concurrency: each worker thread has its own HTTP client (a pool of one connection: httpcore
  checks every idle connection of a pool on each request) and its own ledger connection
  (SQLite WAL serialises writers across connections, as between processes). A failure in one
  line's worker never ends the others: every line sent has its result line.

The engine draws nothing: each line's result goes to the face's `BatchSink` as it comes
(the CLI prints result lines and a progress bar), and `run_batch` returns a `Summary`: the
counts, and the worst outcome as data: the most serious error of the lines sent, in this order
of their exit codes: 10 (outcome unknown) > 5 (payment) > 6 (human needed) > 9 (unavailable) >
4 (auth) > 8 (conflict) > 7 (not found) > 1 (other error); `held` when nothing was sent for bad
lines. The CLI exits with the worst's code (2 when held, 0 when nothing failed); after a charge,
the process's paid record turns 2, 5 and 9 into 1 (`svc.paid_record`).
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, Protocol, cast

from svc import rail_table
from svc.context import AppContext
from svc.engines.backlog import Backlog
from svc.engines.batch_file import (
    EMAIL_ELSEWHERE,
    BatchSource,
    Line,
    bad_line,
    check,
    parse_lines,
)
from svc.engines.submit import SubmitResult, submit
from svc.errors import ExitCode, Interrupted, LedgerUnavailableError, SvcError, UsageError
from svc.report import QuietReporter
from svc.store.ledger import Submission

if TYPE_CHECKING:
    from svc.store.secrets import SecretStore

DEFAULT_CONCURRENCY = 8
MAX_CONCURRENCY = 64
# Lines looked up in the ledger at once (already accepted?) before they are queued: a read a
# line was a round trip a line on a fleet's PostgreSQL, on the thread that feeds the workers.
LOOKUP_CHUNK = 64
INTERRUPT_GRACE_SECONDS = 3.0  # lines in flight may finish and report before svc exits
SEVERITY = (
    ExitCode.OUTCOME_UNKNOWN,
    ExitCode.PAYMENT,
    ExitCode.HUMAN_NEEDED,
    ExitCode.UNAVAILABLE,
    ExitCode.AUTH,
    ExitCode.CONFLICT,
    ExitCode.NOT_FOUND,
    ExitCode.ERROR,
    ExitCode.USAGE,
    ExitCode.OK,
)


def _rank(error: SvcError) -> int:
    """Where an error stands in the order of seriousness (see the module doc); lower: worse."""
    rank = {code: i for i, code in enumerate(SEVERITY)}
    return rank.get(error.exit_code, rank[ExitCode.ERROR])


@dataclass
class Options:
    default_email: str | None = None
    # How a line without an e-mail is told to get one besides its own (the face's words).
    email_elsewhere: str = EMAIL_ELSEWHERE
    concurrency: int = DEFAULT_CONCURRENCY
    max_price_usd: object = None
    trust_recipient: bool = False
    rail: str = rail_table.DEFAULT
    skip_bad_lines: bool = False
    # Asked on a terminal before the first payment: pay up to this many new lines, the others
    # accepted already and not paid again? (--yes: None)
    confirm: Callable[[int, int], bool] | None = None
    # How the face resumes an interrupted batch (FILE: the file's path); the CLI's is a command.
    resume: str = "the same batch of FILE again"
    # The face's words for a line's error (svc.next_step), before the line's JSON is made.
    present: Callable[[SvcError], None] = lambda error: None
    # Set by a face whose reader went away (svc.Client.submit_many closed early): no new line
    # is sent, the lines in flight finish and report (each is journaled: a re-run resumes it).
    stop: threading.Event | None = None

    def stopped(self) -> bool:
        return self.stop is not None and self.stop.is_set()


@dataclass(frozen=True)
class LineResult:
    """One line's result: `doc` is its result line (what `--json` prints), `error` why it
    failed (its code and exit code), None when it was accepted, replayed or skipped;
    `submitted` what the submit engine returned (a face that builds its own result: the
    library's Task with its rail and billing line)."""

    line: int
    outcome: str  # accepted | replayed | already_accepted | invalid | error
    doc: dict[str, Any]
    error: SvcError | None = None
    submitted: SubmitResult | None = None  # accepted or replayed: the submit engine's result


@dataclass
class Summary:
    accepted: int = 0
    replayed: int = 0
    skipped: int = 0
    failed: int = 0
    bad: int = 0
    worst: SvcError | None = None  # the most serious failure of a line sent
    held: bool = False  # bad lines, and so nothing was sent or paid
    bad_lines: list[int] = field(default_factory=list)  # their numbers, in the file's order
    started: float = field(default_factory=time.monotonic)

    @property
    def done(self) -> int:
        return self.accepted + self.replayed + self.skipped + self.failed + self.bad

    @property
    def sent(self) -> int:
        """Lines with an outcome (a bad line was never sent: it has none)."""
        return self.done - self.bad

    def count(self, result: LineResult) -> None:
        if result.outcome == "accepted":
            self.accepted += 1
        elif result.outcome == "replayed":
            self.replayed += 1
        elif result.outcome == "already_accepted":
            self.skipped += 1
        elif result.outcome == "invalid":
            self.bad += 1
            self.bad_lines.append(result.line)
        else:
            self.failed += 1
        error = result.error
        worse = error is not None and (self.worst is None or _rank(error) < _rank(self.worst))
        if result.outcome != "invalid" and worse:
            self.worst = error


class BatchSink(Protocol):
    """The face's side of a batch: the result of each line as it comes, from any thread."""

    def start(self, total: int, summary: Summary) -> None:
        """The file is checked (and the most it can cost confirmed): `total` lines in all."""

    def total(self, count: int, summary: Summary) -> None:
        """The lines the second pass found (the file may have changed since the check)."""

    def result(self, result: LineResult, summary: Summary) -> None:
        """One line's result (`summary` already counts it)."""

    def finish(self, summary: Summary) -> None:
        """No more results: every line sent has had its result."""


class _Results:
    """Counts each result and hands it to the sink, one at a time (workers race)."""

    def __init__(self, sink: BatchSink) -> None:
        self.sink = sink
        self.summary = Summary()
        self._lock = threading.Lock()

    def add(
        self,
        doc: dict[str, Any],
        error: SvcError | None = None,
        submitted: SubmitResult | None = None,
    ) -> None:
        result = LineResult(int(doc["line"]), str(doc["outcome"]), doc, error, submitted)
        with self._lock:
            self.summary.count(result)
            self.sink.result(result, self.summary)

    def invalid(self, error: SvcError) -> None:
        """A bad line (never sent), named by its number."""
        self.add({"line": error.body["line"], "outcome": "invalid", **error.to_json()}, error)

    def finish(self) -> None:
        self.sink.finish(self.summary)


class _SharedSecrets:
    """One read of each secret for the whole batch (the keyring may be slow), thread-safe;
    and the one place the workers' HTTP clients warn (`http_warnings`)."""

    def __init__(self, inner: Any, warn: Callable[[str], None] | None = None) -> None:
        self._inner = inner
        self._cache: dict[str, str | None] = {}
        self._lock = threading.Lock()
        # The workers' HTTP clients warn here (shared like the secrets: one batch, one voice).
        self.http_warnings = _HttpWarnings(warn or (lambda text: None))

    def get(self, key: str) -> str | None:
        with self._lock:
            if key not in self._cache:
                self._cache[key] = self._inner.get(key)
            return self._cache[key]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _HttpWarnings:
    """Where the workers' HTTP clients warn. One client for the whole batch said once a host
    that credentials and data go out in cleartext (allow_insecure_http); a client per worker
    would say it once a worker, so the batch says each such text once. A payment's own warning
    (`paying over cleartext ...`) is still said for every payment, as the contract asks."""

    def __init__(self, warn: Callable[[str], None]) -> None:
        self._warn = warn
        self._said: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, text: str) -> None:
        if not text.startswith("paying "):
            with self._lock:
                if text in self._said:
                    return
                self._said.add(text)
        self._warn(text)


def _worker_context(parent: AppContext, secrets: _SharedSecrets) -> AppContext:
    """A context for one worker thread: shared secrets, its own HTTP client and ledger link.

    Prompting is off in workers (several threads cannot share a terminal): a changed payment
    recipient is refused unless the batch trusts it. Per-task notes (paying..., request id...)
    would drown the batch's own lines: a worker's reporter drops them.
    """
    # _SharedSecrets is read-only duck typing of SecretStore: workers only ever read secrets.
    shared = cast("SecretStore", secrets)
    quiet = QuietReporter(parent.report)
    ctx = parent.with_overrides(report=quiet, secrets=shared, no_input=True)
    # One connection a pool: httpcore checks every idle one of a pool on each request.
    ctx.use_own_http(secrets.http_warnings)
    return ctx


def _accepted_rows(app: AppContext, lines: list[Line]) -> dict[str, Submission]:
    """The rows of these lines that were accepted already, by request id. A shared ledger
    that went away is not a reason to stop reading: the workers report those lines (nothing is
    paid without its row)."""
    try:
        if not app.has_ledger():
            return {}
        return app.ledger.accepted_among([line.request_id for line in lines])
    except LedgerUnavailableError:
        return {}


def _already_accepted(app: AppContext, stream: IO[bytes], options: Options) -> int:
    """How many of the file's good lines the ledger holds as accepted: they are not sent, so
    not paid, again (read a chunk at a time, as the sending pass reads them)."""
    known = 0
    chunk: list[Line] = []
    for parsed in parse_lines(stream, options.default_email, options.email_elsewhere):
        if isinstance(parsed, Line):
            chunk.append(parsed)
        if len(chunk) == LOOKUP_CHUNK:
            known += len(_accepted_rows(app, chunk))
            chunk = []
    return known + (len(_accepted_rows(app, chunk)) if chunk else 0)


def run_batch(
    app: AppContext, path: str | BatchSource, options: Options, sink: BatchSink
) -> Summary:
    """Check the file whole, then submit every good line; what happened, line by line to
    `sink` and in sum. Bad lines hold the whole file back (`Summary.held`) unless
    `options.skip_bad_lines`. `path` may be a BatchSource the face made (a program's lines);
    it is closed here either way."""
    if not 1 <= options.concurrency <= MAX_CONCURRENCY:
        if isinstance(path, BatchSource):
            path.close()
        raise UsageError(f"the concurrency must be between 1 and {MAX_CONCURRENCY}")
    source = path if isinstance(path, BatchSource) else BatchSource(path)
    try:
        with source.open() as stream:
            checked = check(stream, options.default_email, options.email_elsewhere)
        results = _Results(sink)
        for error in checked.bad:
            results.invalid(error)
        if checked.bad and (not options.skip_bad_lines or not checked.good):
            results.summary.held = True
            return results.summary
        if checked.good and options.confirm is not None:
            with source.open() as stream:
                known = _already_accepted(app, stream, options)
            if not options.confirm(checked.good - known, known):
                raise UsageError("not submitted: nothing was sent or paid", code="cancelled")
        sink.start(checked.good + len(checked.bad), results.summary)
        results.summary.started = time.monotonic()
        with source.open() as stream:
            sending = _Sending(app, options, results, checked.bad_numbers(), checked.good)
            sending(stream, source)
        return results.summary
    finally:
        source.close()


def line_ranges(numbers: Any) -> str:
    """`3, 7-9, 12`: line numbers as ranges."""
    ranges: list[list[int]] = []
    for number in sorted(numbers):
        if ranges and number == ranges[-1][1] + 1:
            ranges[-1][1] = number
        else:
            ranges.append([number, number])
    shown = [str(a) if a == b else f"{a}-{b}" for a, b in ranges[:20]]
    return ", ".join(shown) + (", ..." if len(ranges) > 20 else "")


@dataclass
class _Sending:
    """The second pass: the good lines, a few at a time, each with its one result line."""

    app: AppContext
    options: Options
    results: _Results
    reported: set[int]  # bad lines the first pass reported already
    checked: int  # good lines the first pass found: never more are sent

    def __call__(self, stream: IO[bytes], source: BatchSource) -> None:
        """Every good line to a worker; each one's result to the results."""
        secrets = _SharedSecrets(self.app.secrets, self.app.report.warn)
        self.app.tasks  # noqa: B018 - with_overrides() reads it: built here, not by racing workers
        jobs = Backlog()
        args = (self.app, secrets, jobs, self.results, self.options)
        # Each worker runs in a copy of this context: what it pays is this run's record.
        workers = [
            threading.Thread(
                target=contextvars.copy_context().run, args=(_work, *args), daemon=True
            )
            for _ in range(self.options.concurrency)
        ]
        for worker in workers:
            worker.start()
        try:
            found = self._feed(stream, jobs)  # the bad lines and the good ones
            stopped = self.options.stopped()
            if not stopped:
                self.results.sink.total(found, self.results.summary)
            _stop(workers, jobs, grace=None, drain=stopped)  # a signal here is one too
        except KeyboardInterrupt:  # the journal is consistent; the same command resumes it
            source.keep()
            _stop(workers, jobs, grace=INTERRUPT_GRACE_SECONDS)
            self.results.finish()
            raise _interrupted(self.results.summary, source, self.options) from None
        except BaseException:  # lines in flight still get their result lines
            _stop(workers, jobs, grace=None)
            self.results.finish()
            raise
        self.results.finish()
        if not self.results.summary.sent and self.reported:
            self.results.summary.held = True  # every good line turned bad since the check

    def _feed(self, stream: IO[bytes], jobs: Backlog) -> int:
        """Queue each line for a worker, a chunk at a time (one ledger read a chunk); a line
        the ledger knows as accepted is not sent."""
        total = good = 0
        chunk: list[Line] = []
        for parsed in parse_lines(stream, self.options.default_email, self.options.email_elsewhere):
            if self.options.stopped():
                return total  # the chunk not queued yet is not sent, as queued lines are not
            total += 1
            good += isinstance(parsed, Line)
            item = parsed
            if isinstance(parsed, Line) and good > self.checked:  # appended since the check
                item = bad_line(parsed.number, "added after the file was checked; not sent")
            if not isinstance(item, Line):  # the file changed since it was checked
                if item.body["line"] not in self.reported:
                    self.results.invalid(item)
                continue
            chunk.append(item)
            if len(chunk) == LOOKUP_CHUNK:
                self._queue(chunk, jobs)
                chunk = []
        self._queue(chunk, jobs)
        return total

    def _queue(self, chunk: list[Line], jobs: Backlog) -> None:
        """The chunk's lines to the workers, but those already accepted: their result now."""
        accepted = _accepted_rows(self.app, chunk) if chunk else {}
        for line in chunk:
            row = accepted.get(line.request_id)
            if row is None:
                jobs.put(line)
                continue
            self.results.add(
                {
                    "line": line.number,
                    "request_id": line.request_id,
                    "outcome": "already_accepted",
                    "task_id": row.task_id,
                    "state": row.state,
                }
            )


def _stop(
    workers: list[threading.Thread],
    jobs: Backlog,
    *,
    grace: float | None,
    drain: bool = True,
) -> None:
    """End the workers once their current line is done: queued lines are dropped first when
    `drain` (they were not sent), and each waits at most `grace` seconds in all (None: as long
    as its line takes; an interrupted batch does not wait long for a person)."""
    if drain:
        jobs.drop()
    jobs.finish(len(workers))
    deadline = None if grace is None else time.monotonic() + grace
    for worker in workers:
        worker.join(None if deadline is None else max(0.0, deadline - time.monotonic()))


def _interrupted(s: Summary, source: BatchSource, options: Options) -> Interrupted:
    import shlex

    command = options.resume.replace("FILE", shlex.quote(str(source.path)))
    return Interrupted(
        f"interrupted: {s.accepted + s.replayed} lines were submitted, the others not yet or "
        "in flight",
        hint=f"resume without paying twice (accepted lines are not sent again): {command}",
    )


def _work(
    parent: AppContext,
    secrets: _SharedSecrets,
    jobs: Backlog,
    results: _Results,
    options: Options,
) -> None:
    try:
        ctx = _worker_context(parent, secrets)
    except Exception as exc:  # no worker without its context: each line it takes says why
        while (line := jobs.get()) is not None:
            _plain_result(results, line, exc, "not sent (its worker could not start)")
        return
    try:
        while (line := jobs.get()) is not None:
            if options.stopped():
                continue  # queued, never sent: dropped as an interrupt drops it
            try:
                _submit_line(ctx, line, results, options)
            except BaseException as exc:  # its result could not be written: a plain one
                _plain_result(results, line, exc)
    finally:
        ctx.close()  # its ledger link and its HTTP client, both its own


def _plain_result(
    results: _Results, line: Line, exc: BaseException, why: str = "the result could not be written"
) -> None:
    """The line's result when writing its own failed: every line sent keeps its result line
    (and its count in the summary), whatever broke on the way out."""
    detail = f"{why}: {type(exc).__name__}: {str(exc)[:200]}"
    doc = {
        "line": line.number,
        "request_id": line.request_id,
        "outcome": "error",
        "error": "internal_error",
        "detail": detail,
        "exit_code": int(ExitCode.ERROR),
    }
    with contextlib.suppress(Exception):
        results.add(doc, SvcError(detail, code="internal_error"))


def _submit_line(ctx: AppContext, line: Line, results: _Results, options: Options) -> None:
    """One line's submission and its one result line, whatever happens in it."""
    base = {"line": line.number, "request_id": line.request_id}
    try:
        result = submit(
            ctx,
            line.body,
            request_id=line.request_id,
            max_price_usd=options.max_price_usd,
            trust_recipient=options.trust_recipient,
            rail=options.rail,
        )
    except SvcError as exc:
        options.present(exc)
        results.add({**base, "outcome": "error", **exc.to_json()}, exc)
    except BaseException as exc:  # one line's bug must not end the others nor lose its line
        detail = f"{type(exc).__name__}: {str(exc)[:300]}"
        results.add(
            {
                **base,
                "outcome": "error",
                "error": "internal_error",
                "detail": detail,
                "exit_code": int(ExitCode.ERROR),
            },
            SvcError(detail, code="internal_error"),
        )
    else:
        results.add(
            {
                **base,
                "outcome": "replayed" if result.replayed else "accepted",
                "task_id": result.task.get("id"),
                "state": result.task.get("state"),
                "task": result.task,
            },
            submitted=result,
        )
