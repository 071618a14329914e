"""A batch's lines for people and scripts (`svc submit --from FILE`): result lines (NDJSON on
stdout in JSON mode), failures on stderr, a progress bar, the summary line. The batch engine
(`svc.engines.batch`) hands each line's result here as it comes; it draws nothing itself.

On a terminal only failures and the summary are printed (`svc tasks` lists the rest).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from svc.sanitize import clean
from svc.ui.terminal import silence_stdout
from svc.words import plural

if TYPE_CHECKING:
    from svc.engines.batch import LineResult, Summary
    from svc.ui.output import Output


class BatchLines:
    """The CLI's `svc.engines.batch.BatchSink`."""

    def __init__(self, output: Output) -> None:
        self.output = output
        self._progress: Any = None
        self._total: int | None = None

    def start(self, total: int, summary: Summary) -> None:
        """The progress bar on a terminal, once the file is checked (and the most confirmed)."""
        self._total = total
        if self.output.stderr_tty:
            self._progress = self.output.progress("submitting")
            self._progress.count("submitting", summary.done, total)

    def total(self, count: int, summary: Summary) -> None:
        self._total = count
        if self._progress is not None:
            self._progress.count("submitting", summary.done, count)

    def result(self, result: LineResult, summary: Summary) -> None:
        try:
            self._line(result)
        except BrokenPipeError:  # the reader of the results went away: the lines go on
            silence_stdout()
        doc = result.doc
        if result.outcome == "error":
            self._say(f"svc: line {doc['line']}: {doc['detail']}")
        elif result.outcome == "invalid":
            self._say(f"svc: {doc['detail']}")
        if self._progress is not None:
            failed = summary.failed + summary.bad
            note = f"{failed} failed" if failed else ""
            self._progress.count("submitting", summary.done, self._total, note)

    def _line(self, result: LineResult) -> None:
        if not self.output.json_mode:
            return
        if result.outcome in ("accepted", "replayed"):
            paid = str(result.doc.get("task_id"))
            with self.output.after_payment(paid):  # a paid line's output cannot undo it
                self.output.emit_line(result.doc)
        else:
            self.output.emit_line(result.doc)

    def _say(self, text: str) -> None:
        self.output.info(clean(text, 600, single_line=True))  # clears the progress line first

    def finish(self, summary: Summary) -> None:
        if self._progress is not None:
            self._progress.stop()
        s = summary
        elapsed = max(time.monotonic() - s.started, 1e-6)
        sent = s.accepted + s.replayed
        self.output.info(
            f"batch: {sent} submitted ({s.accepted} paid, {s.replayed} replayed), "
            f"{s.skipped} already accepted, {s.failed} failed, {plural(s.bad, 'bad line')} "
            f"in {elapsed:.1f}s ({sent / elapsed:.1f} tasks/s)"
        )
