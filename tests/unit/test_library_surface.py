"""The public surface of `import svc` (issue 32): the names, the exception per exit code, a
task's typed ask, and the settings a Client resolves. No service is needed here; the e2e
tests (tests/e2e/test_library.py) drive the same Client against the sandbox."""

from __future__ import annotations

import typing
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from tests.inproc import isolate_home, task_doc

import svc
from svc import errors, paid_record, redact
from svc.client._calls import one_call
from svc.client.types import PaymentApproval, PlainAsk, QuestionsAsk, SecretAsk, Task
from svc.pay import policy
from svc.store.config import ConfigFile

# One class per row of the exit-code table (docs/cli-contract.md), under its public name.
EXIT_CODE_TABLE = {
    "SvcError": 1,
    "UsageError": 2,
    "TaskFailed": 3,
    "AuthError": 4,
    "PaymentFailed": 5,
    "PolicyRefused": 5,
    "HumanNeeded": 6,
    "NotFound": 7,
    "Conflict": 8,
    "Unavailable": 9,
    "OutcomeUnknown": 10,
    "Interrupted": 130,
}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("SVC_MAX_PRICE", "SVC_DAILY_CAP", "SVC_PAY", "SVC_LEDGER_URL", "SVC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return isolate_home(tmp_path, monkeypatch)


def test_all_names_every_public_name_and_each_resolves() -> None:
    assert sorted(svc.__all__) == sorted(["__version__", *svc._PUBLIC])
    for name in svc._PUBLIC:
        assert getattr(svc, name) is not None, name
    with pytest.raises(AttributeError):
        _ = svc.NoSuchThing  # type: ignore[attr-defined]


@pytest.mark.parametrize(("name", "code"), EXIT_CODE_TABLE.items())
def test_every_exit_code_has_its_class(name: str, code: int) -> None:
    kind = getattr(svc, name)
    assert issubclass(kind, svc.SvcError)
    error = kind("it failed", hint="do this")
    assert int(error.exit_code) == code
    assert error.code and error.hint == "do this"


def test_the_table_covers_every_exit_code_but_success_and_pending() -> None:
    covered = set(EXIT_CODE_TABLE.values())
    errors_exit = {int(c) for c in svc.ExitCode} - {svc.ExitCode.OK, svc.ExitCode.PENDING}
    assert covered == errors_exit


def test_public_names_are_the_very_classes_the_engines_raise() -> None:
    assert svc.HumanNeeded is errors.HumanNeeded
    assert svc.TaskFailed is errors.TaskFailed
    assert svc.OutcomeUnknown is errors.OutcomeUnknown
    assert svc.NotFound is errors.NotFound
    assert policy.PolicyRefusal is svc.PolicyRefused  # what the policy raises
    assert issubclass(svc.PolicyRefused, svc.PaymentFailed)
    refused = policy.PolicyRefusal("refusing to pay")
    assert refused.code == "policy_refused" and refused.exit_code == 5


def test_an_error_after_a_payment_in_the_same_call_says_what_was_paid() -> None:
    with pytest.raises(svc.UsageError) as caught, one_call():
        paid_record.current().accepted("req_paid1", "task_paid1")
        raise svc.UsageError("a late mistake")
    # exit 2 reads as "nothing charged": after a charge it is 1, and the error names the task
    assert caught.value.exit_code == 1
    assert caught.value.data["paid"] == [{"request_id": "req_paid1", "task_id": "task_paid1"}]
    assert "task_paid1" in (caught.value.hint or "")


def test_an_error_of_a_call_that_paid_nothing_is_left_as_it_is() -> None:
    with pytest.raises(svc.UsageError) as caught, one_call():
        raise svc.UsageError("bad")
    assert caught.value.exit_code == 2 and "paid" not in caught.value.data


def test_a_secret_answer_never_shows_its_value() -> None:
    secret = svc.Secret("918273", field="sms_code")
    assert "918273" not in repr(secret) and "918273" not in str(secret)
    assert "918273" not in repr(svc.Fields({"pin": "918273"}, sensitive=True))


def _task(**changes: Any) -> Task:
    return Task.from_service(task_doc(**changes))


def test_a_task_dumps_to_the_document_it_was_read_from() -> None:
    doc = task_doc(result=None, extra_member={"kept": True})
    assert Task.from_service(doc).to_json() == doc


def test_a_sensitive_plain_ask_is_a_secret_ask() -> None:
    event = {
        "id": "ev_1",
        "type": "input_requested",
        "payload": {"field": "sms_code", "message": "the code", "sensitive": True},
        "created_at": "2026-01-01T00:00:00Z",
    }
    ask = _task(state="blocked_on_user", events=[event]).ask
    assert ask == SecretAsk(field="sms_code", message="the code")


def test_a_plain_ask_for_a_word_is_a_plain_ask() -> None:
    event = {"id": "e", "type": "input_requested", "payload": {"message": "why?"}}
    ask = _task(state="blocked_on_user", events=[{**event, "created_at": "x"}]).ask
    assert type(ask) is PlainAsk and ask.field is None and ask.message == "why?"


def test_structured_questions_name_their_keys_and_the_secret_ones() -> None:
    info = {"requested_fields": ["address", "card_pin"], "questions": [{"key": "seat"}]}
    ask = _task(state="blocked_on_user", info_request=info).ask
    assert isinstance(ask, QuestionsAsk)
    assert ask.keys == ("address", "card_pin", "seat") and ask.secret_keys == ("card_pin",)


def test_a_payment_ask_reads_its_amount_exactly() -> None:
    info = {"amount_usd": "42.10", "merchant_name": "Shop", "payment_status": "pending"}
    ask = _task(state="blocked_on_user", info_request=info).ask
    assert isinstance(ask, PaymentApproval)
    assert ask.amount_usd == Decimal("42.10") and ask.merchant_name == "Shop"


def test_no_ask_unless_the_task_waits_on_the_person() -> None:
    assert _task(state="pending").ask is None


def test_a_task_the_spec_does_not_allow_is_a_protocol_error() -> None:
    with pytest.raises(errors.ProtocolError):
        Task.from_service({"id": "task_1"})


def test_arguments_win_over_the_environment(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SVC_MAX_PRICE", "1.20")
    monkeypatch.setenv("SVC_DAILY_CAP", "30")
    with svc.Client() as from_env:
        assert from_env.settings.max_price_usd == Decimal("1.20")
        assert from_env.settings.daily_cap_usd == Decimal("30")
    with svc.Client(max_price="2", daily_cap="none", pay="mpp") as given:
        assert given.settings.max_price_usd == Decimal("2")
        assert given.settings.daily_cap_usd is None
        assert given.settings.pay == "mpp"
        assert given.settings.sources["max_price_usd"] == "argument"


def test_the_profile_is_read_as_the_cli_reads_it(home: Path) -> None:
    ConfigFile().set("work", "max_price_usd", "1.75")
    with svc.Client(profile="work") as client:
        assert client.settings.max_price_usd == Decimal("1.75")
    with pytest.raises(svc.UsageError, match="profile 'wrok'"):
        svc.Client(profile="wrok")


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"pay": "bitcoin"}, "pay must be x402, mpp or card"),
        ({"max_price": "1.5.0"}, "max_price"),
        ({"ledger_url": "mysql://db"}, "postgresql://"),
        ({"base_url": "ftp://example.com"}, "base URL"),
    ],
)
def test_a_bad_argument_is_a_usage_error(home: Path, arguments: dict[str, Any], words: str) -> None:
    with pytest.raises(svc.UsageError, match=words) as caught:
        svc.Client(**arguments)
    assert caught.value.exit_code == 2


def test_an_error_that_quotes_a_told_secret_is_scrubbed() -> None:
    redact.told("s3cret-echo-77")
    with pytest.raises(svc.Conflict) as caught, one_call():
        raise svc.Conflict("the service says: s3cret-echo-77 is wrong", hint="not s3cret-echo-77")
    shown = f"{caught.value} {caught.value.message} {caught.value.hint}"
    assert "s3cret-echo-77" not in shown and redact.REDACTED in shown


def test_rails_are_a_literal_the_table_holds() -> None:
    import typing

    from svc import rail_table
    from svc.client.types import rail_of

    assert typing.get_args(rail_table.RailName) == rail_table.NAMES
    assert rail_of("mpp") == "mpp"
    with pytest.raises(ValueError):
        rail_of("paypal")


def test_a_state_a_newer_service_adds_is_kept_as_the_cli_keeps_it() -> None:
    """States are a Literal for a type checker, and at run time a newer server's state is
    kept, not refused: it must not break an older program (the CLI keeps one too:
    tests/unit/test_core_parts.py)."""
    from tests.unit.test_core_parts import TASK_DOC

    from svc.client.types import TaskState
    from svc.engines.task_list import GONE, TASK_STATES
    from svc.errors import ProtocolError

    assert set(typing.get_args(TaskState)) == set(TASK_STATES) - {GONE}  # the ledger's own
    assert typing.get_type_hints(Task)["state"] == TaskState  # what a type checker sees
    assert Task.from_service({**TASK_DOC, "state": "paused_by_moon"}).state == "paused_by_moon"
    assert Task.from_service({**TASK_DOC, "state": "failed"}).state == "failed"
    with pytest.raises(ProtocolError, match="state"):  # a state is a string, whatever it says
        Task.from_service({**TASK_DOC, "state": 7})


def test_a_tasks_budget_is_a_decimal_read_by_the_one_parser_and_sent_back_as_it_came() -> None:
    """max_budget_usd is a Decimal (0.1 is exactly 0.1), to_json() gives the JSON number the
    service sent (what `svc poll --json` prints), and a budget that is no amount (an
    exponent, text, a bool) is the server's fault, never a pydantic error."""
    import json

    from tests.unit.test_core_parts import TASK_DOC

    from svc.errors import ProtocolError

    for sent, read in ((5, Decimal(5)), (5.0, Decimal("5.0")), (0.1, Decimal("0.1")), (None, None)):
        task = Task.from_service({**TASK_DOC, "max_budget_usd": sent})
        assert task.max_budget_usd == read and str(task.max_budget_usd) == str(read)
        assert json.dumps(task.to_json()["max_budget_usd"]) == json.dumps(sent)
    for bad in (1e-07, "abc", True, -1):
        with pytest.raises(ProtocolError, match="max_budget_usd"):
            Task.from_service({**TASK_DOC, "max_budget_usd": bad})
