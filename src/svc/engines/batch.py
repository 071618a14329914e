"""`svc submit --from FILE`: many paid submissions from a JSON-lines file, a few at a time.

* The file is checked whole first (`svc.engines.batch_file`): one bad line and nothing is
  paid (exit 2, every bad line named), unless `skip_bad_lines`, which pays the good ones.
* On a terminal the person confirms the most it can cost before the first payment.
* Every line is its own submission: one ledger row, one idempotency key, at most one payment
  (the single-task flow `svc.engines.submit.submit` does each one). Re-running the file maps
  each line to the same request id: accepted lines are not sent again, interrupted ones
  resume with their journaled proof.
* Concurrency: worker threads share one HTTP connection pool; each opens its own ledger
  connection (SQLite WAL serialises writers across connections, as between processes). A
  failure in one line's worker never ends the others: every line sent has its result line.

Exit code: the most serious outcome over the lines sent, in this order:
10 (outcome unknown) > 5 (payment) > 6 (human needed) > 9 (unavailable) > 4 (auth) >
8 (conflict) > 7 (not found) > 1 (other error) > 0; 2 when nothing was sent for bad lines.
After a charge, the process's paid record turns 2, 5 and 9 into 1 (`svc.paid_record`).
"""

from __future__ import annotations

import contextlib
import contextvars
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, cast

from svc.context import AppContext
from svc.engines.batch_file import BatchSource, Line, bad_line, check, parse_lines
from svc.engines.submit import submit
from svc.errors import ExitCode, Interrupted, LedgerUnavailableError, SvcError, UsageError
from svc.store.ledger import PayState, Submission
from svc.ui.output import Output
from svc.ui.sanitize import clean
from svc.ui.terminal import silence_stdout
from svc.ui.words import plural

if TYPE_CHECKING:
    from svc.store.secrets import SecretStore

DEFAULT_CONCURRENCY = 8
MAX_CONCURRENCY = 64
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


def worst(codes: list[int]) -> int:
    """The most serious exit code of a batch (see the module doc for the order)."""
    rank = {int(code): i for i, code in enumerate(SEVERITY)}
    return min(codes, key=lambda c: rank.get(c, rank[int(ExitCode.ERROR)]), default=0)


@dataclass
class Options:
    default_email: str | None = None
    concurrency: int = DEFAULT_CONCURRENCY
    max_price_usd: object = None
    trust_recipient: bool = False
    rail: str = "x402"
    skip_bad_lines: bool = False
    # Asked on a terminal before the first payment: pay up to this many lines? (--yes: None)
    confirm: Callable[[int], bool] | None = None
    resume: str = "svc submit --from FILE"  # the command that resumes an interrupted batch


@dataclass
class Summary:
    accepted: int = 0
    replayed: int = 0
    skipped: int = 0
    failed: int = 0
    bad: int = 0
    codes: list[int] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    @property
    def done(self) -> int:
        return self.accepted + self.replayed + self.skipped + self.failed + self.bad


class Reporter:
    """Result lines (NDJSON on stdout in JSON mode), failures on stderr, a progress bar.

    On a terminal only failures and the summary are printed (`svc tasks` lists the rest).
    """

    def __init__(self, output: Output) -> None:
        self.output = output
        self.summary = Summary()
        self._lock = threading.Lock()
        self._progress: Any = None
        self._total: int | None = None

    def start(self, total: int) -> None:
        """The progress bar on a terminal, once the file is checked (and the most confirmed)."""
        self._total = total
        self.summary.started = time.monotonic()
        if self.output.stderr_tty:
            self._progress = self.output.progress("submitting")
            self._progress.count("submitting", self.summary.done, total)

    def total(self, count: int) -> None:
        self._total = count
        if self._progress is not None:
            self._progress.count("submitting", self.summary.done, count)

    def result(self, doc: dict[str, Any], exit_code: int = 0) -> None:
        with self._lock:
            s = self.summary
            status = doc["outcome"]
            if status == "accepted":
                s.accepted += 1
            elif status == "replayed":
                s.replayed += 1
            elif status == "already_accepted":
                s.skipped += 1
            elif status == "invalid":
                s.bad += 1
            else:
                s.failed += 1
            if status != "invalid":  # a bad line was never sent: its 2 is not an outcome
                s.codes.append(exit_code)
            if self.output.json_mode and status in ("accepted", "replayed"):
                paid = str(doc.get("task_id"))
                with self.output.after_payment(paid):  # a paid line's output cannot undo it
                    self.output.emit_line(doc)
            elif self.output.json_mode:
                self.output.emit_line(doc)
            if status == "error":
                self._say(f"svc: line {doc['line']}: {doc['detail']}")
            elif status == "invalid":
                self._say(f"svc: {doc['detail']}")
            if self._progress is not None:
                failed = s.failed + s.bad
                note = f"{failed} failed" if failed else ""
                self._progress.count("submitting", s.done, self._total, note)

    def invalid(self, error: SvcError) -> None:
        """A bad line (never sent), named by its number."""
        self.result({"line": error.body["line"], "outcome": "invalid", **error.to_json()}, 2)

    def _say(self, text: str) -> None:
        self.output.info(clean(text, 600, single_line=True))  # clears the progress line first

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
        s = self.summary
        elapsed = max(time.monotonic() - s.started, 1e-6)
        sent = s.accepted + s.replayed
        self.output.info(
            f"batch: {sent} submitted ({s.accepted} paid, {s.replayed} replayed), "
            f"{s.skipped} already accepted, {s.failed} failed, {plural(s.bad, 'bad line')} "
            f"in {elapsed:.1f}s ({sent / elapsed:.1f} tasks/s)"
        )


class _QuietOutput(Output):
    """A worker's output: per-task notes (paying..., request id...) would drown the summary."""

    def note(self, message: str, style: str = "dim", **values: object) -> None:
        pass


class _SharedSecrets:
    """One read of each secret for the whole batch (the keyring may be slow), thread-safe."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._cache: dict[str, str | None] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            if key not in self._cache:
                self._cache[key] = self._inner.get(key)
            return self._cache[key]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _worker_context(parent: AppContext, secrets: _SharedSecrets) -> AppContext:
    """A context for one worker thread: shared HTTP pool and secrets, its own ledger link.

    Prompting is off in workers (several threads cannot share a terminal): a changed payment
    recipient is refused unless --trust-recipient was given.
    """
    output = _QuietOutput.sibling(parent.output, json_mode=True)
    # _SharedSecrets is read-only duck typing of SecretStore: workers only ever read secrets.
    shared = cast("SecretStore", secrets)
    return parent.with_overrides(output=output, secrets=shared, no_input=True)


def _accepted_row(app: AppContext, request_id: str) -> Submission | None:
    """The line's row if it was accepted already. A shared ledger that went away is not a
    reason to stop reading: the worker reports that line (nothing is paid without its row)."""
    try:
        row = app.ledger.get(request_id) if app.has_ledger() else None
    except LedgerUnavailableError:
        return None
    return row if row is not None and row.task_id and row.status == PayState.ACCEPTED else None


def run_batch(app: AppContext, path: str, options: Options) -> int:
    """Check the file whole, then submit every good line; the batch's exit code."""
    if not 1 <= options.concurrency <= MAX_CONCURRENCY:
        raise UsageError(f"--concurrency must be between 1 and {MAX_CONCURRENCY}")
    source = BatchSource(path)
    try:
        with source.open() as stream:
            checked = check(stream, options.default_email)
        reporter = Reporter(app.output)
        if checked.bad:
            _report_bad(reporter, checked.bad, options.skip_bad_lines)
            if not options.skip_bad_lines or not checked.good:
                return int(ExitCode.USAGE)
        if checked.good and options.confirm is not None and not options.confirm(checked.good):
            raise UsageError("not submitted: nothing was sent or paid", code="cancelled")
        reporter.start(checked.good + len(checked.bad))
        with source.open() as stream:
            sending = _Sending(app, options, reporter, checked.bad_numbers(), checked.good)
            return sending(stream, source)
    finally:
        source.close()


def _report_bad(reporter: Reporter, bad: list[UsageError], skipping: bool) -> None:
    for error in bad:
        reporter.invalid(error)
    if not skipping:
        reporter.output.info(
            f"svc: nothing was sent or paid: {plural(len(bad), 'bad line')} "
            f"({_numbers(error.body['line'] for error in bad)}); fix them, or pass "
            "--skip-bad-lines to pay for the good ones"
        )


def _numbers(numbers: Any) -> str:
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
    reporter: Reporter
    reported: set[int]  # bad lines the first pass reported already
    checked: int  # good lines the first pass found: never more are sent

    def __call__(self, stream: IO[bytes], source: BatchSource) -> int:
        """Every good line to a worker; the exit code of the lines sent."""
        secrets = _SharedSecrets(self.app.secrets)
        self.app.tasks  # noqa: B018 - build the shared pool before the workers race for it
        jobs: queue.Queue[Line | None] = queue.Queue(maxsize=self.options.concurrency * 2)
        args = (self.app, secrets, jobs, self.reporter, self.options)
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
            self.reporter.total(self._feed(stream, jobs))  # the bad lines and the good ones
            _stop(workers, jobs, grace=None, drain=False)  # a signal here is one too
        except KeyboardInterrupt:  # the journal is consistent; the same command resumes it
            source.keep()
            _stop(workers, jobs, grace=INTERRUPT_GRACE_SECONDS)
            self.reporter.close()
            raise _interrupted(self.reporter, source, self.options) from None
        except BaseException:  # lines in flight still get their result lines
            _stop(workers, jobs, grace=None)
            self.reporter.close()
            raise
        self.reporter.close()
        sent = self.reporter.summary.codes
        return int(ExitCode.USAGE) if not sent and self.reported else worst(sent)

    def _feed(self, stream: IO[bytes], jobs: queue.Queue[Line | None]) -> int:
        """Queue each line for a worker; a line the ledger knows as accepted is not sent."""
        total = good = 0
        for parsed in parse_lines(stream, self.options.default_email):
            total += 1
            good += isinstance(parsed, Line)
            item = parsed
            if isinstance(parsed, Line) and good > self.checked:  # appended since the check
                item = bad_line(parsed.number, "added after the file was checked; not sent")
            if not isinstance(item, Line):  # the file changed since it was checked
                if item.body["line"] not in self.reported:
                    self.reporter.invalid(item)
                continue
            row = _accepted_row(self.app, item.request_id)
            if row is None:
                jobs.put(item)
                continue
            self.reporter.result(
                {
                    "line": item.number,
                    "request_id": item.request_id,
                    "outcome": "already_accepted",
                    "task_id": row.task_id,
                    "state": row.state,
                }
            )
        return total


def _stop(
    workers: list[threading.Thread],
    jobs: queue.Queue[Line | None],
    *,
    grace: float | None,
    drain: bool = True,
) -> None:
    """End the workers once their current line is done: queued lines are dropped first when
    `drain` (they were not sent), and each waits at most `grace` seconds in all (None: as long
    as its line takes; an interrupted batch does not wait long for a person)."""
    while drain:
        try:
            jobs.get_nowait()
        except queue.Empty:
            break
    for _ in workers:
        jobs.put(None)
    deadline = None if grace is None else time.monotonic() + grace
    for worker in workers:
        worker.join(None if deadline is None else max(0.0, deadline - time.monotonic()))


def _interrupted(reporter: Reporter, source: BatchSource, options: Options) -> Interrupted:
    import shlex

    command = options.resume.replace("FILE", shlex.quote(str(source.path)))
    s = reporter.summary
    return Interrupted(
        f"interrupted: {s.accepted + s.replayed} lines were submitted, the others not yet or "
        "in flight",
        hint=f"resume without paying twice (accepted lines are not sent again): {command}",
    )


def _work(
    parent: AppContext,
    secrets: _SharedSecrets,
    jobs: queue.Queue[Line | None],
    reporter: Reporter,
    options: Options,
) -> None:
    ctx = _worker_context(parent, secrets)
    try:
        while (line := jobs.get()) is not None:
            try:
                _submit_line(ctx, line, reporter, options)
            except BrokenPipeError:  # the reader of the results went away: the lines go on
                silence_stdout()
            except BaseException as exc:  # its result could not be written: a plain one
                _plain_result(reporter, line, exc)
    finally:
        if ctx.ledger_is_open():
            ctx.ledger.close()


def _plain_result(reporter: Reporter, line: Line, exc: BaseException) -> None:
    """The line's result when writing its own failed: every line sent keeps its result line
    (and its count in the summary), whatever broke on the way out."""
    doc = {
        "line": line.number,
        "request_id": line.request_id,
        "outcome": "error",
        "error": "internal_error",
        "detail": f"the result could not be written: {type(exc).__name__}: {str(exc)[:200]}",
        "exit_code": int(ExitCode.ERROR),
    }
    with contextlib.suppress(Exception):
        reporter.result(doc, int(ExitCode.ERROR))


def _submit_line(ctx: AppContext, line: Line, reporter: Reporter, options: Options) -> None:
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
        reporter.result({**base, "outcome": "error", **exc.to_json()}, int(exc.exit_code))
    except BaseException as exc:  # one line's bug must not end the others nor lose its line
        reporter.result(
            {
                **base,
                "outcome": "error",
                "error": "internal_error",
                "detail": f"{type(exc).__name__}: {str(exc)[:300]}",
                "exit_code": int(ExitCode.ERROR),
            },
            int(ExitCode.ERROR),
        )
    else:
        reporter.result(
            {
                **base,
                "outcome": "replayed" if result.replayed else "accepted",
                "task_id": result.task.get("id"),
                "state": result.task.get("state"),
                "task": result.task,
            }
        )
