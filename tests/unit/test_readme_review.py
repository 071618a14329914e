"""The review a typed answer ends in is what the README says `--wait` does (issue 52.4): a
person who reads "in one go" must not meet an unannounced question."""

from __future__ import annotations

from pathlib import Path

from svc.ui.form import REVIEW_QUESTION

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_names_the_review_that_wait_asks() -> None:
    text = " ".join(README.read_text(encoding="utf-8").split())
    start = text.index("On a terminal, `--wait` does it all in one go")
    paragraph = text[start : start + 400]
    assert f"`{REVIEW_QUESTION}`" in paragraph, paragraph
    assert "cancels and sends nothing" in paragraph
