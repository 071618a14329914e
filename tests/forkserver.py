"""A fork server: real `svc` processes without paying Python's start-up and imports each time.

Tests whose subject is a process (a signal or a crash point at a step of a paid submit, many
processes on one ledger) cannot run `svc` in the test process (tests/inproc.py), but most of a
process's cost there is start-up: the interpreter, then typer, rich, httpx, pydantic and
eth-account (issue 34.6). A fork server pays that once per test worker:

* the server is a process of its own (`python -m tests.forkserver`), started with the
  interpreter-level environment of the tests' commands; it imports the modules it is told to
  preload, starts no thread and never runs svc itself;
* for each command it forks a child, which takes the caller's stdin, stdout and stderr (passed
  over a Unix socket), its working directory, environment and argv, builds its standard
  streams as the interpreter does at start-up, and runs the installed console script
  (`.venv/bin/svc`) as `__main__`; the child exits through the interpreter's own shutdown
  (threads joined, atexit, flush), so its exit status is the one a real process would have;
* the caller gets a `Forked`, the subset of `subprocess.Popen` tests use: the pid (a real
  process: signals land there), pipes, `wait`, `poll`, `communicate`, `send_signal`.

Fork after threads is avoided by construction: the server is single-threaded (checked before
each fork) and is not the test process, whose peers and sandboxes run threads. Nothing of the
server leaks into a child: its sockets, pidfds and selector are closed, then every descriptor
above 2; a child starts with exactly 0, 1 and 2, as `Popen(close_fds=True)` gives.

When a test must still exec for real: when its subject is start-up or imports (what is loaded,
how long it takes, a Ctrl-C during start-up), packaging or the installed script's resolution,
a pty or a controlling terminal (pexpect), or an interpreter-level environment other than the
server's (PYTHON* variables, the locale: `ForkServer` refuses those), and when it needs a fresh
hash seed per process. Everything after the entry point runs as in an exec'd process.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from tests.procs import read_both

ROOT = Path(__file__).resolve().parent.parent
LAUNCHER = ROOT / "tests" / "fork_launch.py"
# What the interpreter reads at its start (encodings, UTF-8 mode, buffering, hash seed...):
# a child cannot change them after the fact, so a request must match the server's.
START_VARIABLES = ("LANG", "LC_ALL", "LC_CTYPE")
_HEADER = struct.Struct("!I")
_MAX_REQUEST = 1 << 22

# --- the client: in the test process ---------------------------------------------------------


def start_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The variables of `env` an interpreter reads at start-up (the rest a child sets itself)."""
    return {k: v for k, v in env.items() if k in START_VARIABLES or k.startswith("PYTHON")}


class ForkServer:
    """One server process; `popen` and `run` fork a child of it per command."""

    def __init__(
        self, program: str, *, preload: Sequence[str] = (), env: Mapping[str, str] | None = None
    ) -> None:
        self.program = program
        self.preload = list(preload)
        base = dict(os.environ if env is None else env)
        self.start_env = start_environment(base)
        self._folder = ""
        self._path = ""
        self._server: subprocess.Popen[str] | None = None

    @classmethod
    def attached(cls, path: str, program: str, start_env: Mapping[str, str]) -> ForkServer:
        """A client of a server another process started (tests/fork_launch.py); closing it
        leaves the server alone."""
        client = cls(program, env={})
        client.start_env = dict(start_env)
        client._path = path
        return client

    def launch_command(self, *args: str) -> list[str]:
        """The command line a program that starts svc itself (an MCP host) can run: `program
        ARGS`, forked from this server by tests/fork_launch.py."""
        if self._server is None:
            raise RuntimeError("the fork server is not running")
        start_env = json.dumps(self.start_env)
        return [sys.executable, "-I", str(LAUNCHER), self._path, start_env, self.program, *args]

    def __enter__(self) -> ForkServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> ForkServer:
        self._folder = tempfile.mkdtemp(prefix="svc-fork-")
        self._path = os.path.join(self._folder, "s")
        config = {"socket": self._path, "preload": self.preload, "program": self.program}
        self._server = subprocess.Popen(
            [sys.executable, "-m", "tests.forkserver", json.dumps(config)],
            cwd=ROOT,
            env={"PATH": os.environ.get("PATH", ""), **self.start_env},
            stdin=subprocess.PIPE,  # never written: its end tells the server the tests ended
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._server.stdout is not None
        ready = self._server.stdout.readline()
        if ready.strip() != "ready":
            self.close()
            raise RuntimeError(f"the fork server did not start: {ready!r}")
        return self

    def close(self) -> None:
        if self._server is not None:
            if self._server.stdin is not None:
                self._server.stdin.close()  # the server kills what is left and exits
            try:
                self._server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._server.kill()
                self._server.wait()
            if self._server.stdout is not None:
                self._server.stdout.close()
            self._server = None
        if self._folder:
            for name in os.listdir(self._folder):
                os.unlink(os.path.join(self._folder, name))
            os.rmdir(self._folder)
            self._folder = ""

    def popen(
        self,
        args: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: str | os.PathLike[str] | None = None,
        stdin: int | IO[Any] | None = subprocess.PIPE,
        stdout: int | IO[Any] | None = subprocess.PIPE,
        stderr: int | IO[Any] | None = subprocess.PIPE,
        signals: Mapping[signal.Signals, signal.Handlers] | None = None,
    ) -> Forked:
        """`program ARGS` in a forked child, like `Popen(..., text=True)`; `signals`: the
        dispositions (SIG_DFL or SIG_IGN) the child starts with, as a `preexec_fn` setting them
        would leave them; the others are inherited as across an exec."""
        differs = {
            k
            for k in set(self.start_env) | set(start_environment(env))
            if self.start_env.get(k) != env.get(k)
        }
        if differs:
            raise AssertionError(
                f"{sorted(differs)} are read at an interpreter's start: exec the program instead"
            )
        if not self._path:
            raise RuntimeError("the fork server is not running")
        ends = _Ends()
        try:
            out = ends.child_end(1, stdout)
            err = out if stderr == subprocess.STDOUT else ends.child_end(2, stderr)
            theirs = [ends.child_end(0, stdin), out, err]
            request = {
                "argv": [self.program, *args],
                "env": dict(env),
                "cwd": os.fspath(cwd if cwd is not None else os.getcwd()),
                "signals": {int(k): int(v) for k, v in (signals or {}).items()},
            }
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            conn.connect(self._path)
            payload = json.dumps(request).encode()
            socket.send_fds(conn, [_HEADER.pack(len(payload)) + payload], theirs)
        finally:
            ends.close_child_ends()
        return Forked([self.program, *args], conn, ends.mine)

    def run(
        self,
        args: Sequence[str],
        *,
        env: Mapping[str, str],
        input: str | None = None,
        timeout: float = 60,
    ) -> tuple[int, str, str]:
        """Like `subprocess.run(capture_output=True, text=True)`: (exit code, stdout, stderr);
        past `timeout` the child is killed and TimeoutExpired raised."""
        with self.popen(args, env=env) as child:
            try:
                out, err = child.communicate(input, timeout=timeout)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
                raise
        assert child.returncode is not None
        return child.returncode, out, err


class _Ends:
    """The pipes of one request: the child's ends (sent, then closed here) and ours."""

    def __init__(self) -> None:
        self.mine: list[IO[str] | None] = [None, None, None]
        self._close: list[int] = []

    def child_end(self, fd: int, how: int | IO[Any] | None) -> int:
        if how == subprocess.PIPE:
            read, write = os.pipe()
            ours, theirs = (write, read) if fd == 0 else (read, write)
            self.mine[fd] = open(ours, "w" if fd == 0 else "r", encoding="utf-8")  # noqa: SIM115
            self._close.append(theirs)
            return theirs
        if how == subprocess.DEVNULL:
            theirs = os.open(os.devnull, os.O_RDWR)
            self._close.append(theirs)
            return theirs
        if how is None:  # inherited, as Popen does: the test process's own descriptor
            return fd
        return how if isinstance(how, int) else how.fileno()

    def close_child_ends(self) -> None:
        for fd in self._close:
            os.close(fd)
        self._close.clear()


class Forked:
    """A forked `svc`: what tests use of `subprocess.Popen[str]`."""

    def __init__(self, args: list[str], conn: socket.socket, pipes: list[IO[str] | None]) -> None:
        self.args = args
        self.stdin, self.stdout, self.stderr = pipes
        self.returncode: int | None = None
        self._conn = conn
        self.pid, self._pidfd, self._buffer = _receive_pid(conn)

    def __enter__(self) -> Forked:
        return self

    def __exit__(self, *exc: object) -> None:
        for stream in (self.stdin, self.stdout, self.stderr):
            if stream is not None:
                with contextlib.suppress(BrokenPipeError):
                    stream.close()
        self.wait()

    def poll(self) -> int | None:
        if self.returncode is None:
            self._conn.setblocking(False)
            try:
                self._read_status()
            except BlockingIOError:
                pass
            finally:
                self._conn.setblocking(True)
            self._release()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            self._conn.settimeout(timeout)
            try:
                self._read_status()
            except TimeoutError:
                raise subprocess.TimeoutExpired(self.args, timeout or 0) from None
            finally:
                self._conn.settimeout(None)
            self._release()
        assert self.returncode is not None
        return self.returncode

    def _read_status(self) -> None:
        while b"\n" not in self._buffer:
            chunk = self._conn.recv(4096)
            if not chunk:
                raise RuntimeError("the fork server went away before the child ended")
            self._buffer += chunk
        self.returncode = int(json.loads(self._buffer.split(b"\n", 1)[0])["returncode"])

    def _release(self) -> None:
        """Once the status is known: the connection and the pidfd are no longer needed."""
        if self.returncode is not None and self._pidfd >= 0:
            self._conn.close()
            pidfd, self._pidfd = self._pidfd, -1  # first: a relayed signal never meets it closed
            os.close(pidfd)

    def send_signal(self, sig: int) -> None:
        if self.returncode is not None or self.poll() is not None:
            return  # like Popen: never signal a process already reaped
        with contextlib.suppress(ProcessLookupError):  # ended meanwhile
            signal.pidfd_send_signal(self._pidfd, sig)  # this process, even if its pid is reused

    def relay_signal(self, sig: int) -> None:
        """`send_signal` without looking for the status first: for a signal handler, which may
        run inside `wait()` while it reads the same connection."""
        if self._pidfd >= 0:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._pidfd, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def communicate(
        self, input: str | None = None, timeout: float | None = None
    ) -> tuple[str, str]:
        """Like Popen.communicate: writes `input`, closes stdin, reads both pipes to their end
        (at once: neither can fill and stall the child) and waits."""

        def wait_after_input() -> None:
            if self.stdin is not None and not self.stdin.closed:
                try:
                    if input:
                        self.stdin.write(input)
                    self.stdin.close()
                except BrokenPipeError:
                    pass  # it ended without reading: as Popen, not an error
            self.wait(timeout)

        return read_both(self.stdout, self.stderr, wait_after_input, timeout)


def _receive_pid(conn: socket.socket) -> tuple[int, int, bytes]:
    """The child's pid, a pidfd for it, and what came after (its status, if it was quick)."""
    data, fds, _, _ = socket.recv_fds(conn, 4096, 1)
    if not data or not fds:
        raise RuntimeError("the fork server refused the request (see its stderr)")
    line, _, rest = data.partition(b"\n")
    return int(json.loads(line)["pid"]), fds[0], rest


# --- the server: its own process ---------------------------------------------------------------


class _Child:
    def __init__(self, pid: int, pidfd: int, conn: socket.socket) -> None:
        self.pid, self.pidfd, self.conn = pid, pidfd, conn
        self.waiting = True  # someone reads its status


def _serve(config: dict[str, Any]) -> tuple[dict[str, Any], list[int]]:
    """Accept requests and fork; returns only in a child, with its request and descriptors."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(config["socket"])
    listener.listen(64)
    chooser = selectors.DefaultSelector()
    chooser.register(listener, selectors.EVENT_READ, "accept")
    chooser.register(0, selectors.EVENT_READ, "caller")
    children: dict[int, _Child] = {}
    print("ready", flush=True)
    while True:
        for key, _ in chooser.select():
            what = key.data
            if what == "caller":  # the tests ended (or their process died): so do we
                for child in children.values():
                    _kill(child)
                    os.waitpid(child.pid, 0)
                os._exit(0)
            if what == "accept":
                conn, _ = listener.accept()
                forked = _fork_one(conn, chooser, children)
                if forked is not None:
                    for child in children.values():
                        child.conn.close()
                        os.close(child.pidfd)
                    chooser.close()
                    listener.close()
                    conn.close()
                    return forked
            elif isinstance(what, tuple):
                kind, child = what
                if kind == "ended":
                    _report(child, chooser, children)
                else:  # the caller hung up before the end: it gave up on the child
                    chooser.unregister(child.conn)
                    child.waiting = False
                    _kill(child)


def _kill(child: _Child) -> None:
    with contextlib.suppress(ProcessLookupError):  # already ended, not yet reaped
        signal.pidfd_send_signal(child.pidfd, signal.SIGKILL)


def _fork_one(
    conn: socket.socket, chooser: selectors.BaseSelector, children: dict[int, _Child]
) -> tuple[dict[str, Any], list[int]] | None:
    conn.settimeout(10)
    try:
        request, fds = _receive_request(conn)
    except (OSError, ValueError) as error:
        print(f"forkserver: bad request: {error}", file=sys.stderr)
        conn.close()
        return None
    conn.settimeout(None)
    if threading.active_count() != 1:  # fork after threads: a lock held elsewhere stays held
        raise RuntimeError(f"forkserver has threads: {threading.enumerate()}")
    pid = os.fork()
    if pid == 0:
        return request, fds
    for fd in fds:
        os.close(fd)
    pidfd = os.pidfd_open(pid)
    child = _Child(pid, pidfd, conn)
    children[pid] = child
    socket.send_fds(conn, [json.dumps({"pid": pid}).encode() + b"\n"], [pidfd])
    chooser.register(pidfd, selectors.EVENT_READ, ("ended", child))
    chooser.register(conn, selectors.EVENT_READ, ("hung up", child))
    return None


def _receive_request(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    while len(data) < _HEADER.size:
        more = conn.recv(1 << 16)
        if not more:
            raise ValueError("short request")
        data += more
    (size,) = _HEADER.unpack_from(data)
    if size > _MAX_REQUEST:
        raise ValueError("request too large")
    while len(data) < _HEADER.size + size:
        more = conn.recv(1 << 16)
        if not more:
            raise ValueError("short request")
        data += more
    if len(fds) != 3:
        raise ValueError(f"{len(fds)} descriptors, not 3")
    return json.loads(data[_HEADER.size : _HEADER.size + size]), fds


def _report(child: _Child, chooser: selectors.BaseSelector, children: dict[int, _Child]) -> None:
    """Reap an ended child and tell its caller (if still listening) its exit status."""
    _, status = os.waitpid(child.pid, 0)
    chooser.unregister(child.pidfd)
    os.close(child.pidfd)
    del children[child.pid]
    if child.waiting:
        chooser.unregister(child.conn)
        try:
            line = {"returncode": os.waitstatus_to_exitcode(status)}
            child.conn.sendall(json.dumps(line).encode() + b"\n")
        except OSError:
            pass  # the caller is gone
    child.conn.close()


def _become(request: dict[str, Any], fds: list[int], program: str) -> None:
    """In the child: take the caller's streams, directory, environment and argv, then run the
    console script as `__main__`; its `sys.exit` ends this process through the interpreter's
    shutdown, as it would end an exec'd one."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    _close_all_but_standard()
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    for number, disposition in request["signals"].items():
        signal.signal(int(number), signal.Handlers(disposition))
    sys.argv = list(request["argv"])
    sys.path[0] = os.path.dirname(program)  # a script's own folder, as `python SCRIPT` has
    for fd, name in enumerate(("stdin", "stdout", "stderr")):
        stream = _standard_stream(fd)
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)  # the originals, as a new interpreter has them
    import runpy

    runpy.run_path(program, run_name="__main__")


def _close_all_but_standard() -> None:
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > 2:
            with contextlib.suppress(OSError):  # the listing's own descriptor
                os.close(fd)


_STREAMS: dict[int, tuple[str, str, str]] = {}


def _remember_streams() -> None:
    """The encodings and error handlers this interpreter chose at its start (from the same
    locale and PYTHON* variables every request has): a child builds its streams with them."""
    _STREAMS[0] = ("rb", sys.stdin.encoding, sys.stdin.errors or "strict")
    _STREAMS[1] = ("wb", sys.stdout.encoding, sys.stdout.errors or "strict")
    _STREAMS[2] = ("wb", sys.stderr.encoding, "backslashreplace")


def _standard_stream(fd: int) -> io.TextIOWrapper:
    """sys.stdin, stdout or stderr as CPython's create_stdio builds them: buffered, newline
    "\\n", line-buffered on a terminal (stderr always), descriptor not closed with it."""
    mode, encoding, errors = _STREAMS[fd]
    buffered = open(fd, mode, closefd=False)  # noqa: SIM115
    buffered.raw.name = ("<stdin>", "<stdout>", "<stderr>")[fd]  # type: ignore[attr-defined]
    line_buffering = fd == 2 or os.isatty(fd)
    return io.TextIOWrapper(
        buffered,
        encoding=encoding,
        errors=errors,
        newline="\n",
        line_buffering=line_buffering,
    )


def _main() -> None:
    config = json.loads(sys.argv[1])
    import importlib

    limit = sys.getrecursionlimit()
    for name in config["preload"]:
        importlib.import_module(name)
    if sys.getrecursionlimit() != limit:  # py_ecc's import sets 100,000: a child would start
        raise RuntimeError(  # with what a real process has only once it imported that too
            f"a preloaded module changed the recursion limit to {sys.getrecursionlimit()}"
        )
    _remember_streams()
    import gc

    gc.freeze()  # a child's collections skip what the server made: its pages stay shared
    request, fds = _serve(config)
    _become(request, fds, config["program"])


if __name__ == "__main__":
    _main()
