"""The IO streams of a command: terminal or not, JSON or not, and where each kind of text goes.

Machine output (exactly one JSON document, or NDJSON for streams) goes to stdout; diagnostics,
progress and prompts go to stderr. Colour is decided here, once: never when NO_COLOR is set or
the stream is not a terminal.

Every method that prints human text cleans it (`svc.sanitize.clean`) on the way out: a
message, a table cell, a trace line. A caller may interpolate server text into a message
without thinking about it; there is no method that prints text as it is to a terminal.

Everything printed also passes `svc.redact.scrub`: a value this process sent as a secret (a
2FA code, a password) never comes back out, whether the service folded it into a goal, an
event or an error. Documents are scrubbed before they are shaped or drawn, so
`--jq` and `--template` never see it, and a drawing is scrubbed as the text it became.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from svc import redact
from svc.sanitize import FORMAT_CHARACTERS, clean
from svc.ui import terminal
from svc.ui.fit import columns, fit

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

    from svc.ui.shape import Shape
    from svc.ui.tables import Column
    from svc.ui.terminal import Spinner

T = TypeVar("T")
MESSAGE_LIMIT = 4000  # characters of one diagnostic message
CELL_LIMIT = 300  # characters of one table cell
DOCUMENT_LIMIT = 1_000_000  # characters of a whole document shown on a terminal


class Output:
    def __init__(
        self,
        *,
        json_mode: bool = False,
        stdout: TextIO | None = None,
        stderr: TextIO | None = None,
        shape: Shape | None = None,
        pager: str | None = None,
    ) -> None:
        self._out = stdout or sys.stdout
        self._err = stderr or sys.stderr
        self.stdout_tty: bool = self._out.isatty()
        self.stderr_tty: bool = self._err.isatty()
        self.shape = shape  # --json FIELDS / --jq / --template (None: as is)
        self.json_mode: bool = json_mode or not self.stdout_tty or bool(shape and shape.active)
        self.pager: str | None = pager if self.stdout_tty else None  # never into a pipe
        self._paging = False  # inside `paged()`: collect, do not page again
        self._console: Console | None = None
        self._err_console: Console | None = None
        self._paid_task: str | None = None  # inside `after_payment`: the task that was paid
        self._stdout_gone = False  # its reader went away after a payment: nothing more to it
        # Also handed each warning and note, as (level, text): `svc mcp` relays them to the
        # client as log messages (the terminal is not the person's there)
        self.relay: Callable[[str, str], None] | None = None

    @classmethod
    def for_protocol(cls, relay: Callable[[str, str], None] | None = None) -> Output:
        """For a process whose stdout is a protocol channel (`svc mcp`): every word of ours
        goes to stderr, so nothing a flow prints can corrupt the channel."""
        output = cls(json_mode=True, stdout=sys.stderr, stderr=sys.stderr)
        output.relay = relay
        return output

    @classmethod
    def sibling(cls: type[T], other: Output, *, json_mode: bool) -> T:
        """Another output on the same streams (batch workers)."""
        return cls(  # type: ignore[call-arg]
            json_mode=json_mode, stdout=other._out, stderr=other._err, shape=other.shape
        )

    @property
    def width(self) -> int | None:
        """Columns of the terminal stdout draws on; None when it is not one (no wrapping)."""
        return self._console_for(False).width if self.stdout_tty else None

    @property
    def color(self) -> bool:
        return not os.environ.get("NO_COLOR")

    def _make_console(self, stream: TextIO, tty: bool) -> Console:
        from rich.console import Console

        console = Console(
            file=stream,
            force_terminal=tty,
            no_color=not self.color,
            highlight=False,
            emoji=False,
            markup=False,
            soft_wrap=False,
        )
        console.on_broken_pipe = _broken_pipe  # type: ignore[method-assign]
        return console

    def _console_for(self, err: bool) -> Console:
        if err:
            if self._err_console is None:
                self._err_console = self._make_console(self._err, self.stderr_tty)
            return self._err_console
        if self._console is None:
            self._console = self._make_console(self._out, self.stdout_tty)
        return self._console

    def draw(
        self, renderable: RenderableType, *, err: bool = False, soft_wrap: bool = False
    ) -> None:
        """Print a rich renderable built in `svc.ui` (only ui builds them, from cleaned text).

        `soft_wrap`: a line of text is left whole for the terminal to wrap, so a path or an
        address read by a script (`svc config path`) never gets a newline in the middle."""
        if isinstance(renderable, str):
            renderable = _text(renderable, "")
        console = self._console_for(err)
        with terminal.holding():
            if redact.PROCESS:  # a secret was told: what is drawn is scrubbed as text
                with console.capture() as captured:
                    console.print(renderable, soft_wrap=soft_wrap)
                terminal.write(self._err if err else self._out, redact.scrub(captured.get()))
                return
            if not terminal.held_for_prompt():
                console.print(renderable, soft_wrap=soft_wrap)
                return
            with console.capture() as captured:  # a prompt is open: drawn after it closes
                console.print(renderable, soft_wrap=soft_wrap)
            terminal.hold(self._err if err else self._out, captured.get())

    # --- machine output ------------------------------------------------------------------

    def emit_json(self, doc: Any) -> None:
        """One JSON document (the service's object as returned), shaped by the output flags."""
        for piece in self._shaped(doc):
            self._emit(piece, indent=2 if self.stdout_tty else None)

    def emit_line(self, doc: Any) -> None:
        """One NDJSON line (streams); the output flags apply to each line."""
        for piece in self._shaped(doc):
            self._emit(piece, separators=(",", ":"))

    def _shaped(self, doc: Any) -> list[Any]:
        doc = redact.scrub(doc)  # before any flag sees it: `--jq .goal` cannot pick it out
        if self.shape is None:
            return [doc]
        from svc.ui.shape import ShapeError  # off the start-up path: only with an output flag

        try:
            return self.shape.apply(doc)
        except ShapeError as exc:
            if self._paid_task is None:
                raise
            self.warn(f"{exc.message}; {self._paid_line()}")
            return []

    def _paid_line(self) -> str:
        task = self._paid_task
        return f"task {task} was submitted and paid all the same: `svc poll {task}` shows it"

    @contextlib.contextmanager
    def after_payment(self, task_id: str) -> Iterator[Cut]:
        """The output of a request that was paid: a failing `--jq`/`--template` or a closed
        stdout is a warning naming the task, never an exit code that reads as "nothing
        charged" (a script that trusts the exit table would pay again). A closed stdout does
        not end what follows the payment (`--wait` watches the task to its end, its state
        the exit code); only a write this module cannot catch cuts it short (`Cut.cut`)."""
        outer, self._paid_task = self._paid_task, task_id
        cut = Cut()
        try:
            yield cut
        except BrokenPipeError:
            self._stdout_closed()
            cut.cut = True
        finally:
            self._paid_task = outer

    def _stdout_closed(self) -> None:
        """The reader of stdout went away after a payment: said once, and later writes go
        nowhere, so the command goes on to its own end."""
        if self._out is sys.stdout:
            terminal.silence_stdout()
        if not self._stdout_gone:
            self._stdout_gone = True
            self.warn(f"stdout was closed before the answer was written; {self._paid_line()}")

    def _write_out(self, text: str) -> None:
        """Our text on stdout; after a payment a closed stdout is a warning, not the end."""
        if self._stdout_gone:
            return
        try:
            terminal.write(self._out, text)
        except BrokenPipeError:
            if self._paid_task is None:
                raise
            self._stdout_closed()

    def _emit(
        self, piece: Any, *, indent: int | None = None, separators: tuple[str, str] | None = None
    ) -> None:
        if isinstance(piece, str) and self.shape and self.shape.active:  # jq/template text
            self.document(piece)
            return
        text = json.dumps(piece, ensure_ascii=False, indent=indent, separators=separators)
        self._write_out(json_inert(text) + "\n")

    def show(self, doc: T, render: Callable[[Output, T], None]) -> None:
        """The document as JSON in JSON mode, else drawn for a person by `render` (through
        the pager when it is longer than the terminal)."""
        if self.json_mode:
            self.emit_json(doc)
            return
        doc = redact.scrub(doc)
        if self.pager:
            with self.paged():
                render(self, doc)
        else:
            render(self, doc)

    def paged(self) -> Paged:
        """Collect what is drawn on stdout; on leaving, page it if it is taller than the
        terminal, else write it. The text is what would have been drawn: already cleaned."""
        return Paged(self)

    # --- human output on stderr ----------------------------------------------------------

    def info(self, message: str, **values: object) -> None:
        """A diagnostic line on stderr. `values` fill `{name}`s in the message, each cut to
        one bounded line; the whole message is cleaned either way."""
        text = redact.scrub(_message(message, values))
        terminal.write(self._err, fit(text, columns(self._err)) + "\n")

    def note(self, message: str, style: str = "dim", **values: object) -> None:
        if self.relay is not None:
            self.relay("info", redact.scrub(_message(message, values)))
        if self.stderr_tty:
            width = self._console_for(True).width
            text = _text(fit(_message(message, values), width), style if self.color else "")
            self.draw(text, err=True, soft_wrap=True)
        else:
            self.info(message, **values)

    def warn(self, message: str, **values: object) -> None:
        text = _message(message, values, limit=500)
        self.info("warning: " + text)
        if self.relay is not None:
            self.relay("warning", redact.scrub(text))

    def picture(self, text: str) -> None:
        """Block art of ours (a QR code) on stderr; cleaned like any text, kept whole."""
        terminal.write(self._err, clean(text, 200_000))

    def trace(self, text: str) -> None:
        """A `-v` trace block (request/response lines and headers), cleaned line by line."""
        trace(text)

    # --- human output on stdout ----------------------------------------------------------

    def line(self, message: str = "", style: str = "", **values: object) -> None:
        """A line of human output on stdout (the answer of a command on a terminal), wrapped
        between words to the terminal's width: never inside a path, an id or a URL."""
        text = _message(message, values)
        if self.stdout_tty:
            text = fit(text, self._console_for(False).width, indent="")
        self.draw(_text(text, style if self.color else ""), soft_wrap=True)

    def document(self, text: str, limit: int = DOCUMENT_LIMIT) -> None:
        """A whole text (a guide, llms.txt, a script): exactly as given into a pipe or file
        (`svc llms > f`), cleaned and bounded on a terminal."""
        text = redact.scrub(text)
        if not text.endswith("\n"):
            text += "\n"
        if not self.stdout_tty:
            self._write_out(text)
        elif self.pager and not self._paging:
            from svc.ui.pager import page

            page(clean(text, limit), self._out, self.pager)
        else:
            terminal.write(self._out, clean(text, limit))

    def table(
        self,
        columns: Sequence[str | Column],
        rows: Iterable[Sequence[object]],
        *,
        title: str | None = None,
        lines: bool = False,
        header: bool = True,
    ) -> None:
        """A table on stdout; every cell is cleaned and cut to one bounded line."""
        from svc.ui.tables import build_table  # off the start-up path: only for a table

        width = self._console_for(False).width
        table = build_table(columns, rows, title=title, lines=lines, header=header, width=width)
        self.draw(table)

    def pairs(self, rows: Iterable[tuple[str, object]], *, err: bool = False) -> None:
        """Key/value lines (dim keys), values cleaned."""
        from svc.ui.tables import pairs_table

        self.draw(pairs_table(rows), err=err)

    # --- progress -------------------------------------------------------------------------

    def progress(self, message: str, *, piped_lines: bool = False) -> Progress:
        """A running progress line; stop it (or use it as a context manager) when done."""
        return Progress(self, message, piped_lines=piped_lines)


def _broken_pipe() -> None:
    """rich's own answer to a closed stdout is SystemExit(1); svc's exit path decides
    instead (after a payment, the paid outcome)."""
    raise BrokenPipeError(errno.EPIPE, "the reader of stdout went away")


class Cut:
    """Whether the output after a payment was cut short by a closed stdout."""

    cut = False


class Paged:
    def __init__(self, output: Output) -> None:
        self.output = output

    def __enter__(self) -> None:
        import io

        out = self.output
        self._saved = (out._out, out._console)
        width = out._console_for(False).width
        self._buffer = io.StringIO()
        out._out = self._buffer
        out._console = out._make_console(self._buffer, True)
        out._console.width = width
        out._paging = True

    def __exit__(self, *exc: object) -> None:
        out = self.output
        out._out, out._console = self._saved
        out._paging = False
        if exc[0] is None:
            from svc.ui.pager import page

            page(self._buffer.getvalue(), out._out, str(out.pager))


class Progress:
    """A spinner on a terminal's stderr; elsewhere nothing, or a line per half minute
    (`piped_lines`). Any other output clears the spinner's line first (`svc.ui.terminal`)."""

    EVERY = 30.0  # seconds between progress lines when stderr is not a terminal

    def __init__(self, output: Output, message: str, *, piped_lines: bool) -> None:
        self.output = output
        self.piped_lines = piped_lines
        self._spinner: Spinner | None = None
        self._last_line: float | None = None
        if output.stderr_tty:
            self._spinner = terminal.Spinner(output._err, message)
            self._spinner.start()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def update(self, message: str, *, with_time: bool = False) -> None:
        if self._spinner is not None:
            waited = self._spinner.elapsed()
            self._spinner.update(f"{message} ({waited:.0f} s)" if with_time else message)
            return
        if not self.piped_lines:
            return
        import time

        now = time.monotonic()
        if self._last_line is None or now - self._last_line >= self.EVERY:
            self._last_line = now
            self.output.info(f"{message}...")

    def count(self, label: str, done: int, total: int | None, note: str = "") -> None:
        """A bar: `label [#####-----] 3/10 note`."""
        if total:
            filled = min(20, 20 * done // total)
            shown = f"{label} [{'#' * filled}{'-' * (20 - filled)}] {done}/{total}"
        else:
            shown = f"{label} {done}"
        self.update(f"{shown} {note}".rstrip())

    def done(self, message: str) -> None:
        self.stop()
        self.output.note(message)

    def stop(self) -> None:
        if self._spinner is not None:
            self._spinner.stop()
            self._spinner = None


# json.dumps escapes C0 controls but writes DEL, C1 controls (8-bit CSI/OSC), format characters
# (bidi controls, zero-width characters) and line separators as they are; a terminal may act on
# them or draw nothing for them. As \uXXXX escapes the document is the same JSON value, so
# `--json` stays exact and is inert on a terminal too.
_JSON_UNSAFE = re.compile(f"[\x7f-\x9f{FORMAT_CHARACTERS}\u2028\u2029]")


def json_inert(text: str) -> str:
    return _JSON_UNSAFE.sub(lambda m: _json_escape(ord(m.group())), text)


def _json_escape(code: int) -> str:
    """JSON's escape of one character: a surrogate pair beyond the BMP (a tag character)."""
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _message(template: str, values: dict[str, object], limit: int = MESSAGE_LIMIT) -> str:
    if values:
        template = template.format(
            **{k: clean(v, CELL_LIMIT, single_line=True) for k, v in values.items()}
        )
    return clean(template, limit)


def _text(message: str, style: str) -> Any:
    from rich.text import Text

    return Text(clean(message, MESSAGE_LIMIT), style=style)


def trace(text: str) -> None:
    """Trace lines on stderr, each cleaned (header values come from the server)."""
    shown = []
    for line in text.splitlines():
        body = line.lstrip(" ")
        indent = " " * (len(line) - len(body))
        shown.append(indent + clean(redact.scrub(body), 2000, single_line=True))
    terminal.write(sys.stderr, "\n".join(shown) + "\n")
