"""Shared fixtures: a sandbox on loopback, and the installed `svc` executable run as a user would.

Every test gets its own config dir, data dir and file secret store, so nothing leaks between
tests or onto the developer's machine. The sandbox is shared by the session (it is cheap to keep
and tests isolate themselves by unique e-mails and request ids); tests that change its global
config restore it with the `sandbox` fixture's `reset_config`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.forkserver import ForkServer
from tests.inproc import run_main
from tests.pg_cluster import Cluster
from tests.pg_cluster import start as start_cluster

from svc_sandbox.server import SandboxProcess
from svc_sandbox.state.sandbox import DEFAULT_BALANCE_ATOMIC

TEST_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
TEST_ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
FULL_WALLET = DEFAULT_BALANCE_ATOMIC  # what the sandbox gives an address it has not seen
SVC = str(Path(sys.executable).with_name("svc"))

# docs/reliability.md is written by the controlling process at the end of a full run (issue 6).
pytest_plugins = [
    "tests.reliability_report",
    "tests.hostile_peer",
    "tests.hostile_links",
    "tests.hostile_answers",
]


@dataclass
class Sandbox:
    url: str
    client: httpx.Client = field(repr=False)

    def admin(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self.client.request(method, f"{self.url}/_sandbox{path}", **kwargs)
        response.raise_for_status()
        return response.json()

    def books(self) -> dict[str, Any]:
        return dict(self.admin("GET", "/books"))

    def charges_for(self, request_id: str) -> list[dict[str, Any]]:
        return [c for c in self.books()["charges"] if c.get("request_id") == request_id]

    def advance(self, seconds: float) -> None:
        self.admin("POST", "/clock", json={"advance_seconds": seconds})

    def configure(self, **changes: Any) -> None:
        self.admin("POST", "/config", json=changes)

    def faults(self, *faults: dict[str, Any]) -> None:
        self.admin("POST", "/faults", json={"faults": list(faults)})

    def clear_faults(self) -> None:
        self.admin("DELETE", "/faults")

    def internals(self, task_id: str) -> dict[str, Any]:
        return dict(self.admin("GET", f"/tasks/{task_id}"))


def admin_client() -> httpx.Client:
    """The tests' client of a sandbox's admin routes. uvicorn closes a connection idle for 5 s
    and httpx kept one for 5 s too, so a request sent as the server closed its connection
    failed with RemoteProtocolError (seen in a loaded run); idle connections are let go first."""
    return httpx.Client(timeout=10, limits=httpx.Limits(keepalive_expiry=1.0))


@pytest.fixture(autouse=True)
def no_programs_tracer_left() -> Iterator[None]:
    """Each test is a program of its own: a `svc.Client` built while OpenTelemetry's API was
    imported (svc.telemetry `for_a_host`) traces for the rest of its process, which here is
    every later test's."""
    yield
    telemetry = sys.modules.get("svc.telemetry")
    if telemetry is not None and telemetry._STATE.processor is None:
        telemetry._STATE.tracer = None


@pytest.fixture(scope="session")
def sandbox_server() -> Iterator[Sandbox]:
    with SandboxProcess(clock_speed=1.0) as proc, admin_client() as client:
        yield Sandbox(proc.url, client)


@pytest.fixture(scope="session")
def shared_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every xdist worker of this run shares (each worker's own base folder is inside
    it), for what is worth building once a run (tests/ledger_fill.with_old_history)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """A throw-away PostgreSQL server (one per test process), on a Unix socket."""
    cluster = start_cluster()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(pg_cluster: Cluster) -> str:
    """A fresh, empty database for one test: the URL a runner's `ledger_url` would hold."""
    return pg_cluster.create_database("svc_" + uuid.uuid4().hex[:12])


@pytest.fixture
def pg_connections(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The URL of every connection the fleet ledger opens during the test, in order."""
    from svc.store.ledger import postgres

    opened: list[str] = []
    connect = postgres.connect

    def counted(url: str) -> Any:
        opened.append(url)
        return connect(url)

    monkeypatch.setattr(postgres, "connect", counted)
    return opened


@pytest.fixture(scope="session")
def mainnet_server() -> Iterator[Sandbox]:
    """A sandbox whose 402 offers Base mainnet USDC, exactly as production does (for fidelity
    tests against the official SDKs); the default one offers the test network."""
    with SandboxProcess(clock_speed=1.0, network="mainnet") as proc, admin_client() as client:
        yield Sandbox(proc.url, client)


def _restored(server: Sandbox) -> Iterator[Sandbox]:
    """The sandbox as the test found it: its configuration, no faults, and the test wallet
    full again (each worker's sandbox lives for the whole run: 1,000 USD paid 1.50 at a time
    ran dry after 666 paid tasks, and every later paying test failed on its order)."""
    default = server.admin("GET", "/config")
    yield server
    server.clear_faults()
    server.configure(**default)
    server.admin("POST", f"/wallets/{TEST_ADDRESS}", json={"balance_atomic": FULL_WALLET})


@pytest.fixture
def sandbox(sandbox_server: Sandbox) -> Iterator[Sandbox]:
    yield from _restored(sandbox_server)


@pytest.fixture
def mainnet_sandbox(mainnet_server: Sandbox) -> Iterator[Sandbox]:
    yield from _restored(mainnet_server)


@dataclass
class Result:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)

    def lines(self) -> list[Any]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]


@dataclass
class Cli:
    """Runs `svc` with an isolated home and environment, as a user would.

    By default in this process, through the entry point (`svc.__main__.main`, see
    tests/inproc.py): the same argv, environment, piped streams and exit code as the installed
    executable, without paying Python's start-up and imports on every call (issue 34.6).
    `process=True` runs the installed executable in a process of its own: for what only a
    process shows (start-up and imports, signals, crash points, a pty, other processes)."""

    home: Path
    env: dict[str, str]
    process: bool = False
    forks: ForkServer | None = None  # process=True: fork each process from this pre-imported one

    def __call__(
        self,
        *args: str,
        input: str | None = None,
        env: dict[str, str] | None = None,
        timeout: float = 60,
    ) -> Result:
        full_env = {**self.env, **(env or {})}
        if self.process and self.forks is not None:
            code, stdout, stderr = self.forks.run(
                list(args), env=full_env, input=input, timeout=timeout
            )
        elif self.process:
            proc = subprocess.run(
                [SVC, *args],
                input=input,
                capture_output=True,
                text=True,
                env=full_env,
                timeout=timeout,
                check=False,
            )
            code, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
        else:  # the timeout is pytest-timeout's: nothing can kill a call in this process
            code, stdout, stderr = run_main(list(args), full_env, input, program=SVC)
        assert "Traceback" not in stderr, stderr
        return Result([SVC, *args], code, stdout, stderr)

    def as_process(self) -> Cli:
        """The same home and environment, run as the installed executable in its own process."""
        return Cli(self.home, dict(self.env), process=True)

    def as_forked(self, forks: ForkServer) -> Cli:
        """The same home and environment, each call a process forked from `forks` (a server
        that imported svc once): a real process for signals, crash points and concurrency,
        without the start-up (tests/forkserver.py says when a test must still exec)."""
        return Cli(self.home, dict(self.env), process=True, forks=forks)

    def ok(self, *args: str, **kwargs: Any) -> Result:
        result = self(*args, **kwargs)
        assert result.returncode == 0, f"{args} -> {result.returncode}\n{result.stderr}"
        return result


def _base_env(home: Path) -> dict[str, str]:
    keep = {
        k: v
        for k, v in os.environ.items()
        if k in ("PATH", "LANG", "LC_ALL", "SYSTEMROOT", "TMPDIR")
    }
    return {
        **keep,
        "HOME": str(home),
        "SVC_CONFIG_DIR": str(home / "config"),
        "SVC_DATA_DIR": str(home / "data"),
        "SVC_KEYRING": "file",
        "NO_COLOR": "1",
        "CI": "1",
        "SVC_PAGER": "",  # a test on a pty reads the whole output; the pager tests set their own
    }


@pytest.fixture(scope="session")
def wallet_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home whose secret store holds the public test key, made once per test process by
    `svc wallet import` itself (about a second each, mostly importing eth-account)."""
    home = tmp_path_factory.mktemp("wallet-home")
    Cli(home, _base_env(home)).ok("wallet", "import", input=TEST_KEY + "\n")
    return home


def home_with_wallet(tmp_path: Path, wallet_home: Path) -> Path:
    """A fresh home for one test, holding a copy of the imported wallet (modes kept: 0600)."""
    home = tmp_path / "home"
    shutil.copytree(wallet_home, home)
    return home


@pytest.fixture
def cli(tmp_path: Path, sandbox: Sandbox, wallet_home: Path) -> Cli:
    """`svc` pointed at the sandbox, with the public test key as its wallet."""
    home = home_with_wallet(tmp_path, wallet_home)
    return Cli(home, {**_base_env(home), "SVC_BASE_URL": sandbox.url})


@pytest.fixture
def process_cli(cli: Cli) -> Cli:
    """`cli`'s home and environment, run as the installed executable in a process of its own:
    for a test about what only a process shows (start-up, imports, signals, crash points)."""
    return cli.as_process()


# What the commands forked from `fork_server` would import anyway: imported once, in the server.
FORK_PRELOAD = (
    "svc.__main__",
    "svc.cli.app",
    "svc.commands.submit",
    "svc.commands.tasks",
    "svc.commands.spend",
    "svc.commands.watch",
    "svc.commands.mcp",
    "svc.mcp.server",
    "svc.mcp.http",  # uvicorn: `svc mcp --http` in test_mcp_http
    "svc.engines.submit",
    "svc.engines.batch",
    "svc.pay.x402",
    "svc.pay.mpp",
    "svc.pay.wallet",
    "svc.store.ledger",
    # A paid x402 submit signs through eth_account until svc signs on its own (svc.pay.eip712):
    # from then on a real process never loads it, and neither must the server.
    *(() if importlib.util.find_spec("svc.pay.eip712") else ("eth_account",)),
)


@pytest.fixture(scope="session")
def fork_server() -> Iterator[ForkServer]:
    """One fork server per test process, started by the first test that asks for it."""
    with ForkServer(SVC, preload=FORK_PRELOAD, env=_base_env(Path("/nonexistent"))) as server:
        yield server


@pytest.fixture(scope="session")
def svc_mcp(fork_server: ForkServer) -> list[str]:
    """The command an MCP host in a test runs to start `svc mcp`: forked from `fork_server`
    through tests/fork_launch.py, since `svc mcp` imports the MCP SDK at every start (0.9 s of
    CPU) and the hosts start it about seventy times. A test whose subject is that process
    itself (its pid, its memory, its start-up, signals sent to it) runs SVC instead."""
    return fork_server.launch_command("mcp")


@pytest.fixture
def forked_cli(cli: Cli, fork_server: ForkServer) -> Cli:
    """`cli`'s home and environment, each call a real process forked from `fork_server`: for a
    test about what a process shows after start-up (signals, crash points, concurrency)."""
    return cli.as_forked(fork_server)


@pytest.fixture
def bare_cli(tmp_path: Path) -> Cli:
    """`svc` with an empty home and no service (nothing listens on its base URL)."""
    home = tmp_path / "home"
    home.mkdir()
    return Cli(home, {**_base_env(home), "SVC_BASE_URL": "http://127.0.0.1:9"})


def unique_email() -> str:
    return f"user-{uuid.uuid4().hex[:10]}@example.com"


def unique_request_id() -> str:
    return f"req_{uuid.uuid4().hex}"


@pytest.fixture
def no_payment_faults(sandbox: Sandbox) -> Iterator[None]:
    """Clears the sandbox's payment faults after the test, so one left over cannot leak."""
    yield
    sandbox.admin("DELETE", "/payment-faults")


def has_jq() -> bool:
    return shutil.which("jq") is not None
