"""`svc reply` words the reply engine's mismatches in its own flags (issue 32.3).

The engine names an answer's kinds (Message, Fields, Approve, ...); the CLI says which flags give
the answer the ask takes, with the words it always used. Every mismatch is exit 2 with one line
and nothing reaches the service. An answer is one kind: flags of two kinds are refused before
the task is fetched.
"""

from __future__ import annotations

import json

import pytest
from tests.conftest import Cli, Sandbox
from tests.e2e.test_reply_form import blocked, replies

pytestmark = pytest.mark.e2e

SETS = ("--set", "shipping_address=1 Main St", "--set", "phone=5550100")


def refused(cli: Cli, *args: str) -> str:
    """The one error line of a refused `svc reply` (exit 2)."""
    result = cli("reply", *args)
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.startswith("svc:")]
    assert len(lines) == 1, result.stderr
    return lines[0].removeprefix("svc: ")


def test_a_plain_ask_answered_with_field_values_names_the_flags_it_takes(
    cli: Cli, sandbox: Sandbox
) -> None:
    task_id = blocked(cli, sandbox, "Log me in #2fa")
    expected = (
        "this task waits on a plain ask: answer with --message, or --field with --value-file "
        "(no --set or payment flags)"
    )
    assert refused(cli, task_id, "--set", "sms_code=604118") == expected
    assert refused(cli, task_id, "--decline-payment") == expected
    doc = json.loads(cli("--json", "reply", task_id, "--set", "a=b").stdout)
    assert (doc["error"], doc["detail"], doc["exit_code"]) == ("usage_error", expected, 2)
    assert replies(sandbox, task_id) == []


def test_a_structured_ask_answered_plainly_or_with_a_stray_decision_names_its_flags(
    cli: Cli, sandbox: Sandbox
) -> None:
    task_id = blocked(cli, sandbox, "Book a seat #questions")
    assert refused(cli, task_id, "--message", "window please") == (
        "this task carries a structured ask: answer with --set KEY=VALUE "
        "(and --approve-payment/--decline-payment for a payment)"
    )
    assert refused(cli, task_id, "--field", "phone", "--value-file", "/dev/null") == (
        "this task carries a structured ask: answer with --set KEY=VALUE "
        "(and --approve-payment/--decline-payment for a payment)"
    )
    assert refused(cli, task_id, *SETS, "--set", "seat_preference=aisle", "--approve-payment") == (
        "this ask is not about a payment: drop --approve/--decline-payment"
    )
    # the mismatches that name no flag keep the engine's words and their code
    assert refused(cli, task_id, *SETS) == (
        "the answer does not match the ask (missing seat_preference); it asks for: "
        "shipping_address, phone, seat_preference"
    )
    doc = json.loads(cli("--json", "reply", task_id, *SETS, "--set", "seat_preference=x").stdout)
    assert doc["error"] == "field_values_mismatch"
    assert doc["detail"] == (
        "seat_preference='x' is not one of the options the question offers: window, aisle"
    )
    assert replies(sandbox, task_id) == []


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (("--message", "hi", "--field", "f"), "--message and --field exclude each other"),
        (
            ("--message", "hi", "--set", "a=b"),
            "--message (a plain ask's answer) and --set or a payment flag (a structured ask's) "
            "exclude each other",
        ),
        (
            ("--field", "f", "--decline-payment"),
            "--field (a plain ask's answer) and --set or a payment flag (a structured ask's) "
            "exclude each other",
        ),
    ],
)
def test_an_answer_is_one_kind_refused_before_any_request(
    bare_cli: Cli, flags: tuple[str, ...], expected: str
) -> None:
    # nothing listens on bare_cli's base URL: a fetch would be exit 9, not this
    assert refused(bare_cli, "task_1", *flags) == expected
