"""A config file is strict (issue 15): unknown tables, keys, profiles and bad values are one
line naming the file and line (exit 2), never silently ignored, since a dropped money limit
pays what the person meant to refuse."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from tests.conftest import Cli, Sandbox, unique_email

pytestmark = pytest.mark.e2e


def _write(cli: Cli, text: str) -> Path:
    path = cli.home / "config" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _submit(cli: Cli, *extra: str) -> tuple[str, int, str]:
    rid = f"req_{uuid.uuid4().hex}"
    result = cli(
        *extra, "submit", "Strict #complete", "--email", unique_email(), "--request-id", rid
    )
    return rid, result.returncode, result.stderr


def test_a_limit_in_the_wrong_table_stops_everything_and_nothing_is_paid(
    cli: Cli, sandbox: Sandbox
) -> None:
    path = _write(cli, "# my limits\n[default]\nmax_price_usd = 0.5\n")
    rid, code, err = _submit(cli)
    assert code == 2, err
    assert f"{path}:2: unknown table or key 'default'" in err and "[profiles.default]" in err
    assert len(err.strip().splitlines()) == 2 and err.splitlines()[1].startswith("hint: ")
    assert sandbox.charges_for(rid) == []


def test_the_same_limit_where_it_belongs_is_honoured(cli: Cli, sandbox: Sandbox) -> None:
    _write(cli, "[profiles.default]\nmax_price_usd = 0.5\n")
    rid, code, err = _submit(cli)
    assert code == 5 and "above the limit 0.50 USD" in err, err
    assert sandbox.charges_for(rid) == []


def test_an_unknown_key_names_its_line_and_the_key_meant(bare_cli: Cli) -> None:
    path = _write(bare_cli, '[profiles.default]\nemail = "a@example.com"\nmax_pricee_usd = 0.5\n')
    result = bare_cli("--json", "tasks")
    assert result.returncode == 2
    doc = result.json()
    assert doc["error"] == "bad_config" and doc["exit_code"] == 2
    assert doc["detail"].startswith(f"{path}:3: unknown key 'max_pricee_usd'")
    assert "did you mean 'max_price_usd'?" in doc["detail"]


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ('max_price_usd = "lots"', "max_price_usd must be a USD amount"),
        ("max_price_usd = -1", "max_price_usd must be a non-negative USD amount"),
        ('allowed_networks = "eip155:8453"', "allowed_networks must be a list of strings"),
        ("daily_cap_usd = true", "daily_cap_usd must be text or a number"),
        ('pay = "cash"', "pay must be one of x402, mpp, card"),
    ],
)
def test_bad_values_are_refused_with_their_line(bare_cli: Cli, line: str, needle: str) -> None:
    path = _write(bare_cli, f"[profiles.work]\n\n{line}\n")
    result = bare_cli("--profile", "work", "tasks")
    assert result.returncode == 2 and f"{path}:3: [profiles.work] {needle}" in result.stderr


def test_a_profile_that_does_not_exist_is_a_mistake(bare_cli: Cli) -> None:
    _write(bare_cli, "[profiles.work]\nmax_price_usd = 0.5\n")
    for args, env in ((("--profile", "wrok"), None), ((), {"SVC_PROFILE": "wrok"})):
        result = bare_cli(*args, "tasks", env=env)
        assert result.returncode == 2
        assert (
            "profile 'wrok' is not in" in result.stderr and "did you mean 'work'?" in result.stderr
        )
    # The default profile may be absent, and `config set` creates the profile it names.
    bare_cli.ok("tasks")
    bare_cli.ok("--profile", "new", "config", "set", "max_price_usd", "0.25")
    got = bare_cli.ok("--profile", "new", "--json", "config", "get", "max_price_usd").json()
    assert got["value"] == "0.25" and got["source"] == "profile new"


def test_help_and_config_path_still_work_to_fix_a_broken_file(bare_cli: Cli) -> None:
    path = _write(bare_cli, "[profiles.default]\nfoo = 1\n")
    assert bare_cli.ok("config", "path").stdout.strip() == str(path)
    assert "SVC_MAX_PRICE" in bare_cli.ok("help", "environment").stdout
    assert bare_cli("config", "list").returncode == 2
