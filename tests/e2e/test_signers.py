"""External signers (issue 33.2): a program (`command:`) and a JSON-RPC server (`jsonrpc:`),
both real processes built on eth-account (tests/signer_peers.py), pay a sandbox task with their
own key; every way a signer can fail or lie ends in exit 5 with one line, nothing sent (the
sandbox's request log carries no proof for the request id) and nothing journaled as sent.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SVC, TEST_ADDRESS, Cli, Sandbox, unique_email, unique_request_id
from tests.ledger_reads import ledger_file, submission_row

pytestmark = pytest.mark.e2e

PEERS = Path(__file__).resolve().parents[1] / "signer_peers.py"
SIGNER_KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"
SIGNER_ADDRESS = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"


def keyfile(tmp_path: Path) -> Path:
    path = tmp_path / "signer" / "key.hex"
    path.parent.mkdir(exist_ok=True)
    path.write_text(SIGNER_KEY)
    path.chmod(0o600)
    return path


# A signer that never answers is cut at 3 s; any other gets a minute, because a Python signer
# program started on a loaded machine (load average 20 in a full run) can take more than 3 s to
# import eth_account, and that must not read as a hang.
HANGS = frozenset({"hang", "spawn"})


def signer_timeout(mode: str) -> str:
    return "3" if mode in HANGS else "60"


def command_profile(cli: Cli, tmp_path: Path, mode: str, profile: str = "ext") -> None:
    argv = [sys.executable, str(PEERS), "command", str(keyfile(tmp_path)), mode]
    cli.ok("config", "set", "signer", "command:" + shlex.join(argv), "--profile", profile)
    cli.ok("config", "set", "signer_address", SIGNER_ADDRESS, "--profile", profile)
    cli.ok("config", "set", "signer_timeout", signer_timeout(mode), "--profile", profile)


def submit(cli: Cli, request_id: str, *extra: str, **kw: Any) -> Any:
    task = "Pay with a signer #complete"
    email = unique_email()
    return cli("submit", task, "--email", email, "--request-id", request_id, "--json", *extra, **kw)


def proofs_sent(sandbox: Sandbox, request_id: str) -> list[list[str]]:
    seen = sandbox.admin("GET", "/requests")["requests"]
    return [r["proofs"] for r in seen if r["request_id"] == request_id and r["proofs"]]


def assert_nothing_sent(cli: Cli, sandbox: Sandbox, request_id: str) -> None:
    assert proofs_sent(sandbox, request_id) == []
    assert sandbox.charges_for(request_id) == []
    row = submission_row(ledger_file(cli.home), request_id)
    assert row, "the request id was journaled before its first byte, as every paid request"
    # Journaled before the first byte, as always; never signed, never sent, never accepted.
    assert row["status"] in ("journaled", "challenged", "rejected"), row["status"]
    assert row["proof"] is None and row["proof_fp"] is None and row["task_id"] is None, row


def paid_by(cli: Cli, request_id: str, profile: str) -> str:
    doc = cli.ok("spend", "--tasks", "--json", "--profile", profile).json()
    rows = [t for t in doc["tasks"] if t["request_id"] == request_id]
    assert len(rows) == 1, doc
    return str(rows[0]["payer"])


# --- command: -------------------------------------------------------------------------------


def test_a_command_signer_pays_with_its_own_key(cli: Cli, sandbox: Sandbox, tmp_path: Path) -> None:
    command_profile(cli, tmp_path, "good")
    rid = unique_request_id()
    result = submit(cli, rid, "--profile", "ext")
    assert result.returncode == 0, result.stderr
    assert paid_by(cli, rid, "ext") == SIGNER_ADDRESS
    assert [c["payer"].lower() for c in sandbox.charges_for(rid)] == [SIGNER_ADDRESS.lower()]
    # The default profile still pays with its own key.
    rid2 = unique_request_id()
    assert submit(cli, rid2).returncode == 0
    assert paid_by(cli, rid2, "default") == TEST_ADDRESS


# What a broken or hostile program does, and the words that must name it.
FAILURES = [
    ("wrong", "signed for 0x70997970C51812dc3A010C7d01b50e0d17dc79C8, not for"),
    ("tampered", "not for " + SIGNER_ADDRESS),
    ("garbage", "no 65-byte hex signature"),
    ("garbage-json", 'wrote no {"signature": "0x..."} object'),
    ("nothing", 'wrote no {"signature": "0x..."} object'),
    ("hang", "gave no answer within 3 s"),
    ("spawn", "gave no answer within 3 s"),
    ("huge", "wrote more than 64 KiB"),
    ("noisy", "wrote more than 64 KiB"),
    ("crash", "failed with exit code 3: signer: the device is locked"),
]


@pytest.mark.parametrize(("mode", "words"), FAILURES, ids=[m for m, _ in FAILURES])
def test_a_failing_command_signer_sends_nothing(
    cli: Cli, sandbox: Sandbox, tmp_path: Path, mode: str, words: str
) -> None:
    command_profile(cli, tmp_path, mode)
    rid = unique_request_id()
    started = time.monotonic()
    result = submit(cli, rid, "--profile", "ext")
    assert time.monotonic() - started < 30  # a hang is cut at signer_timeout, not waited out
    assert result.returncode == 5, result.stderr
    error = result.json()
    assert error["exit_code"] == 5 and words in error["detail"], error
    assert error["error"].startswith("signer_")
    assert "\nhint: " in result.stderr  # what to look at next
    assert "\x1b" not in result.stderr  # a program's stderr is shown inert
    assert "Traceback" not in result.stderr
    assert_nothing_sent(cli, sandbox, rid)


def test_a_hanging_program_and_its_children_are_killed(cli: Cli, tmp_path: Path) -> None:
    command_profile(cli, tmp_path, "spawn")
    ours = str(keyfile(tmp_path))  # the sleeper's argv names its keyfile: other tests' differ
    assert submit(cli, unique_request_id(), "--profile", "ext").returncode == 5
    # The group was killed before svc answered; the kernel may still be reaping: wait for it.
    deadline = time.monotonic() + 10
    while _sleepers(ours) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _sleepers(ours)  # the child that held stdout open went with the group


def _sleepers(marker: str) -> set[str]:
    out = subprocess.run(
        ["ps", "-ww", "-eo", "pid,stat,args"], capture_output=True, text=True, check=False
    ).stdout
    return {
        fields[0]
        for fields in (line.split(None, 2) for line in out.splitlines())
        if len(fields) == 3
        and not fields[1].startswith("Z")  # killed, only waiting to be reaped
        and "time.sleep(600)" in fields[2]
        and marker in fields[2]
    }


def test_the_program_learns_nothing_but_the_request(cli: Cli, tmp_path: Path) -> None:
    """Not SVC_WALLET_KEY, not SVC_SPT, nothing of svc's: its environment is the basics."""
    command_profile(cli, tmp_path, "env")
    secrets = {"SVC_WALLET_KEY": "0x" + "11" * 32, "SVC_SPT": "spt_test_secret"}
    result = submit(cli, unique_request_id(), "--profile", "ext", env=secrets)
    assert result.returncode == 0, result.stderr
    seen = json.loads((tmp_path / "signer" / "seen.json").read_text())
    assert not [k for k in seen["env"] if k.startswith("SVC_") or k == "CI"], seen["env"]
    assert "11" * 32 not in json.dumps(seen)
    assert set(seen["request"]) == {"address", "typed_data"}
    assert seen["request"]["address"] == SIGNER_ADDRESS
    assert seen["request"]["typed_data"]["primaryType"] == "TransferWithAuthorization"
    assert seen["request"]["typed_data"]["message"]["from"] == SIGNER_ADDRESS


def test_a_command_signer_without_an_address_is_a_usage_error(
    cli: Cli, tmp_path: Path, sandbox: Sandbox
) -> None:
    command_profile(cli, tmp_path, "good")
    cli.ok("config", "unset", "signer_address", "--profile", "ext")
    rid = unique_request_id()
    result = submit(cli, rid, "--profile", "ext")
    assert result.returncode == 2 and "names no signer_address" in result.stderr
    assert_nothing_sent(cli, sandbox, rid)


def test_a_signer_program_that_does_not_exist(cli: Cli, sandbox: Sandbox) -> None:
    cli.ok("config", "set", "signer", "command:/nonexistent/signer --x", "--profile", "ext")
    cli.ok("config", "set", "signer_address", SIGNER_ADDRESS, "--profile", "ext")
    rid = unique_request_id()
    result = submit(cli, rid, "--profile", "ext")
    assert result.returncode == 5 and "cannot start" in result.stderr, result.stderr
    assert_nothing_sent(cli, sandbox, rid)


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("command:", "names no program"),
        ("command:'unclosed", "cannot be split"),
        ("jsonrpc:http://signer.example:8550", "cleartext"),
        ("jsonrpc:ftp://127.0.0.1/", "setting"),
        ("keyring", "must be store, env, command:PATH [ARGS] or jsonrpc:URL"),
        ("jsonrpc:https://signer.example/?token=hunter2", "takes no query or fragment"),
        ("JSONRPC:https://u:hunter2@signer.example", "must be store, env, command:PATH"),
    ],
)
def test_a_bad_signer_setting_is_refused_when_written(cli: Cli, value: str, words: str) -> None:
    result = cli("config", "set", "signer", value, "--profile", "ext")
    assert result.returncode == 2 and words in result.stderr, result.stderr
    assert "hunter2" not in result.stderr + result.stdout  # a refused value is never repeated


def test_a_bad_signer_address_is_refused(cli: Cli) -> None:
    result = cli("config", "set", "signer_address", "0x1234", "--profile", "ext")
    assert result.returncode == 2 and "20-byte hex address" in result.stderr


def test_a_private_key_pasted_as_the_address_is_never_repeated(cli: Cli) -> None:
    result = cli("config", "set", "signer_address", SIGNER_KEY, "--profile", "ext")
    assert result.returncode == 2 and "looks like a private key" in result.stderr
    assert SIGNER_KEY[2:10] not in result.stderr + result.stdout


def test_a_signers_arguments_are_never_shown(cli: Cli, tmp_path: Path) -> None:
    """A program's arguments may carry a secret: wallet list, wallet address and doctor name
    the program, not its arguments."""
    argv = [sys.executable, str(PEERS), "command", str(keyfile(tmp_path)), "good", "--pin=hunter2"]
    cli.ok("config", "set", "signer", "command:" + shlex.join(argv), "--profile", "ext")
    cli.ok("config", "set", "signer_address", SIGNER_ADDRESS, "--profile", "ext")
    for args in (["wallet", "list"], ["wallet", "address", "--profile", "ext"]):
        shown = cli(*args)
        assert "hunter2" not in shown.stdout + shown.stderr, args
        assert "command:" in shown.stdout + shown.stderr, args
    doctor = cli("doctor", "--json", "--profile", "ext")
    assert "hunter2" not in doctor.stdout + doctor.stderr


def test_doctor_checks_a_command_signer(cli: Cli, tmp_path: Path) -> None:
    command_profile(cli, tmp_path, "good")
    doc = cli("doctor", "--json", "--profile", "ext").json()
    wallet = next(c for c in doc["checks"] if c["check"] == "wallet")
    assert wallet["status"] == "ok" and "probe signature recovers to" in wallet["detail"]
    command_profile(cli, tmp_path, "wrong")
    result = cli("doctor", "--json", "--profile", "ext")
    assert result.returncode == 5
    wallet = next(c for c in result.json()["checks"] if c["check"] == "wallet")
    assert wallet["status"] == "fail" and "not for " + SIGNER_ADDRESS in wallet["detail"]


# --- jsonrpc: -------------------------------------------------------------------------------


@pytest.fixture
def rpc_signer(tmp_path: Path) -> Iterator[Any]:
    """Starts tests/signer_peers.py jsonrpc in a mode; yields (url, requests-file reader)."""
    procs: list[subprocess.Popen[str]] = []

    def start(mode: str) -> str:
        argv = [sys.executable, str(PEERS), "jsonrpc", str(keyfile(tmp_path)), mode]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
        procs.append(proc)
        assert proc.stdout is not None
        return f"http://127.0.0.1:{proc.stdout.readline().strip()}"

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()


def rpc_profile(cli: Cli, url: str, address: str | None = None, mode: str = "good") -> None:
    cli.ok("config", "set", "signer", f"jsonrpc:{url}", "--profile", "rpc")
    cli.ok("config", "set", "signer_timeout", signer_timeout(mode), "--profile", "rpc")
    if address:
        cli.ok("config", "set", "signer_address", address, "--profile", "rpc")


def seen_by_signer(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "signer" / "seen.json"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_jsonrpc_signer_pays_with_its_only_account(
    cli: Cli, sandbox: Sandbox, rpc_signer: Any, tmp_path: Path
) -> None:
    rpc_profile(cli, rpc_signer("good"))  # no signer_address: eth_accounts' only entry
    rid = unique_request_id()
    result = submit(cli, rid, "--profile", "rpc")
    assert result.returncode == 0, result.stderr
    assert paid_by(cli, rid, "rpc") == SIGNER_ADDRESS
    assert [c["payer"].lower() for c in sandbox.charges_for(rid)] == [SIGNER_ADDRESS.lower()]
    methods = [r["body"]["method"] for r in seen_by_signer(tmp_path)]
    assert methods == ["eth_accounts", "eth_signTypedData_v4"]
    params = seen_by_signer(tmp_path)[1]["body"]["params"]
    assert params[0] == SIGNER_ADDRESS and params[1]["primaryType"] == "TransferWithAuthorization"
    assert cli.ok("doctor", "--json", "--profile", "rpc").returncode == 0


RPC_FAILURES = [
    ("wrong", None, "not for " + SIGNER_ADDRESS),
    ("tampered", None, "not for " + SIGNER_ADDRESS),
    ("garbage", None, "answered no 65-byte hex signature"),
    ("error", None, "refused eth_accounts: denied by the user"),
    ("hang", SIGNER_ADDRESS, "gave no answer within 3 s"),
    ("huge", SIGNER_ADDRESS, "answered more than 64 KiB"),
    ("bomb", SIGNER_ADDRESS, "answered in a content coding svc did not ask for"),
    ("redirect", SIGNER_ADDRESS, "redirected elsewhere"),
    ("two", None, "has 2 accounts; signer_address must name the one"),
    ("token:sesame", SIGNER_ADDRESS, "refused svc's credentials (HTTP 401)"),
]


@pytest.mark.parametrize(
    ("mode", "address", "words"), RPC_FAILURES, ids=[m for m, *_ in RPC_FAILURES]
)
def test_a_failing_jsonrpc_signer_sends_nothing(
    cli: Cli, sandbox: Sandbox, rpc_signer: Any, mode: str, address: str | None, words: str
) -> None:
    rpc_profile(cli, rpc_signer(mode), address, mode)
    rid = unique_request_id()
    started = time.monotonic()
    result = submit(cli, rid, "--profile", "rpc")
    assert time.monotonic() - started < 30
    assert result.returncode == 5, result.stderr
    assert words in result.json()["detail"], result.json()
    assert "\x1b" not in result.stderr and "Traceback" not in result.stderr
    assert_nothing_sent(cli, sandbox, rid)


def test_an_unreachable_jsonrpc_signer(cli: Cli, sandbox: Sandbox) -> None:
    rpc_profile(cli, "http://127.0.0.1:9", SIGNER_ADDRESS)
    rid = unique_request_id()
    result = submit(cli, rid, "--profile", "rpc")
    assert result.returncode == 5 and "cannot reach the signer" in result.stderr
    assert_nothing_sent(cli, sandbox, rid)


def test_doctor_says_a_jsonrpc_signer_lacks_the_address(cli: Cli, rpc_signer: Any) -> None:
    rpc_profile(cli, rpc_signer("good"), TEST_ADDRESS)
    result = cli("doctor", "--json", "--profile", "rpc")
    assert result.returncode == 5
    wallet = next(c for c in result.json()["checks"] if c["check"] == "wallet")
    assert "does not hold " + TEST_ADDRESS in wallet["detail"]


def test_the_policy_decides_before_any_signer_is_asked(
    cli: Cli, sandbox: Sandbox, rpc_signer: Any, tmp_path: Path
) -> None:
    rpc_profile(cli, rpc_signer("good"), SIGNER_ADDRESS)
    rid = unique_request_id()
    result = submit(cli, rid, "--profile", "rpc", "--max-price", "0.01")
    assert result.returncode == 5 and result.json()["error"] == "policy_refused", result.stdout
    assert seen_by_signer(tmp_path) == []  # the signer was never asked
    assert_nothing_sent(cli, sandbox, rid)


def test_a_profile_reports_where_its_signer_lives(cli: Cli, tmp_path: Path) -> None:
    command_profile(cli, tmp_path, "good")
    doc = cli.ok("wallet", "address", "--json", "--profile", "ext").json()
    assert doc["address"] == SIGNER_ADDRESS and doc["source"].startswith("signer command:")
    refused = cli("wallet", "create", "--profile", "ext")
    assert refused.returncode == 2 and "its key lives with that signer" in refused.stderr


def test_the_documented_example_signer_pays(cli: Cli, sandbox: Sandbox, tmp_path: Path) -> None:
    """docs/signers.md's ten lines, as written there, are a working signer."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "signers.md").read_text()
    section = doc.split("## An example signer", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert len([line for line in code.splitlines() if line.strip()]) <= 10
    program = tmp_path / "signer.py"
    program.write_text(code)
    argv = [sys.executable, str(program), str(keyfile(tmp_path))]
    cli.ok("config", "set", "signer", "command:" + shlex.join(argv), "--profile", "doc")
    cli.ok("config", "set", "signer_address", SIGNER_ADDRESS, "--profile", "doc")
    rid = unique_request_id()
    assert submit(cli, rid, "--profile", "doc").returncode == 0
    assert paid_by(cli, rid, "doc") == SIGNER_ADDRESS
    # Asked for another address, it refuses, and svc says so in one line.
    cli.ok("config", "set", "signer_address", TEST_ADDRESS, "--profile", "doc")
    refused = submit(cli, unique_request_id(), "--profile", "doc")
    assert refused.returncode == 5 and f"not {TEST_ADDRESS}" in refused.json()["detail"]


def test_a_jsonrpc_signer_token_comes_from_the_secret_store(
    cli: Cli, sandbox: Sandbox, rpc_signer: Any, tmp_path: Path
) -> None:
    rpc_profile(cli, rpc_signer("token:sesame-42"), SIGNER_ADDRESS)
    stored = cli.ok(
        "wallet", "import", "--signer-token", "--json", "--profile", "rpc", input="sesame-42\n"
    ).json()
    assert stored == {"profile": "rpc", "stored": "signer_token", "source": "file"}
    rid = unique_request_id()
    result = submit(cli, rid, "--profile", "rpc")
    assert result.returncode == 0, result.stderr
    assert paid_by(cli, rid, "rpc") == SIGNER_ADDRESS
    sent = {r["headers"].get("Authorization") for r in seen_by_signer(tmp_path)}
    assert sent == {"Bearer sesame-42"}
    assert "sesame-42" not in (cli.home / "config" / "config.toml").read_text()
    # The token is the profile's: the default profile's store holds none.
    secrets = json.loads((cli.home / "config" / "secrets.json").read_text())
    assert secrets["signer_token@rpc"] == "sesame-42" and "signer_token" not in secrets
    again = cli("wallet", "import", "--signer-token", "--profile", "rpc", input="x\n")
    assert again.returncode == 2 and "a signer token is already stored" in again.stderr
    bad = cli("wallet", "import", "--signer-token", "--force", "--profile", "rpc", input="a b\n")
    assert bad.returncode == 2 and "not a usable signer token" in bad.stderr


def test_after_a_failed_signer_the_same_request_pays_once(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    """Nothing was signed, so nothing is live: fixing the signer and running the same request
    id again pays, once."""
    command_profile(cli, tmp_path, "crash")
    rid = unique_request_id()
    email = unique_email()
    args = ("submit", "Pay #complete", "--email", email, "--request-id", rid, "--profile", "ext")
    assert cli(*args).returncode == 5
    command_profile(cli, tmp_path, "good")
    result = cli(*args, "--json")
    assert result.returncode == 0, result.stderr
    assert len(sandbox.charges_for(rid)) == 1
    assert cli(*args, "--json").returncode == 0  # a resume: nothing paid again
    assert len(sandbox.charges_for(rid)) == 1


def test_the_library_pays_with_a_profiles_signer(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    """svc.Client(profile=...) is the same wallet as the CLI's: the profile's signer; a
    failing one is svc.PaymentFailed with nothing sent."""
    command_profile(cli, tmp_path, "good")
    program = (
        "import sys, svc\n"
        "client = svc.Client(profile='ext')\n"
        "try:\n"
        "    print(client.submit('Pay #complete', sys.argv[2], request_id=sys.argv[1]).id)\n"
        "except svc.PaymentFailed as exc:\n"
        "    print('refused', exc.code); sys.exit(5)\n"
    )

    def pay(rid: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", program, rid, unique_email()],
            env=cli.env,
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )

    rid = unique_request_id()
    run = pay(rid)
    assert run.returncode == 0, run.stderr
    assert paid_by(cli, rid, "ext") == SIGNER_ADDRESS
    command_profile(cli, tmp_path, "wrong")
    rid = unique_request_id()
    run = pay(rid)
    assert run.returncode == 5 and "refused signer_wrong_address" in run.stdout, run.stderr
    assert_nothing_sent(cli, sandbox, rid)


def test_ctrl_c_while_a_signer_thinks_ends_it_and_sends_nothing(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    """The program runs in a group of its own (a terminal's Ctrl-C does not reach it): svc's
    interrupt path kills it, and nothing was signed or sent."""
    import signal

    command_profile(cli, tmp_path, "hang")
    cli.ok("config", "set", "signer_timeout", "60", "--profile", "ext")
    marker = str(keyfile(tmp_path))
    rid = unique_request_id()
    args = ["submit", "Pay #complete", "--email", unique_email(), "--request-id", rid]
    proc = subprocess.Popen(
        [SVC, *args, "--profile", "ext"],
        env=cli.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not _programs_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _programs_with(marker), "the signer program never started"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    time.sleep(0.5)
    assert not _programs_with(marker)  # the signer went with svc's interrupt
    assert_nothing_sent(cli, sandbox, rid)


def _programs_with(marker: str) -> list[str]:
    out = subprocess.run(
        ["ps", "-ww", "-eo", "pid,args"], capture_output=True, text=True, check=False
    ).stdout
    return [line for line in out.splitlines() if marker in line and "signer_peers" in line]
