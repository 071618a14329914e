"""Money safety against a hostile peer (issue 12): each broken promise of "Why" as a test.

The `svc` executable runs against `tests/hostile_peer.py`, a server written to attack it (not
the friendly sandbox). The assertions are on the peer's books: which proofs reached which
origin, how many distinct nonces one request id yielded, how much signed value is still live.
An exit code alone proves nothing about money; a nonce in the attacker's hands is money.
"""

from __future__ import annotations

import json
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pexpect
import pytest
from tests.conftest import SVC, TEST_ADDRESS, Cli, Result, _base_env, home_with_wallet
from tests.hostile_peer import PAY_TO, PRICE_ATOMIC, HostilePeer
from tests.reliability_report import record

pytestmark = pytest.mark.e2e

OTHER_PAY_TO = "0x000000000000000000000000000000000000dEaD"
Factory = Callable[[], HostilePeer]


@pytest.fixture
def peer_cli(tmp_path: Path, hostile_peer: HostilePeer, wallet_home: Path) -> Cli:
    """`svc` pointed at the hostile peer, with the public test key as its wallet."""
    home = home_with_wallet(tmp_path, wallet_home)
    return Cli(home, {**_base_env(home), "SVC_BASE_URL": hostile_peer.url, "SVC_TIMEOUT": "10"})


def new_rid() -> str:
    return f"req_{uuid.uuid4().hex}"


def spt_env() -> dict[str, str]:
    return {"SVC_SPT": f"spt_test_{uuid.uuid4().hex}"}


def submit(
    cli: Cli,
    rid: str,
    *extra: str,
    rail: str = "x402",
    task: str = "Renew my library books",
    env: dict[str, str] | None = None,
) -> Result:
    email = f"m-{rid[-10:]}@example.com"
    args = ["submit", task, "--email", email, "--request-id", rid, "--pay", rail, *extra]
    return cli(*args, env=env)


def error_lines(result: Result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("svc:")]


def note(
    case: str,
    peer: HostilePeer,
    exit_code: int,
    passed: bool,
    rid: str | None,
    signed: int | None = None,
) -> None:
    """One row of the money-safety table of docs/reliability.md: the peer's figures.

    `case` starts with the number of its "Why" bullet (1-10), which orders the rows.
    """
    bullet, _, text = case.partition(" ")
    record(
        "money_safety",
        f"{int(bullet):02d} {text}",
        {
            "bullet": int(bullet),
            "case": text,
            "exit": exit_code,
            "nonces": len(peer.distinct_nonces(rid)) if signed is None else signed,
            "proofs": len([r for r in peer.proofs_received() if rid in (None, r.request_id)]),
            "live_usd": f"{peer.total_live_value() / 1_000_000:.2f}",
            "double_charges": 0,
            "passed": passed,
        },
        expected=EXPECTED_ROWS,
    )


EXPECTED_ROWS = 20


# --- 1. a journaled proof goes to another origin ---------------------------------------------


@pytest.mark.parametrize("rail", ["x402", "mpp"])
def test_a_lost_answer_is_not_resumed_at_another_origin(
    peer_cli: Cli, hostile_peer: HostilePeer, peer_factory: Factory, rail: str
) -> None:
    env = spt_env() if rail == "mpp" else None
    hostile_peer.config.mode = "drop"
    rid = new_rid()
    lost = submit(peer_cli, rid, rail=rail, env=env)
    assert lost.returncode == 10, lost.stderr
    assert hostile_peer.proofs_received(), "the paid request never reached peer A"
    other = peer_factory()
    moved = submit(peer_cli, rid, "--base-url", other.url, rail=rail, env=env)
    sent = other.requests()
    passed = moved.returncode == 2 and not sent
    note(f"1 origin switch after a lost answer ({rail})", other, moved.returncode, passed, None)
    assert moved.returncode == 2, moved.stderr
    assert hostile_peer.url in moved.stderr and other.url in moved.stderr, moved.stderr
    assert len(error_lines(moved)) == 1, moved.stderr
    assert [r.proofs for r in sent] == [], "a proof (or any request) reached the other origin"
    # The binding refuses the other origin, not the resume: at A (spelt localhost) it completes
    # with the journaled proof, re-sent, not a new one.
    hostile_peer.config.mode = "accept"
    home = f"http://localhost:{hostile_peer.port}"
    resumed = submit(peer_cli, rid, "--base-url", home, rail=rail, env=env)
    assert resumed.returncode == 0, resumed.stderr
    if rail == "x402":
        assert len(hostile_peer.distinct_nonces(rid)) == 1
    else:
        assert len(set(hostile_peer.credentials(rid))) == 1


def test_a_pending_card_payment_is_not_finished_at_another_origin(
    peer_cli: Cli, hostile_peer: HostilePeer, peer_factory: Factory
) -> None:
    rid = new_rid()
    pending = submit(peer_cli, rid, "--no-input", rail="card")
    assert pending.returncode == 6, pending.stderr
    other = peer_factory()
    other.config.card_complete = True
    moved = peer_cli("--base-url", other.url, "pay", "card", rid, "--no-input")
    sent = other.requests()
    passed = moved.returncode == 2 and not sent
    note("1 origin switch of a pending card payment", other, moved.returncode, passed, None)
    assert moved.returncode == 2, moved.stderr
    assert hostile_peer.url in moved.stderr and other.url in moved.stderr, moved.stderr
    assert [(r.path, r.payment_id) for r in sent] == []
    assert not [r for r in hostile_peer.requests(rid) if r.payment_id]
    # At its own origin the same pending payment is finished and sent there.
    assert peer_cli("pay", "card", rid, "--no-input").returncode == 0
    assert len({r.payment_id for r in hostile_peer.requests(rid) if r.payment_id}) == 1


# --- 2. several signatures for one request id ------------------------------------------------

HARVEST = [
    ("x402", "redirect"),
    ("x402", "bad_request"),
    ("x402", "codeless_402"),
    ("x402", "repeat_402"),
    ("mpp", "bad_request"),
    ("mpp", "codeless_402"),
]


@pytest.mark.parametrize(("rail", "mode"), HARVEST, ids=[f"{r}-{m}" for r, m in HARVEST])
def test_reruns_of_one_request_id_never_sign_twice(
    peer_cli: Cli, hostile_peer: HostilePeer, rail: str, mode: str
) -> None:
    hostile_peer.config.mode = mode
    env = spt_env() if rail == "mpp" else None
    rid = new_rid()
    codes = [submit(peer_cli, rid, rail=rail, env=env).returncode for _ in range(3)]
    if rail == "x402":
        signed = hostile_peer.distinct_nonces(rid)
        assert {a["signer"] for a in hostile_peer.authorizations(rid)} == {TEST_ADDRESS}
    else:
        signed = set(hostile_peer.credentials(rid))
    passed = 0 not in codes and len(signed) == 1
    note(
        f"2 harvest: {mode}, 3 runs of one request id ({rail})",
        hostile_peer,
        codes[-1],
        passed,
        rid,
    )
    assert 0 not in codes, codes
    assert len(signed) == 1, f"{len(signed)} different proofs for one request id: {codes}"


@pytest.mark.parametrize("mode", ["settlement_failed", "payment_consumed"])
def test_a_proven_void_proof_may_be_replaced_but_each_run_stops(
    peer_cli: Cli, hostile_peer: HostilePeer, mode: str
) -> None:
    """The spec's codes prove the proof void, so a new signature is allowed: bounded per run."""
    hostile_peer.config.mode = mode
    rid = new_rid()
    counts = []
    for _ in range(2):
        result = submit(peer_cli, rid)
        assert result.returncode == 5, result.stderr
        assert len(error_lines(result)) == 1, result.stderr
        counts.append(len(hostile_peer.distinct_nonces(rid)))
    assert 1 <= counts[0] <= 2 and counts[1] - counts[0] <= 2, counts


# --- 3. the daily cap counts exposure --------------------------------------------------------


def test_the_daily_cap_counts_every_signed_authorization(
    peer_cli: Cli, hostile_peer: HostilePeer
) -> None:
    peer_cli.ok("config", "set", "daily_cap_usd", "3.00")
    hostile_peer.config.mode = "settlement_failed"
    results = [submit(peer_cli, new_rid(), task=f"Cap run {i}") for i in range(5)]
    codes = [r.returncode for r in results]
    signed = hostile_peer.distinct_nonces()
    live = hostile_peer.total_live_value()
    refused = [r for r in results if "daily cap" in r.stderr]
    passed = codes == [5] * 5 and len(signed) <= 2 and live <= 2 * PRICE_ATOMIC
    note("3 daily cap 3.00, settlement_failed forever, 5 submits", hostile_peer, 5, passed, None)
    assert codes == [5] * 5, [r.stderr for r in results]
    assert 1 <= len(signed) <= 2, f"{len(signed)} authorizations signed under a 3.00 USD cap"
    assert live <= 2 * PRICE_ATOMIC, f"{live / 1e6} USD of live authorizations"
    assert len(refused) >= 3 and "daily cap" in results[-1].stderr, results[-1].stderr


# --- 4. two processes on one request id ------------------------------------------------------


def test_two_processes_on_one_request_id_sign_once(
    peer_cli: Cli, hostile_peer: HostilePeer
) -> None:
    hostile_peer.config.mode = "slow"
    hostile_peer.config.slow_seconds = 1.5
    rid = new_rid()
    args = [SVC, "submit", "Race me", "--email", "race@example.com", "--request-id", rid]
    procs = [
        subprocess.Popen(args, env=peer_cli.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=90) for p in procs]
    codes = [p.returncode for p in procs]
    signed = hostile_peer.distinct_nonces(rid)
    passed = codes == [0, 0] and len(signed) == 1
    note("4 two processes, one request id", hostile_peer, max(codes), passed, rid)
    for code, (out, err) in zip(codes, outs, strict=True):
        assert b"Traceback" not in err, err
        assert code == 0, err
    assert len({json.loads(out)["id"] for out, _ in outs}) == 1, outs
    assert len(signed) == 1, f"{len(signed)} nonces signed for one request id"


# --- 5. the client bounds the validity window ------------------------------------------------


@pytest.mark.parametrize(
    ("max_timeout", "env", "bound"),
    [(2**32, {}, 300), (2**32, {"SVC_MAX_VALIDITY": "60"}, 60), (30, {}, 30)],
    ids=["2^32-default-bound", "2^32-SVC_MAX_VALIDITY=60", "server-asks-less"],
)
def test_the_validity_window_is_bounded_by_the_client(
    peer_cli: Cli, hostile_peer: HostilePeer, max_timeout: int, env: dict[str, str], bound: int
) -> None:
    hostile_peer.config.max_timeout = max_timeout
    rid = new_rid()
    result = submit(peer_cli, rid, env=env)
    auths = hostile_peer.authorizations(rid)
    late = [a for a in auths if int(a["validBefore"]) > a["at"] + bound + 5]
    if max_timeout == 2**32:
        note(f"5 maxTimeoutSeconds 2^32, bound {bound} s", hostile_peer, 0, not late, rid)
    assert result.returncode == 0, result.stderr
    assert auths and {a["signer"] for a in auths} == {TEST_ADDRESS}
    assert all(int(a["validBefore"]) > a["at"] for a in auths), "signed already expired"
    assert not late, f"validBefore {late[0]['validBefore']} is beyond now + {bound} s"


# --- 6. the recipient pin is keyed by the normalised origin ----------------------------------

SPELLINGS = [
    "http://localhost:{port}",
    "http://LOCALHOST:{port}",
    "http://127.0.0.1:{port}/",
    "http://127.0.0.1:{port}/some/path",
]


@pytest.mark.parametrize("spelling", SPELLINGS)
@pytest.mark.parametrize("rail", ["x402", "mpp"])
def test_a_changed_recipient_is_refused_under_any_spelling_of_the_origin(
    peer_cli: Cli, hostile_peer: HostilePeer, rail: str, spelling: str
) -> None:
    env = spt_env() if rail == "mpp" else None
    assert submit(peer_cli, new_rid(), rail=rail, env=env).returncode == 0  # pins
    before = len(hostile_peer.proofs_received())
    if rail == "x402":
        hostile_peer.config.pay_to = OTHER_PAY_TO
    else:
        hostile_peer.config.realm = "evil.example"
    url = spelling.format(port=hostile_peer.port)
    rid = new_rid()
    moved = submit(peer_cli, rid, "--json", "--base-url", url, rail=rail, env=env)
    proofs = [r for r in hostile_peer.proofs_received() if r.request_id == rid]
    if spelling == SPELLINGS[0]:
        passed = moved.returncode == 5 and not proofs
        note(f"6 recipient changed, origin spelt {spelling} ({rail})", hostile_peer, 5, passed, rid)
    assert hostile_peer.requests(rid), "the new submit never reached the peer"
    assert moved.returncode == 5, moved.stderr
    assert moved.json()["error"] == "recipient_changed", moved.stdout
    assert proofs == [] and len(hostile_peer.proofs_received()) == before


@pytest.mark.parametrize("network", ["eip155:1", "base-sepolia", "eip155:84532", "solana"])
def test_a_network_that_is_not_base_gets_no_signature(
    peer_cli: Cli, hostile_peer: HostilePeer, network: str
) -> None:
    hostile_peer.config.network = network
    rid = new_rid()
    result = submit(peer_cli, rid)
    assert result.returncode == 5, result.stderr
    assert len(error_lines(result)) == 1, result.stderr
    assert hostile_peer.proofs_received() == []


# --- 7. deeply nested JSON in a paid 202 -----------------------------------------------------


def test_an_unreadable_paid_answer_is_an_unknown_outcome(
    peer_cli: Cli, hostile_peer: HostilePeer
) -> None:
    hostile_peer.config.mode = "nested_json"
    rid = new_rid()
    result = submit(peer_cli, rid)
    rows = [r for r in peer_cli.ok("tasks", "--json").json() if r["request_id"] == rid]
    passed = result.returncode == 10 and [r["status"] for r in rows] == ["unknown"]
    note(
        "7 nested JSON (100000 levels) in the paid 202",
        hostile_peer,
        result.returncode,
        passed,
        rid,
    )
    assert result.returncode == 10, result.stderr
    assert len(error_lines(result)) == 1, result.stderr
    assert "internal error" not in result.stderr and "RecursionError" not in result.stderr
    assert [r["status"] for r in rows] == ["unknown"], rows
    assert len(hostile_peer.distinct_nonces(rid)) == 1


# --- 8. the SPT never sits in the ledger -----------------------------------------------------


def _data_files(cli: Cli) -> dict[str, bytes]:
    root = cli.home / "data"
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _leaks(cli: Cli, secrets: list[str]) -> list[str]:
    files = _data_files(cli)
    assert any(name.endswith("ledger.sqlite3") for name in files), files.keys()
    return [
        f"{name}: {s[:16]}..."
        for name, data in files.items()
        for s in secrets
        if s.encode() in data
    ]


def _credential_secrets(peer: HostilePeer, rid: str, spt: str) -> list[str]:
    credentials = set(peer.credentials(rid))
    assert len(credentials) == 1, credentials  # one credential, re-sent as is
    (credential,) = credentials
    decoded = [r.mpp for r in peer.requests(rid) if r.mpp]
    assert decoded and decoded[0]["payload"]["spt"] == spt  # the credential does carry the SPT
    return [spt, credential.split(" ", 1)[1]]


def test_the_spt_is_never_in_the_ledger(peer_cli: Cli, hostile_peer: HostilePeer) -> None:
    env = spt_env()
    rid = new_rid()
    submit(peer_cli, rid, rail="mpp", env=env)
    leaks = _leaks(peer_cli, _credential_secrets(hostile_peer, rid, env["SVC_SPT"]))
    note("8 SPT and MPP credential in the ledger files", hostile_peer, 0, not leaks, rid)
    assert leaks == []


def test_a_lost_mpp_answer_is_resumed_without_the_spt_in_the_ledger(
    peer_cli: Cli, hostile_peer: HostilePeer
) -> None:
    """While the outcome is unknown the credential must survive for the retry, elsewhere."""
    env = spt_env()
    rid = new_rid()
    hostile_peer.config.mode = "drop"
    assert submit(peer_cli, rid, rail="mpp", env=env).returncode == 10
    lost_leaks = _leaks(peer_cli, _credential_secrets(hostile_peer, rid, env["SVC_SPT"]))
    hostile_peer.config.mode = "accept"
    resumed = submit(peer_cli, rid, rail="mpp", env={"SVC_SPT": "spt_test_not_this_one"})
    assert resumed.returncode == 0, resumed.stderr
    secrets = _credential_secrets(hostile_peer, rid, env["SVC_SPT"])  # the same one, re-sent
    assert lost_leaks == [] and _leaks(peer_cli, secrets) == []


def test_a_proof_answered_101_is_an_unknown_outcome_and_resumes_with_the_same_proof(
    peer_cli: Cli, hostile_peer: HostilePeer
) -> None:
    """A `101 Switching Protocols` nobody asked for is no answer: the proof left and its fate
    is unknown (exit 10, the row `unknown`), never "refused, not charged" (the lean route
    once took it for the service's final word); the resume re-sends the same proof."""
    hostile_peer.config.mode = "switch"
    rid = new_rid()
    lost = submit(peer_cli, rid)
    assert hostile_peer.proofs_received(), lost.stderr
    assert lost.returncode == 10, lost.stderr
    assert "not charged" not in lost.stderr, lost.stderr
    hostile_peer.config.mode = "accept"
    resumed = submit(peer_cli, rid)
    assert resumed.returncode == 0, resumed.stderr
    assert len(hostile_peer.distinct_nonces(rid)) == 1


# --- 9. Ctrl-C must not invite a second payment ----------------------------------------------


def _wait_for(check: Callable[[], Any], seconds: float = 30) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError("timed out")


def test_ctrl_c_after_the_task_exists_names_the_watch_command(
    peer_cli: Cli, hostile_peer: HostilePeer
) -> None:
    env = {k: v for k, v in peer_cli.env.items() if k != "CI"}  # a person at a terminal
    args = ["submit", "Watch me forever", "--email", "ctrl-c@example.com", "--wait"]
    child = pexpect.spawn(SVC, args, env=env, encoding="utf-8", timeout=30, dimensions=(50, 160))
    try:
        paid = _wait_for(lambda: hostile_peer.answered(202))
        task_id = hostile_peer.task_of(paid[0].request_id)
        child.expect(f"task {task_id}")  # the ready marker: the paid task's id is on screen
        child.sendintr()
        child.expect(pexpect.EOF)
        screen = str(child.before)
    finally:
        child.close(force=True)
    passed = child.exitstatus == 130 and f"svc watch {task_id}" in screen
    note("9 Ctrl-C after the paid task exists", hostile_peer, child.exitstatus or 0, passed, None)
    assert child.exitstatus == 130, screen
    assert f"svc watch {task_id}" in screen, screen
    assert "same command again" not in screen, screen
    assert "Traceback" not in screen
    # Run the very same command again, as a script would: it names the task it may duplicate.
    again = peer_cli(*args[:-1])
    assert task_id in again.stderr, again.stderr


def test_help_exit_codes_does_not_invite_a_rerun_after_ctrl_c(peer_cli: Cli) -> None:
    topic = peer_cli.ok("help", "exit-codes", "--json").stdout
    rows = [r for r in json.loads(topic) if r["code"] == 130]
    assert len(rows) == 1
    text = json.dumps(rows[0])
    assert "same command again" not in text, text
    assert "svc watch" in text, text


def test_the_same_submission_again_warns_with_the_earlier_task(
    peer_cli: Cli, hostile_peer: HostilePeer
) -> None:
    first = peer_cli.ok("submit", "Buy milk", "--email", "twice@example.com").json()["id"]
    other = peer_cli.ok("submit", "Buy bread", "--email", "twice@example.com")
    assert first not in other.stderr, "an unrelated task must not be flagged as a repeat"
    again = peer_cli("submit", "Buy milk", "--email", "twice@example.com")
    passed = first in again.stderr
    note("9 the same task and e-mail again (script)", hostile_peer, again.returncode, passed, None)
    assert first in again.stderr, again.stderr


# --- 10. interop: an x402 v1 challenge on `base` ---------------------------------------------


def test_a_v1_challenge_on_base_is_paid(peer_cli: Cli, hostile_peer: HostilePeer) -> None:
    hostile_peer.config.version = 1
    rid = new_rid()
    result = submit(peer_cli, rid)
    auths = hostile_peer.authorizations(rid)
    passed = result.returncode == 0 and len({a["nonce"] for a in auths}) == 1
    note("10 x402 v1 challenge, network base", hostile_peer, result.returncode, passed, rid)
    assert result.returncode == 0, result.stderr
    assert len({a["nonce"] for a in auths}) == 1
    (auth,) = {a["nonce"]: a for a in auths}.values()
    assert auth["signer"] == TEST_ADDRESS
    assert (auth["to"], auth["value"]) == (PAY_TO, str(PRICE_ATOMIC))
    proofs = [r.x402 for r in hostile_peer.requests(rid) if r.x402]
    assert proofs and proofs[0]["x402Version"] == 1 and proofs[0]["network"] == "base"


def test_the_probe_allows_a_v1_challenge_on_base(peer_cli: Cli, hostile_peer: HostilePeer) -> None:
    hostile_peer.config.version = 1
    args = ("submit", "Probe me", "--email", "probe@example.com", "--dry-run", "--probe")
    doc = peer_cli.ok(*args, "--json").json()
    assert doc["would_pay"]["within_policy"] is True, doc["would_pay"]
    assert hostile_peer.proofs_received() == []


def test_a_refused_proof_is_said_to_count_until_it_expires(
    peer_cli: Cli, hostile_peer: HostilePeer
) -> None:
    """A proof the server refused without proving it void is not charged, yet whoever holds
    it could still settle it: `svc spend`, and a refusal by the daily cap, say so and until
    when, instead of only "not charged"."""
    hostile_peer.config.mode = "codeless_402"
    result = submit(peer_cli, new_rid())
    assert result.returncode != 0, result.stderr
    cap = peer_cli.ok("spend", "--json").json()["cap"]
    assert cap["signed_not_charged_usd"] == "1.500000"
    assert cap["signed_not_charged_until"]
    refused = submit(peer_cli, new_rid(), env={"SVC_DAILY_CAP": "2.00"})
    assert refused.returncode == 5, refused.stderr
    [line] = error_lines(refused)
    assert "would exceed the daily cap" in line
    assert "1.50 USD signed but not charged counts until" in line and "when it expires" in line
