"""The ledger's interface: what any engine that keeps svc's money rules must provide.

Today one engine implements it, the local SQLite ledger (`local.Ledger`); the fleet ledger on
PostgreSQL is the next. Every money rule svc keeps rests on these promises:
- `journal` writes a request's row before the first byte is sent, once per request id;
- `reserve` checks the daily cap and holds the amount in one transaction, across every
  process (and, for a shared engine, every machine) that uses the same store;
- `record_signature` is durable before the proof leaves: every retry re-sends that proof;
- a transition that touches several concerns (a signature, an acceptance, a void, a refund,
  a card) is atomic;
- pins and confirmed hosts, once written, hold for every later reader.
The rows read back are `rows.Submission` and `rows.Authorization`, in the states of `rows`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from svc.store.ledger.books import EVERYONE, SpendGroup, Whose
from svc.store.ledger.budgets import Budget, LimitReached, Limits
from svc.store.ledger.fleet_settings import CapRule
from svc.store.ledger.reads_bounded import BoundedReads
from svc.store.ledger.rows import Authorization, Submission, Written
from svc.store.ledger.task_handles import TaskHandles


@dataclass(frozen=True)
class LedgerInfo:
    """What `svc doctor` says about the ledger in use."""

    engine: str  # "SQLite 3.x at PATH" or "PostgreSQL 15 at URL" (never a password)
    schema_version: int
    runner: str | None
    missing_rights: tuple[str, ...] = ()


# Opens the lock of one request id (waiting as needed): see `LedgerStore.request_lock`.
RequestLocks = Callable[[str, Callable[[str], None] | None], AbstractContextManager[None]]


class LedgerStore(Protocol):
    # The name this process writes on the rows it journals and the holds it takes (fleet
    # mode: which runner; by default the host name).
    runner: str | None

    # --- the engine -------------------------------------------------------------------------
    def close(self) -> None: ...

    def request_lock(
        self, request_id: str, on_wait: Callable[[str], None] | None = None
    ) -> AbstractContextManager[None]:
        """Held while a request id is handled, by one holder at a time across every process
        that shares the store; a holder that dies releases it."""
        ...

    def integrity(self) -> str:
        """The engine's own check of its store ("ok" when sound)."""
        ...

    def describe(self) -> LedgerInfo:
        """Which engine and where, its schema version and this runner's name."""
        ...

    def bounded(self) -> BoundedReads:
        """The reads whose cost is what they return (`svc tasks`' filters, a poll's news)."""
        ...

    def task_handles(self) -> TaskHandles:
        """The handles `svc mcp` gives MCP Tasks clients (task_handles.py)."""
        ...

    def unwritable(self) -> str | None:
        """Why the store was opened to read only (a full or read-only disk), else None: the
        readers show what it holds and say so; any write raises the contract's exit 9."""
        ...

    # --- reading ----------------------------------------------------------------------------
    def get(self, request_id: str) -> Submission | None: ...

    def accepted_among(self, request_ids: Sequence[str]) -> dict[str, Submission]:
        """Which of these request ids are accepted (with their task), by id: one statement
        for a batch's chunk of lines, where a read each was a round trip each on a fleet."""
        ...

    def submissions(self, *, limit: int | None = None) -> list[Submission]: ...

    def count_submissions(self, *, since: float | None = None) -> int:
        """How many submissions (created at or after `since`), without reading them."""
        ...

    def recent_same_task(self, body: dict[str, Any], since: float) -> list[Submission]: ...

    def authorizations(self, *, since: float = 0.0) -> list[Authorization]: ...

    def exposure(self, since: float) -> int:
        """µUSD spent or still exposed (signed, not void, not expired) since `since`."""
        ...

    # --- the books (`svc spend`, exports, receipts): reads bounded by their window ----------
    def spend_sums(
        self, start: float, end: float | None = None, whose: Whose = EVERYONE
    ) -> list[SpendGroup]:
        """The charges created in [start, end) (`whose`: of one runner, profile or wallet),
        summed in the engine by quarter hour, rail and runner: counts and µUSD paid and
        refunded."""
        ...

    def charges(
        self, start: float, end: float | None = None, whose: Whose = EVERYONE
    ) -> list[Submission]:
        """The charged rows (accepted with a proof, or refunded) of [start, end), newest first."""
        ...

    def open_items(self, whose: Whose = EVERYONE) -> list[Submission]:
        """Rows with an unknown outcome or a card page waiting for a person, of any age."""
        ...

    def find(self, task_or_request_id: str) -> Submission | None:
        """The row of a request id, else the newest row of a task id."""
        ...

    def exposed_authorizations(self, since: float) -> list[Authorization]:
        """Authorizations signed since `since` still held, live or refused (expiry unchecked)."""
        ...

    def authorizations_of(self, request_id: str) -> list[Authorization]:
        """One request's authorizations, oldest first."""
        ...

    # --- the lifecycle of a paid request (one transaction each) -----------------------------
    def journal(
        self,
        request_id: str,
        origin: str,
        email: str,
        body: dict[str, Any],
        base_url: str | None = None,
    ) -> Submission:
        """Write the row before the first byte is sent. Idempotent per request id.

        `origin` binds the request's proof; `base_url` is where its task lives (with a path)."""
        ...

    def mark_challenged(self, request_id: str) -> Written:
        """The request goes out without a proof."""
        ...

    def reserve(
        self,
        request_id: str,
        *,
        rail: str,
        amount_atomic: int,
        origin: str,
        valid_before: float | None,
        cap_atomic: int | None = None,
        since: float,
        limits: Limits | None = None,
        cap: CapRule | None = None,
    ) -> int | None:
        """Hold `amount_atomic` against the cap before signing; None when held, else the
        exposure already there. `limits` (budgets, the hourly rate, the breaker) are checked
        in the same transaction and raise `budgets.LimitReached`. Check and hold are one
        transaction across processes. `cap`: the rule read at the hold (a fleet's value as
        stored then) in place of `cap_atomic`; its refusal raises `CapReached`."""
        ...

    def record_signature(
        self,
        request_id: str,
        *,
        rail: str,
        proof: str | None,
        fingerprint: str,
        amount_atomic: int,
        pay_to: str,
        payer: str,
        network: str,
        asset: str,
        valid_before: float | None,
        origin: str,
    ) -> Written:
        """Journal a signed proof before it is sent, so every retry re-sends this one.

        `proof` is None when the proof itself is a secret (kept in the secret store)."""
        ...

    def release_reservation(self, request_id: str) -> None:
        """Signing did not happen (no key, a refusal after the hold): nothing is exposed."""
        ...

    def mark_sent(self, request_id: str) -> Written:
        """The journaled proof is on its way."""
        ...

    def mark_accepted(
        self,
        request_id: str,
        *,
        task_id: str | None,
        state: str | None,
        http_status: int,
        billing: str | None,
        receipt: str | None,
        usage_error: str | None,
        card: bool = True,
    ) -> Written:
        """The service accepted; `card` False: no card payment can be recorded for it."""
        ...

    def mark_rejected(
        self,
        request_id: str,
        error: str,
        http_status: int | None = None,
        detail: str | None = None,
    ) -> Written:
        """Refused before any proof went out: nothing was charged. `detail`: why, in words."""
        ...

    def mark_refused(self, request_id: str, error: str, http_status: int | None = None) -> Written:
        """A proof was refused without the spec's word that it is void: keep it for resends."""
        ...

    def mark_unknown(self, request_id: str, error: str, http_status: int | None = None) -> Written:
        """A proof went out and no readable answer came back: it may have been charged."""
        ...

    def void_proof(self, request_id: str, error: str, *, frees_cap: bool) -> Written:
        """The spec's codes prove the proof void: a new one may be signed. An x402
        authorization still counts until it expires (`frees_cap` False): whoever holds it can
        settle it, whatever the server said."""
        ...

    def mark_refunded(
        self, request_id: str, refunded_atomic: int | None, billing: str
    ) -> Written: ...

    def note_billing(self, request_id: str, billing: str) -> Written: ...

    # --- card payments waiting for a person -------------------------------------------------
    def card_pending(
        self,
        request_id: str,
        *,
        payment_id: str,
        pay_url: str,
        status_url: str,
        checkout_url: str | None,
        amount_atomic: int,
        recipient: str,
    ) -> Written:
        """A hosted card page was started; a person has to pay it."""
        ...

    def card_dead(self, request_id: str, error: str) -> Written:
        """The card payment failed or was cancelled: it can never be spent."""
        ...

    def card_complete(self, request_id: str) -> None: ...

    def card_payment(self, request_id: str | None = None) -> dict[str, Any] | None:
        """A request's card payment, or (no id) the latest one still waiting for a person."""
        ...

    # --- what the service said about a task since -------------------------------------------
    def set_task_state(self, task_id: str, state: str) -> None: ...

    def forget(self, request_id: str, *, money_too: bool = False) -> bool:
        """Remove a submission's row, deciding under the request's lock on the row as it is
        then: one that is money (or became money since the caller looked) stays unless
        `money_too`. True if it was removed. The authorizations (the cap's record) stay."""
        ...

    # --- pinned recipients and confirmed link hosts, per origin -----------------------------
    def pinned_recipient(self, origin: str, network: str, asset: str) -> str | None: ...

    def pinned_recipients(self, origin: str) -> list[tuple[str, str]]:
        """(network, pay_to) of every recipient pinned for an origin."""
        ...

    def pin_recipient(self, origin: str, network: str, asset: str, pay_to: str) -> None: ...

    def link_host_confirmed(self, origin: str, host: str) -> bool: ...

    def confirm_link_host(self, origin: str, host: str) -> None: ...

    # --- budgets and the breaker --------------------------------------------------
    def budgets(self) -> list[Budget]:
        """Every stored budget, of every scope."""
        ...

    def set_budget(self, budget: Budget) -> None:
        """Write (or replace) a budget for every process and runner of the store."""
        ...

    def unset_budget(self, scope: str, name: str, window: str | None) -> int:
        """Remove a budget (every window of the scope's name if `window` is None)."""
        ...

    def budget_used(self, budget: Budget, now: float, since: float | None = None) -> int:
        """µUSD of exposure in the budget's window, its scope's rows only."""
        ...

    def reset_breaker(self, runner: str) -> None:
        """The runner's breaker counts only paid requests from now on."""
        ...

    def breaker_state(self, runner: str, after: int, now: float) -> LimitReached | None:
        """The breaker's refusal if it is open for the runner now, else None."""
        ...

    # --- settings the fleet shares ----------------------------------------------------------
    def fleet_setting(self, name: str) -> str | None:
        """A value every runner of the store obeys (as written: `90`, `none`), or None."""
        ...

    def set_fleet_setting(self, name: str, value: str | None) -> None:
        """Write it for every runner (durable); None removes it."""
        ...
