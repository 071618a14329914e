"""Settings read from one table (issue 33.3): a value is checked by the same parser wherever it
comes from (flag, environment, config file, `svc config set`), so what one door refuses the
others refuse too, and what one accepts the others accept."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import Cli

pytestmark = pytest.mark.e2e


def _write(cli: Cli, text: str) -> Path:
    path = cli.home / "config" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_hand_written_unknown_rail_names_its_line(bare_cli: Cli) -> None:
    """Before the table the file's list was taken as any strings and refused later, with no line."""
    path = _write(bare_cli, '[profiles.default]\nallowed_rails = ["x402", "cash"]\n')
    result = bare_cli("tasks")
    assert result.returncode == 2, result.stderr
    assert f"{path}:2: [profiles.default] allowed_rails: unknown rail 'cash'" in result.stderr
    assert "Traceback" not in result.stderr


def test_config_set_refuses_a_rail_that_does_not_exist(bare_cli: Cli) -> None:
    """It used to be written, and every later command then failed on the file."""
    result = bare_cli("config", "set", "allowed_rails", "card,cash")
    assert result.returncode == 2
    assert "allowed_rails: unknown rail 'cash' (x402, mpp, card)" in result.stderr
    assert not (bare_cli.home / "config" / "config.toml").exists()
    bare_cli.ok("tasks")  # nothing was written that breaks the next command


def test_a_runner_name_that_would_draw_on_the_terminal_is_refused_at_set(bare_cli: Cli) -> None:
    result = bare_cli("config", "set", "runner", "ci\x1b[2J")
    assert result.returncode == 2
    assert "runner must be a printable name of 1 to 64 characters" in result.stderr
    assert "\x1b" not in result.stderr


def test_zero_turns_the_duplicate_check_off_from_the_file_as_from_the_environment(
    bare_cli: Cli,
) -> None:
    """SVC_DUPLICATE_WINDOW=0 was accepted and `svc config set ... 0` refused: one parser now."""
    bare_cli.ok("config", "set", "duplicate_window_seconds", "0")
    got = bare_cli.ok("config", "get", "duplicate_window_seconds", "--json").json()
    assert got == {"key": "duplicate_window_seconds", "value": "0", "source": "profile default"}
    env = {"SVC_DUPLICATE_WINDOW": "-1"}
    result = bare_cli("config", "get", "duplicate_window_seconds", env=env)
    assert result.returncode == 2
    assert "duplicate_window_seconds (env SVC_DUPLICATE_WINDOW) must be positive" in result.stderr


def test_a_bad_rail_from_the_environment_is_one_line_naming_its_source(bare_cli: Cli) -> None:
    result = bare_cli("tasks", env={"SVC_PAY": "cash"})
    assert result.returncode == 2
    assert "pay (env SVC_PAY) must be one of x402, mpp, card, got 'cash'" in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2


def test_precedence_is_flag_then_environment_then_profile_then_default(bare_cli: Cli) -> None:
    bare_cli.ok("config", "set", "pay", "card")
    bare_cli.ok("config", "set", "base_url", "http://127.0.0.1:7")
    got = bare_cli.ok("config", "get", "pay", "--json", env={"SVC_PAY": "mpp"}).json()
    assert (got["value"], got["source"]) == ("mpp", "env SVC_PAY")
    got = bare_cli.ok("config", "get", "pay", "--json").json()
    assert (got["value"], got["source"]) == ("card", "profile default")
    flag = bare_cli.ok("--base-url", "http://127.0.0.1:8", "config", "get", "base_url", "--json")
    assert flag.json()["source"] == "flag"
    no_env = {"SVC_BASE_URL": ""}  # the fixture's own, which would win over the profile
    doc = bare_cli.ok("config", "list", "--json", env=no_env).json()
    listed = {row["key"]: row for row in doc["settings"]}
    assert listed["max_price_usd"]["source"] == "default"
    assert listed["max_price_usd"]["help"].endswith("(default 1.50)")
    assert listed["auth_base"]["value"] == "http://127.0.0.1:7/auth"  # follows the base URL


def test_tab_completes_the_config_keys(bare_cli: Cli) -> None:
    out = bare_cli.ok("__complete", "config", "set", "max_").stdout.splitlines()
    assert out == ["max_price_usd", "max_validity_seconds", "max_paid_per_hour", ":nofiles"]


@pytest.mark.parametrize("value", ["５", "2.5", "+1", "1001", "1e3", ""])
def test_a_count_setting_takes_only_ascii_digits_in_its_range(bare_cli: Cli, value: str) -> None:
    """The budgets' counts (issue 35) by the one count parser, from every door: `config set`
    and the environment alike refuse a fullwidth digit, a fraction, a sign or an exponent."""
    written = bare_cli("config", "set", "breaker_after", value)
    assert written.returncode == 2, written.stderr
    assert "breaker_after must be a whole number from 0 to 1000" in written.stderr
    env = bare_cli("config", "get", "breaker_after", env={"SVC_BREAKER_AFTER": value or " "})
    assert env.returncode == 2
    assert "breaker_after (env SVC_BREAKER_AFTER) must be a whole number" in env.stderr


def test_max_paid_per_hour_0_is_written_and_read_back_as_no_limit(bare_cli: Cli) -> None:
    bare_cli.ok("config", "set", "max_paid_per_hour", "0")
    got = bare_cli.ok("config", "get", "max_paid_per_hour", "--json").json()
    assert got["value"] is None and got["source"] == "profile default"  # 0: no limit
    bare_cli.ok("config", "set", "max_paid_per_hour", "12")
    assert str(bare_cli.ok("config", "get", "max_paid_per_hour", "--json").json()["value"]) == "12"


@pytest.mark.parametrize("value", ["0x12", "0x" + "g" * 40, "0x" + "１" * 40, "vitalik.eth"])
def test_a_signer_address_is_twenty_hex_bytes(bare_cli: Cli, value: str) -> None:
    written = bare_cli("config", "set", "signer_address", value)
    assert written.returncode == 2
    assert "signer_address must be a 0x-prefixed 20-byte hex address" in written.stderr
