"""A batch over allowed cleartext (allow_insecure_http) to another host: each payment says so,
and that credentials and data go out in cleartext is said once for the host, as one submit
says it, although each of the batch's workers sends through an HTTP client of its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import Cli, unique_email
from tests.e2e.test_transport import remote_sandbox

pytestmark = pytest.mark.e2e

__all__ = ["remote_sandbox"]  # the fixture: another host as far as svc knows


def test_a_cleartext_batch_warns_each_payment_and_the_host_once(
    cli: Cli, remote_sandbox: str, tmp_path: Path
) -> None:
    email = unique_email()
    source = tmp_path / "clear.jsonl"
    lines = [{"task": f"clear batch {i} #complete", "email": email} for i in range(4)]
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    env = {"SVC_BASE_URL": remote_sandbox, "SVC_ALLOW_INSECURE_HTTP": "1"}
    result = cli("submit", "--from", str(source), "--concurrency", "4", "--yes", env=env)
    assert result.returncode == 0, result.stderr
    accepted = [json.loads(line) for line in result.stdout.splitlines()]
    assert [doc["outcome"] for doc in accepted] == ["accepted"] * 4
    host = remote_sandbox.split("://", 1)[1].rsplit(":", 1)[0]
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    paying = [w for w in warnings if w.startswith("warning: paying over cleartext")]
    sending = [w for w in warnings if w.startswith("warning: sending credentials")]
    assert len(paying) == 4 and all(host in w for w in paying)  # every payment says so
    assert sending == [
        f"warning: sending credentials and data over cleartext http to {host}: "
        "anyone on the path can read or change them"
    ]
