"""The ledger's contract (`store/ledger/interface.LedgerStore`), on both engines: the local
SQLite file and the fleet ledger on a real PostgreSQL server (issue 24). Every money rule svc
keeps rests on these promises, so each test runs on each engine, and the promises that span
processes (the request lock, the daily cap) are tested with real processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from tests.fakes import MemorySecrets
from tests.ledger_worker import open_where
from tests.pg_cluster import Cluster

from svc.errors import LedgerUnavailableError, OtherRunnerHoldsProofError
from svc.store.ledger import AuthState, LedgerStore, PayState, Whose, open_ledger
from svc.store.ledger.sqlite import SCHEMA_VERSION
from svc.store.ledger.task_handles import TaskHandle

ORIGIN = "http://127.0.0.1:8402"
ONE_USD = 1_000_000
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(params=["sqlite", "postgres"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a ledger lives: a SQLite file, or a fresh database on the test's PostgreSQL."""
    if request.param == "sqlite":
        return str(tmp_path / "ledger.sqlite3")
    cluster: Cluster = request.getfixturevalue("pg_cluster")
    return cluster.create_database("svc_" + os.urandom(6).hex())


def opened(where: str, runner: str = "runner-a") -> LedgerStore:
    return open_where(where, runner)


@pytest.fixture
def ledger(where: str) -> Iterator[LedgerStore]:
    store = opened(where)
    try:
        yield store
    finally:
        store.close()


def journaled(ledger: LedgerStore, rid: str, task: str = "Book it") -> None:
    ledger.journal(rid, ORIGIN, "a@example.com", {"task": task, "email": "a@example.com"}, ORIGIN)


def signed(ledger: LedgerStore, rid: str, *, amount: int = 1_500_000, rail: str = "x402") -> None:
    journaled(ledger, rid)
    ledger.mark_challenged(rid)
    assert (
        ledger.reserve(
            rid,
            rail=rail,
            amount_atomic=amount,
            origin=ORIGIN,
            valid_before=None,
            cap_atomic=None,
            since=0.0,
        )
        is None
    )
    ledger.record_signature(
        rid,
        rail=rail,
        proof="proof-" + rid if rail == "x402" else None,
        fingerprint="fp-" + rid,
        amount_atomic=amount,
        pay_to="0xrecipient",
        payer="0xpayer",
        network="eip155:8453",
        asset="0xusdc",
        valid_before=None,
        origin=ORIGIN,
    )


def accepted(ledger: LedgerStore, rid: str, task_id: str) -> None:
    ledger.mark_accepted(
        rid,
        task_id=task_id,
        state="pending",
        http_status=202,
        billing="status=charged",
        receipt=None,
        usage_error=None,
    )


def test_the_journal_is_one_row_per_request_id_and_names_its_runner(ledger: LedgerStore) -> None:
    journaled(ledger, "req_1", "first")
    journaled(ledger, "req_1", "second")  # idempotent: the first body stays
    row = ledger.get("req_1")
    assert row is not None and row.status == PayState.JOURNALED
    assert row.task_preview == "first" and row.runner == "runner-a"
    assert ledger.get("req_missing") is None


def test_a_paid_request_walks_its_states_and_its_authorization_is_spent(
    ledger: LedgerStore,
) -> None:
    signed(ledger, "req_1")
    row = ledger.get("req_1")
    assert row is not None and row.status == PayState.SIGNED and row.proof == "proof-req_1"
    ledger.mark_sent("req_1")
    accepted(ledger, "req_1", "task_1")
    row = ledger.get("req_1")
    assert row is not None and row.status == PayState.ACCEPTED and row.task_id == "task_1"
    auths = ledger.authorizations()
    assert [(a.status, a.amount_atomic, a.runner) for a in auths] == [
        (AuthState.SPENT, 1_500_000, "runner-a")
    ]
    assert ledger.exposure(0.0) == 1_500_000


def test_the_cap_holds_and_a_released_hold_frees_it(ledger: LedgerStore) -> None:
    def hold(rid: str) -> int | None:
        journaled(ledger, rid)
        return ledger.reserve(
            rid,
            rail="mpp",
            amount_atomic=ONE_USD,
            origin=ORIGIN,
            valid_before=None,
            cap_atomic=2 * ONE_USD,
            since=0.0,
        )

    assert hold("req_1") is None and hold("req_2") is None
    assert hold("req_3") == 2 * ONE_USD  # refused: the exposure already there
    ledger.release_reservation("req_2")
    assert hold("req_3") is None
    assert ledger.exposure(0.0) == 2 * ONE_USD


def test_an_expired_x402_authorization_stops_counting(ledger: LedgerStore) -> None:
    journaled(ledger, "req_1")
    ledger.reserve(
        "req_1",
        rail="x402",
        amount_atomic=ONE_USD,
        origin=ORIGIN,
        valid_before=time.time() - 1,
        cap_atomic=None,
        since=0.0,
    )
    assert ledger.exposure(0.0) == 0


def test_void_and_refused_proofs_count_as_the_spec_says(ledger: LedgerStore) -> None:
    signed(ledger, "req_x", rail="x402")
    ledger.void_proof("req_x", "payment_expired", frees_cap=False)  # x402: holder can settle
    assert ledger.exposure(0.0) == 1_500_000
    signed(ledger, "req_m", rail="mpp")
    row = ledger.get("req_m")
    assert row is not None and row.proof is None and row.proof_fp == "fp-req_m"  # no secret
    ledger.void_proof("req_m", "payment_invalid", frees_cap=True)
    assert ledger.exposure(0.0) == 1_500_000
    row = ledger.get("req_m")
    assert row is not None and not row.has_proof  # void: a new proof may be signed


def test_refused_unknown_and_refunded(ledger: LedgerStore) -> None:
    signed(ledger, "req_r")
    ledger.mark_refused("req_r", "payment_rejected", 402)
    row = ledger.get("req_r")
    assert row is not None and row.status == PayState.REFUSED and row.proof == "proof-req_r"
    signed(ledger, "req_u")
    ledger.mark_unknown("req_u", "connection reset")
    assert (ledger.get("req_u") or pytest.fail()).status == PayState.UNKNOWN
    signed(ledger, "req_f")  # served, then refunded in part (svc-billing: refunded)
    ledger.mark_refunded("req_f", 500_000, "status=refunded")
    spent = [a for a in ledger.authorizations() if a.request_id == "req_f"]
    assert spent[0].refunded_atomic == 500_000 and spent[0].status == AuthState.SPENT
    assert ledger.exposure(0.0) == 3 * 1_500_000 - 500_000


def test_card_payments_wait_for_a_person_then_end(ledger: LedgerStore) -> None:
    journaled(ledger, "req_c")
    ledger.card_pending(
        "req_c",
        payment_id="pay_1",
        pay_url=ORIGIN + "/pay/1",
        status_url=ORIGIN + "/pay/1/status",
        checkout_url=None,
        amount_atomic=1_500_000,
        recipient="merchant",
    )
    waiting = ledger.card_payment()
    assert waiting is not None and waiting["payment_id"] == "pay_1"
    ledger.card_complete("req_c")
    assert ledger.card_payment() is None
    assert (ledger.card_payment("req_c") or {}).get("status") == "complete"


_TRANSITIONS = {
    "accepted": lambda lg, rid: lg.mark_accepted(
        rid, task_id="tsk_x", state="pending", http_status=202, billing=None, receipt=None,
        usage_error=None,
    ),
    "refused": lambda lg, rid: lg.mark_refused(rid, "refused", 402),
    "void": lambda lg, rid: lg.void_proof(rid, "payment_failed", frees_cap=True),
    "refunded": lambda lg, rid: lg.mark_refunded(rid, 1_500_000, "status=refunded"),
    "card_pending": lambda lg, rid: lg.card_pending(
        rid, payment_id="pay_gone", pay_url=ORIGIN + "/pay", status_url=ORIGIN + "/pay/status",
        checkout_url=None, amount_atomic=1_500_000, recipient="merchant",
    ),
    "card_dead": lambda lg, rid: lg.card_dead(rid, "cancelled"),
}  # fmt: skip


@pytest.mark.parametrize("transition", sorted(_TRANSITIONS))
def test_a_transition_whose_row_was_removed_is_exit_9_and_commits_nothing(
    ledger: LedgerStore, transition: str
) -> None:
    """Every transition of a paid request's row, not only the signature's and the
    acceptance's: a row removed meanwhile by a writer that ignores the lock (an older svc's
    forget, a person's SQL) is the ledger's error, and nothing else of the transaction stays
    (its authorization keeps its state, no card payment is recorded). The review of this
    change found five transitions that had lost the check."""
    rid = f"req_gone_{transition}"
    signed(ledger, rid)
    assert ledger.forget(rid, money_too=True)  # the row goes, its authorization stays
    before = [(a.status, a.refunded_atomic) for a in ledger.authorizations_of(rid)]
    with pytest.raises(
        LedgerUnavailableError, match=f"no longer has the row of request {rid}"
    ) as gone:
        _TRANSITIONS[transition](ledger, rid)
    assert gone.value.exit_code == 9
    assert ledger.get(rid) is None
    assert [(a.status, a.refunded_atomic) for a in ledger.authorizations_of(rid)] == before
    assert ledger.card_payment(rid) is None


def test_task_states_recent_tasks_and_order(ledger: LedgerStore) -> None:
    signed(ledger, "req_1")
    accepted(ledger, "req_1", "task_1")
    time.sleep(0.01)
    journaled(ledger, "req_2", "other")
    ledger.set_task_state("task_1", "completed")
    assert (ledger.get("req_1") or pytest.fail()).state == "completed"
    assert [r.request_id for r in ledger.submissions()] == ["req_2", "req_1"]
    assert [r.request_id for r in ledger.submissions(limit=1)] == ["req_2"]
    body = {"task": "other", "email": "a@example.com"}
    assert [r.request_id for r in ledger.recent_same_task(body, 0.0)] == ["req_2"]


def test_submissions_are_counted_without_reading_them(ledger: LedgerStore) -> None:
    assert ledger.count_submissions() == 0
    journaled(ledger, "req_1")
    middle = time.time()
    time.sleep(0.01)
    journaled(ledger, "req_2")
    journaled(ledger, "req_3")
    assert ledger.count_submissions() == 3
    assert ledger.count_submissions(since=middle) == 2


def test_the_books_sum_a_window_in_the_engine_by_quarter_hour_rail_and_runner(
    where: str,
) -> None:
    """`svc spend`'s reads (issue 34.5): sums and counts come from the engine, of the charged
    rows only (accepted with a proof, or refunded), of a window and of one runner."""
    a, b = opened(where, "runner-a"), opened(where, "runner-b")
    try:
        before = time.time()
        signed(a, "req_x")
        accepted(a, "req_x", "task_x")
        signed(b, "req_m", amount=2_000_000, rail="mpp")
        accepted(b, "req_m", "task_m")
        signed(a, "req_f")
        a.mark_refunded("req_f", 500_000, "status=refunded")
        signed(a, "req_u")
        a.mark_unknown("req_u", "connection reset")  # may be money: not a charge, an open item
        journaled(a, "req_j")  # never paid
        after = time.time() + 1

        groups = a.spend_sums(before)
        assert sum(g.charges for g in groups) == 3 and sum(g.refunds for g in groups) == 1
        assert sum(g.paid_atomic for g in groups) == 5_000_000
        assert sum(g.refunded_atomic for g in groups) == 500_000
        assert {(g.rail, g.runner) for g in groups} >= {("x402", "runner-a"), ("mpp", "runner-b")}
        quarters = [g.starts_at for g in groups if g.rail == "x402"]
        assert all(q % 900 == 0 for q in quarters)
        for rid in ("req_x", "req_f"):  # each charge lies in its group's quarter hour
            made = (a.get(rid) or pytest.fail()).created_at
            assert any(q <= made < q + 900 for q in quarters), (made, quarters)
        assert a.spend_sums(after) == [] and a.spend_sums(0.0, before) == []
        only_b = a.spend_sums(before, after, Whose(runner="runner-b"))
        assert [(g.rail, g.paid_atomic) for g in only_b] == [("mpp", 2_000_000)]

        assert [r.request_id for r in a.charges(before)] == ["req_f", "req_m", "req_x"]
        only_a = a.charges(before, whose=Whose(runner="runner-a"))
        assert [r.request_id for r in only_a] == ["req_f", "req_x"]
        by_wallet = a.charges(before, whose=Whose(wallet="0xPAYER"))  # its case is not it
        assert [r.request_id for r in by_wallet] == ["req_f", "req_m", "req_x"]
        assert a.charges(before, whose=Whose(wallet="0xother")) == []
        assert a.spend_sums(before, whose=Whose(profile="nobody")) == []  # none named one
        assert [r.request_id for r in a.open_items()] == ["req_u"]
        assert a.open_items(Whose(runner="runner-b")) == []
        assert [x.request_id for x in a.exposed_authorizations(before)] == ["req_u"]
        assert [x.status for x in a.authorizations_of("req_x")] == [AuthState.SPENT]
    finally:
        a.close()
        b.close()


def test_a_receipt_finds_a_row_by_request_id_or_task_id(ledger: LedgerStore) -> None:
    signed(ledger, "req_1")
    accepted(ledger, "req_1", "task_1")
    assert (ledger.find("req_1") or pytest.fail()).task_id == "task_1"
    assert (ledger.find("task_1") or pytest.fail()).request_id == "req_1"
    assert ledger.find("task_none") is None


def test_a_forgotten_row_takes_the_mcp_task_handles_that_follow_it(ledger: LedgerStore) -> None:
    """`svc tasks forget` leaves nothing of the task behind: the handles an MCP Tasks client
    was given for it (by request id, or by the service task they wait on) go with the row;
    another task's handle stays."""
    signed(ledger, "req_1")
    accepted(ledger, "req_1", "task_1")
    journaled(ledger, "req_2")
    handles = ledger.task_handles()
    service = (ledger.find("req_1") or pytest.fail()).base_url
    follow = TaskHandle("h_submit", "task_1", "req_1", "submit_task", service, "completed")
    handles.create(replace(follow, result='{"result": "the person\'s data"}'))
    handles.create(replace(follow, task_id="h_wait", request_id=None, tool="wait_for_task"))
    handles.create(replace(follow, task_id="h_other", service_task_id="task_9", request_id="r9"))
    elsewhere = replace(follow, task_id="h_elsewhere", request_id=None, base_url="https://b.test")
    handles.create(elsewhere)  # another service's task that happens to have the same id
    handles.create(replace(follow, task_id="h_no_task", service_task_id="", request_id="r0"))
    assert ledger.forget("req_2") is True  # a row no handle follows (no task id): all stay
    assert handles.get("h_submit") is not None and handles.get("h_no_task") is not None
    assert ledger.forget("req_1", money_too=True) is True
    assert handles.get("h_submit") is None and handles.get("h_wait") is None
    assert handles.get("h_other") is not None and handles.get("h_elsewhere") is not None


def test_a_forgotten_row_leaves_the_cap_its_record(ledger: LedgerStore) -> None:
    """`svc tasks forget --force` removes the row `svc spend` reads; what was signed today
    still counts against the cap (the authorizations stay)."""
    signed(ledger, "req_paid")
    accepted(ledger, "req_paid", "task_paid")
    journaled(ledger, "req_note")
    ledger.set_task_state("task_paid", "gone")
    rows = {r.request_id: r for r in ledger.submissions()}
    assert rows["req_paid"].money and not rows["req_note"].money
    assert rows["req_paid"].state == "gone"
    assert ledger.forget("req_paid") is False  # money stays unless asked for by name
    assert ledger.forget("req_paid", money_too=True) is True
    assert ledger.forget("req_note") is True
    assert ledger.submissions() == [] and ledger.count_submissions() == 0
    assert ledger.exposure(0.0) == 1_500_000


def test_a_row_that_became_money_since_it_was_read_is_not_forgotten(where: str) -> None:
    """`svc tasks forget` reads a journaled row (a note), another runner signs a payment for
    it, then the forget arrives: the row is decided on as it is now, under the request's lock,
    and stays (it is the record of a signature)."""
    reader, payer = opened(where, "runner-a"), opened(where, "runner-b")
    try:
        journaled(reader, "req_race")
        seen = reader.get("req_race")
        assert seen is not None and not seen.money
        signed(payer, "req_race")
        assert reader.forget("req_race") is False
        row = reader.get("req_race")
        assert row is not None and row.money
    finally:
        reader.close()
        payer.close()


def test_pins_and_confirmed_hosts_hold_for_every_later_reader(where: str) -> None:
    first, second = opened(where, "runner-a"), opened(where, "runner-b")
    try:
        first.pin_recipient(ORIGIN, "eip155:8453", "0xUSDC", "0xaaa")
        assert second.pinned_recipient(ORIGIN, "eip155:8453", "0xusdc") == "0xaaa"
        second.pin_recipient(ORIGIN, "eip155:8453", "0xusdc", "0xbbb")  # --trust-recipient
        assert first.pinned_recipients(ORIGIN) == [("eip155:8453", "0xbbb")]
        first.confirm_link_host(ORIGIN, "pay.example")
        first.confirm_link_host(ORIGIN, "pay.example")
        assert second.link_host_confirmed(ORIGIN, "pay.example")
        assert not second.link_host_confirmed(ORIGIN, "other.example")
    finally:
        first.close()
        second.close()


def test_the_engine_describes_itself(ledger: LedgerStore) -> None:
    info = ledger.describe()
    assert (
        info.schema_version == SCHEMA_VERSION
        and info.runner == "runner-a"
        and not info.missing_rights
    )
    assert ledger.integrity() == "ok"


def _worker(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.ledger_worker", *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )


def test_the_request_lock_is_held_across_processes_and_dies_with_its_holder(
    where: str, ledger: LedgerStore
) -> None:
    holder = _worker("hold", where, "req_locked")
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        waits: list[str] = []

        def kill_holder(message: str) -> None:
            waits.append(message)
            os.kill(holder.pid, signal.SIGKILL)  # a runner dies holding the lock

        started = time.monotonic()
        with ledger.request_lock("req_locked", kill_holder):
            pass
        assert waits and "handling request req_locked" in waits[0]
        assert time.monotonic() - started < 30
    finally:
        holder.kill()
        holder.wait()


def test_the_cap_holds_across_processes(where: str) -> None:
    cap = 7 * ONE_USD
    workers = [_worker("reserve", where, str(cap), "6") for _ in range(4)]
    held = [int((w.communicate(timeout=120)[0] or "0").strip()) for w in workers]
    assert sum(held) == 7, held  # 24 tries of 1.00 USD under 7.00: exactly 7 held
    store = opened(where)
    try:
        assert store.exposure(0.0) == cap
    finally:
        store.close()


def test_an_unreachable_fleet_ledger_is_the_contracts_unavailable(tmp_path: Path) -> None:
    url = f"postgresql:///svc?host={tmp_path}&user=nobody"  # no server listens there
    with pytest.raises(LedgerUnavailableError) as failed:
        open_ledger(url, "runner-a")
    assert failed.value.exit_code == 9 and "nothing was paid" in (failed.value.hint or "")


def test_opening_the_fleet_ledger_waits_on_no_runners_writes(pg_url: str) -> None:
    """Every batch worker of every runner opens its own connection: once the schema is
    current, opening takes no table lock. (It ran the schema's DDL each time, and CREATE INDEX
    takes a SHARE lock even on an index that exists: 4 runners deadlocked with each other's
    writes, 15 of 300 bench lines failed with "deadlock detected".)"""
    import psycopg

    opened(pg_url).close()  # the schema, as the first runner leaves it
    with psycopg.connect(pg_url) as writer:  # a runner mid-transaction on both tables
        writer.execute("LOCK TABLE submissions, authorizations IN ROW EXCLUSIVE MODE")
        quick = pg_url + "&options=-c%20lock_timeout%3D2000"  # waiting would fail, not hang
        second = open_ledger(quick, "runner-b")
        try:
            assert second.describe().schema_version == SCHEMA_VERSION
        finally:
            second.close()


def test_an_older_fleet_schema_is_brought_up_to_date_on_open(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A column added later (sqlite.MIGRATIONS) reaches a fleet ledger created before it, as it
    reaches an older SQLite file, and the version moves up once."""
    import psycopg

    opened(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as conn:  # as a runner of version 2 left it
        conn.execute("ALTER TABLE submissions DROP COLUMN runner")
        conn.execute("ALTER TABLE authorizations DROP COLUMN runner")
        conn.execute("UPDATE svc_schema SET version = 2")
    as_a_new_process(monkeypatch)
    store = opened(pg_url, "runner-new")
    try:
        assert store.describe().schema_version == SCHEMA_VERSION
        store.journal("req_old", ORIGIN, "a@example.com", {"task": "t", "email": "a@example.com"})
        row = store.get("req_old")
        assert row is not None and row.runner == "runner-new"
    finally:
        store.close()
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT COUNT(*) FROM svc_schema").fetchone() == (1,)


def test_another_runners_mpp_credential_is_neither_resent_nor_resigned(where: str) -> None:
    from svc.pay.journal import open_journal
    from svc.pay.offer import Paid

    runners = {name: (opened(where, name), MemorySecrets()) for name in ("runner-a", "runner-b")}
    try:
        journals = {
            name: open_journal(
                ledger,
                lambda s=secrets: s,  # type: ignore[misc]
                request_id="req_mpp",
                base_url=ORIGIN,
                body={"task": "t", "email": "a@example.com"},
            )
            for name, (ledger, secrets) in runners.items()
        }
        journals["runner-a"].reserve("mpp", 1_500_000, None)
        credential = "Payment id=1, spt=spt_secret_value"
        paid = Paid("mpp", credential, 1_500_000, "realm", "spt:fp", "mpp:stripe", "usd")
        journals["runner-a"].record(paid)
        assert journals["runner-a"].proof() == credential  # its own store re-sends it
        with pytest.raises(OtherRunnerHoldsProofError) as held:
            journals["runner-b"].proof()
        assert held.value.exit_code == 10 and "runner runner-a" in held.value.message
        assert "spt_secret_value" not in held.value.message
        row = runners["runner-b"][0].get("req_mpp")
        assert row is not None and row.proof is None  # the database never saw the credential
    finally:
        for ledger, _ in runners.values():
            ledger.close()


def test_a_fleet_setting_is_one_value_for_every_runner(where: str) -> None:
    """The fleet's daily cap (issue 29.8): written by one runner, read by every other."""
    first, second = opened(where, "runner-a"), opened(where, "runner-b")
    try:
        assert first.fleet_setting("daily_cap_usd") is None
        first.set_fleet_setting("daily_cap_usd", "90")
        assert second.fleet_setting("daily_cap_usd") == "90"
        second.set_fleet_setting("daily_cap_usd", "none")  # no cap, on purpose
        assert first.fleet_setting("daily_cap_usd") == "none"
        first.set_fleet_setting("daily_cap_usd", None)  # each runner's own again
        assert second.fleet_setting("daily_cap_usd") is None
    finally:
        first.close()
        second.close()


def as_a_new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The next open checks the fleet ledger's schema again, as a new runner's process does
    (this one checked it once and trusts it for its life: the schema only moves forward)."""
    from svc.store.ledger import postgres

    monkeypatch.setattr(postgres, "_CURRENT", set())


def test_a_ledger_of_schema_3_gains_the_settings_table_on_open(
    where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fleet (or file) ledger written before the settings table: the next open adds it and
    moves the version up, on both engines."""
    opened(where).close()
    if where.startswith("postgresql"):
        import psycopg

        with psycopg.connect(where, autocommit=True) as conn:
            conn.execute("DROP TABLE settings")
            conn.execute("UPDATE svc_schema SET version = 3")
    else:
        import sqlite3

        with sqlite3.connect(where) as db:
            db.execute("DROP TABLE settings")
            db.execute("PRAGMA user_version = 3")
    as_a_new_process(monkeypatch)
    store = opened(where, "runner-new")
    try:
        assert store.describe().schema_version == SCHEMA_VERSION >= 5
        store.set_fleet_setting("daily_cap_usd", "6")
        assert store.fleet_setting("daily_cap_usd") == "6"
    finally:
        store.close()


def test_a_ledger_of_schema_4_gains_the_refusal_words_on_open(
    where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Schema 5 (issue 30.5): a ledger without `error_detail` gets it on the next open, on both
    engines, and a refused submit keeps its words."""
    opened(where).close()
    if where.startswith("postgresql"):
        import psycopg

        with psycopg.connect(where, autocommit=True) as conn:
            conn.execute("ALTER TABLE submissions DROP COLUMN error_detail")
            conn.execute("UPDATE svc_schema SET version = 4")
    else:
        import sqlite3

        with sqlite3.connect(where) as db:
            db.execute("ALTER TABLE submissions DROP COLUMN error_detail")
            db.execute("PRAGMA user_version = 4")
    as_a_new_process(monkeypatch)
    store = opened(where, "runner-new")
    try:
        assert store.describe().schema_version == SCHEMA_VERSION >= 5
        journaled(store, "req_1")
        store.mark_rejected("req_1", "policy_refused", None, "refusing to pay: too dear")
        assert (store.get("req_1") or pytest.fail()).status_reason == "refused: too dear"
    finally:
        store.close()


def test_accepted_among_names_only_the_accepted_ids_asked_for(ledger: LedgerStore) -> None:
    """A batch asks for a chunk of its lines at once (one statement): only the accepted ones
    come back, with their task, whatever else the chunk or the ledger holds."""
    for rid in ("req_among_a1", "req_among_b1", "req_among_c1", "req_among_d1"):
        journaled(ledger, rid)
    signed(ledger, "req_among_a1")
    accepted(ledger, "req_among_a1", "task_among_a")
    signed(ledger, "req_among_b1")  # signed, never accepted
    signed(ledger, "req_among_d1")
    accepted(ledger, "req_among_d1", "task_among_d")  # accepted, but not asked for
    asked = ["req_among_a1", "req_among_b1", "req_among_c1", "req_among_zz", "req_among_a1"]
    found = ledger.accepted_among(asked)
    assert sorted(found) == ["req_among_a1"]
    assert found["req_among_a1"].task_id == "task_among_a"
    assert ledger.accepted_among([]) == {}
    many = [f"req_among_n{i:04d}" for i in range(500)] + ["req_among_d1"]
    assert list(ledger.accepted_among(many)) == ["req_among_d1"]  # one statement, 501 ids
