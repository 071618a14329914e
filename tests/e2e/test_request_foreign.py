"""`svc request` never pays a 402 written for another origin: a hostile server that copies the
real service's 402 (its x402 resource, its MPP realm) would otherwise get a proof or a token
credential it could spend at that service for itself. Refused before the policy: nothing is
signed, no token is read, nothing is sent, nothing is in the ledger's spend."""

from __future__ import annotations

import base64
import json
import uuid
from pathlib import Path

import httpx
import pytest
from tests.conftest import Cli, Sandbox
from tests.request_peer import Peer, Reply, challenge

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("no_payment_faults")]

ECHO = "/svc/paid/echo"


def copied(sandbox: Sandbox, query: str = "") -> Reply:
    """The sandbox's own 402 for its paid endpoint, headers and all, as a relay serves it."""
    real = httpx.get(f"{sandbox.url}{ECHO}{query}", timeout=10)
    assert real.status_code == 402
    kept = {k: v for k, v in real.headers.items() if k.lower() not in ("content-length",)}
    return Reply(402, kept, real.content)


def assert_nothing_paid(cli: Cli, relay: Peer, result: object) -> None:
    assert getattr(result, "returncode", None) == 5, getattr(result, "stderr", "")
    assert "foreign_challenge" in result.stderr or "asks to be paid for" in result.stderr  # type: ignore[attr-defined]
    assert [s for s in relay.seen if s.proof or "authorization" in s.headers] == []
    assert cli.ok("spend", "--json").json()["paid_count"] == 0


@pytest.mark.parametrize("query", ["?x402=2", "?x402=1"])
def test_an_x402_challenge_copied_from_another_origin_is_never_signed(
    cli: Cli, sandbox: Sandbox, query: str
) -> None:
    with Peer(lambda seen: copied(sandbox, query)) as relay:
        result = cli("request", f"{relay.url}/relay")
    assert_nothing_paid(cli, relay, result)
    assert f"not for {relay.url}" in result.stderr


def test_an_x402_challenge_naming_no_resource_is_never_signed(cli: Cli) -> None:
    bare = challenge()
    body = json.loads(base64.b64decode(bare.headers["PAYMENT-REQUIRED"]))
    del body["resource"]
    bare.headers["PAYMENT-REQUIRED"] = base64.b64encode(json.dumps(body).encode()).decode()
    with Peer(lambda seen: bare) as relay:
        result = cli("request", f"{relay.url}/bare")
    assert_nothing_paid(cli, relay, result)


def test_an_mpp_challenge_for_another_realm_gets_no_token(cli: Cli, sandbox: Sandbox) -> None:
    spt = f"spt_test_{uuid.uuid4().hex}"
    with Peer(lambda seen: copied(sandbox)) as relay:
        result = cli("request", "--pay", "mpp", f"{relay.url}/relay", env={"SVC_SPT": spt})
    assert_nothing_paid(cli, relay, result)
    assert "MPP realm" in result.stderr
    assert spt not in result.stderr + result.stdout


def test_the_real_origins_own_challenge_is_still_paid(cli: Cli, sandbox: Sandbox) -> None:
    result = cli("request", f"{sandbox.url}{ECHO}")
    assert result.returncode == 0, result.stderr
    assert cli.ok("spend", "--json").json()["paid_count"] == 1


def test_the_ledger_keeps_no_query_of_a_paid_request(cli: Cli, sandbox: Sandbox) -> None:
    """A query may carry a key (`?api_key=`): the journal's URL has none, nor any listing."""
    result = cli("request", f"{sandbox.url}{ECHO}?api_key=sk_live_planted_SECRET")
    assert result.returncode == 0, result.stderr
    listed = cli.ok("tasks", "--json").stdout + cli.ok("spend", "--json", "--tasks").stdout
    assert "sk_live_planted_SECRET" not in listed
    ledger = list(Path(cli.env["SVC_DATA_DIR"]).rglob("ledger.sqlite3*"))
    assert ledger, "the ledger files are where the test looks"
    assert not [p for p in ledger if b"sk_live_planted_SECRET" in p.read_bytes()]


def test_an_error_to_a_paid_request_names_the_request_id_that_resends_its_proof(
    cli: Cli,
) -> None:
    """A 404 to the request that carried a signed authorization: the proof is kept and may be
    spent until it expires, so the line names the request id that re-sends it."""
    with Peer(lambda seen: Reply(404, {}, b"") if seen.proof else challenge()) as peer:
        result = cli("request", f"{peer.url}/gone")
    assert result.returncode == 7, result.stderr
    [rid] = [r["request_id"] for r in cli.ok("tasks", "--json").json()]
    assert f"--request-id {rid}" in result.stderr and "may still be spent" in result.stderr


def test_a_full_disk_after_payment_says_the_request_was_paid(cli: Cli, sandbox: Sandbox) -> None:
    """The body cannot be written (/dev/full: no space left) once the request was paid: one
    line says it was paid and names its request id; nothing reads as nothing charged."""
    result = cli("request", "-o", "/dev/full", f"{sandbox.url}{ECHO}?bytes=100000")
    [rid] = [r["request_id"] for r in cli.ok("tasks", "--json").json()]
    assert result.returncode == 0, result.stderr
    assert f"request {rid} was paid; writing its body failed:" in result.stderr
    assert "No space left on device" in result.stderr
    assert "nothing was charged" not in result.stderr and "nothing was paid" not in result.stderr
    assert cli.ok("spend", "--json").json()["paid_count"] == 1
