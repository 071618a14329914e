"""`svc watch --exec CMD`: run the person's command for every observed change, off the poll loop.

A CLI feature, so it sits beside the command (its warnings name the flag); the watch face hands
it the change that closes each poll with news (`TaskChange`: `state`, `ask` or `final`).

The command line is the person's own (run by /bin/sh, so pipes and `$SVC_TASK_ID` work); server
text only ever reaches it as data: the task detail JSON on stdin and a few environment
variables, never interpolated into the command. A few worker threads run the hooks with a time
bound each; a failing, slow or hanging hook is reported on stderr and killed at its bound, and
never delays a poll. When the watch ends it waits for the queued hooks (each still bounded), so
a CI job's "task completed" hook is not lost.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import threading
from typing import IO, TYPE_CHECKING

from svc import redact
from svc.engines.asks import ask_kind
from svc.engines.changes import TaskChange

if TYPE_CHECKING:
    from collections.abc import Callable

DEFAULT_TIMEOUT = 30.0  # seconds a hook may run before it is killed
WORKERS = 4  # hooks run at once: enough for --all, few enough not to swamp the machine
STDERR_TAIL = 300  # characters of a failing hook's stderr shown in the warning


def hook_env(change: TaskChange) -> dict[str, str]:
    task = change.task
    env = dict(os.environ)
    env["SVC_TASK_ID"] = str(task.get("id", ""))
    env["SVC_TASK_STATE"] = str(task.get("state", ""))
    env["SVC_TASK_PREVIOUS_STATE"] = change.previous or ""
    env["SVC_TASK_ASK"] = ask_kind(task)
    return env


SHELL_SYNTAX = set("|&;<>()$`\\\"'*?[]#~=%{}\n")
# Words only a shell can run (built-ins with no program of the same name, and keywords):
# `exit 7` exec'd as a program was "No such file or directory: 'exit'".
SHELL_WORDS = frozenset(
    {
        ".",
        ":",
        "alias",
        "bg",
        "break",
        "cd",
        "command",
        "continue",
        "eval",
        "exec",
        "exit",
        "export",
        "fc",
        "fg",
        "getopts",
        "hash",
        "jobs",
        "newgrp",
        "read",
        "readonly",
        "return",
        "set",
        "shift",
        "source",
        "times",
        "trap",
        "type",
        "ulimit",
        "umask",
        "unalias",
        "unset",
        "wait",
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "for",
        "while",
        "until",
        "do",
        "done",
        "case",
        "esac",
        "!",
    }
)


def command_argv(command: str) -> list[str]:
    """The hook's argv: the words themselves for a plain command (one exec fewer per change,
    which is most of a hook's cost), else `/bin/sh -c CMD`. Either way the line is the
    person's; nothing of the server's is added to it."""
    import shlex

    if command.strip() and not SHELL_SYNTAX & set(command):
        words = shlex.split(command)
        if words[0] not in SHELL_WORDS:
            return words
    return ["/bin/sh", "-c", command]


class ExecHooks:
    """Queue of changes; worker threads run `command` once per change."""

    def __init__(
        self, command: str, warn: Callable[[str], None], timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        self.command = command
        self.argv: list[str] = command_argv(command)
        self.timeout = timeout
        self._warn = warn
        self._jobs: queue.SimpleQueue[TaskChange | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._pending = 0
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[bytes]] = set()

    def submit(self, change: TaskChange) -> None:
        with self._lock:
            self._pending += 1
            start = len(self._threads) < min(WORKERS, self._pending)
        if start:
            thread = threading.Thread(target=self._work, name="svc-hook", daemon=True)
            thread.start()
            self._threads.append(thread)
        self._jobs.put(change)

    def close(self) -> None:
        """Wait for the queued hooks (each bounded by its timeout), then stop the workers."""
        for _ in self._threads:
            self._jobs.put(None)
        for thread in self._threads:
            thread.join()

    def abort(self) -> None:
        """The watch was interrupted: stop the hooks now running (their whole groups)."""
        with self._lock:
            running = list(self._running)
        for proc in running:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)

    def _work(self) -> None:
        while True:
            change = self._jobs.get()
            if change is None:
                return
            try:
                self._run_one(change)
            except Exception as exc:  # never let one hook end the others' worker
                self._warn(f"--exec hook for {change.task.get('id')} could not run: {exc}")
            with self._lock:
                self._pending -= 1

    def _run_one(self, change: TaskChange) -> None:
        import tempfile

        # stderr goes to a file, not a pipe: a chatty hook cannot grow our memory, and only
        # the tail is ever read back.
        with tempfile.TemporaryFile() as err:
            code = self._spawn(change, err)
            if code is None or code == 0:
                return
            err.seek(max(0, err.seek(0, os.SEEK_END) - STDERR_TAIL * 4))
            tail = err.read().decode(errors="replace").strip()[-STDERR_TAIL:]
        more = f": {tail}" if tail else ""
        self._warn(f"--exec hook for {change.task.get('id')} exited {code}{more}")

    def _spawn(self, change: TaskChange, err: IO[bytes]) -> int | None:
        """Run the hook to its end or its bound; its exit code, or None if it was stopped."""
        proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=hook_env(change),
            start_new_session=True,  # its own process group: killed whole at the bound
        )
        with self._lock:
            self._running.add(proc)
        try:
            # The hook's stdin is printing too: a secret told earlier is not handed on.
            detail = redact.scrub(change.task)
            proc.communicate(json.dumps(detail, ensure_ascii=False).encode(), self.timeout)
        except subprocess.TimeoutExpired:
            # The group, not just the shell: its children must not outlive the bound either.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            tid = change.task.get("id")
            self._warn(f"--exec hook for {tid} ran over {self.timeout:g}s and was stopped")
            return None
        finally:
            with self._lock:
                self._running.discard(proc)
        return proc.returncode
