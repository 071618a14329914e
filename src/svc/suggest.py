"""`; did you mean 'x'?` for a mistyped word: one helper for commands, config keys, profiles
and states (its own tiny module, so the command table can use it without loading the config
reader)."""

from __future__ import annotations


def did_you_mean(word: str, choices: list[str] | tuple[str, ...]) -> str:
    """`; did you mean 'x'?` for the closest known word, or nothing."""
    import difflib  # only on the error path

    close = difflib.get_close_matches(word, list(choices), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""
