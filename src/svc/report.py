"""The engines' narrator: what an engine says while it works, without knowing who listens.

An engine says `paying 1.50 USD ...`, warns that a ledger is read-only or waits on a card
payment through a `Reporter`. The faces decide where that goes: the CLI and `svc mcp` pass
their `svc.ui.output.Output` (which satisfies this protocol as it is), a Python program gets
`LogReporter`, which speaks through the standard `logging` module. Nothing here touches a
terminal, so the engines need not import `svc.ui`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from svc.redact import scrub

if TYPE_CHECKING:
    import logging


class Status(Protocol):
    """A running "waiting for ..." line (a spinner on a terminal, nothing or a line a while
    elsewhere); stopped when the wait is over."""

    def update(self, message: str, *, with_time: bool = False) -> None: ...

    def done(self, message: str) -> None: ...

    def stop(self) -> None: ...


class Reporter(Protocol):
    """Where an engine's notes, diagnostics, warnings and `-v` traces go."""

    def note(self, message: str) -> None: ...

    def info(self, message: str) -> None: ...

    def warn(self, message: str) -> None: ...

    def trace(self, text: str) -> None: ...

    def progress(self, message: str, *, piped_lines: bool = False) -> Status: ...


LOGGER_NAME = "svc"


class _LogStatus:
    def __init__(self, logger: logging.Logger) -> None:
        self._logger = logger

    def update(self, message: str, *, with_time: bool = False) -> None:
        self._logger.debug("%s", scrub(message))

    def done(self, message: str) -> None:
        self._logger.info("%s", scrub(message))

    def stop(self) -> None:
        pass


class LogReporter:
    """A Reporter for a library caller: notes and traces at DEBUG, diagnostics at INFO,
    warnings at WARNING, on the `svc` logger (the program's logging set-up decides the rest).
    Every line is scrubbed of what the process was told in secret, as a face's output is."""

    def __init__(self, logger: logging.Logger | None = None) -> None:
        import logging  # only a library caller's process pays for it, never `svc --help`

        self._logger = logger or logging.getLogger(LOGGER_NAME)

    def note(self, message: str) -> None:
        self._logger.debug("%s", scrub(message))

    def info(self, message: str) -> None:
        self._logger.info("%s", scrub(message))

    def warn(self, message: str) -> None:
        self._logger.warning("%s", scrub(message))

    def trace(self, text: str) -> None:
        self._logger.debug("%s", scrub(text))

    def progress(self, message: str, *, piped_lines: bool = False) -> Status:
        self._logger.debug("%s", scrub(message))
        return _LogStatus(self._logger)


class QuietReporter:
    """Another Reporter without its notes: a batch worker's `paying ...` and `request id ...`
    would drown the batch's own lines; its warnings and diagnostics still go through."""

    def __init__(self, inner: Reporter) -> None:
        self._inner = inner

    def note(self, message: str) -> None:
        pass

    def info(self, message: str) -> None:
        self._inner.info(message)

    def warn(self, message: str) -> None:
        self._inner.warn(message)

    def trace(self, text: str) -> None:
        self._inner.trace(text)

    def progress(self, message: str, *, piped_lines: bool = False) -> Status:
        return self._inner.progress(message, piped_lines=piped_lines)
