"""`svc submit --from FILE`: many paid submissions from a JSON-lines file, a few at a time.

One line, one task: `{"task": "...", "email": "...", "request_id": "..."}` (`email` may come
from --email or the config; `request_id` is optional). Blank lines and lines starting with `#`
are skipped.

* Every line is its own submission: one ledger row, one idempotency key, at most one payment
  (the single-task flow `svc.engines.submit.submit` does each one).
* Without a request id, the id is derived from the task text, the e-mail and how many times
  that same pair occurred earlier in the file. Re-running the file (even with lines added or
  moved) therefore maps each line to the same id: lines the ledger knows as accepted are not
  sent again, and interrupted ones resume with their journaled proof.
* Bad lines are reported with their line number and skipped; the rest still run.
* Concurrency: worker threads share one HTTP connection pool; each opens its own ledger
  connection (SQLite WAL serialises writers across connections, as between processes).

Exit code: the most serious outcome over all lines, in this order:
10 (outcome unknown) > 5 (payment) > 6 (human needed) > 9 (unavailable) > 4 (auth) >
8 (conflict) > 7 (not found) > 1 (other error) > 2 (bad lines only) > 0.
"""

from __future__ import annotations

import hashlib
import json
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, cast

from svc.context import AppContext
from svc.errors import ExitCode, LedgerUnavailableError, SvcError, UsageError
from svc.store.ledger import PayState, Submission
from svc.ui.output import Output
from svc.ui.sanitize import clean
from svc.ui.words import plural

if TYPE_CHECKING:
    from svc.store.secrets import SecretStore

DEFAULT_CONCURRENCY = 8
MAX_CONCURRENCY = 64
MAX_LINE_BYTES = 200_000
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
class Line:
    number: int
    body: dict[str, Any]
    request_id: str


@dataclass
class Options:
    default_email: str | None = None
    concurrency: int = DEFAULT_CONCURRENCY
    max_price_usd: object = None
    trust_recipient: bool = False
    rail: str = "x402"


def derive_request_id(task: str, email: str, occurrence: int) -> str:
    """A stable idempotency key for the `occurrence`-th line with this task and e-mail."""
    digest = hashlib.sha256(
        json.dumps([task, email.lower(), occurrence], ensure_ascii=False).encode()
    ).hexdigest()
    return f"req_b{digest[:40]}"


def parse_lines(stream: IO[bytes], default_email: str | None) -> Iterator[Line | SvcError]:
    """Each usable line as a `Line`, each bad one as a UsageError naming its line number."""
    occurrences: dict[tuple[str, str], int] = {}
    seen: set[str] = set()
    for number, raw in enumerate(stream, start=1):
        try:
            doc = _line_object(raw)
            if doc is None:
                continue  # blank or a comment
            body, given = _submission(doc, default_email)
            rid = _request_id_for(body, given, occurrences, seen)
        except _BadLine as exc:
            yield _bad(number, str(exc))
            continue
        seen.add(rid)
        yield Line(number, body, rid)


class _BadLine(Exception):
    """Why one line of a batch cannot be submitted (the others still are)."""


def _line_object(raw: bytes) -> dict[str, Any] | None:
    """The line's JSON object with only known keys; None for a blank line or a comment."""
    if len(raw) > MAX_LINE_BYTES:
        raise _BadLine(f"longer than {MAX_LINE_BYTES} bytes")
    try:
        text = raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise _BadLine("not UTF-8 text") from None
    if not text or text.startswith("#"):
        return None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _BadLine(f"not a JSON object ({exc.msg})") from None
    if not isinstance(doc, dict):
        raise _BadLine("not a JSON object")
    unknown = sorted(set(doc) - {"task", "email", "request_id"})
    if unknown:
        raise _BadLine(f"unknown key {unknown[0]!r} (known: task, email, request_id)")
    return doc


def _submission(
    doc: dict[str, Any], default_email: str | None
) -> tuple[dict[str, Any], str | None]:
    """The checked request body and the line's own request id, if it gives one."""
    from svc.api.models import TaskSubmission
    from svc.engines.submit import validate_request_id
    from svc.engines.validate import build, check_email

    task, email, rid = doc.get("task"), doc.get("email", default_email), doc.get("request_id")
    if not isinstance(task, str) or not task.strip():
        raise _BadLine("missing task (a non-empty string)")
    if not isinstance(email, str) or not email:
        raise _BadLine("missing email (give it in the line, or --email for all lines)")
    if rid is not None and not isinstance(rid, str):
        raise _BadLine("request_id must be a string")
    try:
        body = build(TaskSubmission, "task", task=task, email=email).model_dump()
        check_email(body["email"])
        if rid is not None:
            validate_request_id(rid)
    except UsageError as exc:
        raise _BadLine(exc.message) from None
    return body, rid


def _request_id_for(
    body: dict[str, Any],
    given: str | None,
    occurrences: dict[tuple[str, str], int],
    seen: set[str],
) -> str:
    """The line's own id (once per file), else one derived from the task, the address and how
    many earlier lines had both, so a re-run of the file maps each line to the same request."""
    if given is None:
        key = (body["task"], body["email"].lower())
        occurrences[key] = occurrences.get(key, 0) + 1
        return derive_request_id(body["task"], body["email"], occurrences[key])
    if given in seen:
        raise _BadLine(f"request_id {given} is used by an earlier line")
    return given


def _bad(number: int, message: str) -> UsageError:
    error = UsageError(f"line {number}: {message}", code="invalid_line")
    error.body = {"line": number}
    return error


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
        if output.stderr_tty:
            self._progress = output.progress("submitting")

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


def run_batch(app: AppContext, stream: IO[bytes], options: Options) -> int:
    """Submit every line; returns the batch's exit code (see the module doc)."""
    if not 1 <= options.concurrency <= MAX_CONCURRENCY:
        raise UsageError(f"--concurrency must be between 1 and {MAX_CONCURRENCY}")
    reporter = Reporter(app.output)
    secrets = _SharedSecrets(app.secrets)
    app.tasks  # noqa: B018 - build the shared pool before the workers race for it
    jobs: queue.Queue[Line | None] = queue.Queue(maxsize=options.concurrency * 2)
    workers = [
        threading.Thread(target=_work, args=(app, secrets, jobs, reporter, options), daemon=True)
        for _ in range(options.concurrency)
    ]
    for worker in workers:
        worker.start()
    total = 0
    try:
        for item in parse_lines(stream, options.default_email):
            total += 1
            if isinstance(item, SvcError):
                number = item.body["line"] if isinstance(item.body, dict) else 0
                doc = {"line": number, "outcome": "invalid", **item.to_json()}
                reporter.result(doc, int(item.exit_code))
                continue
            row = _accepted_row(app, item.request_id)
            if row is not None:
                reporter.result(
                    {
                        "line": item.number,
                        "request_id": item.request_id,
                        "outcome": "already_accepted",
                        "task_id": row.task_id,
                        "state": row.state,
                    }
                )
                continue
            jobs.put(item)
        reporter.total(total)
        for _ in workers:
            jobs.put(None)
        for worker in workers:
            worker.join()
    finally:
        reporter.close()
    return worst(reporter.summary.codes)


def _work(
    parent: AppContext,
    secrets: _SharedSecrets,
    jobs: queue.Queue[Line | None],
    reporter: Reporter,
    options: Options,
) -> None:
    from svc.engines.submit import submit

    ctx = _worker_context(parent, secrets)
    try:
        while (line := jobs.get()) is not None:
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
            except Exception as exc:  # one line's bug must not hang the batch
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
    finally:
        if ctx.ledger_is_open():
            ctx.ledger.close()
