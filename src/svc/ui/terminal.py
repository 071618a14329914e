"""The one door to the process's stdout and stderr, and the one progress line.

Everything svc writes goes through `write` here (directly, or through `Output`, prompts and the
crash handler), under one lock. That lets the progress line (a spinner with a message) be
cleared before any other text is printed, on either stream, from any thread: without it an
event line lands on the end of the spinner's line (`⠧ 1 task(s): 1 pending2026-...`).

Kept free of imports beyond built-in modules at import time: `svc --version` and the crash
handler use it (threading and the sanitizer are imported when first needed).
"""

from __future__ import annotations

import _thread
import os
import sys
import time

TYPE_CHECKING = False  # typing itself costs ~10 ms on `svc --version`

if TYPE_CHECKING:
    import threading
    from typing import ClassVar, TextIO

_lock = _thread.RLock()
_EIO = 5  # errno.EIO: the terminal is gone (POSIX; no import on `svc --version`)


class _Door:
    """The progress line now on screen, if any, and the prompt now open (one per process)."""

    active: Spinner | None = None
    prompt_owner: int | None = None  # the thread whose prompt is open: only it may write
    prompts_open = 0
    held: ClassVar[list[tuple[TextIO, str]]] = []  # what others wrote meanwhile, in order


_door = _Door()


def stdout_is_tty() -> bool:
    return sys.stdout.isatty()


class _Holding:
    """Hold the terminal: the progress line is cleared first and not redrawn meanwhile."""

    def __enter__(self) -> None:
        _lock.acquire()
        if _door.active is not None:
            _door.active.clear()

    def __exit__(self, *exc: object) -> None:
        _lock.release()


def holding() -> _Holding:
    return _Holding()


def write(stream: TextIO, text: str) -> None:
    """Write our own (already inert) text to one of the process's streams; while another
    thread's prompt is open it is held, and written after the prompt closes."""
    with holding():
        if held_for_prompt():
            _door.held.append((stream, text))
            return
        _put(stream, text)


def _put(stream: TextIO, text: str) -> None:
    """Write and flush (caller holds the lock): every write to a stream goes through here.

    A terminal that hung up (SIGHUP, then EIO on every write) or a full disk under a
    redirected stderr must not turn the exit into a crash: what nobody can read is dropped.
    A failed write stays in the stream's buffer, and Python's last flush would fail on it
    again (exit 120): a stream whose terminal is gone is pointed at /dev/null at once, with
    what it holds. Data on stdout keeps its other failures (a closed pipe, ENOSPC)."""
    try:
        stream.write(text)
        stream.flush()
    except OSError as exc:
        if exc.errno == _EIO:
            _to_devnull(stream)
        elif stream is not sys.stderr:
            raise


def _to_devnull(stream: TextIO) -> None:
    """Point a stream that takes nothing any more at /dev/null, and drop what it holds."""
    try:
        fd = stream.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
        stream.flush()
    except (OSError, ValueError):  # ValueError: already closed
        pass  # nothing more to save: the exit code is still ours


def held_for_prompt() -> bool:
    """True while a prompt of another thread owns the terminal (caller holds the lock)."""
    owner = _door.prompt_owner
    return owner is not None and owner != _thread.get_ident()


def hold(stream: TextIO, text: str) -> None:
    """Keep `text` (already rendered and inert) for when the open prompt closes."""
    with holding():
        _door.held.append((stream, text))


def write_out(text: str) -> None:
    """Our own text (a version, completion candidates, a JSON error) on stdout."""
    write(sys.stdout, text)


def error_line(message: str, limit: int = 1000) -> None:
    """One inert line on stderr: for code that runs without an `Output` (crash handler, tools);
    on a terminal it is wrapped between words, never inside an id or a command."""
    from svc.sanitize import clean
    from svc.ui.fit import columns, fit

    write(sys.stderr, fit(clean(message, limit, single_line=True), columns(sys.stderr)) + "\n")


_interrupts: list[float] = []  # when each Ctrl-C arrived (noted before the KeyboardInterrupt)
_signals: list[int] = []  # which signal each was: SIGINT, SIGTERM or SIGHUP
SIGINT, SIGHUP, SIGTERM = 2, 1, 15  # POSIX numbers (no `signal` import on `svc --version`)
_NAMES = {SIGINT: "SIGINT", SIGHUP: "SIGHUP", SIGTERM: "SIGTERM"}


def _on_interrupt(signum: int, frame: object) -> None:
    if RESENDS.pending:  # the same Ctrl-C, raised again after a finalizer dropped it
        RESENDS.pending = False
        if RESENDS.over:  # ...and its command has ended since: the exit is not cut short
            return
    else:
        note_interrupt(signum)
    raise KeyboardInterrupt


class _Resend:
    """The Ctrl-Cs a finalizer dropped and svc raised again: each at most `MOST` times (a
    main thread that lives in slow finalizers would drop every one), none once the command is
    `over` (an interrupt in an exit's clean-up cuts that one short, as CPython does). The entry
    sets `over` by a plain store, where no signal handler can run before it."""

    MOST = 8
    pending = False  # a signal was sent again and has not reached the handler yet
    noted = 0  # how many Ctrl-Cs were noted when the last was sent again
    sent = 0  # how many times that one was sent again
    over = False  # the command has ended: nothing is sent again


RESENDS = _Resend()


def _begin_a_command() -> None:
    """A command begins with no Ctrl-C of its own: in a host that runs svc again, what svc's
    handler noted since the last run (the host's own Ctrl-C, handled) is not this run's."""
    _interrupts.clear()
    _signals.clear()
    RESENDS.over = RESENDS.pending = False
    RESENDS.noted = RESENDS.sent = 0


def note_interrupt(signum: int) -> None:
    """Note a terminating signal as the handler notes it, for code that takes the signal
    another way (an event loop's handler, which stops the loop before the KeyboardInterrupt is
    raised): the exit code and the interrupt line then name it."""
    _interrupts.append(time.monotonic())
    _signals.append(signum)


def is_interrupt_handler(handler: object) -> bool:
    """Whether `handler` (what `signal.getsignal` returned) is svc's, which makes the signal a
    Ctrl-C: not an inherited SIG_IGN (nohup), nor a default."""
    return handler is _on_interrupt


def open_closed_streams() -> None:
    """Point a standard stream the process started without (`svc ... >&-`, `2>&-`) at
    /dev/null before anything opens a file: the ledger or a lock would otherwise take
    descriptor 1 or 2 and receive the output, and every write to the missing stream would
    fail. The command then runs as it runs with its output thrown away: the same exit code."""
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        if getattr(sys, name) is not None:
            continue
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:  # a lower descriptor was closed too: it takes that one first
                os.dup2(null, fd)
                os.close(null)
        mode = "r" if fd == 0 else "w"
        setattr(sys, name, open(fd, mode, encoding="utf-8", closefd=False))  # noqa: SIM115


def let_a_person_interrupt() -> None:
    """Make Ctrl-C work whenever a person can press it, and make every
    terminating signal a Ctrl-C.

    A non-interactive shell starts a background job with SIGINT ignored, and Python then never
    installs its KeyboardInterrupt handler: a `svc watch` started that way and later driven on
    a terminal (a pty under test, a job brought to the foreground) ignored Ctrl-C until killed.
    When svc is the foreground job of its terminal, the person there decides: the handler is
    put back. Anywhere else an inherited SIG_IGN is respected (nohup-style runs keep it).

    SIGTERM (a CI cancel, `timeout`, systemd, Kubernetes) and SIGHUP (a closed terminal) end
    the process without a `finally` by default: a paid request then vanished without its
    request id. They take Ctrl-C's path instead (the journal consistent, the resume command
    named) and exit 128 + n; an inherited SIG_IGN (nohup) is kept.

    The handler also counts: CPython loses a KeyboardInterrupt raised while a finalizer runs
    (it prints it as ignored and goes on), so a Ctrl-C pressed during start-up could end in
    an open prompt; `raise_if_interrupted` before every prompt ends the command instead."""
    if TYPE_CHECKING:
        import signal
    else:  # the C module itself: `signal` wraps it in enums, and enum is a third of a bare start
        import _signal as signal

    for terminating in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(terminating) == signal.SIG_DFL:
            signal.signal(terminating, _on_interrupt)
    _raise_lost_interrupts_again()
    _begin_a_command()
    current = signal.getsignal(signal.SIGINT)
    if current is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_interrupt)
        return
    if current != signal.SIG_IGN:
        return
    for stream in (sys.stdin, sys.stderr):
        try:
            foreground = stream.isatty() and os.tcgetpgrp(stream.fileno()) == os.getpgrp()
        except (OSError, ValueError, AttributeError):
            continue
        if foreground:
            signal.signal(signal.SIGINT, _on_interrupt)
            return


def _raise_lost_interrupts_again() -> None:
    """An interrupt CPython drops inside a finalizer is raised again where it can end the
    command. The count alone was not enough: a Ctrl-C landing in a finalizer after a prompt's
    check and before its read left `svc reply` waiting at the prompt. Other unraisable errors
    go to the hook that was there."""
    previous = sys.unraisablehook

    def hook(unraisable: sys.UnraisableHookArgs) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt) and _may_send_again():
            # From another thread, so the handler runs once the finalizer is over, and as a
            # real signal to this thread, so a read it already waits in returns to run it.
            RESENDS.pending = True
            _thread.start_new_thread(_signal_again, (_thread.get_ident(), _signals[-1]))
            return
        previous(unraisable)

    if getattr(previous, "__qualname__", "") != hook.__qualname__:  # once per process
        sys.unraisablehook = hook


def _may_send_again() -> bool:
    if not _signals or RESENDS.over or RESENDS.pending:
        return False
    if RESENDS.noted != len(_signals):  # a Ctrl-C not sent again yet
        RESENDS.noted, RESENDS.sent = len(_signals), 0
    if RESENDS.sent == _Resend.MOST:
        return False
    RESENDS.sent += 1
    return True


def _signal_again(thread_id: int, signum: int) -> None:
    if TYPE_CHECKING:
        import signal
    else:
        import _signal as signal

    if RESENDS.over:  # the command ended meanwhile: nothing left to interrupt
        RESENDS.pending = False
    else:
        signal.pthread_kill(thread_id, signum)


def interrupted() -> bool:
    """Whether a terminating signal (Ctrl-C, SIGTERM, SIGHUP) reached svc's handler."""
    return bool(_interrupts)


def interrupt_exit_code() -> int:
    """128 + the signal that interrupted the command (130 for Ctrl-C, 143 for SIGTERM)."""
    return 128 + (_signals[-1] if _signals else SIGINT)


def interrupted_line() -> str:
    """The last line of an interrupted read or watch, which can simply run again."""
    signum = _signals[-1] if _signals else SIGINT
    return "svc: interrupted" + ("" if signum == SIGINT else f" ({_NAMES.get(signum, signum)})")


def caused_by_interrupt(error: BaseException) -> bool:
    """Whether `error` is a KeyboardInterrupt in disguise: CPython wraps one raised inside some
    of its own machinery (a class's `__set_name__` while a module imports, Python 3.11:
    RuntimeError "Error calling __set_name__"), so a Ctrl-C at that instant reaches us as
    another exception whose cause is the interrupt. pydantic-core keeps only its text (a
    SchemaError "KeyboardInterrupt: " while a model is built): once svc's handler has noted a
    Ctrl-C, whatever error ends the command is taken as that Ctrl-C's, which it most likely is
    and which the person asked for anyway."""
    if _interrupts:
        return True
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def raise_if_interrupted() -> None:
    """A Ctrl-C already received ends the command before it waits for a person."""
    if _interrupts:
        raise KeyboardInterrupt


def settle_streams() -> None:
    """Flush both streams before the process exits. One that takes nothing any more (a
    terminal that hung up, a reader gone) is pointed at /dev/null, so Python's own last flush
    cannot turn the exit code into 120.

    An empty buffer flushes without a write, so a flush that succeeds does not show that the
    terminal is still there: what writes after this (a daemon thread, an exception's report,
    a finalizer) would then fail at the interpreter's last flush. A stream that is no longer a
    terminal is asked for a write of nothing, which a terminal that hung up refuses (EIO) and
    a file or a pipe accepts; a live terminal is not asked (a stopped one could block it)."""
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # started with it closed (`svc ... >&-`): nothing to flush
            continue
        try:
            stream.flush()
            fd = stream.fileno()
            if not os.isatty(fd):
                os.write(fd, b"")
        except (OSError, ValueError):  # ValueError: already closed
            _to_devnull(stream)


class StdoutGone(Exception):
    """The reader of stdout went away mid-command. Not an OSError: Click turns a broken pipe
    into exit 1 on its own, and the exit code is svc's to decide (a closed pipe is no failure
    of the command)."""


def silence_stdout() -> None:
    """The reader went away (`svc tasks | head`): later writes go nowhere instead of failing."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


class _Prompting:
    """A prompt owns the terminal: the progress line is hidden and what other threads write
    (the events of `svc watch --all`) is held until the answer is in, then written in order,
    each line after the prompt's own (which always ends with its newline)."""

    def __enter__(self) -> None:
        with _lock:
            _door.prompt_owner = _thread.get_ident()
            _door.prompts_open += 1
        self.spinner: Spinner | None = _door.active
        if self.spinner is not None:
            self.spinner.pause()

    def __exit__(self, *exc: object) -> None:
        with _lock:
            _door.prompts_open -= 1
            if _door.prompts_open == 0:
                _door.prompt_owner = None
                for stream, text in _door.held:
                    _put(stream, text)
                _door.held.clear()
        if self.spinner is not None:
            self.spinner.resume()


def prompting() -> _Prompting:
    raise_if_interrupted()  # a Ctrl-C Python lost during start-up still ends the command
    return _Prompting()


class Spinner:
    """A progress line on a terminal's stderr, redrawn by a daemon thread.

    Drawn with carriage returns and spaces only (no escape sequence): it works on any terminal,
    a dumb one included, and erasing it cannot leave half a sequence behind.
    """

    FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
    ASCII_FRAMES = "|/-\\"
    PERIOD = 0.1

    def __init__(self, stream: TextIO, message: str) -> None:
        import threading

        self.stream = stream
        self.message: str = message
        self.started: float = time.monotonic()
        self._drawn = 0  # width of what is on the line now
        self._paused = 0
        self._stop: threading.Event = threading.Event()
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        self._frames = self.FRAMES if encoding == "utf8" else self.ASCII_FRAMES
        self._thread = threading.Thread(target=self._run, name="svc-progress", daemon=True)

    def start(self) -> None:
        with _lock:
            if _door.active is not None:
                _door.active.stop()
            _door.active = self
        self._thread.start()

    def update(self, message: str) -> None:
        self.message = message

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def clear(self) -> None:
        """Erase the line (caller holds the lock)."""
        if self._drawn:
            _put(self.stream, "\r" + " " * self._drawn + "\r")
            self._drawn = 0

    def pause(self) -> None:
        with _lock:
            self._paused += 1
            self.clear()

    def resume(self) -> None:
        with _lock:
            self._paused = max(0, self._paused - 1)

    def stop(self) -> None:
        self._stop.set()
        with _lock:
            self.clear()
            if _door.active is self:
                _door.active = None

    def _run(self) -> None:
        frame = 0
        while not self._stop.wait(self.PERIOD if frame else 0):
            with _lock:
                if self._stop.is_set():
                    return
                if not self._paused:
                    self._draw(self._frames[frame % len(self._frames)])
            frame += 1

    def _draw(self, frame: str) -> None:
        from svc.sanitize import clean

        width = _columns(self.stream) - 1  # never reach the last column: no wrap to undo
        text = clean(f"{frame} {self.message}", max(width, 10), single_line=True)[:width]
        pad = max(0, self._drawn - len(text))
        _put(self.stream, "\r" + text + " " * pad)
        self._drawn = len(text) + pad


def _columns(stream: TextIO) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return 80
