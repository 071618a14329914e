"""Prompts on the terminal (stderr), only when prompting is allowed.

`getpass` falls back to echoing stdin when there is no terminal, so every hidden prompt checks
for a terminal first and refuses otherwise.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from svc.errors import HumanNeededError
from svc.ui import terminal
from svc.ui.sanitize import clean

if TYPE_CHECKING:
    from svc.ui.output import Output


def _require_tty(what: str) -> None:
    if not sys.stdin.isatty():
        raise HumanNeededError(f"{what} needs a terminal; none is attached")


def ask_hidden(prompt: str) -> str:
    _require_tty("a hidden prompt")
    import getpass

    with terminal.prompting():
        return getpass.getpass(clean(prompt, 300, single_line=True) + " ", stream=sys.stderr)


def ask_text(prompt: str, default: str | None = None) -> str:
    _require_tty("a prompt")
    suffix = f" [{default}]" if default else ""
    suffix = clean(suffix, 300, single_line=True)
    with terminal.prompting():
        terminal.write(sys.stderr, clean(prompt, 300, single_line=True) + suffix + ": ")
        line = sys.stdin.readline()
    if not line:
        raise HumanNeededError("no answer: standard input closed")
    answer = line.rstrip("\n")
    return answer or (default or "")


def confirm(prompt: str, default: bool = False) -> bool:
    hint = "Y/n" if default else "y/N"
    answer = ask_text(f"{prompt} ({hint})").strip().lower()
    if not answer:
        return default
    return answer in ("y", "yes")


def say(message: str) -> None:
    """A line of a form (the task's message, a retry hint) on stderr, cleaned."""
    terminal.write(sys.stderr, clean(message, 500) + "\n")


def confirm_new_recipient(output: Output, old: str, new: str) -> bool:
    output.warn(f"the service's payment recipient changed: {old} -> {new}")
    return confirm("Pay the new recipient and pin it from now on?")
