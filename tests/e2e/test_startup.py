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


def test_poll_json_fast_path_imports_no_typer_pydantic_or_rich(cli: Cli, sandbox: Sandbox) -> None:
    task = cli.ok("submit", "startup #slow", "--email", unique_email(), "--json").json()
    modules, proc = imported(["poll", task["id"], "--json"], cli.env)
    assert proc.returncode == 0, proc.stderr
    assert '"id": "' + task["id"] in proc.stdout
    assert not modules & (NEVER | HEAVY), modules & (NEVER | HEAVY)
    # Piped stdout is JSON mode too: the fast path must take it as well.
    modules, proc = imported(["--base-url", sandbox.url, "poll", task["id"]], cli.env)
    assert proc.returncode == 0
    assert not modules & (NEVER | HEAVY)


@pytest.mark.parametrize(
    "args",
    [
        ["poll", "{id}", "--json"],
        ["--json", "poll", "{id}", "--exit-status"],
        ["poll", "task_nope", "--json"],
        ["poll", "{id}", "--base-url=http://127.0.0.1:9", "--json"],
        ["poll", "{id}", "--base-url", "ftp://x", "--json"],
        ["--version"],
    ],
)
def test_fast_path_matches_full_app(cli: Cli, sandbox: Sandbox, args: list[str]) -> None:
    task = cli.ok("submit", "startup #slow", "--email", unique_email(), "--json").json()
    argv = [a.replace("{id}", task["id"]) for a in args]
    fast = cli(*argv)
    full = cli(*argv, env={"SVC_NO_FASTPATH": "1"})
    assert (fast.returncode, fast.stdout, fast.stderr) == (
        full.returncode,
        full.stdout,
        full.stderr,
    )


def test_completion_table_is_current() -> None:
    from tools import completion_table as complete_gen

    assert complete_gen.main(["--check"]) == 0, "run: python -m tools.completion_table"


def test_fast_path_leaves_unusual_arguments_to_the_full_app() -> None:
    from svc.cli.fastpath import parse_poll

    assert parse_poll(["poll", "t1", "--json"]) == ({"json_output": True}, "t1", False)
    assert parse_poll(["--base-url=http://h", "poll", "t1", "--exit-status"]) == (
        {"base_url": "http://h"},
        "t1",
        True,
    )
    for argv in (
        ["poll"],
        ["poll", "a", "b"],
        ["poll", "--help", "a"],
        ["poll", "--", "a"],
        ["--exit-status", "poll", "a"],
        ["poll", "a", "--base-url"],
        ["poll", "a", "--base-url", ""],
        ["poll", "a", "--bogus"],
        ["watch", "a"],
    ):
        assert parse_poll(argv) is None, argv
