"""Safe defaults (issue 29.8): a fresh home has a daily cap, `none` removes it on purpose and
`svc doctor` says so; on a fleet the cap's one value lives in the fleet's ledger and every
runner obeys it, whatever its own value."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SVC, Cli, Sandbox, _base_env, unique_email, unique_request_id

pytestmark = pytest.mark.e2e

FIVE_USD = 5_000_000  # three tasks fill the default 15.00 USD cap


def pay(cli: Cli, env: dict[str, str] | None = None) -> Any:
    rid = unique_request_id()
    args = ["submit", "Capped #complete", "--email", unique_email(), "--request-id", rid]
    return cli(*args, "--max-price", "5", "--json", env=env or {})


def money_finding(cli: Cli, env: dict[str, str] | None = None) -> dict[str, Any]:
    doctor = cli("doctor", "--json", env=env or {}).json()
    return dict(next(c for c in doctor["checks"] if c["check"] == "money"))


def test_a_fresh_home_stops_at_15_usd_a_day(cli: Cli, sandbox: Sandbox) -> None:
    sandbox.configure(price_atomic=FIVE_USD)
    assert cli.ok("config", "get", "daily_cap_usd", "--json").json() == {
        "key": "daily_cap_usd",
        "value": "15.00",
        "source": "default",
    }
    assert [pay(cli).returncode for _ in range(3)] == [0, 0, 0]
    refused = pay(cli)
    assert refused.returncode == 5 and refused.json()["error"] == "daily_cap_exceeded"
    assert "daily cap of 15.00 USD" in refused.stderr
    finding = money_finding(cli)
    assert (
        finding["status"] == "ok"
        and "daily cap 15.00 USD (default), 0.00 USD left" in finding["detail"]
    )


@pytest.mark.parametrize("how", ["env", "config"])
def test_none_removes_the_cap_on_purpose_and_doctor_warns(
    cli: Cli, sandbox: Sandbox, how: str
) -> None:
    sandbox.configure(price_atomic=FIVE_USD)
    env = {"SVC_DAILY_CAP": "none"} if how == "env" else {}
    if how == "config":
        cli.ok("config", "set", "daily_cap_usd", "none")
        assert 'daily_cap_usd = "none"' in (cli.home / "config" / "config.toml").read_text()
    assert cli.ok("config", "get", "daily_cap_usd", env=env).json()["value"] == "none"
    assert [pay(cli, env).returncode for _ in range(4)] == [0, 0, 0, 0]
    finding = money_finding(cli, env)
    assert finding["status"] == "warn" and "no daily cap" in finding["detail"]
    assert "svc config set daily_cap_usd" in str(finding["fix"])


def test_a_cap_that_is_not_an_amount_or_none_is_refused(cli: Cli) -> None:
    refused = cli("config", "set", "daily_cap_usd", "unlimited")
    assert refused.returncode == 2 and "none" in refused.stderr
    broken = cli("spend", env={"SVC_DAILY_CAP": "off"})
    assert broken.returncode == 2 and "SVC_DAILY_CAP" in broken.stderr


def test_doctor_warns_on_a_fresh_machine_without_a_cap(bare_cli: Cli) -> None:
    finding = money_finding(bare_cli, {"SVC_DAILY_CAP": "none"})
    assert finding["status"] == "warn" and "no daily cap" in finding["detail"]


# --- the fleet: one value in the fleet's ledger ----------------------------------------------


def runner(cli: Cli, tmp_path: Path, name: str, pg_url: str, sandbox: Sandbox, cap: str) -> Cli:
    """A runner of its own (its own home and data dir, the fleet's wallet), with its own cap."""
    home = tmp_path / name
    shutil.copytree(cli.home, home)
    env = {
        **_base_env(home),
        "SVC_BASE_URL": sandbox.url,
        "SVC_LEDGER_URL": pg_url,
        "SVC_RUNNER": name,
        "SVC_DAILY_CAP": cap,
    }
    return Cli(home, env)


def batch_file(tmp_path: Path, name: str, count: int) -> Path:
    email = unique_email()
    path = tmp_path / f"{name}.jsonl"
    lines = [
        {"task": f"Fleet cap {name} {i}", "email": email, "request_id": unique_request_id()}
        for i in range(count)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.mark.timeout(300)
def test_two_runners_with_different_caps_obey_the_fleets_one_value(
    cli: Cli, sandbox: Sandbox, pg_url: str, tmp_path: Path
) -> None:
    low = runner(cli, tmp_path, "runner-low", pg_url, sandbox, "3")  # alone: 2 tasks
    high = runner(cli, tmp_path, "runner-high", pg_url, sandbox, "30")  # alone: all 8
    set_it = low.ok("config", "set", "daily_cap_usd", "6", "--fleet", "--json").json()
    assert set_it == {"fleet": True, "key": "daily_cap_usd", "value": "6"}
    assert not (low.home / "config" / "config.toml").exists()  # the fleet's, not a profile's
    procs = [
        subprocess.Popen(
            [SVC, "submit", "--from", str(batch_file(tmp_path, r.home.name, 4)), "--json"],
            env=r.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for r in (low, high)
    ]
    outputs = [p.communicate(timeout=240) for p in procs]
    charged = Counter(c["request_id"] for c in sandbox.books()["charges"])
    paid = [json.loads(line) for out, _ in outputs for line in out.splitlines() if line.strip()]
    mine = [line for line in paid if line.get("request_id") in charged]
    assert len(mine) == 4, outputs  # 6.00 USD: four tasks in all, whoever paid them
    for (_, err), name, own in zip(outputs, ("low", "high"), ("3.00", "30.00"), strict=True):
        told = [line for line in err.splitlines() if "fleet's daily cap" in line]
        assert len(told) == 1, err  # once per process, not once per worker or per line
        assert f"{own} USD" in told[0] and "6.00 USD" in told[0], (name, told)
    spend = high.ok("spend", "--json").json()["cap"]
    assert (spend["daily_cap_usd"], spend["source"]) == ("6.000000", "fleet ledger")
    assert spend["exposed_today_usd"] == "6.000000"
    finding = money_finding(high)
    assert "daily cap 6.00 USD (fleet ledger)" in finding["detail"]


def test_the_fleet_value_can_be_none_and_unset(
    cli: Cli, sandbox: Sandbox, pg_url: str, tmp_path: Path
) -> None:
    one = runner(cli, tmp_path, "runner-1", pg_url, sandbox, "1")  # alone: nothing fits
    one.ok("config", "set", "daily_cap_usd", "none", "--fleet")
    assert one(*pay_args()).returncode == 0  # the fleet said: no cap
    finding = money_finding(one)
    assert finding["status"] == "warn" and "no daily cap (fleet ledger)" in finding["detail"]
    one.ok("config", "unset", "daily_cap_usd", "--fleet")
    refused = one(*pay_args())
    assert refused.returncode == 5 and "daily cap of 1.00 USD" in refused.stderr


def pay_args() -> list[str]:
    return ["submit", "Fleet none #complete", "--email", unique_email(), "--json"]


def test_fleet_is_for_the_cap_on_a_fleet_only(cli: Cli, pg_url: str) -> None:
    alone = cli("config", "set", "daily_cap_usd", "9", "--fleet")
    assert alone.returncode == 2 and "ledger_url" in alone.stderr
    other = cli("config", "set", "max_price_usd", "9", "--fleet", env={"SVC_LEDGER_URL": pg_url})
    assert other.returncode == 2 and "daily_cap_usd" in other.stderr
    bad = cli("config", "set", "daily_cap_usd", "lots", "--fleet", env={"SVC_LEDGER_URL": pg_url})
    assert bad.returncode == 2 and "none" in bad.stderr


@pytest.mark.parametrize("cap", ["1.0000001", "9" * 5000])
def test_a_cap_finer_than_a_micro_dollar_or_endless_is_one_usage_line(cli: Cli, cap: str) -> None:
    """More than six decimals has no meaning in micro-USD: it was accepted as a setting, then
    every payment and `svc spend` died as an internal error (exit 1) when it was converted;
    and a 5,000-digit value was repeated whole in the refusal."""
    result = cli("spend", "--json", env={"SVC_DAILY_CAP": cap})
    assert result.returncode == 2, result.stderr
    error = result.json()
    assert error["exit_code"] == 2 and "daily_cap_usd (env SVC_DAILY_CAP)" in error["detail"], error
    assert "internal error" not in result.stderr and len(result.stderr) < 600, result.stderr
