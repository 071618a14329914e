"""In-process test scaffolding (issue 17.1): an isolated home, an `FaceContext` against the
sandbox whose output is captured, and a whole task object to vary. One place, so the `run`
tests of submit, reply and watch build their world the same way."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import pytest

from svc.settings import resolve
from svc.ui.face import FaceContext, face_context
from svc.ui.output import Output


def isolate_home(home: Path, monkeypatch: pytest.MonkeyPatch, *, person: bool = False) -> Path:
    """Point svc's config, data and secrets at `home`; `person`: drop CI and SVC_NO_INPUT,
    which CI runners set and which force no_input."""
    for name, sub in (("HOME", ""), ("SVC_CONFIG_DIR", "config"), ("SVC_DATA_DIR", "data")):
        monkeypatch.setenv(name, str(home / sub))
    monkeypatch.setenv("SVC_KEYRING", "file")
    if person:
        for name in ("CI", "SVC_NO_INPUT"):
            monkeypatch.delenv(name, raising=False)
    return home


OTHER_ADDRESS = "0x1111111111111111111111111111111111111111"  # a recipient that is not the pin


def library_home(home: Path, base_url: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This process's svc home is `home` (a `cli` fixture's: the library and `svc` share it),
    against `base_url`, with no price, cap or rail of the test runner's own environment."""
    monkeypatch.setenv("SVC_BASE_URL", base_url)
    for name in ("SVC_MAX_PRICE", "SVC_DAILY_CAP", "SVC_PAY"):
        monkeypatch.delenv(name, raising=False)
    return isolate_home(home, monkeypatch)


def captured(
    base_url: str, *, person: bool = False
) -> tuple[FaceContext, io.StringIO, io.StringIO]:
    """An FaceContext in JSON mode whose stdout and stderr are kept; `person`: prompts allowed."""
    out, err = io.StringIO(), io.StringIO()
    settings = resolve(
        base_url=base_url, json_output=True, no_input=not person, stdin_is_tty=person
    )
    return face_context(settings, Output(json_mode=True, stdout=out, stderr=err)), out, err


def task_doc(**changes: Any) -> dict[str, Any]:
    """A task object with every member the spec lists, then `changes`."""
    doc: dict[str, Any] = {
        "id": "task_1",
        "state": "pending",
        "goal": "g",
        "flow": "standard",
        "max_budget_usd": None,
        "webhook_url": None,
        "result": None,
        "error": None,
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
        "completed_at": None,
    }
    return doc | changes


# --- `svc ARGS` run in this process, as a user's process would run it (issue 34.6) -------------

# A crash point SIGKILLs (or fills the disk of) the process it runs in: in-process, that is the
# test run itself. Tests that set these run `svc` as a process (`Cli(..., process=True)`, or
# forked from a server that imported svc once: `cli.as_forked(fork_server)`, tests/forkserver.py).
PROCESS_ONLY_ENV = ("SVC_TEST_CRASH_AT", "SVC_TEST_CRASH_SIGNAL", "SVC_TEST_DISK_FULL_AT")
_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")
THREAD_GRACE = 5.0  # seconds a command's own threads get to finish after it returned


class LeftBehind(AssertionError):
    """A command left a thread running or a file open: in a process, exit would have hidden it;
    here it would leak into the next test."""


def run_main(
    argv: list[str], env: dict[str, str], input: str | None, *, program: str
) -> tuple[int, str, str]:
    """`program ARGV` through the entry point (`svc.__main__.main`) with exactly `env` as its
    environment, `input` on a piped stdin, and stdout and stderr captured as from a pipe (UTF-8,
    no terminal). Returns (exit code, stdout, stderr).

    What a new process would start afresh is set up and put back: the environment, argv, the
    three streams, the signal handlers the entry point installs, the terminal module's record of
    interrupts and prompts, contextvars, warnings filters, logging's handlers and the cached
    keyring backend. An exception that escapes the entry point is printed to stderr as the
    interpreter would (a traceback, exit 1), so `Cli`'s "no Traceback" check sees it. A thread
    still running or a file still open after the call fails the test (LeftBehind)."""
    refused = [name for name in PROCESS_ONLY_ENV if env.get(name)]
    if refused:
        raise AssertionError(
            f"{refused} kill the process they run in: use Cli(process=True)"
            " (cli.as_forked(fork_server) for a real process without the start-up)"
        )
    import threading

    if threading.current_thread() is not threading.main_thread():
        raise AssertionError("concurrent runs of svc are processes: use Cli(process=True)")
    import contextvars
    import gc
    import logging
    import signal
    import sys
    import warnings

    saved_env = dict(os.environ)
    saved_argv, saved_streams = sys.argv, (sys.stdin, sys.stdout, sys.stderr)
    saved_handlers = {name: signal.getsignal(getattr(signal, name)) for name in _SIGNALS}
    loggers = [logging.getLogger(), logging.getLogger("svc"), logging.getLogger("httpx")]
    saved_logging = [(lg, list(lg.handlers), lg.level) for lg in loggers]
    threads_before = set(threading.enumerate())
    foreign = _Foreign(threads_before)
    gc.freeze()  # what exists now is not the call's: the collections below skip it (cheap)
    try:
        files_before = _open_files()
        out, err = io.BytesIO(), io.BytesIO()
        stdin = io.TextIOWrapper(io.BytesIO((input or "").encode()), encoding="utf-8")
        stdout = io.TextIOWrapper(out, encoding="utf-8", errors="strict")
        stderr = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace")
        _fresh_process_state()
        try:
            os.environ.clear()
            os.environ.update(env)
            sys.argv = [program, *argv]
            sys.stdin = stdin
            sys.stdout = _Routed(stdout, saved_streams[1], foreign)  # type: ignore[assignment]
            sys.stderr = _Routed(stderr, saved_streams[2], foreign)  # type: ignore[assignment]
            with warnings.catch_warnings():
                code = contextvars.copy_context().run(_entry_point)
            stdout.flush()
            stderr.flush()
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved_streams
            sys.argv = saved_argv
            os.environ.clear()
            os.environ.update(saved_env)
            for name, handler in saved_handlers.items():
                signal.signal(getattr(signal, name), handler)
            for lg, handlers, level in saved_logging:
                lg.handlers[:] = handlers
                lg.setLevel(level)
            _fresh_process_state()
        left = _threads_left(foreign)  # first: a thread may hold the last reference
        gc.collect()  # what only a cycle keeps open (sqlite3's statement cache is one) closes
    finally:
        gc.unfreeze()
    # A path the test itself had open is not counted: SQLite keeps the descriptor of a closed
    # connection open while another connection of this process holds a lock on that file.
    open_before = {entry.split(" -> ", 1)[1] for entry in files_before}
    files = sorted(
        f for f in _open_files() - files_before if f.split(" -> ", 1)[1] not in open_before
    )
    if left or files:
        raise LeftBehind(f"svc {argv} left behind threads {left} and open files {files}")
    return code, out.getvalue().decode("utf-8"), err.getvalue().decode("utf-8")


def _entry_point() -> int:
    import sys
    import traceback

    from svc.__main__ import main

    try:
        main()
    except SystemExit as done:
        if done.code is None or isinstance(done.code, int):
            return done.code or 0
        print(done.code, file=sys.stderr)  # sys.exit("text"): the interpreter prints it
        return 1
    except BaseException:  # what the interpreter would do: a traceback and exit 1
        traceback.print_exc(file=sys.stderr)
        sys.stderr.flush()
        return 1
    return 0


def _fresh_process_state() -> None:
    """The module-level state a new process starts without: the terminal's record of signals,
    progress line and prompts, the secrets the process was told (redacted from all it prints),
    what it paid, and keyring's chosen backend (it reads the environment once)."""
    import sys

    from svc import paid_record, redact
    from svc.ui import terminal

    redact.PROCESS = redact.Vault()  # read as redact.PROCESS everywhere (never imported by name)
    paid_record._PROCESS = paid_record.PaidRecord()

    stopping = sys.modules.get("svc.mcp.stopping")  # an HTTP server's stop, if one served
    if stopping is not None:
        stopping.reset()
    terminal._interrupts.clear()
    terminal._signals.clear()
    terminal._door.active = None
    terminal._door.prompt_owner = None
    terminal._door.prompts_open = 0
    terminal._door.held.clear()
    core = sys.modules.get("keyring.core")
    if core is not None:
        core._keyring_backend = None  # type: ignore[attr-defined]


class _Foreign:
    """Whether a thread is the test's, not the command's: one that ran before the call (a
    peer's server), or one such a server started to answer the command (a request thread:
    what it prints goes where it went before, and it may outlive the command's patience)."""

    def __init__(self, before: set[Any]) -> None:
        import threading

        self.before = before - {threading.main_thread()}

    def __call__(self, thread: Any) -> bool:
        import socketserver

        owner = getattr(getattr(thread, "_target", None), "__self__", None)
        return (
            thread in self.before
            or isinstance(owner, socketserver.BaseServer)
            or getattr(owner, "serves_the_test", False)  # a raw peer's connection (raw_peer)
        )


class _Routed:
    """sys.stdout or sys.stderr during a call: the command's threads write to its captured
    stream, the test's own threads (a peer's server printing its error) to the stream they
    used before, so neither reads as the other's."""

    def __init__(self, mine: Any, theirs: Any, foreign: _Foreign) -> None:
        self._mine, self._theirs, self._foreign = mine, theirs, foreign

    def _stream(self) -> Any:
        import threading

        return self._theirs if self._foreign(threading.current_thread()) else self._mine

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream(), name)


def _threads_left(foreign: _Foreign) -> list[str]:
    """The threads the command started that do not end within THREAD_GRACE seconds."""
    import threading
    import time

    deadline = time.monotonic() + THREAD_GRACE
    left = []
    for thread in threading.enumerate():
        if foreign(thread) or thread is threading.main_thread():
            continue
        thread.join(max(0.0, deadline - time.monotonic()))
        if thread.is_alive():
            left.append(thread.name)
    return left


def _open_files() -> set[str]:
    """This process's descriptors open on files (sockets and pipes are the test's own peers')."""
    found = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue  # closed meanwhile (the listing's own descriptor)
        if target.startswith("/") and not target.startswith(("/dev/", "/proc/")):
            found.add(f"{fd} -> {target}")
    return found
