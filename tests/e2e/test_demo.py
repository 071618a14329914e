"""`make demo` never touches the person's own set-up or live money (issue 29.7): whatever
`SVC_*` and `CI` say in the shell it is started from, it pays once, with its own throw-away
wallet, into its own SQLite ledger, against a sandbox on the test network."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import TEST_ADDRESS, TEST_KEY, _base_env

from svc.store.ledger import open_ledger

pytestmark = pytest.mark.e2e

DEMO = Path(__file__).resolve().parents[2] / "scripts" / "demo.py"


def hostile_env(home: Path, ledger_url: str) -> dict[str, str]:
    """A shell set up for real work: a funded key, the fleet's ledger, a cap the demo's one
    payment does not fit, and more that would each change what the demo does."""
    return {
        **_base_env(home),
        "SVC_WALLET_KEY": TEST_KEY,
        "SVC_LEDGER_URL": ledger_url,
        "SVC_DAILY_CAP": "0.10",
        "SVC_MAX_PRICE": "0.01",
        "SVC_PAY": "card",
        "SVC_PROFILE": "no-such-profile",
        "SVC_BASE_URL": "https://pay.example.invalid",
        "SVC_RUNNER": "prod-runner-1",
        "CI": "1",
    }


def run_demo(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(DEMO)],
        env=env,
        capture_output=True,
        text=True,
        timeout=170,
        check=False,
    )


def paid_by(out: str) -> str:
    found = re.search(r"paid once, by the demo's own wallet (0x[0-9a-fA-F]{40})", out)
    assert found, out[-3000:]
    return found.group(1)


@pytest.mark.timeout(180)
def test_the_demo_ignores_a_hostile_environment_and_pays_with_its_own_wallet(
    tmp_path: Path, pg_url: str
) -> None:
    result = run_demo(hostile_env(tmp_path / "home", pg_url))
    assert result.returncode == 0, (result.stdout[-2000:], result.stderr[-2000:])
    assert "Traceback" not in result.stderr
    assert paid_by(result.stdout).lower() != TEST_ADDRESS.lower()
    fleet = open_ledger(pg_url, "auditor")  # the fleet's books stay empty
    try:
        assert fleet.submissions() == [] and fleet.authorizations() == []
        assert fleet.pinned_recipients("http://127.0.0.1") == []
    finally:
        fleet.close()


@pytest.mark.timeout(180)
def test_the_demo_passes_with_an_unreachable_fleet_ledger_set(tmp_path: Path) -> None:
    env = hostile_env(tmp_path / "home", f"postgresql:///svc?host={tmp_path}")
    result = run_demo(env)
    assert result.returncode == 0, (result.stdout[-2000:], result.stderr[-2000:])
    assert paid_by(result.stdout).lower() != TEST_ADDRESS.lower()
