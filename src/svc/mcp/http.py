"""`svc mcp --http`: the same server over Streamable HTTP, on loopback, behind `Guard`.

A 2026-07-28 client is served statelessly, as that protocol has it: every POST on its own,
nothing kept between requests but the sealed request state (`svc.mcp.rounds`) and the ledger
(the SDK routes it by its version header). A 2025 client gets a session (`Mcp-Session-Id`), as
its protocol has it: the back channel that carries elicitation, so the person approves a
payment and types a secret in its forms exactly as over stdio. Sessions are bounded in number
and end after `SESSION_IDLE_SECONDS` without a request.

The token is read from the secret store, never from argv or the environment, and printed
only the once it is made. uvicorn's access log is off: it would print every URL.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import signal
import socket
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import uvicorn  # this module is imported only to serve (svc.commands.mcp)

from svc.engines import mcp_token
from svc.errors import UsageError
from svc.mcp import stopping
from svc.mcp.guard import Guard, allowed_hosts, loopback_address
from svc.mcp.server import build_server, freeze_heap
from svc.mcp.state import ContextPool
from svc.ui import terminal
from svc.ui.output import Output

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from types import FrameType

    from starlette.applications import Starlette

    from svc.ui.face import FaceContext

PATH = "/mcp"
# A person's host keeps one session a connection; an idle one (a closed laptop lid) ends after
# half an hour, the SDK's default, and a few hosts at once are far below the bound.
SESSION_IDLE_SECONDS = 1800.0
MAX_SESSIONS = 64


@dataclass(frozen=True)
class Listening:
    sock: socket.socket
    address: str
    port: int

    @property
    def url(self) -> str:
        shown = f"[{self.address}]" if ":" in self.address else self.address
        return f"http://{shown}:{self.port}{PATH}"


def listen(host: str, port: int) -> Listening:
    """Bind before serving, so a busy port is our error and port 0 has its number (announced
    at once: the listening socket queues what arrives before uvicorn accepts)."""
    address = loopback_address(host)
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.bind((address, port))
        sock.listen(128)  # from now on a host's first request waits for uvicorn, not refused
    except OSError as exc:
        sock.close()
        raise _bind_error(address, port, exc) from None
    return Listening(sock, address, sock.getsockname()[1])


def _bind_error(address: str, port: int, exc: OSError) -> UsageError:
    if exc.errno == errno.EADDRINUSE:
        return UsageError(
            f"port {port} on {address} is already in use",
            hint="use --port N for another port (0 picks a free one)",
        )
    return UsageError(f"cannot listen on {address}:{port}: {exc.strerror or exc}")


def build_app(pool: ContextPool, where: Listening, token: mcp_token.TokenCheck) -> Any:
    """The SDK's Streamable HTTP app (sessions for 2025 clients), wrapped in the guard."""
    from mcp.server.transport_security import TransportSecuritySettings

    server = build_server(pool)
    hosts = allowed_hosts(where.address, where.port)
    # The SDK's own rebinding check stays on behind ours, with the same exact lists.
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=sorted(hosts),
        allowed_origins=sorted(f"http://{host}" for host in hosts),
    )
    inner: Starlette = server.streamable_http_app(
        streamable_http_path=PATH,
        stateless_http=False,
        session_idle_timeout=SESSION_IDLE_SECONDS,
        max_sessions=MAX_SESSIONS,
        transport_security=security,
    )
    return Guard(inner, hosts=hosts, token=token, warn=pool.output.warn)


STOP_GRACE_SECONDS = 10


def serve_http(app: FaceContext, host: str, port: int) -> int:
    """Serve until interrupted; the CLI's settings, never a prompt."""
    where = listen(host, port)
    settings = app.settings
    settings.no_input = True  # a person is reached only through the client
    token, made = mcp_token.ensure(app)
    announce(app.output, where, token if made else None)
    pool = ContextPool(app, Output.for_protocol())
    check = mcp_token.check(app)
    config = uvicorn.Config(
        build_app(pool, where, check),
        log_level="warning",
        access_log=False,
        lifespan="on",
        server_header=False,
        date_header=False,
        # On a signal, waiting calls end at once (svc.mcp.stopping) and the other open requests
        # get this long to finish before they are cancelled: a stop never waits out a call. A
        # cancelled paid call still ends in order: its worker thread is waited for, its
        # payment journaled there.
        timeout_graceful_shutdown=STOP_GRACE_SECONDS,
    )
    ready = (
        f"svc mcp: serving MCP over HTTP at {where.url} "
        f"(profile {settings.profile}, {settings.base_url}); Ctrl-C stops it"
    )
    stopping.reset()
    stopping.quiet_cut_streams(logging.getLogger("uvicorn.error"))
    one_line_errors(logging.getLogger("mcp.server.streamable_http"))
    freeze_heap()
    try:
        Server(config, on_ready=lambda: app.output.info(ready)).run(sockets=[where.sock])
    finally:
        pool.close()
        where.sock.close()
    return 0


class _OneLine(logging.Filter):
    """A record with a traceback becomes one line naming the exception: the SDK logs the
    whole traceback of a request it failed (a late answer to a session being closed), and the
    person's terminal is no place for it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.exc_info[0] is not None:
            kind = record.exc_info[0].__name__
            record.msg, record.args = f"svc mcp: {record.getMessage()} ({kind})", ()
            record.exc_info, record.exc_text = None, None
        return True


def one_line_errors(logger: logging.Logger) -> None:
    """Added once however often a process serves."""
    if not any(isinstance(f, _OneLine) for f in logger.filters):
        logger.addFilter(_OneLine())


class Server(uvicorn.Server):
    """uvicorn's server, stopping on SIGHUP as it stops on SIGINT and SIGTERM.

    uvicorn takes those two over while serving: it stops gracefully (open requests answered,
    the lifespan ended) and then raises the same signal again, with svc's handler back, which
    ends the command as a Ctrl-C. SIGHUP it leaves to svc's handler, whose KeyboardInterrupt
    then lands in the middle of the event loop: the tasks are cancelled under uvicorn, which
    logs a traceback for the lifespan's. Taken over the same way it takes the same path, and
    exits 129. An ignored SIGHUP (nohup) stays ignored.

    `on_ready` says the server is serving once it is: the lifespan started and the signals
    taken over. Said before (as it was, ahead of the event loop), a host or a test that
    stopped the server on reading it could land its SIGTERM while asyncio was still building
    the loop: exit 143 all the same, but a half-made loop's traceback on stderr (found under
    load by tests/e2e/test_mcp_http.py)."""

    def __init__(self, config: uvicorn.Config, on_ready: Callable[[], None]) -> None:
        super().__init__(config)
        self.on_ready = on_ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started:
            self.on_ready()

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        stopping.begin()  # waiting calls end at their next look (svc.mcp.stopping)
        super().handle_exit(sig, frame)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        with super().capture_signals():  # SIGINT and SIGTERM; raised again when it ends
            hup = signal.getsignal(signal.SIGHUP)
            main = threading.current_thread() is threading.main_thread()
            if not terminal.is_interrupt_handler(hup) or not main:
                yield
                return
            signal.signal(signal.SIGHUP, self.handle_exit)
            try:
                yield
            finally:  # svc's handler back before uvicorn raises what it caught again
                signal.signal(signal.SIGHUP, hup)


def announce(output: Output, where: Listening, new_token: str | None) -> None:
    """The host's configuration: the URL always, the token only the once it is made."""
    output.line(f"MCP_URL={where.url}")
    if new_token is None:
        output.info(
            "svc mcp: hosts send the bearer token made earlier (svc mcp token shows it, "
            "svc mcp token --rotate replaces it)"
        )
        return
    output.line(f"MCP_TOKEN={new_token}")
    output.info(
        "svc mcp: a new bearer token was made and is shown this once; give the host the URL "
        "and the header 'Authorization: Bearer <MCP_TOKEN>'. svc mcp token shows it again."
    )
