"""A randomized fault storm over 200+ paid submissions: never a double charge, always a true ledger.

Every submission is a real `svc` process (x402 or MPP), a few at a time, each forked from one
that imported svc once (tests/forkserver.py: 200 start-ups were most of this test's time),
while random faults are armed: connections dropped before the server sees a request and after it committed
(paid requests only), 5xx, 429 with Retry-After, slow answers, and the payment errors that the
spec retries (provider unavailable) or pays afresh (settlement failed, identity invalid).
Submissions that end with an unknown outcome (exit 10) or unavailable (exit 9) are then resumed
with the same request id once the storm is over. Afterwards, for every request id: exactly one
charge in the sandbox's books, and the ledger says accepted with that charge's task.
"""

from __future__ import annotations

import os
import random
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from typing import Any

import pytest
from tests.conftest import Cli, Sandbox
from tests.ledger_reads import ledger_file, submissions

pytestmark = pytest.mark.e2e

SUBMISSIONS = int(os.environ.get("SVC_STORM_SUBMISSIONS", "200"))
# The soak's 1000 submissions took 314 s on a quiet machine: a fixed cap would cut a run on a
# loaded one short, so the cap grows with the storm (400 s for the default 200).
TIMEOUT_SECONDS = max(400, 100 + SUBMISSIONS)
WORKERS = 6
SEED = int(os.environ.get("SVC_STORM_SEED", str(int(time.time()))))


def _random_faults(rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    paid_header = rng.choice(["x-payment", "authorization"])
    http_faults = [
        {"kind": "drop_before", "path": "/svc/tasks", "method": "POST"},
        {"kind": "drop_after", "path": "/svc/tasks", "method": "POST", "header": paid_header},
        {"kind": "status", "status": rng.choice([500, 502, 503]), "path": "/svc/tasks"},
        {"kind": "status", "status": 429, "retry_after": 0, "path": "/svc/tasks"},
        {"kind": "delay", "seconds": 0.3, "path": "/svc/tasks"},
    ]
    pay_faults = [
        {"code": "payment_provider_unavailable"},
        {"code": "settlement_failed", "reason": "insufficient_funds"},
        {"code": "identity_invalid"},
    ]
    chosen_http = [f for f in http_faults if rng.random() < 0.35]
    chosen_pay = [f for f in pay_faults if rng.random() < 0.15]
    return chosen_http, chosen_pay


@pytest.mark.timeout(TIMEOUT_SECONDS)
def test_fault_storm_never_double_charges(cli: Cli, forked_cli: Cli, sandbox: Sandbox) -> None:
    rng = random.Random(SEED)
    jobs = []
    for i in range(SUBMISSIONS):
        rail = "mpp" if i % 2 else "x402"
        jobs.append((f"req_storm_{uuid.uuid4().hex}", rail, f"storm-{i}@example.com"))

    def run(job: tuple[str, str, str]) -> int:
        rid, rail, email = job
        # Hundreds of paid tasks: far over a fresh home's daily cap, which the storm is not about.
        env = {"SVC_DAILY_CAP": "none"}
        if rail == "mpp":
            env["SVC_SPT"] = f"spt_test_{uuid.uuid4().hex}"
        result = forked_cli(  # concurrent processes, one ledger
            "submit",
            f"Storm {rid} #complete",
            "--email",
            email,
            "--request-id",
            rid,
            "--pay",
            rail,
            env=env,
            timeout=120,
        )
        return result.returncode

    started = time.monotonic()
    codes: dict[str, int] = {}
    batch = WORKERS
    with ThreadPoolExecutor(WORKERS) as pool:
        for start in range(0, len(jobs), batch):
            http_faults, pay_faults = _random_faults(rng)
            if http_faults:
                sandbox.faults(*http_faults)
            if pay_faults:
                sandbox.admin("POST", "/payment-faults", json={"faults": pay_faults})
            chunk = jobs[start : start + batch]
            for job, code in zip(chunk, pool.map(run, chunk), strict=True):
                codes[job[0]] = code
            # Double charges can only show up now, before any resume: check every batch.
            charged = [c["request_id"] for c in sandbox.books()["charges"]]
            assert len(charged) == len(set(charged)), f"double charge (seed {SEED})"
    sandbox.clear_faults()
    sandbox.admin("DELETE", "/payment-faults")
    storm_seconds = time.monotonic() - started

    outcomes: dict[int, int] = {}
    for code in codes.values():
        outcomes[code] = outcomes.get(code, 0) + 1
    assert set(outcomes) <= {0, 5, 9, 10}, f"unexpected exit codes {outcomes} (seed {SEED})"

    # Resume everything that did not end accepted, with the same request id (and, for MPP, no
    # token at all when a credential is journaled: a resume must never need a new payment).
    for rid, rail, email in jobs:
        if codes[rid] == 0:
            continue
        # Hundreds of paid tasks: far over a fresh home's daily cap, which the storm is not about.
        env = {"SVC_DAILY_CAP": "none"}
        if rail == "mpp":
            env["SVC_SPT"] = f"spt_test_{uuid.uuid4().hex}"
        result = cli(
            "submit",
            f"Storm {rid} #complete",
            "--email",
            email,
            "--request-id",
            rid,
            "--pay",
            rail,
            env=env,
        )
        assert result.returncode == 0, f"{rid}: {result.stderr} (seed {SEED})"

    books = sandbox.books()
    by_request: dict[str, list[dict[str, Any]]] = {}
    for charge in books["charges"]:
        by_request.setdefault(charge["request_id"], []).append(charge)
    rows = {r.request_id: asdict(r) for r in submissions(ledger_file(cli.home))}
    for rid, rail, _ in jobs:
        charges = by_request.get(rid, [])
        assert len(charges) == 1, f"{rid}: {len(charges)} charges (seed {SEED})"
        row = rows[rid]
        assert row["status"] == "accepted" and row["task_id"] == charges[0]["task_id"], (rid, row)
        assert row["method"] == rail == charges[0]["method"]
        # an MPP credential carries the SPT, so the ledger keeps only its fingerprint (issue 12)
        assert row["proof"] if rail == "x402" else (row["proof_fp"] and not row["proof"])
        assert row["amount_atomic"] == charges[0]["amount_atomic"]
    print(
        f"\nfault storm: {SUBMISSIONS} paid submissions in {storm_seconds:.1f} s, first-run exit "
        f"codes {outcomes}, {len(books['charges'])} charges, 0 double charges (seed {SEED})"
    )
