"""The committed docs/reliability.md (refreshed by `make reliability`) shows every row passing."""

from __future__ import annotations

import re

from tests.reliability_report import DOC, SOAK_BEGIN, SOAK_END, problems


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
