"""`--profile NAME` creates its profile where a command writes one (issue 52): `svc wallet
create|import --profile work` on a fresh config stores the key and adds [profiles.work], and
`svc config set` says when it adds a profile, in the same one line on stderr; a command that
only reads still refuses a profile the file does not hold (a typo must not drop a limit)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from tests.conftest import TEST_ADDRESS, TEST_KEY, Cli

pytestmark = pytest.mark.e2e


def _config(cli: Cli) -> Path:
    return cli.home / "config" / "config.toml"


def _created_line(cli: Cli, name: str) -> str:
    return f"svc: created profile '{name}' in {_config(cli)}"


def _profiles(cli: Cli) -> dict[str, object]:
    return dict(tomllib.loads(_config(cli).read_text()).get("profiles", {}))


def test_wallet_create_adds_the_profile_it_names(bare_cli: Cli) -> None:
    made = bare_cli("wallet", "create", "--json", "--profile", "work")
    assert made.returncode == 0, made.stderr
    assert made.json()["profile"] == "work"
    assert made.stderr.count(_created_line(bare_cli, "work")) == 1
    assert "work" in _profiles(bare_cli)
    # The profile now exists for every command, and the second create says nothing new.
    shown = bare_cli.ok("wallet", "address", "--json", "--profile", "work").json()
    assert shown["address"] == made.json()["address"]
    again = bare_cli("wallet", "create", "--profile", "work")
    assert again.returncode == 2 and "created profile" not in again.stderr


def test_wallet_import_adds_the_profile_it_names(bare_cli: Cli) -> None:
    env = {"SVC_PROFILE": "ci"}  # named by the environment: the same as --profile
    stored = bare_cli("wallet", "import", "--json", input=TEST_KEY + "\n", env=env)
    assert stored.returncode == 0, stored.stderr
    assert stored.json()["address"] == TEST_ADDRESS
    assert _created_line(bare_cli, "ci") in stored.stderr
    assert "ci" in _profiles(bare_cli)


def test_a_refused_key_creates_no_profile(bare_cli: Cli) -> None:
    bad = bare_cli("wallet", "import", "--profile", "work", input="not-a-key\n")
    assert bad.returncode == 2 and "not a usable private key" in bad.stderr
    assert "created profile" not in bad.stderr
    assert not _config(bare_cli).exists()


def test_config_set_says_when_it_creates_a_profile(bare_cli: Cli) -> None:
    first = bare_cli.ok("config", "set", "max_price_usd", "0.25", "--profile", "work")
    assert first.stderr.count(_created_line(bare_cli, "work")) == 1
    second = bare_cli.ok("config", "set", "max_price_usd", "0.30", "--profile", "work")
    assert "created profile" not in second.stderr
    # The default profile always exists: writing its first key creates nothing to announce.
    default = bare_cli.ok("config", "set", "max_price_usd", "0.40")
    assert "created profile" not in default.stderr
    # A refused value writes nothing, and so creates no profile.
    refused = bare_cli("config", "set", "max_price_usd", "abc", "--profile", "other")
    assert refused.returncode == 2 and "other" not in _profiles(bare_cli)


def test_reading_commands_still_refuse_an_unknown_profile(bare_cli: Cli) -> None:
    bare_cli.ok("wallet", "create", "--profile", "work")
    for args in (("spend",), ("wallet", "address"), ("config", "list")):
        typo = bare_cli(*args, "--profile", "wrok")
        assert typo.returncode == 2, args
        assert "profile 'wrok' is not in" in typo.stderr and "did you mean 'work'?" in typo.stderr
    assert set(_profiles(bare_cli)) == {"work"}
