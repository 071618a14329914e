"""Header names live only in `svc.api` (issue 17.3), and the task API's answers are typed there.

Outside `svc/api/`, no string literal may be one of the header names svc speaks (compared
without case); every reader goes through `svc.api.headers` and `svc.api.answers`.
"""

from __future__ import annotations

import ast
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from tests.import_graph import package_root

from svc.api import headers
from svc.api.answers import Billing, SubmitAnswer, Task
from svc.errors import ProtocolError

NAMES = {
    value.lower()
    for name, value in vars(headers).items()
    if name.isupper() and isinstance(value, str)
}
# The same words used for something else than a header.
NOT_HEADERS = {
    ("cli/help_format.py", "DATE"),  # a metavar
    ("engines/export_formats.py", "date"),  # a CSV column and a JSON entry's field
    ("mcp/human.py", "accept"),  # an MCP elicitation action
    ("pay/rails.py", "authorization"),  # the EIP-3009 authorization in an x402 payload
    ("pay/x402.py", "authorization"),
    ("store/ledger/__init__.py", "Authorization"),  # the ledger's row type, in __all__
}


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, kinds)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def header_literals(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith("api/"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docs
                and node.value.lower() in NAMES
                and (rel, node.value) not in NOT_HEADERS
            ):
                found.append(f"{rel}:{node.lineno} {node.value!r}")
    return found


def test_no_header_name_outside_api() -> None:
    assert "svc-billing" in NAMES and "payment-required" in NAMES
    assert header_literals(package_root("svc")) == []


def test_the_scan_finds_a_header_literal(tmp_path: Path) -> None:
    (tmp_path / "flow.py").write_text(
        '"""svc-billing in a docstring is fine."""\nx = "SVC-Billing"\n'
    )
    assert header_literals(tmp_path) == ["flow.py:2 'SVC-Billing'"]


def answer(status: int = 200, **found: str) -> SubmitAnswer:
    body = b'{"id": "task_1", "state": "pending"}'
    found.setdefault("content-type", "application/json")
    return SubmitAnswer.of(httpx.Response(status, headers=found, content=body))


def test_a_submit_answer_reads_billing_receipt_and_usage_error() -> None:
    got = answer(
        **{
            "svc-billing": "status=replayed; method=x402; amount_usd=1.500000",
            "x-payment-response": "eyJ4In0=",
            "svc-usage-error": "billing_down",
        }
    )
    assert got.accepted and got.replayed
    assert got.billing is not None and got.billing.amount_usd == Decimal("1.500000")
    assert got.receipt == "eyJ4In0=" and got.usage_error == "billing_down"
    assert got.task().raw == {"id": "task_1", "state": "pending"}


def test_the_v2_receipt_wins_over_v1_and_mpp_over_both() -> None:
    both = {"payment-response": "v2", "x-payment-response": "v1"}
    assert answer(**both).receipt == "v2"
    assert answer(**both, **{"payment-receipt": "mpp"}).receipt == "mpp"


@pytest.mark.parametrize("amount", ["NaN", "-1", "Infinity", "1e999999", "", "1,50"])
def test_a_hostile_billing_amount_is_not_money(amount: str) -> None:
    assert Billing.parse(f"status=refunded; amount_usd={amount}").amount_usd is None


def test_billing_keys_are_case_blind_and_junk_is_skipped() -> None:
    billing = Billing.parse("STATUS=charged;;junk; Amount_USD = 0.50 ;=x")
    assert billing.status == "charged" and billing.amount_usd == Decimal("0.50")


def test_a_task_that_is_not_json_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError):
        SubmitAnswer(200, b"<html>", "text/html", None, None, None).task()


def test_a_task_answer_reads_its_members_without_trusting_their_shapes() -> None:
    raw = {
        "id": "task_1",
        "state": "completed",
        "events": [{"type": "created"}, "junk", 7],
        "info_request": "not an object",
    }
    task = Task(raw)
    assert (task.id, task.state, task.is_final) == ("task_1", "completed", True)
    assert task.events == [{"type": "created"}] and task.ask is None
    assert task.without_events() == {
        "id": "task_1",
        "state": "completed",
        "info_request": "not an object",
    }
    assert task.raw is raw  # byte-exact output prints the document as it came
    assert Task({"id": "task_2", "state": "blocked_on_user", "info_request": {}}).ask == {}
