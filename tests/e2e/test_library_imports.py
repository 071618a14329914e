"""`import svc` and `from svc import Client` stay lean (issue 32.4): they load svc's few light
modules and none of the heavy packages, which arrive when a Client is built.

Checked with `python -X importtime`, which lists every module a run imported, as
tests/e2e/test_lazy_imports.py checks `svc --help`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import Cli

import svc

# What a program that only imports the name must not pay for (the start of `python -c pass`
# loads none of these either).
HEAVY = (
    "httpx",
    "pydantic",
    "rich",
    "typing",
    "re",
    "asyncio",
    "eth_account",
    "keyring",
    "sqlite3",
    "svc.context",
    "svc.engines.submit",
    "svc.client._work",
)


def imported(code: str, env: dict[str, str]) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def baseline(env: dict[str, str]) -> set[str]:
    return imported("pass", env)


@pytest.mark.parametrize(
    "code",
    ["import svc", "from svc import Client", "import svc; svc.__version__"],
)
def test_importing_the_client_loads_nothing_heavy(bare_cli: Cli, code: str) -> None:
    loaded = imported(code, bare_cli.env) - baseline(bare_cli.env)
    assert "svc" in loaded  # it did import svc
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))
    own = {name for name in loaded if name.startswith("svc")}
    client = {"svc.client", "svc.client._sync", "svc.client._generated"}
    assert own <= {"svc", "svc.version", *client}, sorted(own)


def test_the_client_module_is_what_from_svc_import_client_loads(bare_cli: Cli) -> None:
    # The test above would pass if the name did not resolve at all: prove it does, and that
    # the engines arrive once a client is built.
    code = (
        "import sys\nfrom svc import Client\nassert Client.__module__ == 'svc.client._sync'\n"
        "assert 'svc.client._work' not in sys.modules\n"
        "Client().close()\nassert 'svc.engines.submit' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], env=bare_cli.env, check=True)


def test_asking_for_an_error_class_loads_only_the_errors(bare_cli: Cli) -> None:
    loaded = imported("from svc import HumanNeeded, PolicyRefused", bare_cli.env)
    assert "svc.errors" in loaded
    assert not loaded & {"httpx", "pydantic", "rich", "svc.client._sync"}, loaded


TYPED_PROGRAM = """
from decimal import Decimal

import svc
from svc import Client, PaymentOffer, Secret, Task


def approve(offer: PaymentOffer) -> bool:
    return offer.amount_usd <= Decimal("2")


def run() -> str:
    with Client(approve=approve) as client:
        task: Task = client.submit("x", "a@example.com")
        for change in client.watch(task.id):
            if change.kind == "ask":
                client.reply(task.id, Secret("1"))
        try:
            client.get(task.id)
        except svc.HumanNeeded as need:
            return need.hint or ""
        return task.state


wrong: int = Client().get("task_1")
"""


def test_a_program_using_the_library_is_checked_by_mypy_strict(tmp_path: Path) -> None:
    """py.typed ships and the lazily loaded names are typed: mypy --strict accepts a program
    written against the public surface and finds the one mistake in it (a Task is no int)."""
    assert (Path(svc.__file__).parent / "py.typed").exists()
    program = tmp_path / "program.py"
    program.write_text(TYPED_PROGRAM)
    mypy = Path(sys.executable).with_name("mypy")
    cache = tmp_path / "cache"
    run = subprocess.run(
        [str(mypy), "--strict", "--cache-dir", str(cache), str(program)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    errors = [line for line in run.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1, run.stdout
    assert 'expression has type "Task", variable has type "int"' in errors[0]
