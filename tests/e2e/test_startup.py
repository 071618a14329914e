"""Import rules of the start-up paths (not timings: `make bench` measures those).

Each case runs `python -X importtime -m svc ...` and reads the modules it imported from stderr,
so the test sees exactly what a user's invocation loads.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from tests.conftest import Cli, Sandbox, unique_email

pytestmark = pytest.mark.e2e

NEVER = {
    "eth_account",
    "eth_keyfile",
    "keyring",
    "pympp",
    "mpp",
    "svc_sandbox",
    "fastapi",
    "uvicorn",
    "mcp",
    "mcp_types",
}
HEAVY = {"typer", "pydantic", "rich", "click"}


def imported(
    args: list[str], env: dict[str, str]
) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "svc", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    modules = set()
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            modules.add(name.split(".")[0])
    return modules, proc


def _env(cli: Cli, **extra: str) -> dict[str, str]:
    return {**cli.env, **extra}


def test_version_imports_nothing_heavy(bare_cli: Cli) -> None:
    modules, proc = imported(["--version"], bare_cli.env)
    assert proc.returncode == 0
    assert proc.stdout == "svc 0.1.0\n" or proc.stdout.startswith("svc ")
    assert not modules & (NEVER | HEAVY | {"httpx"}), modules & (NEVER | HEAVY | {"httpx"})


def test_help_imports_no_payment_sandbox_or_rich(bare_cli: Cli) -> None:
    modules, proc = imported(["--help"], bare_cli.env)
    assert proc.returncode == 0
    assert "Commands" in proc.stdout and "poll" in proc.stdout
    assert not modules & (NEVER | {"pydantic", "rich", "httpx"})


def test_completion_imports_no_command_module(cli: Cli, sandbox: Sandbox) -> None:
    task = cli.ok("submit", "startup #slow", "--email", unique_email(), "--json").json()
    modules, proc = imported(["__complete", "poll", ""], cli.env)
    assert proc.returncode == 0
    assert f"{task['id']}\t" in proc.stdout
    assert proc.stdout.endswith(":nofiles\n")
    assert not modules & (NEVER | HEAVY | {"httpx"}), modules & (NEVER | HEAVY | {"httpx"})
    assert not any(
        line.startswith("import time:") and ("svc.commands" in line or "svc.engines" in line)
        for line in proc.stderr.splitlines()
    )


def test_completion_table_is_current() -> None:
    from tools import completion_table as complete_gen

    assert complete_gen.main(["--check"]) == 0, "run: python -m tools.completion_table"
