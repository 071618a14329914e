"""After paid work, `locks/` is empty (issue 34.5: one lock file per request id was kept for
ever). A submit and a batch run as a person runs them; every request is settled, so none may
leave its lock file behind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import Cli, Sandbox, unique_email

pytestmark = pytest.mark.e2e


def lock_files(cli: Cli) -> list[str]:
    folder = Path(cli.env["SVC_DATA_DIR"]) / "locks"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_a_submit_and_a_batch_leave_no_lock_file(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    cli.ok("submit", "One task", "--email", unique_email())
    source = tmp_path / "tasks.jsonl"
    source.write_text(
        "".join(json.dumps({"task": f"Line {n}", "email": unique_email()}) + "\n" for n in range(5))
    )
    cli.ok("submit", "--from", str(source), "--concurrency", "3")
    assert len(sandbox.books()["charges"]) >= 6
    assert (Path(cli.env["SVC_DATA_DIR"]) / "locks").exists()  # locks were taken here
    assert lock_files(cli) == []
