"""Every line a batch sent keeps its result line (issue 29.2), even when writing that result
failed the first time (a loaded fleet run once ended with 119 of 120 lines accounted)."""

from __future__ import annotations

import io
import json
import threading

import pytest

import svc.engines.batch as batch
from svc.engines.backlog import Backlog
from svc.engines.batch import Options, _Results, _work
from svc.engines.batch_file import Line
from svc.ui.batch import BatchLines
from svc.ui.output import Output


class _FlakyOutput(Output):
    """An output whose first NDJSON line fails, as a broken reporter would."""

    failed = False

    def emit_line(self, doc: object) -> None:
        if not self.failed:
            self.failed = True
            raise RuntimeError("could not write")
        super().emit_line(doc)


def _lines(*numbers: int) -> Backlog:
    jobs = Backlog()
    for number in numbers:
        jobs.put(Line(number, {"task": "t", "email": "a@example.com"}, f"req_result_{number}x"))
    jobs.finish(1)
    return jobs


def test_a_line_whose_result_failed_to_be_written_still_gets_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = io.StringIO()
    results = _Results(BatchLines(_FlakyOutput(json_mode=True, stdout=out, stderr=io.StringIO())))
    jobs = _lines(1, 2)

    def fake_submit(ctx: object, line: Line, res: _Results, options: object) -> None:
        res.add({"line": line.number, "request_id": line.request_id, "outcome": "accepted"})

    monkeypatch.setattr(batch, "_submit_line", fake_submit)
    monkeypatch.setattr(batch, "_worker_context", lambda parent, secrets: _NoLedger())
    worker = threading.Thread(target=_work, args=(None, None, jobs, results, Options()))
    worker.start()
    worker.join(10)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert sorted(doc["line"] for doc in lines) == [1, 2]
    assert {doc["outcome"] for doc in lines} == {"accepted", "error"}


class _NoLedger:
    def ledger_is_open(self) -> bool:
        return False

    def close(self) -> None:
        """A worker closes its context (its own ledger link and HTTP client): none here."""


def test_a_worker_that_cannot_start_still_answers_each_line_it_takes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its context failed (nothing was sent): each line it takes gets an error result, so the
    reading thread is never left waiting for room that no worker makes."""

    def broken(parent: object, secrets: object) -> None:
        raise RuntimeError("no context")

    monkeypatch.setattr(batch, "_worker_context", broken)
    out = io.StringIO()
    results = _Results(BatchLines(Output(json_mode=True, stdout=out, stderr=io.StringIO())))
    worker = threading.Thread(target=_work, args=(None, None, _lines(1, 2, 3), results, Options()))
    worker.start()
    worker.join(10)
    assert not worker.is_alive()
    docs = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [doc["line"] for doc in docs] == [1, 2, 3]
    assert all(doc["outcome"] == "error" and doc["error"] == "internal_error" for doc in docs)
    assert all(doc["exit_code"] == 1 for doc in docs)
    assert docs[0]["detail"] == ("not sent (its worker could not start): RuntimeError: no context")
    assert results.summary.failed == 3
