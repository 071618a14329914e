"""The Client's free calls and ledger reads, over the engines `svc quote|guide|tasks|spend|
doctor` and `svc pay card` use (the MCP tools use the same: mcp/tools/info.py)."""

from __future__ import annotations

from typing import Any

from svc.api.models import QuoteRequest
from svc.client._calls import one_call
from svc.client._context import LibraryContext
from svc.client.types import Submission, Task
from svc.engines import advisor
from svc.engines.budget import report as budget_report
from svc.engines.doctor import first_failure, run_checks
from svc.engines.submit import pay_card as pay_card_engine
from svc.engines.task_list import TaskQuery, collect, cursor_after
from svc.engines.validate import build
from svc.errors import AdvisorUnavailableError
from svc.next_words import library as _next
from svc.operations.declare import Document, Method, Operation
from svc.operations.results import Budgets, DoctorReport, Guide, Quote, TaskRow


def quote(app: LibraryContext, goal: str, fields: dict[str, Any]) -> Quote:
    """The advisor's quote (free: a zero-amount proof at most, under a cap of 0). The spec's
    answer to an unavailable advisor is the wallet-free guide: AdvisorUnavailable (exit 9)
    says so, and `guide()` gives it."""
    with one_call(app, "quote"):
        body = build(QuoteRequest, "quote", goal=goal, **fields).model_dump(exclude_none=True)
        doc = advisor.quote(app, body, fields.get("payment"))
        if doc is None:
            raise AdvisorUnavailableError(
                "the advisor is unavailable (503)",
                hint="the wallet-free guide answers the same goal: client.guide(goal)",
            )
        return Quote.model_validate(doc)


def guide(app: LibraryContext, goal: str) -> Guide:
    with one_call(app, "guide"):
        return Guide.model_validate(advisor.guide_document(advisor.guide(app, goal)))


Cursor = tuple[float, str]


def task_page(
    app: LibraryContext, size: int, refresh: bool, cursor: Cursor | None
) -> tuple[list[TaskRow], Cursor | None]:
    """One page of this machine's submissions, newest first, and the next page's cursor
    (None: this was the last); no ledger yet: none."""
    with one_call(app, "tasks"):
        listing = collect(TaskQuery(limit=size, refresh=refresh, before=cursor), app)
        rows = [TaskRow.model_validate(doc) for doc in listing.documents()]
        return rows, cursor_after(listing)


def budgets(app: LibraryContext) -> Budgets:
    with one_call(app, "budgets"):
        return Budgets.model_validate(budget_report(app))


def doctor(app: LibraryContext) -> DoctorReport:
    """Every check of `svc doctor`; a failure is a finding, not an exception."""
    with one_call(app, "doctor"):
        findings = run_checks(app, present=_next.present, words=_next.words)
        failed = first_failure(findings)
        code = 0 if failed is None else failed.exit_code
        checks = [f.as_dict() for f in findings]
        return DoctorReport.model_validate({"ok": code == 0, "exit_code": code, "checks": checks})


def pay_card(app: LibraryContext, request_id: str | None) -> Task:
    """Finish a saved card payment and send its request (`svc pay card`); a card page that
    still waits for a person is HumanNeeded, its link in `error.data`."""
    with one_call(app, "pay_card"):
        result = pay_card_engine(app, request_id, open_browser=False)
        paid = Submission.of(result)
        return Task.from_service(result.task, paid)


def served(app: LibraryContext, operation: Operation[Any], arguments: dict[str, Any]) -> Document:
    """An operation served whole from its declaration, as one library call."""
    method = operation.library.name if isinstance(operation.library, Method) else ""
    with one_call(app, method):
        return operation.call(app, arguments)
