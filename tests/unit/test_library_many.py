"""The parts of `Client.submit_many` that need no service: its default concurrency is the CLI's,
a batch worker's context keeps the library's approve() and trust, a failed line is settled
against what that line paid (not the whole run), and a held run names every bad line."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from tests.inproc import isolate_home

from svc import Client, errors, paid_record
from svc.client._batch import held
from svc.client._calls import settled
from svc.commands.submit import SubmitOptions
from svc.context import AppContext
from svc.engines.batch import DEFAULT_CONCURRENCY
from svc.engines.batch_file import bad_line
from svc.report import LogReporter


def test_the_default_concurrency_is_the_one_of_svc_submit_from() -> None:
    default = inspect.signature(Client.submit_many).parameters["concurrency"].default
    assert default == DEFAULT_CONCURRENCY == SubmitOptions().concurrency


def test_a_batch_worker_keeps_the_callers_approve_and_trust(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolate_home(tmp_path, monkeypatch)
    with Client(approve=lambda offer: True, trust_recipient=True) as client:
        parent = client._app
        worker = parent.with_overrides(no_input=True)
        assert isinstance(worker, AppContext) and isinstance(worker.output, LogReporter)
        assert worker.prompts is parent.prompts and worker.trust_recipient
        assert worker.payment_approver is parent.payment_approver
        assert worker.http is parent.http  # the shared pool, as for the CLI's workers


def test_a_failed_line_names_only_what_that_line_paid() -> None:
    run = paid_record.PaidRecord()
    run.accepted("req_paid", "task_1")
    run.unknown("req_unknown")
    refused = settled(errors.PolicyRefused("over the cap"), run.only("req_other"))
    assert refused.exit_code == 5 and "paid" not in refused.data  # this line paid nothing
    lost = settled(errors.Unavailable("the ledger went away"), run.only("req_paid"))
    assert lost.exit_code == 1 and lost.data["paid"] == [
        {"request_id": "req_paid", "task_id": "task_1"}
    ]


def test_a_held_run_names_every_bad_line() -> None:
    bad = [bad_line(n, "missing task (a non-empty string)") for n in (2, 3, 4, 9)]
    error = held(bad, skipping=False)
    assert error.message.startswith("nothing was sent or paid: 4 bad lines (2-4, 9): line 2:")
    assert [item["line"] for item in error.data["bad_lines"]] == [2, 3, 4, 9]
    assert error.exit_code == 2 and "skip_bad_lines=True" in (error.hint or "")
