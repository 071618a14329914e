"""The library's other calls against the sandbox (issue 32.1): the recipient rule with and
without approve(), quote and guide, the ledger reads (tasks, spend), doctor, submit_many, the
agent credential; each is the engine the CLI uses, so each is compared with `svc` itself."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from pathlib import Path

import pytest
from tests.conftest import Cli, Sandbox, unique_email, unique_request_id
from tests.e2e.test_library import clock_running
from tests.inproc import OTHER_ADDRESS, library_home

import svc
from svc import Client, PaymentOffer

pytestmark = pytest.mark.e2e


@pytest.fixture
def home(cli: Cli, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> Path:
    return library_home(cli.home, sandbox.url, monkeypatch)


def test_a_changed_recipient_is_refused_unless_approved_or_trusted(
    home: Path, sandbox: Sandbox
) -> None:
    email = unique_email()
    with Client() as client:
        client.submit("Pin the recipient #complete", email)  # pins it for this origin
    sandbox.configure(pay_to=OTHER_ADDRESS)
    asked: list[PaymentOffer] = []

    def careful(offer: PaymentOffer) -> bool:
        asked.append(offer)
        return offer.previous_pay_to is None  # a price, yes; a new recipient, no

    rid = unique_request_id()
    with Client(approve=careful) as client, pytest.raises(svc.PolicyRefused) as caught:
        client.submit("New recipient #complete", email, request_id=rid)
    assert caught.value.code == "recipient_changed"
    assert asked[-1].pay_to == OTHER_ADDRESS and asked[-1].previous_pay_to not in (None, "")
    with Client() as client, pytest.raises(svc.PolicyRefused):  # no approve: refused
        client.submit("New recipient #complete", email, request_id=rid)
    assert sandbox.charges_for(rid) == []

    with Client(trust_recipient=True) as client:
        task = client.submit("New recipient #complete", email, request_id=rid)
    assert len(sandbox.charges_for(rid)) == 1 and task.submission is not None


def test_quote_and_guide_are_free(home: Path, sandbox: Sandbox, cli: Cli) -> None:
    with Client() as client:
        quote = client.quote("Find a hotel in Lisbon", quantity=3)
        guide = client.guide("Find a hotel in Lisbon")
    assert quote.status and Decimal(quote.priceUsd) == 0 and quote.guide
    shown = cli.ok("quote", "Find a hotel in Lisbon", "--quantity", "3", "--json").json()
    assert quote.to_json().keys() == shown.keys() and quote.priceUsd == shown["priceUsd"]
    assert guide.to_json() == cli.ok("guide", "Find a hotel in Lisbon", "--json").json()


def test_tasks_spend_and_doctor_read_what_the_cli_reads(home: Path, cli: Cli) -> None:
    with Client() as client:
        assert list(client.tasks()) == [] and client.spend().paid_count == 0
        paid = client.submit("Count me #complete", unique_email())
        rows = list(client.tasks())
        spend = client.spend()
        report = client.doctor()
    assert paid.submission is not None
    assert [(r.request_id, r.task_id, r.status) for r in rows] == [
        (paid.submission.request_id, paid.id, "accepted")
    ]
    assert spend.paid_count == 1 and Decimal(spend.paid_usd) == Decimal("1.5")
    assert spend.to_json() == cli.ok("spend", "--json").json()
    assert report.ok and {c.check for c in report.checks} >= {"wallet", "ledger"}


def test_submit_many_checks_every_line_first_then_pays_each_once(
    home: Path, sandbox: Sandbox
) -> None:
    email = unique_email()
    lines = [{"task": f"Line {n} #complete", "email": email} for n in range(3)]
    with Client() as client:
        with pytest.raises(svc.UsageError, match="line 2"):
            list(client.submit_many([lines[0], {"task": "", "email": email}]))
        assert list(client.tasks()) == []  # the bad line stopped it before anything was paid
        first = list(client.submit_many(lines))
        again = list(client.submit_many(lines))
    assert [r.outcome for r in first] == ["submitted"] * 3
    assert [r.outcome for r in again] == ["already_accepted"] * 3  # the ledger knows them
    assert sorted((r.line, r.task_id) for r in first) == sorted((r.line, r.task_id) for r in again)
    for result in first:
        assert result.request_id and len(sandbox.charges_for(result.request_id)) == 1


def test_an_agent_credential_is_registered_reused_claimed_by_link_and_forgotten(
    home: Path, sandbox: Sandbox
) -> None:
    email = unique_email()
    with Client() as client:
        assert client.identity.status().registered is False
        made = client.identity.register(email=email)
        assert made.registered and made.type == "service_auth" and made.email == email
        again = client.identity.register(email=email.upper())
        assert again.id == made.id and (again.model_extra or {})["reused"] is True
        with pytest.raises(svc.UsageError, match="was not registered") as kept:
            client.identity.register()  # anonymous instead: never replaced in silence
        assert "force=True" in (kept.value.hint or "")
        assert client.identity.status().id == made.id
        with pytest.raises(svc.HumanNeeded) as need:
            client.identity.claim()
        assert need.value.code == "action_required"
        assert str(need.value.data["verification_uri"]).startswith(sandbox.url)
        assert client.identity.logout() is True
        assert client.identity.status().registered is False


def test_an_id_jag_registers_born_claimed_and_its_status_is_the_cli_s(home: Path, cli: Cli) -> None:
    email = unique_email()
    assertion = cli.ok("sandbox", "mint-id-jag", "--email", email).stdout.strip()
    bad = cli.ok("sandbox", "mint-id-jag", "--email", email, "--bad-signature").stdout.strip()
    with Client() as client:
        with pytest.raises(svc.UsageError, match="exclude each other"):
            client.identity.register(email=email, assertion=assertion)
        with pytest.raises(svc.AuthError) as refused:
            client.identity.register(assertion=bad)
        assert refused.value.code == "invalid_signature"
        made = client.identity.register(assertion=assertion)
        assert made.type == "identity_assertion" and made.claimed and made.email == email
        again = client.identity.register(assertion=assertion)  # the same person: not sent
        assert again.id == made.id and (again.model_extra or {})["reused"] is True
        status = client.identity.status()
    assert status.to_json() == cli.ok("identity", "status", "--json").json()


def test_a_payment_ask_is_typed_and_declined_with_decline(home: Path, sandbox: Sandbox) -> None:
    with Client() as client:
        task = client.submit("Buy the tickets #decline", unique_email())
        with clock_running(sandbox):
            assert [c.kind for c in client.watch(task.id)][-1] == "ask"
        ask = client.get(task.id).ask
        assert isinstance(ask, svc.PaymentApproval) and ask.amount_usd is not None
        with pytest.raises(svc.UsageError, match="structured ask"):
            client.reply(task.id, svc.Message("no thanks"))  # checked before anything is sent
        declined = client.reply(task.id, svc.Decline())
    assert declined.state == "failed" and declined.error == "payment_rejected"


def test_a_plain_ask_takes_a_message(home: Path, sandbox: Sandbox) -> None:
    with Client() as client:
        task = client.submit("Needs a word #2fa", unique_email())
        with clock_running(sandbox):
            assert [c.kind for c in client.watch(task.id)][-1] == "ask"
        assert client.reply(task.id, svc.Message("The code is on its way")).state == "pending"


def test_a_fleet_ledger_given_as_an_argument_journals_the_payment(
    home: Path, cli: Cli, sandbox: Sandbox, pg_url: str
) -> None:
    with Client(ledger_url=pg_url) as client:
        task = client.submit("On the fleet #complete", unique_email())
        spend = client.spend()
    assert task.submission is not None and spend.paid_count == 1
    assert spend.cap.source  # the fleet's cap section, read from the shared ledger
    shown = cli.ok("spend", "--json", env={"SVC_LEDGER_URL": pg_url}).json()
    assert shown["paid_count"] == 1 and Decimal(shown["paid_usd"]) == spend.paid_usd
    assert spend.to_json()["paid_usd"] == shown["paid_usd"]  # the same text in JSON
    assert not (home / "data" / "ledger.sqlite3").exists()  # nothing went to the local file


def test_the_async_client_submits_many_and_reads_its_identity(home: Path, sandbox: Sandbox) -> None:
    email = unique_email()
    lines = [{"task": f"Async line {n} #complete", "email": email} for n in range(2)]

    async def run() -> tuple[list[svc.BatchResult], svc.IdentityStatus, svc.Spend]:
        async with svc.AsyncClient() as client:
            results = [result async for result in client.submit_many(lines)]
            return results, await client.identity.status(), await client.spend()

    results, identity, spend = asyncio.run(run())
    assert [r.outcome for r in results] == ["submitted", "submitted"]
    assert identity.registered is False and spend.paid_count == 2
    for result in results:
        assert result.request_id and len(sandbox.charges_for(result.request_id)) == 1


def test_spend_takes_the_clis_window_and_runner(home: Path, sandbox: Sandbox) -> None:
    import datetime

    today = datetime.datetime.now(datetime.UTC).astimezone().date().isoformat()
    with Client() as client:
        client.submit("Windowed spend #complete", unique_email())
        assert client.spend(since=today).paid_count >= 1
        assert client.spend(whole=True).paid_count >= 1
        assert client.spend(since="2019-01-01", until="2019-12-31").paid_count == 0
        assert client.spend(runner="nobody-runs-this").paid_count == 0
        assert isinstance(client.spend().total_usd, Decimal)
        with pytest.raises(svc.UsageError, match="until 2019-01-01 is before since"):
            client.spend(since="2020-01-01", until="2019-01-01")
        with pytest.raises(svc.UsageError, match="not with since or until"):
            client.spend(whole=True, since="2020-01-01")
        with pytest.raises(svc.UsageError):
            client.spend(since="yesterday")


def test_tasks_pages_by_cursor_newest_first(home: Path, sandbox: Sandbox) -> None:
    with Client() as client:
        for n in range(5):
            client.submit(f"Paged task {n} #complete", unique_email())
        every = [row.request_id for row in client.tasks(page_size=50)]
        paged = client.tasks(page_size=2)
        first = [next(paged).request_id for _ in range(2)]
        client.submit("Written between two pages #complete", unique_email())  # newer: not seen
        rest = [row.request_id for row in paged]
        assert first + rest == every and len(every) == len(set(every)) == 5
        now = [row.request_id for row in client.tasks()]
        assert len(now) == 6 and now[1:] == every  # the one written meanwhile is the newest
        assert [row.request_id for row in client.tasks(limit=3, page_size=2)] == now[:3]
        with pytest.raises(TypeError):
            client.tasks(page_size="2")  # type: ignore[arg-type]
        with pytest.raises(svc.UsageError):
            client.tasks(limit=0)

    async def awaited() -> list[str]:
        async with svc.AsyncClient() as client:
            return [row.request_id async for row in client.tasks(page_size=2, limit=4)]

    newest = [row.request_id for row in Client().tasks(limit=4)]
    assert asyncio.run(awaited()) == newest
