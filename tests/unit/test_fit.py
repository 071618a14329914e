"""Lines fitted to a terminal's width between words (issue 30.9)."""

from __future__ import annotations

from svc.ui.fit import fit

RID = "req_0123456789abcdef0123456789abcdef"


def test_a_line_that_fits_is_left_exactly_as_it_is() -> None:
    banner = "  svc wallet create                     a test key"
    assert fit(banner, 80) == banner
    assert fit("x " * 100, None) == "x " * 100  # not a terminal: never wrapped


def test_words_ids_and_amounts_are_never_split() -> None:
    text = (
        f"hint: resume without paying again: svc submit 'Book it' --email a@b.c --request-id {RID}"
    )
    lines = fit(text, 60).split("\n")
    assert all(len(line) <= 60 for line in lines)
    assert any(RID in line for line in lines)
    assert " ".join(" ".join(lines).split()) == " ".join(text.split())
    assert "1.50 USD" in fit("x" * 50 + " paying 1.50 USD now", 57)


def test_a_command_in_backticks_stays_on_one_line_when_it_fits() -> None:
    text = "hint: approve it in the app, then `svc watch task_8f2c41d09b7e6a13` or wait"
    lines = fit(text, 50).split("\n")
    assert any("`svc watch task_8f2c41d09b7e6a13`" in line for line in lines), lines


def test_continuation_lines_are_indented_and_a_long_word_starts_at_the_margin() -> None:
    path = "/tmp/" + "d" * 90
    lines = fit(f"ledger: local at {path} for this runner", 40).split("\n")
    assert lines[1] == path and lines[2].startswith("  for")
