"""Cleartext and proxies end to end (issue 29.4, 29.5): the installed `svc`, a real proxy
process (proxy.py) on loopback, and the sandbox's books for every money claim."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import certifi
import httpx
import pytest
from tests.conftest import Cli, Result, Sandbox, unique_email, unique_request_id

from svc_sandbox.server import SandboxProcess

pytestmark = pytest.mark.e2e
CLEARTEXT = "http://pay.example.invalid"


@dataclass
class ProxyProcess:
    url: str
    log: Path

    def saw(self, method: str, netloc: str) -> int:
        """Requests the proxy forwarded, from its access log (`- GET host:port/path - 200`)."""
        text = self.log.read_text(encoding="utf-8", errors="replace")
        return text.count(f" - {method} {netloc}/")


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[ProxyProcess]:
    port_file, log = tmp_path / "proxy.port", tmp_path / "proxy.log"
    args = ["--hostname", "127.0.0.1", "--port", "0", "--port-file", str(port_file)]
    args += ["--threaded", "--num-workers", "1", "--num-acceptors", "1", "--log-file", str(log)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "proxy", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().strip()):
            assert proc.poll() is None, "proxy.py did not start"
            assert time.monotonic() < deadline, "proxy.py gave no port"
            time.sleep(0.05)
        yield ProxyProcess(f"http://127.0.0.1:{port_file.read_text().strip()}", log)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)


def _netloc(sandbox: Sandbox) -> str:
    return sandbox.url.split("://", 1)[1]


def _wait_for_log(proxy: ProxyProcess, method: str, netloc: str) -> int:
    """proxy.py writes its access line after the answer: give it a moment."""
    for _ in range(50):
        if seen := proxy.saw(method, netloc):
            return seen
        time.sleep(0.05)
    return 0


# --- 29.5: a real proxy --------------------------------------------------------------------------


def test_http_proxy_carries_a_free_read(cli: Cli, sandbox: Sandbox, proxy: ProxyProcess) -> None:
    result = cli("services", "--json", env={"HTTP_PROXY": proxy.url})
    assert result.returncode == 0, result.stderr
    assert _wait_for_log(proxy, "GET", _netloc(sandbox)) >= 1


def test_a_paid_submit_through_the_proxy_pays_once(
    cli: Cli, sandbox: Sandbox, proxy: ProxyProcess
) -> None:
    rid = unique_request_id()
    args = ["submit", "Proxy #complete", "--email", unique_email(), "--request-id", rid]
    result = cli(*args, "--json", env={"http_proxy": proxy.url})
    assert result.returncode == 0, result.stderr
    assert len(sandbox.charges_for(rid)) == 1
    # proxy.py logs a kept-alive connection once, by its first request (the one answered
    # 402); the paid one follows on it, as the one charge says.
    assert _wait_for_log(proxy, "POST", _netloc(sandbox)) >= 1
    assert "warning" not in result.stderr  # loopback through a loopback proxy: no cleartext


def test_no_proxy_sends_it_direct(cli: Cli, sandbox: Sandbox, proxy: ProxyProcess) -> None:
    env = {"HTTP_PROXY": proxy.url, "NO_PROXY": "localhost,127.0.0.0/8"}
    assert cli("services", "--json", env=env).returncode == 0
    assert proxy.saw("GET", _netloc(sandbox)) == 0


def test_the_sandbox_through_a_proxy_elsewhere_pays_nothing(cli: Cli, sandbox: Sandbox) -> None:
    rid = unique_request_id()
    env = {"HTTP_PROXY": "http://ana:s3cret@10.255.255.1:3128"}
    result = cli("submit", "Far #complete", "--email", unique_email(), "--request-id", rid, env=env)
    assert result.returncode == 2, result.stderr
    assert "NO_PROXY" in result.stderr and "s3cret" not in result.stderr
    assert sandbox.charges_for(rid) == []


@pytest.mark.parametrize(
    "value", ["http://ana:s3cret@[::1", "socks5://ana:s3cret@127.0.0.1:1080", "ftp://x"]
)
def test_a_malformed_proxy_is_one_line_exit_2(cli: Cli, value: str) -> None:
    result = cli("services", env={"HTTPS_PROXY": value, "HTTP_PROXY": value})
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("svc: ") and "_PROXY" in lines[0]
    assert len([line for line in lines if line.startswith("svc:")]) == 1
    assert "s3cret" not in result.stderr + result.stdout


def test_doctor_names_the_proxy_masked_and_the_ca_file(cli: Cli, proxy: ProxyProcess) -> None:
    masked = proxy.url.replace("http://", "http://ana:s3cret@")
    env = {"HTTP_PROXY": masked, "SSL_CERT_FILE": certifi.where()}
    result = cli("doctor", "--json", env=env)
    network = {c["check"]: c for c in result.json()["checks"]}["network"]
    assert network["status"] == "ok", network
    assert proxy.url.replace("http://", "http://ana:***@") in network["detail"]
    assert "HTTP_PROXY" in network["detail"] and certifi.where() in network["detail"]
    assert "s3cret" not in result.stdout + result.stderr


def test_doctor_says_direct_without_a_proxy(cli: Cli) -> None:
    result = cli.ok("doctor", "--json")
    network = {c["check"]: c for c in result.json()["checks"]}["network"]
    assert network["status"] == "ok" and "direct" in network["detail"]


# --- 29.4: no money or credential in cleartext -----------------------------------------------


def _refused(result: Result) -> None:
    assert result.returncode == 2, result.stderr
    first = result.stderr.splitlines()[0]
    assert "https://" in first and "pay.example.invalid" in first


def test_a_cleartext_base_url_is_refused_wherever_given(cli: Cli) -> None:
    task = ["submit", "Clear #complete", "--email", unique_email()]
    _refused(cli(*task, env={"SVC_BASE_URL": CLEARTEXT}))
    _refused(cli("--base-url", CLEARTEXT, *task))
    _refused(cli(*task, env={"SVC_AUTH_BASE": CLEARTEXT + "/auth"}))
    _refused(cli("config", "set", "base_url", CLEARTEXT))
    assert CLEARTEXT not in cli.ok("config", "list", "--json").stdout  # nothing was written
    (cli.home / "config").mkdir(exist_ok=True)
    (cli.home / "config" / "config.toml").write_text(
        f'[profiles.default]\nbase_url = "{CLEARTEXT}"\n'
    )
    _refused(cli(*task, env={"SVC_BASE_URL": ""}))


def test_a_hand_edited_cleartext_url_can_be_seen_and_fixed(cli: Cli) -> None:
    """The commands that show or fix the settings keep working (config, doctor): the file
    with a refused base URL is not a dead end; every other command refuses it."""
    (cli.home / "config").mkdir(exist_ok=True)
    (cli.home / "config" / "config.toml").write_text(
        f'[profiles.default]\nbase_url = "{CLEARTEXT}"\n'
    )
    env = {"SVC_BASE_URL": ""}
    assert CLEARTEXT in cli.ok("config", "get", "base_url", env=env).stdout
    doctor = cli("doctor", "--json", env=env)
    network = next(c for c in doctor.json()["checks"] if c["check"] == "network")
    assert network["status"] == "fail" and "plain http://" in network["detail"]
    _refused(cli("poll", "task_0123456789abcdef", env=env))
    cli.ok("config", "unset", "base_url", env=env)
    assert CLEARTEXT not in (cli.home / "config" / "config.toml").read_text()


def test_a_cleartext_base_url_may_be_allowed_on_purpose(cli: Cli) -> None:
    cli.ok("config", "set", "allow_insecure_http", "true")
    result = cli.ok("config", "set", "base_url", CLEARTEXT, env={"SVC_BASE_URL": ""})
    assert "base_url" in result.stderr + result.stdout
    get = cli.ok("config", "get", "base_url", env={"SVC_BASE_URL": ""})
    assert CLEARTEXT in get.stdout


def test_the_sandbox_on_loopback_needs_no_setting(cli: Cli, sandbox: Sandbox) -> None:
    rid = unique_request_id()
    url = sandbox.url.replace("127.0.0.1", "localhost")
    args = ["submit", "Local #complete", "--email", unique_email(), "--request-id", rid]
    result = cli(*args, env={"SVC_BASE_URL": url})
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr and len(sandbox.charges_for(rid)) == 1


def _address_of_this_machine() -> str | None:
    """A non-loopback address of this machine (no packet is sent: a UDP socket's route)."""
    import socket

    for target in ("203.0.113.1", "10.254.254.254"):  # documentation and private: no broadcast
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            try:
                probe.connect((target, 9))
            except OSError:
                continue
            address = str(probe.getsockname()[0])
        if not address.startswith("127.") and address != "0.0.0.0":
            return address
    return None


@pytest.fixture(scope="module")
def remote_sandbox() -> Iterator[str]:
    """The sandbox on this machine's own network address: another host as far as svc knows."""
    address = _address_of_this_machine()
    if address is None:
        pytest.skip("this machine has no non-loopback address")
    # Production terms: from another origin than loopback, test money is refused (29.7).
    extra = ["--host", address, "--allow-remote", "--network", "mainnet"]
    with SandboxProcess(extra_args=extra) as proc:
        yield proc.url


def test_allowed_cleartext_pays_and_warns_once_a_payment(cli: Cli, remote_sandbox: str) -> None:
    rid = unique_request_id()
    args = ["submit", "Clear #complete", "--email", unique_email(), "--request-id", rid]
    env = {"SVC_BASE_URL": remote_sandbox}
    _refused_plain = cli(*args, env=env)
    assert _refused_plain.returncode == 2 and "https://" in _refused_plain.stderr
    result = cli(*args, "--json", env={**env, "SVC_ALLOW_INSECURE_HTTP": "1"})
    assert result.returncode == 0, result.stderr
    host = remote_sandbox.split("://", 1)[1].rsplit(":", 1)[0]
    paying = [line for line in result.stderr.splitlines() if line.startswith("warning: paying")]
    assert paying == [
        f"warning: paying over cleartext http to {host}: anyone on the path can read or change it"
    ]
    books = httpx.get(f"{remote_sandbox}/_sandbox/books", timeout=10).json()
    assert len([c for c in books["charges"] if c.get("request_id") == rid]) == 1
