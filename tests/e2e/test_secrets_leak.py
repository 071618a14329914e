"""Secrets never leak (issue 6.5): plant unique values, run a broad scenario with -v, grep all.

Planted: a fresh wallet key, an ID-JAG assertion, the platform assertion and refresh tokens it
yields (read back from the secret store), every access token (`svcat_…`), an SPT (from a file
outside the home), a malformed SPT, and a 2FA code sent with --sensitive. Every `svc` child is
spawned without them in argv (and /proc/PID/cmdline of a live `svc watch` is read); then every
file written under the test home and every captured stream is searched for each value in plain,
base64 and URL-safe base64 form. Only the secret store file may hold them, plus, by design, the
ledger's journaled MPP credential (it embeds the single-use SPT so that a resume re-sends the
same payment instead of paying twice; the SPT is spent once the submit is accepted).
"""

from __future__ import annotations

import base64
import json
import os
import re
import secrets as pysecrets
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SVC, Cli, Result, Sandbox, _base_env
from tests.ledger_reads import submissions
from tests.reliability_report import record

pytestmark = pytest.mark.e2e

ACCESS_TOKEN = re.compile(rb"svcat_[A-Za-z0-9_\-]{8,}")


class RecordingCli(Cli):
    """`Cli` that keeps every argv and every captured stream."""

    runs: list[Result]

    def __call__(self, *args: str, **kwargs: Any) -> Result:
        result = super().__call__(*args, **kwargs)
        self.runs.append(result)
        return result


def _forms(value: str) -> list[bytes]:
    raw = value.encode()
    forms = [raw]
    for enc in (base64.b64encode, base64.urlsafe_b64encode):
        forms.append(enc(raw).rstrip(b"=")[:-2])  # the stable prefix of its encoding
    return forms


def test_planted_secrets_never_leak(sandbox: Sandbox, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    outside = tmp_path / "inputs"  # what the user hands in (not written by svc)
    outside.mkdir()
    cli = RecordingCli(home, {**_base_env(home), "SVC_BASE_URL": sandbox.url})
    cli.runs = []
    email = f"leak-{uuid.uuid4().hex[:8]}@example.com"
    planted: dict[str, str] = {}

    # Wallet key: imported from stdin.
    key = "0x" + pysecrets.token_hex(32)
    planted["wallet key"] = key
    planted["wallet key (no 0x)"] = key[2:]
    cli.ok("-v", "wallet", "import", input=key + "\n")
    address = cli.ok("wallet", "address", "--json").stdout

    # Identity: an ID-JAG from the sandbox IdP (admin API, no svc stream) -> claimed credential.
    jag = sandbox.admin("POST", "/identity/id-jag", json={"email": email})["assertion"]
    planted["ID-JAG assertion"] = jag
    cli.ok("-v", "identity", "register", "--assertion-file", "-", input=jag)
    store = home / "config" / "secrets.json"
    _collect_bundle(store, planted, "first")
    cli.ok("-v", "identity", "refresh")
    _collect_bundle(store, planted, "rotated")
    cli.ok("-v", "identity", "status")
    cli.ok("-v", "identity", "status", "--json")

    # x402 paid submit with the bearer, 2FA answered with a sensitive value.
    sms = f"{pysecrets.randbelow(10**6):06d}-{uuid.uuid4().hex[:6]}"
    planted["2FA code (sensitive)"] = sms
    task = cli.ok("-v", "submit", "Leak test #2fa", "--email", email).json()
    sandbox.advance(11)
    cli.ok(
        "-v",
        "reply",
        task["id"],
        "--field",
        "sms_code",
        "--value-file",
        "-",
        "--sensitive",
        input=sms + "\n",
    )
    cli.ok("-v", "poll", task["id"])
    cli.ok("-v", "--json", "poll", task["id"])

    # MPP: the SPT comes from a file outside the home.
    spt = f"spt_test_{uuid.uuid4().hex}"
    planted["SPT"] = spt
    spt_file = outside / "spt"
    spt_file.write_text(spt)
    spt_file.chmod(0o600)
    paid = cli.ok(
        "-v",
        "submit",
        "Leak mpp #complete",
        "--email",
        email,
        "--pay",
        "mpp",
        env={"SVC_SPT_FILE": str(spt_file)},
    )
    assert paid.json()["id"]
    bad_spt = f"not an spt {uuid.uuid4().hex}"  # malformed: the error must not echo it
    planted["malformed SPT"] = bad_spt
    refused = cli(
        "-v",
        "submit",
        "Leak bad #complete",
        "--email",
        email,
        "--pay",
        "mpp",
        env={"SVC_SPT": bad_spt},
    )
    assert refused.returncode == 5, refused.stderr

    # A live watch: its argv as the kernel shows it to every user.
    slow = cli.ok("submit", "Leak watch #slow", "--email", email).json()["id"]
    proc = subprocess.Popen(
        [SVC, "-v", "watch", slow, "--interval", "1"],
        env=cli.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        time.sleep(1.0)
        cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes()
    finally:
        proc.terminate()
        watch_out, watch_err = proc.communicate(timeout=10)
    cli.ok("-v", "tasks")
    cli.ok("-v", "tasks", "--json")
    cli.ok("-v", "spend", "--json")
    cli.ok("-v", "config", "list")

    # --- search ------------------------------------------------------------------------
    streams = [r.stdout.encode() for r in cli.runs] + [r.stderr.encode() for r in cli.runs]
    streams += [watch_out, watch_err, address.encode()]
    argvs = [" ".join(r.args).encode() for r in cli.runs] + [cmdline.replace(b"\0", b" ")]
    files = [p for p in home.rglob("*") if p.is_file()]
    ledger = home / "data" / "ledger.sqlite3"
    journaled = _journaled_mpp_credentials(ledger)

    leaks: list[str] = []
    for name, value in planted.items():
        for form in _forms(value):
            leaks += [f"{name} in argv" for a in argvs if form in a]
            leaks += [f"{name} in a stream" for s in streams if form in s]
            for path in files:
                if path == store:
                    continue
                data = path.read_bytes()
                if form in data and not (name == "SPT" and _only_in(data, form, journaled)):
                    leaks.append(f"{name} in {path.relative_to(home)}")
    for blob in [*streams, *argvs, *(p.read_bytes() for p in files if p != store)]:
        leaks += ["an access token (svcat_…)" for _ in ACCESS_TOKEN.finditer(blob)]
    record(
        "secrets",
        "broad",
        {
            "scenario": "wallet import, ID-JAG register, refresh, x402 + bearer submit, "
            "2FA --sensitive, MPP from file, bad SPT, live watch, -v everywhere",
            "planted": len(planted) + 1,  # + the access tokens, found by their prefix
            "files": len(files),
            "streams": len(streams),
            "children": len(argvs),
            "leaked": len(leaks),
            "passed": not leaks,
        },
        expected=1,
    )
    assert not leaks, sorted(set(leaks))
    assert store.stat().st_mode & 0o077 == 0
    sandbox.advance(25)  # the service purges the sensitive value when the task ends
    assert cli.ok("poll", task["id"]).json()["state"] == "completed"
    assert sandbox.internals(task["id"])["sensitive_values_stored"] == 0


def _collect_bundle(store: Path, planted: dict[str, str], label: str) -> None:
    """The platform assertion and refresh token, read back from the secret store file."""
    doc = json.loads(store.read_text())
    for value in doc.values():
        try:
            bundle = json.loads(value)
        except (TypeError, ValueError):
            continue
        if isinstance(bundle, dict):
            for field in ("assertion", "refresh_token", "claim_token"):
                if isinstance(bundle.get(field), str):
                    planted[f"{field} ({label})"] = bundle[field]


def _journaled_mpp_credentials(ledger: Path) -> list[bytes]:
    return [r.proof.encode() for r in submissions(ledger) if r.method == "mpp" and r.proof]


def _only_in(data: bytes, form: bytes, allowed: list[bytes]) -> bool:
    """Every occurrence of `form` in `data` lies inside one of the allowed blobs."""
    spans = [(m.start(), m.end()) for blob in allowed for m in re.finditer(re.escape(blob), data)]
    return all(
        any(s <= m.start() and m.end() <= e for s, e in spans)
        for m in re.finditer(re.escape(form), data)
    )


def test_secret_file_refused_when_readable_by_others_or_a_symlink(cli: Cli) -> None:
    store = cli.home / "config" / "secrets.json"
    store.chmod(0o644)
    loose = cli("wallet", "address")
    assert loose.returncode != 0
    assert "readable by other users" in loose.stderr and "chmod 600" in loose.stderr
    assert len([line for line in loose.stderr.splitlines() if line.startswith("svc:")]) == 1
    store.chmod(0o600)
    real = store.with_name("real.json")
    os.replace(store, real)
    store.symlink_to(real)
    linked = cli("wallet", "address")
    assert linked.returncode != 0 and "symbolic link" in linked.stderr
