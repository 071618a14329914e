"""Run the sandbox: in this process (`serve`), in a thread or in a subprocess (for tests)."""

from __future__ import annotations

import asyncio
import copy
import ipaddress
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import h11
import uvicorn
from uvicorn.config import LOGGING_CONFIG
from uvicorn.protocols.http.h11_impl import H11Protocol

from svc_sandbox.app import create_app
from svc_sandbox.faults import middleware
from svc_sandbox.state.clock import SandboxClock
from svc_sandbox.state.config import DEFAULT_NETWORK
from svc_sandbox.state.sandbox import SandboxState
from svc_sandbox.transport import CoalescingTransport

URL_LINE_PREFIX = "SANDBOX_URL="
START_TIMEOUT_SECONDS = 20.0


class DroppableH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, registering each transport so faults can really drop it, and
    writing each answer in one piece (svc_sandbox.transport)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self.coalescing = CoalescingTransport(transport, asyncio.get_running_loop())
        super().connection_made(self.coalescing)
        middleware.register_transport(self.client, self.coalescing)

    def on_response_complete(self) -> None:
        self.coalescing.flush()
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        middleware.unregister_transport(self.client, self.transport)
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        """A request line or header block h11 cannot read: JSON, like every other error the
        sandbox answers (uvicorn's own is a text/plain line a client cannot parse)."""
        body = json.dumps({"error": "invalid_request", "detail": f"{msg} (HTTP/1.1 framing)"})
        headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
        for event in (
            h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
            h11.Data(data=body.encode()),
            h11.EndOfMessage(),
        ):
            self.transport.write(self.conn.send(event) or b"")
        self.transport.close()


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind_socket(host: str, port: int, *, allow_remote: bool = False) -> socket.socket:
    """Bind (port 0 = ephemeral) before uvicorn starts, so the real port is known."""
    if not allow_remote and not is_loopback(host):
        raise ValueError(f"refusing to listen on non-loopback host {host!r} without allow_remote")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto must say TCP: asyncio sets TCP_NODELAY only on sockets whose proto is IPPROTO_TCP,
    # and accepted sockets inherit it. Without it every response on a kept-alive connection
    # waits ~40 ms (Nagle against the client's delayed ACK).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.set_inheritable(True)
    return sock


def socket_url(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _log_config() -> dict[str, Any]:
    """uvicorn's logging with access lines on stderr: stdout carries only SANDBOX_URL."""
    config = copy.deepcopy(LOGGING_CONFIG)
    config["handlers"]["access"]["stream"] = "ext://sys.stderr"
    return config


class _AnnouncingServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, url: str, announce: bool) -> None:
        super().__init__(config)
        self.url = url
        self.announce = announce

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.announce and not self.should_exit:
            print(f"{URL_LINE_PREFIX}{self.url}", flush=True)


def build_server(
    sock: socket.socket,
    *,
    state: SandboxState | None = None,
    clock_speed: float = 1.0,
    quiet: bool = False,
    announce: bool = True,
    network: str = DEFAULT_NETWORK,
) -> _AnnouncingServer:
    state = state or SandboxState(SandboxClock(speed=clock_speed), network)
    config = uvicorn.Config(
        create_app(state),
        http=DroppableH11Protocol,
        lifespan="off",
        proxy_headers=False,  # scope["client"] must be the real peer (see middleware.py)
        log_config=_log_config(),
        log_level="warning" if quiet else "info",
        access_log=not quiet,
    )
    return _AnnouncingServer(config, socket_url(sock), announce)


def serve(
    host: str = "127.0.0.1",
    port: int = 8402,
    clock_speed: float = 1.0,
    quiet: bool = False,
    *,
    allow_remote: bool = False,
    network: str = DEFAULT_NETWORK,
) -> None:
    """Serve until interrupted; prints `SANDBOX_URL=http://HOST:PORT` once accepting."""
    sock = bind_socket(host, port, allow_remote=allow_remote)
    serve_socket(sock, clock_speed, quiet, network)


def serve_socket(
    sock: socket.socket,
    clock_speed: float = 1.0,
    quiet: bool = False,
    network: str = DEFAULT_NETWORK,
) -> None:
    """Serve on a socket the caller bound (so it can report a busy port in its own words)."""
    server = build_server(sock, clock_speed=clock_speed, quiet=quiet, network=network)
    server.run(sockets=[sock])


class SandboxThread:
    """The sandbox on an ephemeral loopback port in a background thread (shares `state`)."""

    def __init__(
        self,
        state: SandboxState | None = None,
        *,
        quiet: bool = True,
        network: str = DEFAULT_NETWORK,
    ) -> None:
        self.state = state or SandboxState(network=network)
        self._sock = bind_socket("127.0.0.1", 0)
        self.url = socket_url(self._sock)
        self._server = build_server(self._sock, state=self.state, quiet=quiet, announce=False)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    def __enter__(self) -> SandboxThread:
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("sandbox thread did not start")
            time.sleep(0.01)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()


class SandboxProcess:
    """`python -m svc_sandbox serve --port 0` as a subprocess; `.url` once it is up.

    `network="mainnet"` offers Base and Base USDC, exactly as production does (fidelity tests);
    the default is the test network."""

    def __init__(
        self,
        *,
        clock_speed: float = 1.0,
        network: str = DEFAULT_NETWORK,
        quiet: bool = True,
        extra_args: list[str] | None = None,
        env: dict[str, str] | None = None,
        stderr: int | IO[Any] | None = None,
        timeout: float = START_TIMEOUT_SECONDS,
    ) -> None:
        self.args = [
            sys.executable,
            "-m",
            "svc_sandbox",
            "serve",
            "--port",
            "0",
            "--clock-speed",
            str(clock_speed),
            "--network",
            network,
        ]
        if quiet:
            self.args.append("--quiet")
        self.args += extra_args or []
        self.env = _child_env(env)
        self.stderr = stderr
        self.timeout = timeout
        self.url = ""
        self.process: subprocess.Popen[str] | None = None

    def __enter__(self) -> SandboxProcess:
        self.process = subprocess.Popen(
            self.args, stdout=subprocess.PIPE, stderr=self.stderr, env=self.env, text=True
        )
        try:
            self.url = _await_url(self.process, self.timeout)
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)


def _child_env(extra: dict[str, str] | None) -> dict[str, str]:
    """Make `svc_sandbox` importable in the child even when it is not installed."""
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH", "")) if p)
    env.update(extra or {})
    return env


def _await_url(process: subprocess.Popen[str], timeout: float) -> str:
    """Read stdout until the SANDBOX_URL line, then keep draining it in the background."""
    assert process.stdout is not None
    stdout = process.stdout
    found: list[str] = []
    ready = threading.Event()

    def pump() -> None:
        for line in stdout:
            if not found and line.startswith(URL_LINE_PREFIX):
                found.append(line.strip()[len(URL_LINE_PREFIX) :])
                ready.set()
        ready.set()  # EOF: the process ended

    threading.Thread(target=pump, daemon=True).start()
    if not ready.wait(timeout) or not found:
        raise RuntimeError(
            f"sandbox did not print {URL_LINE_PREFIX}… within {timeout:.0f}s "
            f"(exit code {process.poll()})"
        )
    return found[0]
