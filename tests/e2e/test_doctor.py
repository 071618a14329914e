"""`svc doctor` (issue 15.2): every check explained, secrets never shown, the contract's exit code."""

from __future__ import annotations

import re
import shlex
import subprocess
import threading
import uuid
from collections.abc import Iterator
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import (
    SVC,
    TEST_ADDRESS,
    TEST_KEY,
    Cli,
    Result,
    Sandbox,
    _base_env,
    home_with_wallet,
    unique_email,
)

from svc_sandbox.server import SandboxProcess

pytestmark = pytest.mark.e2e


def _checks(result: Any) -> dict[str, dict[str, Any]]:
    return {c["check"]: c for c in result.json()["checks"]}


def test_a_working_setup_passes_and_names_what_it_found(cli: Cli, sandbox: Sandbox) -> None:
    cli.ok("config", "set", "daily_cap_usd", "4.50")
    rid = f"req_{uuid.uuid4().hex}"
    cli.ok("submit", "Doctor #complete", "--email", unique_email(), "--request-id", rid)
    result = cli.ok("doctor", "--json")
    doc = result.json()
    assert doc["ok"] is True and doc["exit_code"] == 0
    checks = _checks(result)
    assert TEST_ADDRESS in checks["wallet"]["detail"]
    assert (
        "local sandbox" in checks["service"]["detail"]
        and "clock within" in checks["service"]["detail"]
    )
    assert checks["secrets"]["status"] == "warn"  # SVC_KEYRING=file in the tests
    money = checks["money"]["detail"]
    assert "1.50 USD spent or authorized today" in money and "3.00 USD left" in money
    assert "eip155:84532 0x" in money  # the recipient pinned by the payment (test network)
    assert TEST_KEY[2:] not in result.stdout + result.stderr


def test_nothing_set_up_fails_with_the_first_failure_and_says_how_to_fix(bare_cli: Cli) -> None:
    result = bare_cli("doctor", "--json")
    assert result.returncode == 5  # the wallet is checked before the service
    checks = _checks(result)
    assert checks["wallet"]["status"] == "fail" and "svc wallet create" in checks["wallet"]["fix"]
    service = checks["service"]
    assert service["status"] == "fail" and service["exit_code"] == 9
    assert result.json()["ok"] is False


def test_a_sandbox_base_url_that_is_down_says_how_to_start_it(bare_cli: Cli) -> None:
    bare_cli.ok("wallet", "import", input=TEST_KEY + "\n")
    result = bare_cli("doctor", "--json", env={"SVC_BASE_URL": "http://127.0.0.1:9"})
    assert result.returncode == 9
    assert "svc sandbox serve" in _checks(result)["service"]["fix"]


class _SkewedHandler(BaseHTTPRequestHandler):
    """A service whose clock is an hour behind (its Date header)."""

    def do_GET(self) -> None:
        body = b'{"services": []}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def date_time_string(self, timestamp: float | None = None) -> str:
        import time

        return formatdate(time.time() - 3600, usegmt=True)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def skewed_service() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _SkewedHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_clock_skew_against_the_service_is_a_warning(bare_cli: Cli, skewed_service: str) -> None:
    result = bare_cli("doctor", "--json", env={"SVC_BASE_URL": skewed_service})
    service = _checks(result)["service"]
    assert service["status"] == "warn"
    assert re.search(r"this clock is \+(3599|3600|3601) s off", service["detail"])
    assert "NTP" in service["fix"]


def test_notify_names_the_desktop_notifier_or_says_terminal_only(
    cli: Cli, sandbox: Sandbox, tmp_path: Any
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "notify-send"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    with_notifier = _checks(cli("doctor", "--json", env={"PATH": str(bin_dir)}))["notify"]
    assert with_notifier["status"] == "ok" and str(fake) in with_notifier["detail"]
    assert "--notify is off unless asked (built-in default)" in with_notifier["detail"]
    cli.ok("config", "set", "notify", "true")
    empty = tmp_path / "empty"
    empty.mkdir()
    without = _checks(cli("doctor", "--json", env={"PATH": str(empty)}))["notify"]
    assert without["status"] == "warn" and "terminal only" in without["detail"]
    assert (
        "--notify is on unless --no-notify (the config file, profile default)" in without["detail"]
    )
    assert "notify-send" in without["fix"]


def test_mcp_says_what_a_host_runs_and_warns_when_the_model_may_type_secrets(
    cli: Cli, sandbox: Sandbox
) -> None:
    mcp = _checks(cli("doctor", "--json"))["mcp"]
    assert mcp["status"] == "ok" and "mcp` (stdio)" in mcp["detail"]
    assert "every paid call is confirmed by the person" in mcp["detail"]
    cli.ok("config", "set", "mcp_preapproved_usd", "1.50")
    cli.ok("config", "set", "mcp_allow_model_secrets", "true")
    result = cli("doctor", "--json")
    mcp = _checks(result)["mcp"]
    assert mcp["status"] == "warn" and "up to 1.50 USD run without asking" in mcp["detail"]
    assert mcp["fix"] == "svc config unset mcp_allow_model_secrets"
    assert result.returncode == 0  # a warning is not a failure


def test_mcp_host_command_is_absolute_even_when_svc_was_found_by_a_relative_path(
    cli: Cli, sandbox: Sandbox
) -> None:
    """Issue 31.5: with `.venv/bin` on PATH as a relative entry, doctor printed `bin/svc mcp`,
    which a host (started elsewhere) cannot run; the command is absolute and pasteable."""
    venv = Path(SVC).parents[1]
    proc = subprocess.run(
        [SVC, "doctor", "--json"],
        cwd=venv,
        env={**cli.env, "PATH": "bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    detail = _checks(Result([SVC], proc.returncode, proc.stdout, proc.stderr))["mcp"]["detail"]
    command = detail.split("a host runs `", 1)[1].split("`", 1)[0]
    words = shlex.split(command)
    assert words[1:] == ["mcp"], command
    assert Path(words[0]).is_absolute() and Path(words[0]).samefile(SVC), command


def test_doctor_diagnoses_a_broken_config_file_instead_of_failing_with_it(cli: Cli) -> None:
    """Issue 22.6: every other command refuses a broken file with one line; doctor is where a
    person turns, so it runs, and its config check names the file and line."""
    config = cli.home / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[profiles.default]\nmax_price_usd = "abc"\nmax_prise_usd = 1\n')
    assert cli("poll", "task_1").returncode == 2  # the usual refusal, unchanged
    result = cli("doctor", "--json")
    assert result.returncode == 2, result.stderr
    found = _checks(result)
    assert found["config"]["status"] == "fail"
    assert f"{config}:2:" in found["config"]["detail"]
    assert "built-in defaults" in found["config"]["fix"]
    assert found["profile"]["status"] == "ok"  # the other checks still ran


def test_doctor_checks_a_stored_credential_live_and_says_the_way_out(
    tmp_path: Any, wallet_home: Any
) -> None:
    """Issue 30.6: after the sandbox forgot its identities every call failed with
    invalid_refresh_token (exit 4) while doctor said `ok identity`. It now makes the token
    exchange, as the next command would, and fails with the code and both ways out."""
    import httpx

    home = home_with_wallet(tmp_path, wallet_home)
    with SandboxProcess() as proc:
        cli = Cli(home, {**_base_env(home), "SVC_BASE_URL": proc.url})
        assertion = cli.ok("sandbox", "mint-id-jag", "--email", unique_email()).stdout.strip()
        cli.ok("identity", "register", "--assertion-file", "-", input=assertion)
        identity = _checks(cli.ok("doctor", "--json"))["identity"]
        assert identity["status"] == "ok" and "token exchange" in identity["detail"], identity
        httpx.post(f"{proc.url}/_sandbox/reset", timeout=10).raise_for_status()
        result = cli("doctor", "--json")
    assert result.returncode == 4, result.stderr
    identity = _checks(result)["identity"]
    assert identity["status"] == "fail" and identity["exit_code"] == 4, identity
    assert "invalid_refresh_token" in identity["detail"], identity
    assert "svc identity register --force" in identity["fix"], identity
    assert "svc identity logout" in identity["fix"] and "pay-as-you-go" in identity["fix"]


def test_the_keyring_fallback_is_said_once_when_the_file_is_made_and_by_doctor(
    bare_cli: Cli,
) -> None:
    """Issue 30.8: without an OS keyring every command that read a secret warned (the tour
    showed it twice); now the file store says it once, when it is created, and doctor."""
    env = {
        k: v
        for k, v in bare_cli.env.items()
        if k not in ("SVC_KEYRING", "DBUS_SESSION_BUS_ADDRESS")
    }
    person = Cli(bare_cli.home, env)
    created = person.ok("wallet", "create")
    assert created.stderr.count("no usable OS keyring") == 1, created.stderr
    assert str(bare_cli.home / "config" / "secrets.json") in created.stderr
    for args in (["wallet", "address"], ["identity", "status"], ["wallet", "create", "--force"]):
        assert "keyring" not in person.ok(*args).stderr, args
    secrets = _checks(person("doctor", "--json"))["secrets"]
    assert secrets["status"] == "warn" and "no usable OS keyring" in secrets["detail"]
