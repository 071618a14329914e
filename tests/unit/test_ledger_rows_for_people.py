"""A ledger row as `svc tasks` and `svc spend` give it (issue 30.5): why a row has no task,
in words, and svc's own times as ISO 8601 in UTC like every service object's."""

from __future__ import annotations

import re

import pytest

from svc.numbers import iso
from svc.store.ledger import Authorization, PayState, Submission
from svc.store.spend import outstanding

STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def row(status: str, **fields: object) -> Submission:
    values: dict[str, object] = {
        name: None
        for name in [
            "method",
            "proof",
            "amount_atomic",
            "pay_to",
            "payer",
            "network",
            "asset",
            "task_id",
            "state",
            "http_status",
            "billing",
            "error",
        ]
    }
    values |= {"request_id": "req_1", "base_url": "http://127.0.0.1:8402", "email": "a@b.c"}
    values |= {"task_preview": "t", "body": "{}", "status": status}
    values |= {"created_at": 1_795_673_202.966, "updated_at": 1_795_673_203.139}
    return Submission(**(values | fields))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("status", "fields", "reason"),
    [
        (
            PayState.REJECTED,
            {
                "error": "policy_refused",
                "error_detail": "refusing to pay: price 1.50 USD is above the limit 1.00 USD",
            },
            "refused: price 1.50 USD is above the limit 1.00 USD",
        ),
        (PayState.REJECTED, {"error": "daily_cap_exceeded"}, "refused: daily_cap_exceeded"),
        (
            PayState.REJECTED,
            {"error": "unavailable", "error_detail": "cannot reach the service"},
            "not sent: cannot reach the service",
        ),
        (PayState.UNKNOWN, {"error": "x"}, "outcome unknown: `svc submit --request-id` resumes it"),
        (PayState.JOURNALED, {}, "interrupted before an answer"),
        (PayState.ACCEPTED, {"task_id": "task_1", "state": "pending"}, None),
    ],
)
def test_a_row_without_a_task_says_why(
    status: str, fields: dict[str, object], reason: str | None
) -> None:
    doc = row(status, **fields).public_dict()
    assert doc["status_reason"] == reason and doc["status"] == status
    assert "error_detail" not in doc  # the words are status_reason's


def test_ledger_times_are_the_services_format() -> None:
    doc = row(PayState.JOURNALED).public_dict()
    assert doc["created_at"] == "2026-11-26T06:06:42.966Z"
    assert STAMP.fullmatch(doc["updated_at"])
    assert iso(None) is None
    signed = Authorization(
        id=1,
        request_id="req_1",
        rail="x402",
        amount_atomic=1_500_000,
        origin="http://127.0.0.1:8402",
        signed_at=1_795_673_202.0,
        valid_before=1_795_673_502.0,
        fingerprint=None,
        pay_to=None,
        network=None,
        status="live",
        refunded_atomic=0,
        updated_at=0.0,
    )
    (line,) = outstanding([signed], now=1_795_673_300.0)
    assert line["signed_at"] == "2026-11-26T06:06:42.000Z"
    assert line["valid_until"] == "2026-11-26T06:11:42.000Z"
