"""The committed docs/reliability.md (written by a full `make test`) shows every row passing."""

from __future__ import annotations

import re

from tests.reliability_report import DOC, SOAK_BEGIN, SOAK_END


def _tables(text: str) -> list[list[str]]:
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


def test_every_row_of_the_reliability_report_passed() -> None:
    text = DOC.read_text()
    body = text.split(SOAK_BEGIN)[0]
    checked = 0
    for cells in _tables(body):
        if cells[-1] in ("pass", "FAIL"):
            assert cells[-1] == "pass", cells
            checked += 1
    assert checked >= 96 + 10 + 7 + 6 + 7, checked  # matrix, crashes, payments, hostile, fuzz


def test_the_counts_say_zero_double_charges_and_zero_leaks() -> None:
    counts = {cells[0]: cells[1] for cells in _tables(DOC.read_text()) if len(cells) == 2}
    assert counts["double charges"] == "0"
    assert counts["secrets leaked"] == "0"
    assert int(counts["faults injected"]) > 100
    assert int(counts["crashes survived"]) == 10
    assert int(counts["fuzz examples run"]) >= 900


def test_the_soak_section_is_kept_between_its_markers() -> None:
    text = DOC.read_text()
    assert re.search(re.escape(SOAK_BEGIN) + ".*" + re.escape(SOAK_END), text, re.S)
