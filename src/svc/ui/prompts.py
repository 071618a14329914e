"""Prompts on the terminal (stderr), only when prompting is allowed.

`getpass` falls back to echoing stdin when there is no terminal, so every hidden prompt checks
for a terminal first and refuses otherwise.

A prompt can be withdrawn: inside `cancellable(event)` (in the thread that asks), the input
primitives wait for the line with `select` and raise `PromptCancelled` once `event` is set.
`svc watch` uses it to keep polling while a form is open and to close a prompt the task no
longer needs (answered elsewhere, approved in the app, expired).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from typing import TYPE_CHECKING

from svc.errors import HumanNeeded
from svc.sanitize import clean
from svc.ui import terminal
from svc.ui.fit import columns, fit

if TYPE_CHECKING:
    from collections.abc import Iterator

    from svc.ui.output import Output

POLL_SECONDS = 0.1  # how soon a withdrawn prompt notices


class PromptCancelled(Exception):
    """The prompt was withdrawn (the caller knows why and says so)."""


class _Cancel(threading.local):
    event: threading.Event | None = None


_cancel = _Cancel()


@contextlib.contextmanager
def cancellable(event: threading.Event) -> Iterator[None]:
    """Prompts asked in this thread meanwhile give up with PromptCancelled once `event` is set."""
    _cancel.event = event
    try:
        yield
    finally:
        _cancel.event = None


def _wait_line(event: threading.Event) -> str:
    """One line from the terminal, read in whole lines (canonical mode) as they arrive."""
    import select

    fd = sys.stdin.fileno()
    chunks: list[bytes] = []
    while True:
        if event.is_set():
            raise PromptCancelled
        ready, _, _ = select.select([fd], [], [], POLL_SECONDS)
        if not ready:
            continue
        chunk = os.read(fd, 4096)
        if not chunk:
            return b"".join(chunks).decode(errors="replace")  # end of input
        chunks.append(chunk)
        if chunk.endswith(b"\n"):
            return b"".join(chunks).decode(errors="replace")


@contextlib.contextmanager
def _no_echo() -> Iterator[None]:
    import termios

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    quiet = termios.tcgetattr(fd)
    quiet[3] &= ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSAFLUSH, quiet)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSAFLUSH, saved)


def _require_tty(what: str) -> None:
    if not sys.stdin.isatty():
        raise HumanNeeded(f"{what} needs a terminal; none is attached")


def ask_hidden(prompt: str) -> str:
    _require_tty("a hidden prompt")
    event = _cancel.event
    if event is None:
        import getpass

        with terminal.prompting():
            return getpass.getpass(clean(prompt, 300, single_line=True) + " ", stream=sys.stderr)
    with terminal.prompting():
        terminal.write(sys.stderr, clean(prompt, 300, single_line=True) + " ")
        try:
            with _no_echo():
                line = _wait_line(event)
        finally:
            terminal.write(sys.stderr, "\n")  # the Enter was not echoed
    return line.rstrip("\r\n")


def ask_text(prompt: str, default: str | None = None) -> str:
    _require_tty("a prompt")
    suffix = f" [{default}]" if default else ""
    suffix = clean(suffix, 300, single_line=True)
    with terminal.prompting():
        terminal.write(sys.stderr, clean(prompt, 300, single_line=True) + suffix + ": ")
        event = _cancel.event
        try:
            line = sys.stdin.readline() if event is None else _wait_line(event)
        except PromptCancelled:
            terminal.write(sys.stderr, "\n")  # a withdrawn prompt still ends its own line
            raise
    if not line:
        raise HumanNeeded("no answer: standard input closed")
    answer = line.rstrip("\n")
    return answer or (default or "")


def confirm(prompt: str, default: bool = False) -> bool:
    hint = "Y/n" if default else "y/N"
    answer = ask_text(f"{prompt} ({hint})").strip().lower()
    if not answer:
        return default
    return answer in ("y", "yes")


def confirm_payment(prompt: str) -> bool:
    """A yes that spends money: what was typed before the question was shown is dropped
    first (an Enter or `y` meant for an earlier prompt must not answer this one), and the
    default is no."""
    flush_typeahead()
    return confirm(prompt, default=False)


def flush_typeahead() -> None:
    """Discard the terminal's input not yet read (a no-op when stdin is no terminal)."""
    import termios

    with contextlib.suppress(OSError, ValueError, termios.error):
        if sys.stdin.isatty():
            termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)


def say(message: str) -> None:
    """A line of a form (the task's message, a retry hint) on stderr, cleaned, and wrapped
    between words on a terminal."""
    terminal.write(sys.stderr, fit(clean(message, 500), columns(sys.stderr)) + "\n")


def confirm_new_recipient(output: Output, old: str, new: str) -> bool:
    output.warn(f"the service's payment recipient changed: {old} -> {new}")
    return confirm_payment("Pay the new recipient and pin it from now on?")


def confirm_link_host(output: Output, served_by: str, host: str, what: str) -> bool:
    """Asked by the origin gate when a server's link is on another host (both ASCII hosts)."""
    output.warn(
        f"{clean(what, 80, single_line=True)} is on {clean(host, 260, single_line=True)}, "
        f"not on {clean(served_by, 260, single_line=True)} that sent it"
    )
    return confirm(
        f"Trust {clean(host, 260, single_line=True)} for links from "
        f"{clean(served_by, 260, single_line=True)} from now on?"
    )
