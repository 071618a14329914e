"""Payment safety (issue 6.6): a hostile 402 gets no (second) signature.

A server that changes the recipient, asks more than the cap, names another asset or network,
or answers a paid request with a fresh 402 is refused with exit 5. The proof: the sandbox's
books (no charge) and its request log, which records which requests carried a payment proof
(header names only), so "no signature was sent" is observed on the wire, not inferred.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from tests.conftest import Cli, Sandbox
from tests.reliability_report import record

pytestmark = pytest.mark.e2e

OTHER_ADDRESS = "0x000000000000000000000000000000000000dEaD"
OTHER_ASSET = "0x1111111111111111111111111111111111111111"


def _submit(cli: Cli, rid: str, rail: str = "x402") -> Any:
    env = {"SVC_SPT": f"spt_test_{uuid.uuid4().hex}"} if rail == "mpp" else None
    return cli(
        "submit",
        "Pay safely #complete",
        "--email",
        f"s-{rid[-10:]}@example.com",
        "--request-id",
        rid,
        "--pay",
        rail,
        env=env,
    )


def _pin_first(cli: Cli, sandbox: Sandbox) -> None:
    assert _submit(cli, f"req_{uuid.uuid4().hex}").returncode == 0  # pins the recipient


def _recipient(cli: Cli, sandbox: Sandbox) -> None:
    _pin_first(cli, sandbox)
    sandbox.configure(pay_to=OTHER_ADDRESS)


def _cap(cli: Cli, sandbox: Sandbox) -> None:
    sandbox.configure(price_atomic=1_510_000)


def _asset(cli: Cli, sandbox: Sandbox) -> None:
    sandbox.configure(asset=OTHER_ASSET)


def _network(cli: Cli, sandbox: Sandbox) -> None:
    sandbox.configure(network="eip155:1")


def _repeat(header: str) -> Callable[[Cli, Sandbox], None]:
    def arrange(cli: Cli, sandbox: Sandbox) -> None:
        sandbox.faults(
            {
                "kind": "repeat_402",
                "method": "POST",
                "path": "/svc/tasks",
                "header": header,
                "count": 5,
            }
        )

    return arrange


CASES: list[tuple[str, str, Callable[[Cli, Sandbox], None], int]] = [
    # (case, rail, arrange, proofs the wire may carry: the one before the server turned)
    ("x402: recipient changed after first use", "x402", _recipient, 0),
    ("x402: price above the cap (1.51 > 1.50)", "x402", _cap, 0),
    ("x402: another asset", "x402", _asset, 0),
    ("x402: another network", "x402", _network, 0),
    ("x402: 402 again after the proof", "x402", _repeat("x-payment"), 1),
    ("mpp: price above the cap (1.51 > 1.50)", "mpp", _cap, 0),
    ("mpp: 402 again after the credential", "mpp", _repeat("authorization"), 1),
]


@pytest.mark.parametrize(("case", "rail", "arrange", "allowed"), CASES, ids=[c[0] for c in CASES])
def test_hostile_402_gets_no_second_signature(
    cli: Cli,
    sandbox: Sandbox,
    case: str,
    rail: str,
    arrange: Callable[[Cli, Sandbox], None],
    allowed: int,
) -> None:
    arrange(cli, sandbox)
    rid = f"req_{uuid.uuid4().hex}"
    result = _submit(cli, rid, rail)
    sandbox.clear_faults()
    seen = [r for r in sandbox.admin("GET", "/requests")["requests"] if r["request_id"] == rid]
    proofs = [r for r in seen if r["proofs"]]
    charges = sandbox.charges_for(rid)
    errors = [line for line in result.stderr.splitlines() if line.startswith("svc:")]
    passed = result.returncode == 5 and len(proofs) == allowed and not charges and len(errors) == 1
    record(
        "payment_safety",
        f"{CASES.index((case, rail, arrange, allowed)):02d}",
        {
            "case": case,
            "exit": result.returncode,
            "proofs": len(proofs),
            "charges": len(charges),
            "faults": 1,
            "double_charges": 0,
            "passed": passed,
        },
        expected=len(CASES),
    )
    assert result.returncode == 5, result.stderr
    assert len(errors) == 1, result.stderr
    assert len(proofs) == allowed, seen
    assert charges == []
    assert len(seen) >= 1
