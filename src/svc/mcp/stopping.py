"""The HTTP server is stopping: a call that waits (`wait_for_task`) ends now with what it has.

uvicorn's graceful stop answers the open requests before it exits, and a waiting call is an
open request for up to its whole budget (WAIT_BUDGET_SECONDS): a Ctrl-C that took most of a
minute. Once a terminating signal reaches the server (mcp/http.py's `Server.handle_exit`),
every wait ends at its next look, and the call answers as one whose budget ran out: the task as
last seen, and the model told to call again. A flag, not an asyncio event: it is set in the
signal handler, and read by the event loop and by the follower's worker thread alike.

The call's answer cannot follow: sse-starlette ends every event stream once the server is
exiting, and uvicorn then logs the response it cut as an error. That is the stop the person
asked for, so during it `quiet_cut_streams` keeps that one line off their terminal; the host
sees the request cut and calls again.
"""

from __future__ import annotations

import logging
import threading

import anyio

TICK_SECONDS = 0.25  # how soon a sleeping wait sees the stop

_stopping = threading.Event()


def begin() -> None:
    _stopping.set()


def reset() -> None:
    """A server starting in a process that served before (a library host, a test) starts
    with no stop under way."""
    _stopping.clear()


def under_way() -> bool:
    return _stopping.is_set()


async def sleep(seconds: float) -> None:
    """`anyio.sleep(seconds)`, ended early once the server is stopping."""
    with anyio.move_on_after(seconds):
        while not _stopping.is_set():
            await anyio.sleep(TICK_SECONDS)


CUT_STREAM = "ASGI callable returned without completing response."


class _CutStreams(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not (_stopping.is_set() and record.msg == CUT_STREAM)


def quiet_cut_streams(logger: logging.Logger) -> None:
    """Drop uvicorn's error for a stream cut by the stop (only once a stop is under way),
    added once however often a process serves. It drops it for a paid call cut after the
    grace too: that call's outcome is in the ledger (`svc tasks`), journaled in its thread."""
    if not any(isinstance(f, _CutStreams) for f in logger.filters):
        logger.addFilter(_CutStreams())
