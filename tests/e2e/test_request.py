"""`svc request`: a curl-like paid request to any origin, paid as `svc submit` pays.

Hostile origins first (tests/request_peer.py: a redirect to another origin, a price above the
limit, a 402 again after payment, cleartext), then the sandbox's generic paid endpoint
(`/svc/paid/echo`): x402 v2 and v1, MPP, the ledger, `svc spend` and `svc receipt`, the
output flags, and the x402 `payment-identifier` that makes a retry charge once even when
svc's journal is gone.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import Cli, Sandbox, unique_request_id
from tests.request_peer import Peer, Reply, challenge, decoded

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("no_payment_faults")]

ECHO = "/svc/paid/echo"


def spent(cli: Cli) -> list[dict[str, Any]]:
    rows = cli.ok("spend", "--json").json()["tasks"]
    assert isinstance(rows, list)
    return rows


def row(cli: Cli, request_id: str) -> dict[str, Any]:
    with sqlite3.connect(Path(cli.env["SVC_DATA_DIR"]) / "ledger.sqlite3") as db:
        db.row_factory = sqlite3.Row
        found = db.execute("SELECT * FROM submissions WHERE request_id = ?", (request_id,))
        return dict(found.fetchone())


def only_request_id(cli: Cli) -> str:
    rows = cli.ok("tasks", "--json").json()
    assert len(rows) == 1, rows
    return str(rows[0]["request_id"])


def paid_then(after: Reply) -> Any:
    """An origin that asks for payment, then answers a request carrying a proof with `after`."""
    return lambda seen: after if seen.proof else challenge()


# --- hostile origins ---------------------------------------------------------------------------


def test_a_redirect_to_another_origin_is_not_followed_so_its_402_is_never_paid(cli: Cli) -> None:
    with (
        Peer(lambda s: challenge()) as other,
        Peer(lambda s: Reply(307, {"Location": f"{other.url}/pay"})) as first,
    ):
        result = cli("request", f"{first.url}/start")
    assert result.returncode == 0, result.stderr
    assert other.seen == [] and first.proofs() == []
    assert spent(cli) == []


def test_a_paid_answer_that_redirects_never_takes_the_proof_along(cli: Cli) -> None:
    with (
        Peer(lambda s: challenge()) as other,
        Peer(paid_then(Reply(302, {"Location": f"{other.url}/x"}))) as first,
    ):
        result = cli("request", f"{first.url}/paid")
    assert result.returncode == 0, result.stderr
    assert len(first.proofs()) == 1 and other.seen == []
    [paid] = spent(cli)
    assert (
        paid["amount_usd"] == "0.010000"
        and paid["pay_to"] == "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
    )


def test_cleartext_to_another_machine_is_refused_before_anything_is_sent(cli: Cli) -> None:
    result = cli("request", "http://example.invalid/paid")
    assert result.returncode == 2 and "cleartext" in result.stderr
    assert spent(cli) == []


def test_a_price_above_the_limit_is_refused_and_nothing_is_signed(cli: Cli) -> None:
    with Peer(lambda s: challenge(2_000_000)) as peer:
        result = cli("request", f"{peer.url}/dear")
    assert result.returncode == 5, result.stderr
    assert "nothing was signed or paid" in result.stderr
    assert len(peer.seen) == 1 and peer.proofs() == []


def test_a_402_again_after_payment_is_never_paid_a_second_time(cli: Cli) -> None:
    with Peer(lambda s: challenge()) as peer:
        first = cli("request", f"{peer.url}/greedy")
        rid = only_request_id(cli)
        again = cli("request", "--request-id", rid, f"{peer.url}/greedy")
    assert first.returncode == 5 and "asked for payment again" in first.stderr
    assert again.returncode == 5
    # Two sends of one request id, one authorization: the kept proof, never a new signature.
    assert len(peer.proofs()) == 2 and len(set(peer.proofs())) == 1
    assert row(cli, rid)["status"] == "refused"


def test_a_v2_challenge_is_answered_in_payment_signature_and_names_the_payment(cli: Cli) -> None:
    with Peer(paid_then(Reply(200, {"content-type": "text/plain"}, b"done"))) as peer:
        result = cli("request", f"{peer.url}/v2")
    assert result.returncode == 0 and result.stdout == "done"
    [seen] = [s for s in peer.seen if s.proof]
    assert "payment-signature" in seen.headers and "x-payment" not in seen.headers
    proof = decoded(seen.headers["payment-signature"])
    assert proof["x402Version"] == 2 and proof["accepted"]["network"] == "eip155:84532"
    assert "extensions" not in proof  # the challenge declared no payment-identifier


def test_payment_headers_are_not_taken_from_the_command_line(cli: Cli) -> None:
    with Peer(lambda s: challenge()) as peer:
        result = cli("request", "-H", "X-PAYMENT: forged", f"{peer.url}/x")
    assert result.returncode == 2 and peer.seen == []


@pytest.mark.parametrize("header", ["no colon here", ": empty name", "Bad Name: x", "é: x"])
def test_a_header_not_written_name_colon_value_is_refused_before_sending(
    cli: Cli, header: str
) -> None:
    with Peer(lambda s: challenge()) as peer:
        result = cli("request", "-H", header, f"{peer.url}/x")
    assert result.returncode == 2 and peer.seen == []
    assert "--header must be 'NAME: VALUE', got " in result.stderr


@pytest.mark.parametrize("value", ["café", "a\r\nX-Injected: 1", "１"])
def test_a_header_value_no_request_can_carry_is_refused_before_sending(
    cli: Cli, value: str
) -> None:
    with Peer(lambda s: challenge()) as peer:
        result = cli("request", "-H", f"X-Note: {value}", f"{peer.url}/x")
    assert result.returncode == 2 and peer.seen == [], result.stderr
    assert "the X-Note header's value must be ASCII text on one line, got " in result.stderr


def test_dry_run_sends_nothing_at_all(cli: Cli) -> None:
    with Peer(lambda s: challenge()) as peer:
        result = cli("request", "--dry-run", "-d", "{}", f"{peer.url}/x", "--json")
    assert result.returncode == 0 and peer.seen == []
    doc = result.json()
    assert doc["sent"] == "nothing" and doc["request"]["method"] == "POST"


def test_probe_sends_one_unpaid_request_and_shows_the_offer(cli: Cli) -> None:
    with Peer(lambda s: challenge()) as peer:
        result = cli("request", "--probe", f"{peer.url}/x", "--json")
    assert result.returncode == 0, result.stderr
    assert len(peer.seen) == 1 and peer.proofs() == []
    doc = result.json()
    assert doc["would_pay"]["within_policy"] and doc["would_pay"]["amount_usd"] == "0.010000"
    assert spent(cli) == []


def test_a_server_error_after_payment_is_an_unknown_outcome(cli: Cli) -> None:
    with Peer(paid_then(Reply(500, {}, b"oops"))) as peer:
        result = cli("request", "-X", "POST", f"{peer.url}/x")
    assert result.returncode == 10, result.stderr
    assert "--request-id" in result.stderr and len(peer.proofs()) == 1
    assert row(cli, only_request_id(cli))["status"] == "unknown"


# --- the sandbox's paid endpoint -------------------------------------------------------------


def test_a_paid_post_prints_the_body_and_is_in_spend_and_receipt(
    cli: Cli, sandbox: Sandbox
) -> None:
    result = cli("request", "-X", "POST", "-d", "{}", f"{sandbox.url}{ECHO}")
    assert result.returncode == 0, result.stderr
    echo = json.loads(result.stdout)
    assert echo["method"] == "POST" and echo["body"] == "{}" and not echo["replayed"]
    rid = only_request_id(cli)
    [charge] = [c for c in sandbox.books()["charges"] if c.get("payment_identifier") == rid]
    assert charge["amount_atomic"] == 1_500_000 and charge["task_id"] is None
    [paid] = spent(cli)
    assert paid["request_id"] == rid and paid["amount_usd"] == "1.500000"
    receipt = cli.ok("receipt", rid, "--json").json()
    assert receipt["origin"] == sandbox.url and receipt["rail"] == "x402"
    assert receipt["settlement"]["receipt"]["success"] is True
    assert f"paid 1.50 USD by x402; request {rid}" in result.stderr


def test_a_v1_challenge_is_paid_in_x_payment(cli: Cli, sandbox: Sandbox) -> None:
    result = cli("request", "--json", f"{sandbox.url}{ECHO}?x402=1")
    assert result.returncode == 0, result.stderr
    doc = result.json()
    assert doc["status"] == 200 and doc["paid_usd"] == "1.500000" and doc["rail"] == "x402"
    assert "x-payment-response" in doc["headers"] and "payment-response" not in doc["headers"]
    assert doc["request_id"].startswith("req_") and '"replayed":false' in doc["body"]
    proof = row(cli, doc["request_id"])["proof"]
    assert decoded(proof)["x402Version"] == 1


def test_mpp_pays_the_same_endpoint(cli: Cli, sandbox: Sandbox) -> None:
    spt = f"spt_test_{uuid.uuid4().hex}"
    result = cli(
        "request", "--pay", "mpp", "-d", "hi", f"{sandbox.url}{ECHO}", env={"SVC_SPT": spt}
    )
    assert result.returncode == 0, result.stderr
    rid = only_request_id(cli)
    receipt = cli.ok("receipt", rid, "--json").json()
    assert receipt["rail"] == "mpp" and receipt["settlement"]["reference"].startswith("pi_")
    assert spt not in str(row(cli, rid))  # the credential carries the token: never in the ledger


def test_include_writes_the_head_before_the_body(cli: Cli, sandbox: Sandbox) -> None:
    result = cli("request", "-i", f"{sandbox.url}{ECHO}?bytes=5")
    assert result.returncode == 0, result.stderr
    head, _, body = result.stdout.partition("\r\n\r\n")
    assert head.startswith("HTTP/1.1 200 OK") and "payment-response:" in head.lower()
    assert body == "xxxxx"


def test_output_writes_the_body_to_a_file(cli: Cli, sandbox: Sandbox, tmp_path: Path) -> None:
    target = tmp_path / "body.bin"
    result = cli("request", "-o", str(target), f"{sandbox.url}{ECHO}?bytes=100000")
    assert result.returncode == 0 and result.stdout == ""
    assert target.read_bytes() == b"x" * 100000


def test_a_free_not_found_is_exit_7_and_pays_nothing(cli: Cli, sandbox: Sandbox) -> None:
    result = cli("request", f"{sandbox.url}/svc/no-such-thing")
    assert result.returncode == 7, result.stderr
    assert spent(cli) == []


def test_a_resume_of_an_answered_request_sends_nothing(cli: Cli, sandbox: Sandbox) -> None:
    rid = unique_request_id()
    cli.ok("request", "--request-id", rid, f"{sandbox.url}{ECHO}")
    again = cli("request", "--request-id", rid, f"{sandbox.url}{ECHO}")
    assert again.returncode == 8 and "nothing was sent" in again.stderr
    assert len([c for c in sandbox.books()["charges"] if c.get("payment_identifier") == rid]) == 1


def test_a_request_id_is_bound_to_its_request(cli: Cli, sandbox: Sandbox) -> None:
    rid = unique_request_id()
    cli.ok("request", "--request-id", rid, "-d", "a", f"{sandbox.url}{ECHO}")
    other = cli("request", "--request-id", rid, "-d", "b", f"{sandbox.url}{ECHO}")
    assert other.returncode == 2 and "different" in other.stderr


# --- payment-identifier: charged once, even with the journal gone -----------------------------


def test_a_retry_with_the_same_payment_identifier_is_charged_once_without_the_journal(
    cli: Cli, sandbox: Sandbox
) -> None:
    rid = unique_request_id()
    first = cli("request", "--request-id", rid, "-X", "POST", "-d", "{}", f"{sandbox.url}{ECHO}")
    assert first.returncode == 0, first.stderr
    proof = decoded(row(cli, rid)["proof"])
    assert proof["extensions"]["payment-identifier"]["info"]["id"] == rid
    for leftover in Path(cli.env["SVC_DATA_DIR"]).glob("ledger.sqlite3*"):
        leftover.unlink()  # svc's journal is gone: the next run signs a new authorization
    again = cli("request", "--request-id", rid, "-X", "POST", "-d", "{}", f"{sandbox.url}{ECHO}")
    assert again.returncode == 0, again.stderr
    assert '"replayed":true' in again.stdout
    assert decoded(row(cli, rid)["proof"])["payload"] != proof["payload"]  # a new signature
    charges = [c for c in sandbox.books()["charges"] if c.get("payment_identifier") == rid]
    assert len(charges) == 1


def test_a_crash_after_the_proof_was_sent_resumes_without_a_second_charge(
    forked_cli: Cli, sandbox: Sandbox
) -> None:
    rid = unique_request_id()
    args = ("request", "--request-id", rid, "-X", "POST", "-d", "{}", f"{sandbox.url}{ECHO}")
    killed = forked_cli(*args, env={"SVC_TEST_CRASH_AT": "proof_sent"})
    assert killed.returncode != 0
    resumed = forked_cli(*args)
    assert resumed.returncode == 0, resumed.stderr
    assert '"replayed":true' in resumed.stdout  # the same proof again: answered, not charged
    charges = [c for c in sandbox.books()["charges"] if c.get("payment_identifier") == rid]
    assert len(charges) == 1


def test_a_request_id_is_never_resumed_against_another_origin(cli: Cli, sandbox: Sandbox) -> None:
    rid = unique_request_id()
    with Peer(lambda s: challenge(2_000_000)) as peer:
        first = cli("request", "--request-id", rid, "-X", "POST", f"{peer.url}/x")
        assert first.returncode == 5  # refused by the price limit: journaled, nothing signed
        other = cli("request", "--request-id", rid, "-X", "POST", f"{sandbox.url}{ECHO}")
        assert other.returncode == 2 and "nothing was sent" in other.stderr, other.stderr
    assert charges_of(sandbox, rid) == []


def charges_of(sandbox: Sandbox, request_id: str) -> list[dict[str, Any]]:
    return [c for c in sandbox.books()["charges"] if c.get("payment_identifier") == request_id]


def test_the_output_flags_shape_the_answer_object(cli: Cli, sandbox: Sandbox) -> None:
    shaped = cli("request", f"{sandbox.url}{ECHO}", "--jq", ".status")
    assert shaped.returncode == 0 and shaped.stdout.strip() == "200", shaped.stderr
    fields = cli("request", f"{sandbox.url}{ECHO}", "--json=status,paid_usd")
    assert fields.json() == {"status": 200, "paid_usd": "1.500000"}
