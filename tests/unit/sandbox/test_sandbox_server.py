"""Starting the sandbox the way users and the e2e suite do."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from eth_account import Account
from sandbox_proofs import BODY, sign_proof

from svc_sandbox.server import SandboxProcess, bind_socket, is_loopback

SRC = str(Path(__file__).resolve().parents[3] / "src")


def test_sandbox_process_prints_its_url_and_serves() -> None:
    with SandboxProcess(clock_speed=100.0) as sandbox:
        assert sandbox.url.startswith("http://127.0.0.1:")
        with httpx.Client(base_url=sandbox.url, timeout=10) as http:
            assert http.get("/_sandbox/clock").json()["speed"] == 100.0
            http.post("/_sandbox/faults", json={"faults": [{"kind": "drop_before"}]})
            with pytest.raises(httpx.RemoteProtocolError):
                http.get("/svc/tasks/x")
            http.post("/_sandbox/faults", json={"faults": [{"kind": "drop_after"}]})
            headers = {"x-payment": sign_proof(Account.create()), "svc-request-id": "r1"}
            with pytest.raises(httpx.RemoteProtocolError):
                http.post("/svc/tasks", json=BODY, headers=headers)
            assert len(http.get("/_sandbox/books").json()["charges"]) == 1
        process = sandbox.process
    assert process is not None and process.poll() is not None  # stopped on exit


def test_serve_prints_exactly_one_stdout_line() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "svc_sandbox", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={"PYTHONPATH": SRC},
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline().strip()
        assert first.startswith("SANDBOX_URL=http://127.0.0.1:")
        url = first.removeprefix("SANDBOX_URL=")
        assert httpx.get(f"{url}/svc/tasks/x").status_code == 404  # logs an access line
    finally:
        process.terminate()
        rest, _ = process.communicate(timeout=10)
    assert rest == ""  # the access log went to stderr


def test_non_loopback_host_is_refused() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "svc_sandbox", "serve", "--host", "0.0.0.0", "--port", "0"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": SRC},
        timeout=20,
        check=False,
    )
    assert result.returncode == 2
    assert "--allow-remote" in result.stderr
    assert result.stdout == ""
    with pytest.raises(ValueError):
        bind_socket("0.0.0.0", 0)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("localhost", True),
        ("::1", True),
        ("127.0.0.2", True),
        ("0.0.0.0", False),
        ("192.168.1.2", False),
        ("example.com", False),
    ],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
