"""The committed docs/reliability.md (refreshed by `make reliability`) shows every row passing."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.reliability_report import DIR_ENV, DOC, SOAK_BEGIN, SOAK_END, problems


def test_the_committed_report_is_complete_and_clean() -> None:
    assert problems(DOC.read_text()) == []


def test_the_counts_say_faults_and_fuzz_examples_ran() -> None:
    text = DOC.read_text()
    rows = [line.strip("|").split("|") for line in text.splitlines() if line.startswith("| ")]
    counts = {cells[0].strip(): cells[1].strip() for cells in rows if len(cells) == 2}
    assert int(counts["faults injected"]) > 100
    assert int(counts["fuzz examples run"]) >= 900


def test_a_failed_row_or_a_double_charge_is_reported() -> None:
    text = DOC.read_text()
    broken = text.replace("| pass |", "| FAIL |", 1).replace(
        "| double charges | 0 |", "| double charges | 1 |"
    )
    found = problems(broken)
    assert any(line.startswith("failed row:") for line in found)
    assert "double charges: 1" in found


def test_the_soak_section_is_kept_between_its_markers() -> None:
    text = DOC.read_text()
    assert re.search(re.escape(SOAK_BEGIN) + ".*" + re.escape(SOAK_END), text, re.S)


def test_a_session_removes_only_the_folder_it_made(tmp_path: Path) -> None:
    """A collection alone (make test-bytecode's) and a session inside another's (the folder
    inherited) leave everything as it was: an unset folder once read as the working
    directory, and the session removed it (a clean clone's tree, .venv and all)."""
    kept = tmp_path / "keep.txt"
    kept.write_text("x")
    outer = tmp_path / "outer"
    outer.mkdir()
    (outer / "row.json").write_text("{}")
    env = {k: v for k, v in os.environ.items() if k != DIR_ENV}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])  # `tests`, from another folder
    this = str(Path(__file__).resolve())
    runs = (
        ({}, ["--collect-only"]),
        ({DIR_ENV: str(outer)}, ["-k", "the_counts_say"]),
    )
    for extra, args in runs:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, this],
            cwd=tmp_path,
            env={**env, **extra},
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert kept.read_text() == "x" and (outer / "row.json").exists()
