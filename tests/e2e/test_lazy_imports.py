"""Start-up stays lean: `--help` and `poll` never import the signing stack, keyring or
OpenTelemetry.

Checked with `python -X importtime`, which lists every module a run imported.
"""

from __future__ import annotations

import subprocess
import sys
import uuid

import pytest
from tests.conftest import Cli, unique_email

# opentelemetry: only when the OTEL_ variables ask for traces (tests/e2e/test_telemetry.py).
HEAVY = (
    "eth_account",
    "keyring",
    "svc_sandbox",
    "fastapi",
    "uvicorn",
    "mcp",
    "mcp_types",
    "opentelemetry",
)


def imported_module_names(args: list[str], env: dict[str, str]) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "svc", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    return {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


# What a command may need, never what `--help` loads: the ledger (and sqlite3), the config file
# reader (tomllib), the money path, the output shaping and pager, the tables.
NOT_FOR_HELP = (
    "sqlite3",
    "tomllib",
    "svc.store.ledger",
    "svc.store.config",
    "svc.pay",
    "svc.ui.shape",
    "svc.ui.pager",
    "svc.ui.tables",
)


def imported_modules(args: list[str], env: dict[str, str]) -> set[str]:
    """The top-level packages a run imported."""
    names = {name.split(".")[0] for name in imported_module_names(args, env)}
    assert names, f"no import lines for {args}"
    return names


def test_help_loads_nothing_a_command_only_may_need(bare_cli: Cli) -> None:
    loaded = imported_module_names(["--help"], bare_cli.env)
    assert "svc.cli.app" in loaded  # it did build the help
    assert not loaded & set(NOT_FOR_HELP), sorted(loaded & set(NOT_FOR_HELP))


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["poll", "--help"]])
def test_help_and_version_do_not_import_heavy_modules(bare_cli: Cli, args: list[str]) -> None:
    loaded = imported_modules(args, bare_cli.env)
    assert not loaded & set(HEAVY), loaded & set(HEAVY)


def test_poll_does_not_import_the_signing_stack_or_keyring(cli: Cli) -> None:
    rid = f"req_{uuid.uuid4().hex}"
    task = cli.ok(
        "submit", "Lean poll #complete", "--email", unique_email(), "--request-id", rid
    ).json()
    loaded = imported_modules(["poll", task["id"], "--json"], cli.env)
    assert "httpx" in loaded  # it did make the request
    assert not loaded & set(HEAVY), loaded & set(HEAVY)
