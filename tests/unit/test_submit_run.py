"""`svc submit` in-process: `run(SubmitOptions, AppContext)` against the loopback sandbox, with
no `svc` subprocess (issue 17.1). The e2e tests cover the same paths through the executable."""

from __future__ import annotations

import io
import json
from decimal import Decimal
from pathlib import Path

import pytest
from tests.conftest import Sandbox, home_with_wallet, unique_email
from tests.inproc import captured, isolate_home
from tests.ledger_reads import ledger_file, submission_row

from svc.commands.submit import SubmitOptions, run
from svc.context import AppContext
from svc.errors import ExitCode, TaskFailed, UsageError
from svc.pay.policy import PolicyRefusal


@pytest.fixture
def home(tmp_path: Path, wallet_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate_home(home_with_wallet(tmp_path, wallet_home), monkeypatch)


def context(sandbox: Sandbox) -> tuple[AppContext, io.StringIO, io.StringIO]:
    return captured(sandbox.url)


def test_run_pays_once_journals_the_request_and_prints_the_task(
    sandbox: Sandbox, home: Path
) -> None:
    app, out, err = context(sandbox)
    opts = SubmitOptions(
        text="In process #complete", email=unique_email(), request_id="req_inproc1"
    )
    assert run(opts, app) == 0
    task = json.loads(out.getvalue())
    assert task["id"].startswith("task_") and task["state"] == "pending"
    assert "request id req_inproc1" in err.getvalue()
    assert len(sandbox.charges_for("req_inproc1")) == 1
    app.close()
    row = submission_row(ledger_file(home), "req_inproc1")
    assert row["task_id"] == task["id"]


def test_run_again_with_the_same_request_id_is_not_charged_again(
    sandbox: Sandbox, home: Path
) -> None:
    opts = SubmitOptions(text="Twice #complete", email=unique_email(), request_id="req_inproc2")
    first, out1, _ = context(sandbox)
    assert run(opts, first) == 0
    first.close()
    second, out2, err2 = context(sandbox)
    assert run(opts, second) == 0
    second.close()
    assert json.loads(out1.getvalue())["id"] == json.loads(out2.getvalue())["id"]
    assert "not charged again" in err2.getvalue()
    assert len(sandbox.charges_for("req_inproc2")) == 1


def test_dry_run_sends_and_signs_nothing(sandbox: Sandbox, home: Path) -> None:
    app, out, _ = context(sandbox)
    before = len(sandbox.books()["charges"])
    assert run(SubmitOptions(text="Dry", email=unique_email(), dry_run=True), app) == 0
    doc = json.loads(out.getvalue())
    assert doc["dry_run"] is True and doc["within_policy"] is True
    assert len(sandbox.books()["charges"]) == before
    assert not app.has_ledger()  # nothing journaled, no ledger even created
    app.close()


def test_dry_run_above_the_cap_is_the_policy_exit_code(sandbox: Sandbox, home: Path) -> None:
    app, _, _ = context(sandbox)
    opts = SubmitOptions(text="Dry", email=unique_email(), dry_run=True, max_price_usd=Decimal(1))
    with pytest.raises(PolicyRefusal) as caught:
        run(opts, app)
    assert caught.value.exit_code == ExitCode.PAYMENT
    app.close()


def test_a_cap_below_the_price_pays_nothing(sandbox: Sandbox, home: Path) -> None:
    app, _, _ = context(sandbox)
    opts = SubmitOptions(
        text="Too dear", email=unique_email(), request_id="req_inproc3", max_price_usd=Decimal(1)
    )
    with pytest.raises(PolicyRefusal):
        run(opts, app)
    assert sandbox.charges_for("req_inproc3") == []
    app.close()


@pytest.mark.parametrize(
    ("email", "message"),
    [(None, "missing --email"), ("not-an-address", "malformed e-mail address")],
)
def test_a_bad_address_is_a_usage_error_before_anything_is_sent(
    sandbox: Sandbox, home: Path, email: str | None, message: str
) -> None:
    app, _, _ = context(sandbox)
    with pytest.raises(UsageError) as caught:
        run(SubmitOptions(text="Hello", email=email), app)
    assert message in caught.value.message
    assert not app.has_ledger()
    app.close()


def test_wait_follows_the_task_to_its_final_state(sandbox: Sandbox, home: Path) -> None:
    app, out, _ = context(sandbox)
    opts = SubmitOptions(text="Wait #fail", email=unique_email(), wait=True, interval=0.2)
    sandbox.admin("POST", "/clock", json={"speed": 20})
    try:
        with pytest.raises(TaskFailed) as caught:
            run(opts, app)
    finally:
        sandbox.admin("POST", "/clock", json={"speed": 1})
    assert caught.value.exit_code == ExitCode.TASK_FAILED
    assert json.loads(out.getvalue().splitlines()[-1])["state"] == "failed"
    app.close()


@pytest.mark.parametrize("extra", ["priority", "emial"])
def test_a_body_with_a_field_the_spec_lacks_is_refused_before_anything_is_sent(
    sandbox: Sandbox, home: Path, extra: str
) -> None:
    """ "No other fields exist" (issue 30.18): the one paid engine (CLI, batch, MCP, pay card)
    names a field the submission body does not have, before the ledger or the wire."""
    from svc.engines.submit import submit

    app, _, _ = context(sandbox)
    before = sandbox.admin("GET", "/requests")["count"]
    body = {"task": "Typo #complete", "email": unique_email(), extra: "x"}
    with pytest.raises(UsageError) as caught:
        submit(app, body, request_id="req_typo_" + extra)
    app.close()
    assert caught.value.code == "unknown_field"
    assert f"'{extra}'" in caught.value.message and "task and email" in caught.value.message
    assert sandbox.admin("GET", "/requests")["count"] == before
    assert not ledger_file(home).exists() or not submission_row(
        ledger_file(home), "req_typo_" + extra
    )
