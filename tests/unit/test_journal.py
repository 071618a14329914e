"""The paid-request lifecycle's parts: origins, chains, exposure against the cap, the lock."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from tests.fakes import MemorySecrets

from svc.api.answers import SubmitAnswer, Task
from svc.errors import LedgerUnavailableError, PaymentFailed, UsageError
from svc.origin import origin_of
from svc.pay.chains import caip2
from svc.pay.journal import RequestJournal, held_journal, open_journal
from svc.pay.offer import Offer, Paid
from svc.store.ledger import AuthState, Ledger, PayState
from svc.store.secrets import FileBackend

BODY = {"task": "t", "email": "a@example.com"}


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("http://127.0.0.1:8402", "http://127.0.0.1:8402"),
        ("http://localhost:8402/", "http://127.0.0.1:8402"),
        ("HTTP://LocalHost:8402/some/path?q=1", "http://127.0.0.1:8402"),
        ("http://127.0.0.1:8402/some/path", "http://127.0.0.1:8402"),
        ("https://Example.COM", "https://example.com:443"),
        ("https://example.com.:443/x", "https://example.com:443"),
        ("http://example.com", "http://example.com:80"),
        ("http://[::1]:8402", "http://[::1]:8402"),
    ],
)
def test_origin_is_scheme_host_port_normalised(url: str, origin: str) -> None:
    assert origin_of(url) == origin


def test_other_hosts_ports_and_schemes_are_other_origins() -> None:
    base = origin_of("http://127.0.0.1:8402")
    for other in ("http://127.0.0.1:8403", "https://127.0.0.1:8402", "http://evil.example:8402"):
        assert origin_of(other) != base


def test_v1_network_names_are_their_chains() -> None:
    assert caip2("base") == "eip155:8453" == caip2("eip155:8453")
    assert caip2("base-sepolia") == "eip155:84532"
    assert caip2("eip155:1") == "eip155:1"
    assert caip2("Base") != "eip155:8453"  # a near miss is another (refused) network


def _journal(tmp_path: Path, rid: str = "req_00000001", cap: int | None = None) -> Any:
    ledger = Ledger(tmp_path / "ledger.sqlite3")
    secrets = MemorySecrets()
    journal = open_journal(
        ledger,
        lambda: secrets,  # type: ignore[arg-type,return-value]
        request_id=rid,
        base_url="http://127.0.0.1:8402",
        body=BODY,
        cap_atomic=cap,
    )
    return journal, ledger, secrets


def _paid(rail: str = "x402", proof: str = "P1", valid_before: float | None = None) -> Paid:
    return Paid(rail, proof, 1_500_000, "0xabc", "0xme", "eip155:8453", "usdc", valid_before)


def test_resume_against_another_origin_is_refused_naming_both(tmp_path: Path) -> None:
    journal, ledger, _ = _journal(tmp_path)
    with pytest.raises(UsageError) as refused:
        open_journal(
            ledger,
            MemorySecrets,  # type: ignore[arg-type,return-value]
            request_id=journal.request_id,
            base_url="http://127.0.0.1:9999",
            body=BODY,
        )
    assert "http://127.0.0.1:8402" in refused.value.message
    assert "http://127.0.0.1:9999" in refused.value.message
    # The same server by another spelling is the same origin.
    open_journal(
        ledger,
        MemorySecrets,  # type: ignore[arg-type,return-value]
        request_id=journal.request_id,
        base_url="http://localhost:8402/",
        body=BODY,
    )


def test_a_proof_is_attached_only_for_its_origin(tmp_path: Path) -> None:
    journal, _, _ = _journal(tmp_path)
    journal.check_origin("http://localhost:8402/svc/tasks")
    with pytest.raises(UsageError):
        journal.check_origin("http://127.0.0.1:8403/svc/tasks")


def test_exposure_counts_refused_x402_until_it_expires(tmp_path: Path) -> None:
    journal, ledger, _ = _journal(tmp_path, cap=3_000_000)
    soon = time.time() + 1
    journal.reserve("x402", 1_500_000, soon)
    journal.record(_paid(valid_before=soon))
    journal.void("settlement_failed")  # the server says void: it still counts until expiry
    assert ledger.exposure(0) == 1_500_000
    assert ledger.authorizations()[0].status == AuthState.REFUSED
    journal.reserve("x402", 1_500_000, soon)  # a new hold replaces this request's old one
    other = RequestJournal(ledger, MemorySecrets, "req_00000002", journal.origin, 3_000_000)  # type: ignore[arg-type]
    ledger.journal(other.request_id, other.origin, "a@example.com", BODY)
    with pytest.raises(PaymentFailed) as capped:
        other.reserve("x402", 1_500_000, soon)
    assert capped.value.code == "daily_cap_exceeded"
    ledger.release_reservation(journal.request_id)
    time.sleep(max(0.0, soon - time.time()) + 0.2)  # past the signed validBefore
    assert ledger.exposure(0) == 0


def test_mpp_credential_is_kept_in_the_secret_store_not_the_ledger(tmp_path: Path) -> None:
    journal, ledger, secrets = _journal(tmp_path)
    journal.reserve("mpp", 1_500_000, None)
    journal.record(_paid("mpp", "Payment spt_secret_credential"))
    row = ledger.get(journal.request_id)
    assert row is not None and row.proof is None and row.proof_fp and row.has_proof
    assert journal.proof() == "Payment spt_secret_credential"
    assert b"spt_secret" not in (tmp_path / "ledger.sqlite3").read_bytes()
    journal.accepted(
        Task({"id": "task_1", "state": "pending"}), SubmitAnswer(202, b"", "", None, None, None)
    )
    assert secrets.data == {}  # the outcome is known: the credential is gone
    assert ledger.get(journal.request_id).status == PayState.ACCEPTED  # type: ignore[union-attr]


def test_void_mpp_frees_the_cap_and_allows_a_new_proof(tmp_path: Path) -> None:
    journal, _, secrets = _journal(tmp_path, cap=1_500_000)
    journal.reserve("mpp", 1_500_000, None)
    journal.record(_paid("mpp", "Payment one"))
    journal.void("payment_consumed")
    assert journal.proof() is None and secrets.data == {}
    journal.reserve("mpp", 1_500_000, None)  # within the cap again: the first is void


def test_a_missing_secret_proof_is_an_unknown_outcome_not_a_new_payment(tmp_path: Path) -> None:
    journal, _, secrets = _journal(tmp_path)
    journal.reserve("mpp", 1_500_000, None)
    journal.record(_paid("mpp", "Payment one"))
    secrets.data.clear()
    with pytest.raises(Exception, match="no longer in the secret store") as lost:
        journal.proof()
    assert int(lost.value.exit_code) == 10  # type: ignore[attr-defined]


def test_second_process_waits_for_the_first_on_one_request_id(tmp_path: Path) -> None:
    journal, _, _ = _journal(tmp_path)
    script = textwrap.dedent(  # another process, holding the same request id's lock
        f"""
        import time
        from pathlib import Path
        from svc.pay.journal import RequestJournal
        from svc.store.ledger import Ledger
        j = RequestJournal(Ledger(Path({str(tmp_path / "ledger.sqlite3")!r})), None,
                           {journal.request_id!r}, "http://127.0.0.1:8402")
        with j.hold():
            print("held", flush=True)
            time.sleep(1.5)
        """
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "held"
    waited: list[str] = []
    start = time.monotonic()
    with journal.hold(on_wait=waited.append):
        elapsed = time.monotonic() - start
    child.wait(timeout=10)
    assert elapsed > 1.0 and waited and journal.request_id in waited[0]


def test_the_lock_is_reentrant_in_one_thread_and_dropped_when_a_holder_dies(
    tmp_path: Path,
) -> None:
    journal, _, _ = _journal(tmp_path)
    with journal.hold(), journal.hold():  # svc pay card: finish the card, then submit
        pass
    script = (
        "import os\nfrom pathlib import Path\nfrom svc.pay.journal import RequestJournal\n"
        "from svc.store.ledger import Ledger\n"
        f"j = RequestJournal(Ledger(Path({str(tmp_path / 'ledger.sqlite3')!r})), None, "
        f"{journal.request_id!r}, 'o')\n"
        "with j.hold():\n    print('held', flush=True)\n    os.kill(os.getpid(), 9)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    child.wait(timeout=10)
    start = time.monotonic()
    with journal.hold():
        assert time.monotonic() - start < 1.0


def test_file_secrets_survive_concurrent_writers(tmp_path: Path) -> None:
    store = FileBackend(tmp_path / "secrets.json")
    store.set("wallet", "key")

    def write(i: int) -> None:
        store.set(f"proof:req_{i:08d}", f"credential {i}")

    threads = [threading.Thread(target=write, args=(i,)) for i in range(24)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for i in range(24):
        assert store.get(f"proof:req_{i:08d}") == f"credential {i}"
    assert store.get("wallet") == "key"


def test_approval_is_asked_last_and_a_no_signs_nothing() -> None:
    from decimal import Decimal

    from svc.pay.policy import PaymentPolicy, PolicyRefusal

    asked: list[tuple[str, int, str]] = []

    class _Pins:
        def pinned(self, network: str, asset: str) -> str | None:
            return None

        def pin(self, network: str, asset: str, pay_to: str) -> None:
            raise AssertionError("nothing is pinned before approval")

    policy = PaymentPolicy(
        max_price_usd=Decimal("1.50"),
        allowed_networks=("eip155:8453",),
        allowed_assets=("usdc",),
        pins=_Pins(),
        approve_payment=lambda rail, amount, to: asked.append((rail, amount, to)) is not None,
    )
    with pytest.raises(PolicyRefusal) as refused:
        policy.decide([Offer("mpp", 1_500_000, "realm.example", "mpp:stripe", "usd")])
    assert refused.value.code == "payment_not_approved"
    assert asked == [("mpp", 1_500_000, "realm.example")]
    with pytest.raises(PolicyRefusal) as over:  # over the cap: refused before anyone is asked
        policy.decide([Offer("mpp", 2_000_000, "realm.example", "mpp:stripe", "usd")])
    assert over.value.code == "policy_refused" and len(asked) == 1


def _held(ledger: Ledger, request_id: str) -> Any:
    secrets = MemorySecrets()
    return held_journal(
        ledger,
        lambda: secrets,  # type: ignore[arg-type,return-value]
        request_id=request_id,
        base_url="http://127.0.0.1:8402",
        body=BODY,
    )


def test_a_signature_whose_row_was_removed_is_not_taken_as_journaled(tmp_path: Path) -> None:
    """The held journal keeps its row and folds in what each transition wrote; a row removed
    meanwhile by a writer that ignores the lock (an older svc's `forget`, a person's SQL)
    must stop the proof (exit 9, nothing sent), not leave it "journaled" with no row on disk
    (found by the review of the kept row)."""
    ledger = Ledger(tmp_path / "ledger.sqlite3")
    with _held(ledger, "req_gone_0001") as journal:
        with sqlite3.connect(tmp_path / "ledger.sqlite3") as other:  # takes no request lock
            other.execute("DELETE FROM submissions WHERE request_id = 'req_gone_0001'")
        with pytest.raises(LedgerUnavailableError, match="no longer has the row") as caught:
            journal.record(_paid())
        assert caught.value.exit_code == 9
    assert ledger.get("req_gone_0001") is None
    states = [a.status for a in ledger.authorizations_of("req_gone_0001")]
    assert AuthState.LIVE not in states, states  # the signature's transaction rolled back
