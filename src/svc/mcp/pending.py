"""Questions to the person that outlive the call that asked them (2025 clients, elicitation).

A host times a tool call out after 60 s (the TypeScript SDK's default, which progress does
not reset), and a person may take longer to find a code. So a question is not the call's:
its elicitation runs in the server's own task group, the call waits for the answer until
`ask_budget()` after it began, and then ends saying the question stays open (`StillAsking`,
nothing signed or sent). The next call that asks the same question (same session, same
`about`: the request and payment, or the task and field) waits on that very form instead of
showing a second one, and takes its answer once it is in. An answer nobody takes is dropped
after `ANSWER_TIMEOUT`; a secret in it never leaves this process's memory.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

import anyio

from svc.errors import ExitCode, SvcError
from svc.mcp.asks import from_service
from svc.mcp.pace import time_scale

if TYPE_CHECKING:
    import mcp_types as types
    from anyio.abc import TaskGroup

# A call that waits on the person answers by then, with room before a host's 60 s timeout.
ASK_BUDGET_SECONDS = 45.0
# A question nobody answers is given up after this long (its form may stay open in the host):
# read as "no", nothing signed; a 2026-07-28 round's sealed state expires with it too.
ANSWER_TIMEOUT = 600.0


def ask_budget() -> float:
    return ASK_BUDGET_SECONDS * time_scale()


class StillAsking(SvcError):
    """The person has not answered yet; the question stays open in the host's form, and the
    same call made again waits on it (nothing was signed, paid or sent). Exit 6's class, yet
    not a HumanNeeded: that one a paid flow keeps its request for (a card page waiting),
    while this is a refusal before a signature, whose hold on the cap is released."""

    exit_code = ExitCode.HUMAN_NEEDED
    default_code = "awaiting_person"

    def __init__(self, about: dict[str, Any]) -> None:
        super().__init__(
            "the person has not answered yet; the question stays open in the host's form "
            "(nothing was signed, paid or sent)",
            hint=_again(about),
        )
        self.about = about


def _again(about: dict[str, Any]) -> str:
    """How the agent goes on: the same question is waited on, never asked twice."""
    if about.get("kind") == "pay":
        return (
            f"call submit_task again with request_id {about.get('request_id')} and the same "
            "task and email: it waits for the same answer, and pays only if the person ticks Pay"
        )
    # The task id and the field are the service's words: quoted, never read as ours.
    task, field = from_service(about.get("task"), 80), from_service(about.get("field"), 64)
    return (
        f"call wait_for_task again for task {task}: it waits for the person's {field} in the "
        "same form; do not ask for it in the chat"
    )


def _connection_of(session: object) -> object:
    """The client's connection: the SDK builds a ServerSession per request, over one
    connection object per client (a stdio pipe, an HTTP session)."""
    return getattr(session, "_connection", session)


@dataclass
class _Question:
    done: anyio.Event = field(default_factory=anyio.Event)
    answer: types.ElicitResult | None = None  # None: declined, failed, or given up
    ended_at: float = math.inf  # time.monotonic() of the answer (or of giving up)


class PendingQuestions:
    """The open questions of this server, by session and what they ask."""

    def __init__(self) -> None:
        # By connection, held weakly: a closed client's questions go with it, and a new
        # connection never finds them (an id() could be a dead one's, reused).
        self._open: WeakKeyDictionary[object, dict[str, _Question]] = WeakKeyDictionary()
        self._group: TaskGroup | None = None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The task group the questions run in: the server's life (its lifespan)."""
        async with anyio.create_task_group() as group:
            self._group = group
            try:
                yield
            finally:
                self._group = None
                group.cancel_scope.cancel()

    async def answer(
        self,
        session: object,
        about: dict[str, Any],
        elicit: Callable[[], Awaitable[types.ElicitResult | None]],
        deadline: float,
    ) -> types.ElicitResult | None:
        """The person's answer to `about` (None: none given), asked once however many calls
        ask it; StillAsking if it is not in by `deadline` (time.monotonic())."""
        if self._group is None:  # no server around it (a test of one call): ask within it
            with anyio.move_on_after(ANSWER_TIMEOUT):
                return await elicit()
            return None
        self._forget_stale()
        questions = self._questions_of(session)
        key = json.dumps(about, sort_keys=True, default=str)
        question = questions.get(key)
        if question is None:
            question = questions[key] = _Question()
            self._group.start_soon(self._ask, question, elicit)
        with anyio.move_on_after(max(0.0, deadline - time.monotonic())):
            await question.done.wait()
        if not question.done.is_set():
            raise StillAsking(about)
        questions.pop(key, None)  # one answer answers one question
        return question.answer

    def _questions_of(self, session: object) -> dict[str, _Question]:
        """The open questions of the session's connection (one a call where there is no
        connection to hold them by: asked anew each time, never answered wrongly)."""
        try:
            return self._open.setdefault(_connection_of(session), {})
        except TypeError:  # not weakly referable
            return {}

    async def _ask(
        self, question: _Question, elicit: Callable[[], Awaitable[types.ElicitResult | None]]
    ) -> None:
        try:
            with anyio.move_on_after(ANSWER_TIMEOUT):
                question.answer = await elicit()
        finally:  # answered, given up, or the server stopping: no call waits for ever
            question.ended_at = time.monotonic()
            question.done.set()

    def _forget_stale(self) -> None:
        """Answers nobody came back for, kept as long as a question stays open."""
        now = time.monotonic()
        for questions in list(self._open.values()):
            for key, question in list(questions.items()):
                if now - question.ended_at > ANSWER_TIMEOUT:
                    del questions[key]
