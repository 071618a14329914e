"""svc as a Python library against the sandbox (issue 32, "Done when"): a script that uses only
`from svc import Client` pays for a #2fa task, answers its ask with a Secret and sees it
complete; a process SIGKILLed after journaling its proof is resumed by a new Client with one
signature and one charge; the policy's refusal is `svc.PolicyRefused`; an AsyncClient runs 100
submits and their watches at once; a Secret is in no log line and no repr.

The sandbox's clock is advanced from a thread while a client waits, so a task's scenario plays
out in seconds (the tests of `svc watch` advance it between commands instead).
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path

import pytest
from tests.conftest import Cli, Sandbox, home_with_wallet, unique_email, unique_request_id
from tests.inproc import isolate_home
from tests.ledger_reads import ledger_file, opened, submission_row, submissions

import svc
from svc import AsyncClient, Client, PaymentOffer, Secret, SecretAsk

pytestmark = pytest.mark.e2e


@contextmanager
def clock_running(sandbox: Sandbox, step: float = 3.0) -> Iterator[None]:
    """The sandbox's clock moves `step` seconds every 0.1 s while the block runs."""
    stop = threading.Event()

    def advance() -> None:
        while not stop.wait(0.1):
            sandbox.advance(step)

    thread = threading.Thread(target=advance, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


@pytest.fixture
def home(
    tmp_path: Path, wallet_home: Path, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """This process's svc home: the test wallet, the sandbox as its service."""
    monkeypatch.setenv("SVC_BASE_URL", sandbox.url)
    for name in ("SVC_MAX_PRICE", "SVC_DAILY_CAP", "SVC_PAY"):
        monkeypatch.delenv(name, raising=False)
    return isolate_home(home_with_wallet(tmp_path, wallet_home), monkeypatch)


TWO_FA_SCRIPT = """
import json, sys
from svc import Client, Secret

email, request_id, code = sys.argv[1:4]
with Client() as client:
    task = client.submit("Log in and pay my bill #2fa", email, request_id=request_id)
    to_ask = [change.kind for change in client.watch(task.id)]
    ask = client.get(task.id).ask
    answered = client.reply(task.id, Secret(code))
    to_end = list(client.watch(task.id))
    print(json.dumps({
        "task": task.id,
        "request_id": task.submission.request_id,
        "billing": task.submission.billing,
        "to_ask": to_ask,
        "ask": [type(ask).__name__, ask.field],
        "after_reply": answered.state,
        "last": [to_end[-1].kind, to_end[-1].state],
    }))
"""


def test_a_script_pays_for_a_2fa_task_answers_with_a_secret_and_sees_it_complete(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    script = tmp_path / "two_fa.py"
    script.write_text(TWO_FA_SCRIPT)
    rid, code = unique_request_id(), "482913"
    with clock_running(sandbox):
        run = subprocess.run(
            [sys.executable, str(script), unique_email(), rid, code],
            capture_output=True,
            text=True,
            env=cli.env,
            timeout=120,
            check=False,
        )
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""  # a library writes nothing to the terminal
    seen = json.loads(run.stdout)
    assert seen["request_id"] == rid and "status=charged" in seen["billing"]
    assert seen["to_ask"][-1] == "ask" and seen["ask"] == ["SecretAsk", "sms_code"]
    assert seen["after_reply"] == "pending" and seen["last"] == ["final", "completed"]
    assert code not in run.stdout
    # one charge: in the sandbox's books, the ledger and `svc spend`
    charges = sandbox.charges_for(rid)
    assert len(charges) == 1 and charges[0]["task_id"] == seen["task"]
    rows = submissions(ledger_file(cli.home))
    assert [(r.request_id, r.status, r.task_id) for r in rows] == [(rid, "accepted", seen["task"])]
    assert code not in json.dumps([r.body for r in rows])
    spend = cli.ok("spend", "--json").json()
    assert spend["paid_count"] == 1 and Decimal(spend["paid_usd"]) == Decimal("1.5")


CRASH_SCRIPT = """
import sys
from svc import Client

email, request_id = sys.argv[1:3]
with Client() as client:
    task = client.submit("Crash and resume #complete", email, request_id=request_id)
    print(task.id, task.submission.replayed)
"""


def test_a_process_killed_after_journaling_its_proof_is_resumed_by_a_new_client(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    script = tmp_path / "crash.py"
    script.write_text(CRASH_SCRIPT)
    rid, email = unique_request_id(), unique_email()
    args = [sys.executable, str(script), email, rid]
    killed = subprocess.run(
        args,
        env={**cli.env, "SVC_TEST_CRASH_AT": "proof_journaled"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    journaled = submission_row(ledger_file(cli.home), rid)
    assert journaled["status"] == "signed" and journaled["proof"]
    assert sandbox.charges_for(rid) == []  # the proof never left

    resumed = subprocess.run(
        args, env=cli.env, capture_output=True, text=True, timeout=60, check=False
    )
    assert resumed.returncode == 0, resumed.stderr
    task_id = resumed.stdout.split()[0]
    row = submission_row(ledger_file(cli.home), rid)
    assert row["status"] == "accepted" and row["task_id"] == task_id
    assert row["proof"] == journaled["proof"]  # the journaled proof, re-sent: never re-signed
    with opened(ledger_file(cli.home)) as ledger:
        signatures = [a for a in ledger.authorizations() if a.request_id == rid]
    assert len(signatures) == 1
    charges = sandbox.charges_for(rid)
    assert len(charges) == 1 and charges[0]["task_id"] == task_id


def test_a_price_above_the_limit_is_policy_refused_and_nothing_is_signed(
    home: Path, sandbox: Sandbox
) -> None:
    rid = unique_request_id()
    with Client(max_price="1.00") as client, pytest.raises(svc.PolicyRefused) as caught:
        client.submit("Too dear #complete", unique_email(), request_id=rid)
    refused = caught.value
    assert isinstance(refused, svc.PaymentFailed) and refused.exit_code == 5
    assert refused.code == "policy_refused" and "above the limit 1.00 USD" in refused.message
    assert refused.hint == (  # the next step in the library's words (svc.next_step)
        "nothing was signed or paid; change the limit with Client(max_price=...) or "
        "submit(..., max_price=...)"
    )  # only the setting that refused, not the networks and assets (issue 52)
    assert "paid" not in refused.data
    assert sandbox.charges_for(rid) == []
    row = submission_row(ledger_file(home), rid)
    assert row["status"] == "rejected" and row["proof"] is None


def test_approve_is_asked_with_the_whole_offer_and_a_no_signs_nothing(
    home: Path, sandbox: Sandbox
) -> None:
    offers: list[PaymentOffer] = []

    def no(offer: PaymentOffer) -> bool:
        offers.append(offer)
        return False

    rid, email = unique_request_id(), unique_email()
    with Client(approve=no) as client, pytest.raises(svc.PolicyRefused) as caught:
        client.submit("Ask me first #complete", email, request_id=rid)
    assert caught.value.code == "payment_not_approved"
    [offer] = offers
    assert offer.amount_usd == Decimal("1.5") and offer.rail == "x402"
    assert offer.network == "eip155:84532" and offer.asset.startswith("0x")
    assert offer.origin == sandbox.url and offer.pay_to.startswith("0x")
    assert sandbox.charges_for(rid) == []

    with Client(approve=lambda offer: offer.amount_usd <= 2) as client:
        task = client.submit("Ask me first #complete", email, request_id=rid)  # the same request
    assert task.submission is not None and not task.submission.replayed
    assert len(sandbox.charges_for(rid)) == 1


def test_an_unknown_task_is_not_found_and_a_bad_answer_a_usage_error(
    home: Path, sandbox: Sandbox
) -> None:
    with Client() as client:
        with pytest.raises(svc.NotFound) as missing:
            client.get("task_0000000000000000")
        assert missing.value.exit_code == 7
        task = client.submit("Ship it #questions", unique_email())
        with clock_running(sandbox):
            assert [c.kind for c in client.watch(task.id)][-1] == "ask"
        with pytest.raises(svc.UsageError, match="missing phone, seat_preference") as wrong:
            client.reply(task.id, svc.Fields({"shipping_address": "1 Main St"}))
        assert wrong.value.code == "field_values_mismatch"
        assert client.get(task.id).state == "blocked_on_user"  # nothing was sent


def test_a_secret_is_in_no_log_line_and_no_repr(
    home: Path,
    sandbox: Sandbox,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    code = f"{uuid.uuid4().int % 10**8:08d}"
    caplog.set_level(logging.DEBUG)
    with Client() as client:
        task = client.submit("Log in #2fa", unique_email())
        with clock_running(sandbox):
            changes = list(client.watch(task.id))
            ask = client.get(task.id).ask
            assert isinstance(ask, SecretAsk)
            answer = Secret(code)
            answered = client.reply(task.id, answer)
            final = list(client.watch(task.id))
    assert final[-1].state == "completed"
    assert any(r.name == "svc" and "paying 1.50 USD" in r.getMessage() for r in caplog.records)
    shown = [caplog.text, repr(answer), repr(answered), answered.model_dump_json()]
    shown += [repr(change) for change in [*changes, *final]]
    assert not [text for text in shown if code in text]
    out, err = capfd.readouterr()
    assert out == "" and err == ""  # warnings and notes went to the log, not the terminal


def test_an_async_client_runs_100_submits_and_their_watches_at_once(
    home: Path, sandbox: Sandbox
) -> None:
    email = unique_email()
    watching: list[tuple[int, int]] = []  # (scheduler threads, poll threads) at each change

    async def fan_out() -> tuple[list[svc.Task], dict[str, str]]:
        async with AsyncClient(daily_cap="none") as client:
            submits = [client.submit(f"Fan out {n} #complete", email) for n in range(100)]
            tasks = await asyncio.gather(*submits)
            finals: dict[str, str] = {}
            async for change in client.watch_many(task.id for task in tasks):
                if change.kind == "final":
                    finals[change.task_id] = change.state
                names = [t.name for t in threading.enumerate()]
                watching.append((names.count("svc-watch"), sum("svc-poll" in n for n in names)))
            return tasks, finals

    with clock_running(sandbox, step=5.0):
        tasks, finals = asyncio.run(asyncio.wait_for(fan_out(), timeout=240))
    ids = {task.id for task in tasks}
    assert len(ids) == 100 and set(finals) == ids
    assert set(finals.values()) == {"completed"}
    for task in tasks:
        assert task.submission is not None
        assert len(sandbox.charges_for(task.submission.request_id)) == 1
    # 100 watched tasks: one scheduler thread and at most 8 polls in flight, never a thread each
    assert watching and max(w for w, _ in watching) == 1 and max(p for _, p in watching) <= 8
    threads = {t.name for t in threading.enumerate()}
    assert not any(name.startswith("svc-watch") for name in threads)  # the scheduler ended


def test_a_cancelled_async_submit_is_resumed_by_its_request_id_and_paid_once(
    home: Path, sandbox: Sandbox
) -> None:
    rid, email = unique_request_id(), unique_email()

    async def cancel_then_resume() -> svc.Task:
        async with AsyncClient() as client:
            with pytest.raises(asyncio.TimeoutError):  # cancelled while its thread pays
                await asyncio.wait_for(
                    client.submit("Cancel me #complete", email, request_id=rid), 0.001
                )
        async with AsyncClient() as client:  # the first closed only once its call ended
            return await client.submit("Cancel me #complete", email, request_id=rid)

    task = asyncio.run(cancel_then_resume())
    assert task.submission is not None and task.submission.request_id == rid
    charges = sandbox.charges_for(rid)
    assert len(charges) == 1 and charges[0]["task_id"] == task.id


def test_a_secret_the_service_echoes_back_is_scrubbed_from_every_result(
    home: Path, sandbox: Sandbox
) -> None:
    code = f"pw-{uuid.uuid4().hex[:12]}"
    with Client() as client:
        first = client.submit("Log in #2fa", unique_email())
        with clock_running(sandbox):
            list(client.watch(first.id))
            client.reply(first.id, Secret(code))  # from now on the process keeps it out
        # the service echoes a task's text in its goal: here the secret is in it
        echoed = client.submit(f"Remember {code} #complete", unique_email())
        polled = client.get(echoed.id)
        with clock_running(sandbox):
            changes = list(client.watch(echoed.id))
    shown = [echoed.goal, polled.goal, *(json.dumps(c.task) for c in changes)]
    assert all(code not in text and "[redacted]" in text for text in shown), shown
