"""The one progress line is cleared before anything else is printed (issue 13).

Before: on a terminal watch, an event line was printed over the spinner without clearing it:
`⠧ 1 task(s): 1 pending2026-11-22T18:47:03Z task_... state_changed ...`. Here stdout and
stderr are one fake terminal (as on a real one), the spinner draws, other output is printed
from this and another thread, and a small emulator of carriage return and newline shows what
a person would see on each line.
"""

from __future__ import annotations

import io
import threading
import time

from svc.ui.output import Output
from svc.ui.terminal import Spinner

FRAMES = set(Spinner.FRAMES)  # the fake terminal is UTF-8


class FakeTerminal(io.StringIO):
    encoding = "utf-8"

    def isatty(self) -> bool:
        return True


def visible_lines(raw: str) -> list[str]:
    """What a terminal shows: `\\r` returns to column 0 and later text overwrites."""
    lines: list[str] = []
    for chunk in raw.split("\n"):
        line: list[str] = []
        col = 0
        for char in chunk:
            if char == "\r":
                col = 0
                continue
            if col < len(line):
                line[col] = char
            else:
                line.append(char)
            col += 1
        lines.append("".join(line).rstrip())
    return lines


def wait_for_spinner(screen: FakeTerminal) -> None:
    deadline = time.monotonic() + 5
    while not any(f in screen.getvalue() for f in FRAMES):
        assert time.monotonic() < deadline, "the spinner never drew"
        time.sleep(0.02)


def test_output_clears_the_progress_line_first_on_both_streams() -> None:
    screen = FakeTerminal()
    out = Output(stdout=screen, stderr=screen)
    with out.progress("1 task(s): 1 pending"):
        for i in range(5):
            wait_for_spinner(screen)
            out.line(f"2026-11-22T18:47:0{i}Z tsk_1 state_changed pending → completed")
            out.note(f"note {i}")
            time.sleep(0.12)  # let the spinner redraw in between
    shown = visible_lines(screen.getvalue())
    events = [line for line in shown if "state_changed" in line or "note " in line]
    assert len(events) == 10, shown
    for line in events:
        assert not FRAMES & set(line), f"a line shares its row with the spinner: {line!r}"
        assert "pending2026" not in line
    assert not any(FRAMES & set(line) for line in shown), "the spinner was not cleared at stop"


def test_writes_from_another_thread_also_clear_it() -> None:
    screen = FakeTerminal()
    out = Output(stdout=screen, stderr=screen)
    progress = out.progress("submitting")
    wait_for_spinner(screen)

    def worker() -> None:
        for i in range(20):
            out.emit_line({"line": i})
            progress.count("submitting", i + 1, 20)
            time.sleep(0.01)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    progress.stop()
    lines = [line for line in visible_lines(screen.getvalue()) if line]
    assert lines == [f'{{"line":{i}}}' for i in range(20)], lines


def test_spinner_text_is_cleaned_and_fits_the_line() -> None:
    screen = FakeTerminal()
    out = Output(stdout=screen, stderr=screen)
    with out.progress("waiting \x1b]0;title\x07 " + "x" * 500):
        wait_for_spinner(screen)
        time.sleep(0.15)
    raw = screen.getvalue()
    assert "\x1b" not in raw and "\x07" not in raw
    assert max(len(chunk) for chunk in raw.split("\r")) <= 80
