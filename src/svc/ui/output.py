"""The IO streams of a command: terminal or not, JSON or not, and where each kind of text goes.

Machine output (exactly one JSON document, or NDJSON for streams) goes to stdout; diagnostics,
progress and prompts go to stderr. Colour is decided here, once: never when NO_COLOR is set or
the stream is not a terminal.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any, TextIO

from svc.ui.sanitize import clean

if TYPE_CHECKING:
    from rich.console import Console


class Output:
    def __init__(
        self,
        *,
        json_mode: bool = False,
        stdout: TextIO | None = None,
        stderr: TextIO | None = None,
    ) -> None:
        self.stdout = stdout or sys.stdout
        self.stderr = stderr or sys.stderr
        self.stdout_tty = self.stdout.isatty()
        self.stderr_tty = self.stderr.isatty()
        self.json_mode = json_mode or not self.stdout_tty
        self._console: Console | None = None
        self._err_console: Console | None = None

    @property
    def color(self) -> bool:
        return not os.environ.get("NO_COLOR")

    def _make_console(self, stream: TextIO, tty: bool) -> Console:
        from rich.console import Console

        return Console(
            file=stream,
            force_terminal=tty,
            no_color=not self.color,
            highlight=False,
            emoji=False,
            markup=False,
            soft_wrap=False,
        )

    @property
    def console(self) -> Console:
        if self._console is None:
            self._console = self._make_console(self.stdout, self.stdout_tty)
        return self._console

    @property
    def err_console(self) -> Console:
        if self._err_console is None:
            self._err_console = self._make_console(self.stderr, self.stderr_tty)
        return self._err_console

    # --- machine output ------------------------------------------------------------------

    def emit_json(self, doc: Any) -> None:
        """One JSON document (the service's object as returned)."""
        self.stdout.write(
            json.dumps(doc, ensure_ascii=False, indent=2 if self.stdout_tty else None)
        )
        self.stdout.write("\n")
        self.stdout.flush()

    def emit_line(self, doc: Any) -> None:
        """One NDJSON line (streams)."""
        self.stdout.write(json.dumps(doc, ensure_ascii=False, separators=(",", ":")))
        self.stdout.write("\n")
        self.stdout.flush()

    # --- human output --------------------------------------------------------------------

    def info(self, message: str) -> None:
        """A diagnostic line on stderr (our own text: may contain server text already cleaned)."""
        self.stderr.write(message + "\n")
        self.stderr.flush()

    def note(self, message: str, style: str = "dim") -> None:
        if self.stderr_tty:
            from rich.text import Text

            self.err_console.print(Text(message, style=style if self.color else ""))
        else:
            self.info(message)

    def warn(self, message: str) -> None:
        self.info(f"warning: {clean(message, 500)}")
