"""Start-up stays lean: `--help` and `poll` never import the signing stack or keyring.

Checked with `python -X importtime`, which lists every module a run imported.
"""

from __future__ import annotations

import subprocess
import sys
import uuid

import pytest
from tests.conftest import Cli, unique_email

HEAVY = ("eth_account", "keyring", "svc_sandbox", "fastapi", "uvicorn", "mcp", "mcp_types")


def imported_modules(args: list[str], env: dict[str, str]) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "svc", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    names = set()
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    assert names, proc.stderr[-500:]
    return names


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
