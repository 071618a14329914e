"""`watch --notify`: tell the person a task needs them (or ended), in our own words.

Two channels, each used only where it can work:
* the terminal: a bell plus the desktop-notification escapes many terminals understand
  (OSC 9: iTerm2, Windows Terminal, kitty...; OSC 777: VTE terminals, foot, WezTerm), written
  only when stdout is a terminal, so a pipe never receives escape bytes;
* the desktop: `notify-send` (Linux) or `osascript` (macOS), found on PATH at run time,
  silently skipped when absent, started without a shell (the text is an argument, never code).
  freedesktop notification servers render a subset of HTML in the body, so for `notify-send`
  the body is escaped (`<`, `>`, `&`, quotes) and comes after `--` (never read as an option).

The text is built by the caller from the task id, the state and what is asked, cleaned here
again; it never carries a value the person typed (the watch has none to give).
"""

from __future__ import annotations

import html
import shutil
import subprocess
import sys
from collections.abc import Callable

from svc import redact
from svc.sanitize import clean
from svc.ui import terminal

TITLE = "svc"
DESKTOP_TIMEOUT = 5.0  # seconds a notifier may take; it runs detached, this only reaps it


def _inert(text: str) -> str:
    # OSC payloads end at BEL or ESC: clean() already drops control characters; `;` would split
    # OSC 777's fields, so it becomes a comma.
    return clean(text, 200, single_line=True).replace(";", ",")


class Notifier:
    def __init__(self, *, terminal_ok: bool | None = None) -> None:
        self.terminal_ok: bool = sys.stdout.isatty() if terminal_ok is None else terminal_ok
        self.desktop: _Command | None = _desktop_command()

    def notify(self, text: str) -> None:
        body = _inert(redact.scrub(text))  # a desktop banner is printing too
        if self.terminal_ok:
            terminal.write_out(f"\a\x1b]9;{TITLE}: {body}\x07\x1b]777;notify;{TITLE};{body}\x07")
        if self.desktop is not None:
            _start_detached([*self.desktop(body)])


def desktop_notifier() -> str | None:
    """The desktop notifier `--notify` would use here (a path), or None: terminal only."""
    command = _desktop_command()
    return command.argv[0] if command else None


def _desktop_command() -> _Command | None:
    send = shutil.which("notify-send")
    if send:
        return _Command([send, "--app-name", TITLE, "--", TITLE], escape=_body_markup)
    script = shutil.which("osascript") if sys.platform == "darwin" else None
    if script:
        # The text is passed as an argument to `on run`, never spliced into AppleScript.
        code = 'on run argv\ndisplay notification (item 1 of argv) with title "svc"\nend run'
        return _Command([script, "-e", code])
    return None


def _body_markup(text: str) -> str:
    """Plain text as freedesktop body markup: shown as it reads, never a link or an image."""
    return html.escape(text, quote=True)


class _Command:
    def __init__(self, argv: list[str], escape: Callable[[str], str] = str) -> None:
        self.argv = argv
        self.escape = escape

    def __call__(self, body: str) -> list[str]:
        return [*self.argv, self.escape(body)]


def _start_detached(argv: list[str]) -> None:
    try:
        subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        return  # a notifier that cannot start is the same as none
