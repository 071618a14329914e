"""A wallet per profile (issue 33.1): two profiles, two keys, two addresses; a profile without
a key of its own never borrows another's; the key an earlier release stored (the 0600 file and
the OS keyring layouts) is the default profile's after an upgrade, with nothing moved."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import (
    TEST_ADDRESS,
    TEST_KEY,
    Cli,
    Sandbox,
    _base_env,
    unique_email,
    unique_request_id,
)
from tests.person import finish, spawn_person

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
OTHER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
OTHER_ADDRESS = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"


def new_profile(cli: Cli, name: str) -> None:
    cli.ok("config", "set", "max_price_usd", "1.50", "--profile", name)


def address(cli: Cli, *args: str, **kw: Any) -> Any:
    return cli("wallet", "address", "--json", *args, **kw)


def secrets_file(cli: Cli) -> dict[str, str]:
    return dict(json.loads((cli.home / "config" / "secrets.json").read_text()))


def test_two_profiles_have_two_wallets(cli: Cli, sandbox: Sandbox) -> None:
    new_profile(cli, "prod")
    made = cli.ok("wallet", "create", "--json", "--profile", "prod").json()
    assert made["profile"] == "prod" and made["address"] != TEST_ADDRESS
    assert address(cli, "--profile", "prod").json()["address"] == made["address"]
    assert address(cli).json()["address"] == TEST_ADDRESS  # the default's is untouched
    again = cli("wallet", "create", "--profile", "prod")
    assert again.returncode == 2 and "already stored for profile 'prod'" in again.stderr
    # Each pays from its own address.
    for profile, payer in (("prod", made["address"]), ("default", TEST_ADDRESS)):
        rid = unique_request_id()
        cli.ok("submit", "Pay #complete", "--email", unique_email(), "--request-id", rid,
               "--profile", profile)  # fmt: skip
        assert [c["payer"].lower() for c in sandbox.charges_for(rid)] == [payer.lower()]


def test_import_goes_to_the_profile_named(cli: Cli) -> None:
    new_profile(cli, "ci")
    cli.ok("wallet", "import", "--profile", "ci", input=OTHER_KEY + "\n")
    assert address(cli, "--profile", "ci").json()["address"] == OTHER_ADDRESS
    assert address(cli).json()["address"] == TEST_ADDRESS
    stored = secrets_file(cli)
    assert stored["wallet_key"] == TEST_KEY and stored["wallet_key@ci"] == OTHER_KEY


def test_a_profile_without_a_key_never_borrows(cli: Cli, sandbox: Sandbox) -> None:
    new_profile(cli, "empty")
    result = address(cli, "--profile", "empty")
    assert result.returncode == 5 and "no wallet to pay with for profile 'empty'" in result.stderr
    assert "svc wallet create --profile empty" in result.stderr  # its own, not the default's
    rid = unique_request_id()
    paid = cli("submit", "Pay #complete", "--email", unique_email(), "--request-id", rid,
               "--profile", "empty")  # fmt: skip
    assert paid.returncode == 5 and TEST_ADDRESS not in paid.stderr
    assert sandbox.charges_for(rid) == []


def test_the_environment_key_still_wins_for_ci(cli: Cli) -> None:
    """The contract's SVC_WALLET_KEY: the key of whichever profile stores keys."""
    new_profile(cli, "empty")
    env = {"SVC_WALLET_KEY": OTHER_KEY}
    doc = address(cli, "--profile", "empty", env=env).json()
    assert doc["address"] == OTHER_ADDRESS and doc["source"] == "environment (SVC_WALLET_KEY)"


def test_signer_env_reads_only_the_environment(cli: Cli) -> None:
    new_profile(cli, "ci")
    cli.ok("config", "set", "signer", "env", "--profile", "ci")
    missing = address(cli, "--profile", "ci")
    assert missing.returncode == 5 and "SVC_WALLET_KEY is not set" in missing.stderr
    assert TEST_ADDRESS not in missing.stdout + missing.stderr  # the stored key is not its
    doc = address(cli, "--profile", "ci", env={"SVC_WALLET_KEY": OTHER_KEY}).json()
    assert doc["address"] == OTHER_ADDRESS


def test_wallet_list_shows_each_profile_and_where_its_key_lives(cli: Cli) -> None:
    new_profile(cli, "prod")
    new_profile(cli, "empty")
    cli.ok("wallet", "import", "--profile", "prod", input=OTHER_KEY + "\n")
    signer = "command:" + shlex.join([sys.executable, "/opt/signer.py"])
    cli.ok("config", "set", "signer", signer, "--profile", "ext")
    cli.ok("config", "set", "signer_address", TEST_ADDRESS, "--profile", "ext")
    rows = {w["profile"]: w for w in cli.ok("wallet", "list", "--json").json()["wallets"]}
    assert set(rows) == {"default", "prod", "empty", "ext"}
    assert (rows["default"]["address"], rows["default"]["source"]) == (TEST_ADDRESS, "file")
    assert (rows["prod"]["address"], rows["prod"]["source"]) == (OTHER_ADDRESS, "file")
    assert rows["empty"]["address"] is None
    # The program's name and first word, never its paths or further arguments (a secret may
    # ride in them): the one description of a signer, svc.pay.signers.described.
    assert rows["ext"]["address"] == TEST_ADDRESS
    assert rows["ext"]["source"] == "signer command:" + Path(sys.executable).name + " signer.py"
    person = spawn_person(cli, "wallet", "list", env={"SVC_PAGER": ""})
    table = person.read()
    assert finish(person) == 0
    assert "(no wallet)" in table and OTHER_ADDRESS in table and "signer command:" in table
    in_ci = cli.ok("wallet", "list", "--json", env={"SVC_WALLET_KEY": OTHER_KEY}).json()
    sources = {w["profile"]: w["source"] for w in in_ci["wallets"]}
    assert sources["empty"] == "environment (SVC_WALLET_KEY)" and sources["ext"].startswith(
        "signer"
    )


# --- an upgrade: the stores an earlier release wrote ------------------------------------------


def test_the_file_store_of_an_earlier_release_is_the_default_profiles(tmp_path: Path) -> None:
    """secrets.json as every release before 33 wrote it: one `wallet_key` entry, mode 0600."""
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True, mode=0o700)
    old = home / "config" / "secrets.json"
    old.write_text(json.dumps({"wallet_key": TEST_KEY, "identity:http://x/auth": "{}"}))
    old.chmod(0o600)
    cli = Cli(home, _base_env(home))
    assert address(cli).json()["address"] == TEST_ADDRESS
    new_profile(cli, "prod")
    assert address(cli, "--profile", "prod").returncode == 5
    cli.ok("wallet", "create", "--profile", "prod")
    stored = secrets_file(cli)
    assert stored["wallet_key"] == TEST_KEY  # an older svc still finds the default's key
    assert set(stored) == {"wallet_key", "wallet_key@prod", "identity:http://x/auth"}


def test_the_keyring_of_an_earlier_release_is_the_default_profiles(tmp_path: Path) -> None:
    """The OS keyring's entry as every release before 33 wrote it: service svc, user wallet_key."""
    home = tmp_path / "home"
    home.mkdir()
    ring = tmp_path / "keyring.json"
    ring.write_text(json.dumps({"svc": {"wallet_key": TEST_KEY}}))
    env = {k: v for k, v in _base_env(home).items() if k != "SVC_KEYRING"}
    env.update(
        PYTHON_KEYRING_BACKEND="tests.fake_keyring.FileKeyring",
        FAKE_KEYRING_FILE=str(ring),
        PYTHONPATH=str(REPO),
        DBUS_SESSION_BUS_ADDRESS="unix:path=/nonexistent",
    )
    cli = Cli(home, env)
    doc = address(cli).json()
    assert doc["address"] == TEST_ADDRESS and doc["source"] == "keyring"
    new_profile(cli, "prod")
    assert address(cli, "--profile", "prod").returncode == 5
    cli.ok("wallet", "import", "--profile", "prod", input=OTHER_KEY + "\n")
    assert json.loads(ring.read_text()) == {
        "svc": {"wallet_key": TEST_KEY, "wallet_key@prod": OTHER_KEY}
    }
    assert not (home / "config" / "secrets.json").exists()
    assert os.environ.get("FAKE_KEYRING_FILE") is None  # nothing leaked into this process
