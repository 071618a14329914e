"""A batch file is checked whole before anything is paid (issue 29.2).

Before: a file with one good line and six bad ones paid the good line and exited 2 ("nothing
was sent or charged"); one deeply nested line or a 5000-digit integer ended the whole run with
an internal error while 19 paid requests were in flight. Now any bad line means nothing is
paid (exit 2, every bad line named by number); `--skip-bad-lines` pays the good ones.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from tests.conftest import SVC, Cli, Sandbox, unique_email

from svc.engines.batch_file import derive_request_id

pytestmark = pytest.mark.e2e


def hostile_file(path: Path, email: str) -> tuple[Path, list[str]]:
    """Two good lines and one of every kind of bad line; the good lines' request ids."""
    good = [{"task": f"checked {i} #complete", "email": email} for i in range(2)]
    rows: list[bytes] = [json.dumps(line).encode() for line in good]
    rows += [
        b"[" * 150_000,  # nested too deeply for json's recursion
        b'{"task": ' + b"9" * 5000 + b"}",  # an integer over Python's digit limit
        b'{"task": "\xff\xfe", "email": "a@example.com"}',  # not UTF-8
        b'{"task": "a\x00b", "email": "a@example.com"}',  # a NUL byte
        b'{"task": "\\ud800", "email": "a@example.com"}',  # a lone surrogate
        json.dumps({"task": "x", "email": email, "request_id": "req_dup_00000001"}).encode(),
        json.dumps({"task": "y", "email": email, "request_id": "req_dup_00000001"}).encode(),
        b'{"task": "' + b"a" * 300_000 + b'"}',  # over the line cap
    ]
    path.write_bytes(b"\n".join(rows) + b"\n")
    return path, [derive_request_id(g["task"], email, 1) for g in good]


REASONS = {
    3: "nested too deeply",
    4: "a number longer than 4300 digits",
    5: "not UTF-8 text",
    6: "contains a NUL byte",
    7: "a lone surrogate",
    9: "request_id req_dup_00000001 is used by an earlier line",
    10: "longer than 200000 bytes",
}


def test_one_bad_line_pays_nothing_and_every_bad_line_is_named(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    source, good_ids = hostile_file(tmp_path / "t.jsonl", unique_email())
    result = cli("submit", "--from", str(source))
    assert result.returncode == 2, result.stderr
    assert "internal error" not in result.stderr
    for number, reason in REASONS.items():
        assert f"svc: line {number}: {reason}" in result.stderr, result.stderr
    assert {doc["line"] for doc in result.lines()} == set(REASONS)
    assert all(doc["outcome"] == "invalid" for doc in result.lines())
    assert "nothing was sent or paid: 7 bad lines (3-7, 9-10)" in result.stderr
    for rid in good_ids:
        assert sandbox.charges_for(rid) == []


def test_skip_bad_lines_pays_the_good_ones_and_exits_with_their_outcome(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    source, good_ids = hostile_file(tmp_path / "t.jsonl", unique_email())
    result = cli("submit", "--from", str(source), "--skip-bad-lines")
    assert result.returncode == 0, result.stderr
    outcomes = {doc["line"]: doc["outcome"] for doc in result.lines()}
    assert [outcomes[n] for n in (1, 2, 8)] == ["accepted"] * 3
    assert all(outcomes[n] == "invalid" for n in REASONS)
    for rid in good_ids:
        assert len(sandbox.charges_for(rid)) == 1


def test_stdin_is_spooled_privately_and_removed(cli: Cli, sandbox: Sandbox) -> None:
    email = unique_email()
    text = "\n".join(json.dumps({"task": f"spool {i} #complete"}) for i in range(3)) + "\n{"
    refused = cli("submit", "--from", "-", "--email", email, input=text)
    assert refused.returncode == 2 and "line 4: not a JSON object" in refused.stderr
    assert sandbox.charges_for(derive_request_id("spool 0 #complete", email, 1)) == []
    paid = cli("submit", "--from", "-", "--email", email, "--skip-bad-lines", input=text)
    assert paid.returncode == 0, paid.stderr
    assert len(sandbox.charges_for(derive_request_id("spool 0 #complete", email, 1))) == 1
    assert not list((cli.home / "data").glob("batch-stdin-*"))  # the copy is gone


PEAK = """
import resource, subprocess, sys
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(proc.returncode, peak_kib, proc.stderr.replace(chr(10), " | "))
"""


def test_a_512_mib_line_without_a_newline_is_refused_in_under_100_mb(
    cli: Cli, tmp_path: Path
) -> None:
    huge = tmp_path / "huge.jsonl"
    with huge.open("wb") as f:
        f.truncate(512 << 20)  # a sparse file: 512 MiB of one line, no newline
    probe = subprocess.run(
        [sys.executable, "-c", PEAK, SVC, "submit", "--from", str(huge), "--email", "a@b.co"],
        env=cli.env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    code, peak_kib, stderr = probe.stdout.split(" ", 2)
    assert code == "2", stderr
    assert "line 1: longer than 200000 bytes" in stderr
    assert int(peak_kib) < 100 * 1024, f"peak {int(peak_kib) // 1024} MiB"


def _on_a_terminal(cli: Cli, *args: str) -> pexpect.spawn:
    env = {k: v for k, v in cli.env.items() if k != "CI"}
    return pexpect.spawn(
        SVC, list(args), env=env, encoding="utf-8", timeout=30, dimensions=(50, 160)
    )


def test_on_a_terminal_the_batch_asks_before_the_first_payment(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    email = unique_email()
    source = tmp_path / "t.jsonl"
    source.write_text(
        "\n".join(json.dumps({"task": f"ask {i} #complete", "email": email}) for i in range(3))
    )
    first = derive_request_id("ask 0 #complete", email, 1)
    declined = _on_a_terminal(cli, "submit", "--from", str(source))
    declined.expect(r"Pay up to 3 x 1\.50 USD = 4\.50 USD\? \(y/N\)")
    declined.sendline("n")
    declined.expect(pexpect.EOF)
    declined.close()
    assert declined.exitstatus == 2 and "nothing was sent or paid" in (declined.before or "")
    assert sandbox.charges_for(first) == []

    accepted = _on_a_terminal(cli, "submit", "--from", str(source), "--max-price", "1.5")
    accepted.expect(r"Pay up to 3 x 1\.50 USD = 4\.50 USD\?")
    accepted.sendline("y")
    accepted.expect(pexpect.EOF)
    accepted.close()
    assert accepted.exitstatus == 0, accepted.before
    assert len(sandbox.charges_for(first)) == 1

    unasked = _on_a_terminal(cli, "submit", "--from", str(source), "--yes")
    unasked.expect(pexpect.EOF)
    unasked.close()
    assert unasked.exitstatus == 0 and "Pay up to" not in (unasked.before or "")


def test_batch_flags_outside_a_batch_are_refused(cli: Cli, sandbox: Sandbox) -> None:
    for flag in ("--skip-bad-lines", "--yes"):
        refused = cli("submit", "One #complete", "--email", unique_email(), flag)
        assert refused.returncode == 2, refused.stderr
        assert f"svc: {flag} applies only to a batch (--from FILE)" in refused.stderr


def _no_file_writes() -> None:
    """The child's disk is full: every write to a file fails (EFBIG, as ENOSPC would)."""
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))


def test_stdin_that_cannot_be_spooled_is_exit_9_and_pays_nothing(
    cli: Cli, sandbox: Sandbox
) -> None:
    email = unique_email()
    text = json.dumps({"task": "spool full #complete", "email": email}) + "\n"
    proc = subprocess.run(
        [SVC, "submit", "--from", "-"],
        input=text,
        env=cli.env,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_no_file_writes,
        check=False,
    )
    assert proc.returncode == 9, proc.stderr
    assert "cannot keep the batch from standard input in" in proc.stderr
    assert "nothing was sent" in proc.stderr and "Traceback" not in proc.stderr
    assert sandbox.charges_for(derive_request_id("spool full #complete", email, 1)) == []


def test_a_batch_from_a_pipe_is_copied_once_and_paid(cli: Cli, sandbox: Sandbox) -> None:
    """`--from <(gen)` is a pipe: the check pass drained it, and the send pass found nothing
    (before: exit 0, '0 submitted', nothing paid). Anything not a regular file is copied first."""
    email = unique_email()
    lines = [json.dumps({"task": f"piped {i} #complete", "email": email}) for i in range(2)]
    script = f"svc submit --from <(printf '%s\\n' {' '.join(repr(x) for x in lines)})"
    env = {**cli.env, "PATH": str(Path(SVC).parent) + ":" + cli.env.get("PATH", "")}
    ran = subprocess.run(
        ["bash", "-c", script], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert ran.returncode == 0, ran.stderr
    assert [doc["outcome"] for doc in map(json.loads, ran.stdout.splitlines())] == ["accepted"] * 2
    for i in range(2):
        assert len(sandbox.charges_for(derive_request_id(f"piped {i} #complete", email, 1))) == 1
    assert not list((cli.home / "data").glob("batch-stdin-*"))  # the copy is gone


def test_a_rerun_batch_prices_only_its_new_lines(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    """Lines the ledger holds as accepted are not paid again: the question prices the new
    ones and says how many were accepted already."""
    email = unique_email()
    source = tmp_path / "t.jsonl"
    lines = [json.dumps({"task": f"again {i} #complete", "email": email}) for i in range(3)]
    source.write_text("\n".join(lines[:2]) + "\n")
    cli.ok("submit", "--from", str(source))
    source.write_text("\n".join(lines) + "\n")
    rerun = _on_a_terminal(cli, "submit", "--from", str(source))
    rerun.expect(r"2 lines accepted already: not sent or paid again")
    rerun.expect(r"Pay up to 1 x 1\.50 USD = 1\.50 USD\? \(y/N\)")
    rerun.sendline("y")
    rerun.expect(pexpect.EOF)
    rerun.close()
    assert rerun.exitstatus == 0, rerun.before
    third = derive_request_id("again 2 #complete", email, 1)
    assert len(sandbox.charges_for(third)) == 1

    nothing_new = _on_a_terminal(cli, "submit", "--from", str(source))
    nothing_new.expect(r"3 lines accepted already")
    nothing_new.expect(pexpect.EOF)
    nothing_new.close()
    assert nothing_new.exitstatus == 0 and "Pay up to" not in (nothing_new.before or "")
