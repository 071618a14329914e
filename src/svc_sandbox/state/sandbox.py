"""The sandbox's in-memory store. Every read and write goes through one lock."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal

from svc_sandbox import scenarios
from svc_sandbox.faults.queue import Fault, FaultQueue
from svc_sandbox.identity.platform import IdentityPlatform
from svc_sandbox.payments.store import PaymentStore
from svc_sandbox.state.clock import SandboxClock
from svc_sandbox.state.config import DEFAULT_NETWORK, SandboxConfig
from svc_sandbox.state.records import Task, iso, new_id

DEFAULT_BALANCE_ATOMIC = 1_000_000_000  # 1,000 USDC for any address the sandbox has not seen


@dataclass(frozen=True)
class OnChain:
    """x402: the authorization's nonce (single use per payer) and who the payer's balance pays."""

    nonce: str
    pay_to: str


@dataclass(frozen=True)
class Charge:
    """A payment a rail has verified (and, for MPP and card, already taken), to be booked."""

    method: str  # x402, mpp, card
    payer: str
    amount_atomic: int
    request_id: str | None
    goal: str
    book: dict[str, str]  # the rail's own fields in the books entry (nonce, reference)
    onchain: OnChain | None = None
    deliver: bool = True  # False: the delivery fails, and the charge is refunded at once


@dataclass
class Settlement:
    # failed: nothing moved (x402 nonce reuse, funds); refunded: charged, then refunded
    outcome: Literal["charged", "replayed", "mismatch", "failed", "refunded"]
    task: Task | None = None
    charge: dict[str, Any] | None = None
    reason: str | None = None


@dataclass
class _Books:
    charges: list[dict[str, Any]] = field(default_factory=list)
    refunds: list[dict[str, Any]] = field(default_factory=list)
    settlement_failures: list[dict[str, Any]] = field(default_factory=list)


class SandboxState:
    def __init__(self, clock: SandboxClock | None = None, network: str = DEFAULT_NETWORK) -> None:
        self.clock = clock or SandboxClock()
        self.network = network  # "testnet" | "mainnet": what a reset offers again
        self.identity = IdentityPlatform()  # keys live as long as the process
        self._lock = threading.Lock()
        self._reset_locked()

    def _reset_locked(self) -> None:
        self.config = SandboxConfig.on(self.network)
        self._tasks: dict[str, Task] = {}
        self._requests: dict[str, tuple[str, str]] = {}  # request id -> (payer, task id)
        self._books = _Books()
        self._nonces: dict[str, set[str]] = {}  # payer (lower) -> used nonces (lower)
        self._balances: dict[str, int] = {}  # address (lower) -> atomic units
        self.faults: FaultQueue[Fault] = FaultQueue()
        self._poll_times: dict[str, list[datetime]] = {}
        self._secrets: dict[str, dict[str, str]] = {}  # task id -> sensitive reply values
        # x402 payment-identifier -> (payer, charge) of a paid request it settled
        self._payment_ids: dict[str, tuple[str, dict[str, Any]]] = {}
        self.payments = PaymentStore()  # MPP and card payments (svc_sandbox.payments)

    def reset(self) -> None:
        with self._lock:
            self._reset_locked()
        self.identity.reset()
        self.clock.reset()

    # --- config, wallets, faults -------------------------------------------------------

    def update_config(self, changes: dict[str, Any]) -> SandboxConfig:
        with self._lock:
            for name, value in changes.items():
                setattr(self.config, name, value)
            return SandboxConfig(**self.config.to_dict())

    def get_config(self) -> SandboxConfig:
        """A copy (every field a scalar: `replace` copies them all, as `asdict` did, without
        its recursive deep copy: twice per paid submit)."""
        with self._lock:
            return replace(self.config)

    def balance(self, address: str) -> int:
        with self._lock:
            return self._balances.get(address.lower(), DEFAULT_BALANCE_ATOMIC)

    def set_balance(self, address: str, atomic: int) -> None:
        with self._lock:
            self._balances[address.lower()] = atomic

    def take_fault(
        self, method: str, path: str, headers: frozenset[str] = frozenset()
    ) -> Fault | None:
        """Consume one use of the first queued fault matching this request."""
        return self.faults.take(lambda fault: fault.matches(method, path, headers))

    # --- books --------------------------------------------------------------------------

    def books(self) -> dict[str, list[dict[str, Any]]]:
        with self._lock:
            return {
                "charges": [dict(c) for c in self._books.charges],
                "refunds": [dict(r) for r in self._books.refunds],
                "settlement_failures": [dict(f) for f in self._books.settlement_failures],
            }

    def record_settlement_failure(
        self, *, reason: str, payer: str, request_id: str | None, nonce: str, amount_atomic: int
    ) -> None:
        with self._lock:
            self._books.settlement_failures.append(
                {
                    "id": new_id("fail"),
                    "reason": reason,
                    "payer": payer,
                    "request_id": request_id,
                    "nonce": nonce,
                    "amount_atomic": amount_atomic,
                    "at": iso(self.clock.now()),
                }
            )

    def find_request(self, request_id: str | None) -> tuple[str, Task] | None:
        """(payer, task) of an earlier paid submit with this request id."""
        if request_id is None:
            return None
        with self._lock:
            return self._find_request_locked(request_id)

    def _find_request_locked(self, request_id: str | None) -> tuple[str, Task] | None:
        if request_id is None or request_id not in self._requests:
            return None
        payer, task_id = self._requests[request_id]
        return payer, self._tasks[task_id]

    def _replay_locked(self, request_id: str | None, payer: str) -> Settlement | None:
        """A request id seen before: its task again for the same payer, else a mismatch."""
        earlier = self._find_request_locked(request_id)
        if earlier is None:
            return None
        earlier_payer, task = earlier
        if earlier_payer.lower() != payer.lower():
            return Settlement("mismatch")
        return Settlement("replayed", task=task)

    def replay(self, request_id: str | None, payer: str) -> Settlement | None:
        """A request id paid before: its task again for the same payer, else a mismatch."""
        with self._lock:
            return self._replay_locked(request_id, payer)

    def settle(self, charge: Charge) -> Settlement:
        """Atomically: idempotency, (x402) nonce single use and funds, then charge and task.

        MPP and card money was taken by the rail (under the paid path's lock) before this
        books it. A charge that is not delivered is refunded in full at once and no task exists.
        """
        with self._lock:
            replay = self._replay_locked(charge.request_id, charge.payer)
            if replay is not None:
                return replay
            if charge.onchain is not None:
                refused = self._transfer_locked(charge.payer, charge.amount_atomic, charge.onchain)
                if refused is not None:
                    return Settlement("failed", reason=refused)
            now = self.clock.now()
            booked: dict[str, Any] = {
                # A card charge is its card payment (single use): one id on the page, in
                # svc-payment-id and in svc-billing. Other rails get a charge id of their own.
                "id": charge.book["reference"] if charge.method == "card" else new_id("pay"),
                "request_id": charge.request_id,
                "task_id": None,
                "method": charge.method,
                "payer": charge.payer,
                "amount_atomic": charge.amount_atomic,
                **charge.book,
                "at": iso(now),
            }
            self._books.charges.append(booked)
            if not charge.deliver:
                self._refund_locked(booked, "delivery_failed", now)
                return Settlement("refunded", charge=dict(booked), reason="delivery_failed")
            task = scenarios.new_task(
                task_id=new_id("task"),
                owner=charge.payer,
                request_id=charge.request_id,
                goal=charge.goal,
                now=now,
            )
            self._tasks[task.id] = task
            if charge.request_id is not None:
                self._requests[charge.request_id] = (charge.payer, task.id)
            booked["task_id"] = task.id
            return Settlement("charged", task=task, charge=dict(booked))

    def by_payment_id(self, payment_id: str | None, payer: str) -> Settlement | None:
        """The charge an x402 payment identifier settled before (replayed, or a mismatch when
        another payer named it), None when none did."""
        with self._lock:
            return self._by_payment_id_locked(payment_id, payer)

    def _by_payment_id_locked(self, payment_id: str | None, payer: str) -> Settlement | None:
        if payment_id is None or payment_id not in self._payment_ids:
            return None
        earlier_payer, booked = self._payment_ids[payment_id]
        if earlier_payer.lower() != payer.lower():
            return Settlement("mismatch")
        return Settlement("replayed", charge=dict(booked))

    def charge_request(self, charge: Charge, payment_id: str | None) -> Settlement:
        """A paid request that is not a task (`/svc/paid/echo`): booked like a task's charge,
        and deduplicated by its x402 payment identifier: the same id from the same payer is
        the charge made before (replayed, nothing moves), from another payer a mismatch."""
        with self._lock:
            earlier = self._by_payment_id_locked(payment_id, charge.payer)
            if earlier is not None:
                return earlier
            if charge.onchain is not None:
                refused = self._transfer_locked(charge.payer, charge.amount_atomic, charge.onchain)
                if refused is not None:
                    return Settlement("failed", reason=refused)
            booked: dict[str, Any] = {
                "id": new_id("pay"),
                "request_id": charge.request_id,
                "task_id": None,
                "method": charge.method,
                "payer": charge.payer,
                "amount_atomic": charge.amount_atomic,
                "payment_identifier": payment_id,
                **charge.book,
                "at": iso(self.clock.now()),
            }
            self._books.charges.append(booked)
            if payment_id is not None:
                self._payment_ids[payment_id] = (charge.payer, booked)
            return Settlement("charged", charge=dict(booked))

    def _transfer_locked(self, payer: str, amount_atomic: int, onchain: OnChain) -> str | None:
        """Move an x402 payment between balances; the settlementReason when it cannot."""
        used = self._nonces.setdefault(payer.lower(), set())
        if onchain.nonce.lower() in used:
            return "nonce_already_used"
        balance = self._balances.get(payer.lower(), DEFAULT_BALANCE_ATOMIC)
        if balance < amount_atomic:
            return "insufficient_funds"
        used.add(onchain.nonce.lower())
        self._balances[payer.lower()] = balance - amount_atomic
        recipient = onchain.pay_to.lower()
        self._balances[recipient] = (
            self._balances.get(recipient, DEFAULT_BALANCE_ATOMIC) + amount_atomic
        )
        return None

    def _refund_locked(self, charge: dict[str, Any], reason: str, now: datetime) -> None:
        self._books.refunds.append(
            {
                "id": new_id("rf"),
                "charge_id": charge["id"],
                "request_id": charge["request_id"],
                "method": charge["method"],
                "amount_atomic": charge["amount_atomic"],
                "reason": reason,
                "at": iso(now),
            }
        )

    def charge_for(self, task_id: str) -> dict[str, Any] | None:
        with self._lock:
            return next((dict(c) for c in self._books.charges if c["task_id"] == task_id), None)

    # --- tasks --------------------------------------------------------------------------

    def poll(self, task_id: str) -> Task | None:
        """Advance the task to now, reconciling app approvals, and note the poll."""
        with self._lock:
            now = self.clock.now()
            task = self._advance_locked(task_id, now, reconcile=True)
            if task is not None:
                self._poll_times.setdefault(task_id, []).append(now)
            return task

    def peek(self, task_id: str) -> Task | None:
        """Advance scheduled steps only (no approval reconciliation, no poll noted)."""
        with self._lock:
            return self._advance_locked(task_id, self.clock.now(), reconcile=False)

    def update(
        self,
        task_id: str,
        change: Callable[[Task, datetime], scenarios.ReplyOutcome | Task],
    ) -> Task | None:
        """Apply a pure change (reply, approval) to the up-to-date task; may raise."""
        with self._lock:
            now = self.clock.now()
            task = self._advance_locked(task_id, now, reconcile=False)
            if task is None:
                return None
            outcome = change(task, now)
            if isinstance(outcome, scenarios.ReplyOutcome):
                if outcome.secrets:
                    self._secrets.setdefault(task_id, {}).update(outcome.secrets)
                outcome = outcome.task
            self._store_locked(outcome)
            return outcome

    def internals(self, task_id: str) -> dict[str, Any] | None:
        with self._lock:
            task = self._advance_locked(task_id, self.clock.now(), reconcile=False)
            if task is None:
                return None
            return {
                "task": task.to_wire(with_events=True),
                "owner": task.owner,
                "request_id": task.request_id,
                "scenario": task.scenario,
                "next_step": task.next_step,
                "next_step_at": iso(task.next_step_at) if task.next_step_at else None,
                "approved_at": iso(task.approved_at) if task.approved_at else None,
                "plain_ask": task.plain_ask,
                "sensitive_values_stored": len(self._secrets.get(task_id, {})),
                "poll_times": [iso(t) for t in self._poll_times.get(task_id, [])],
            }

    def _advance_locked(self, task_id: str, now: datetime, *, reconcile: bool) -> Task | None:
        task = self._tasks.get(task_id)
        if task is None:
            return None
        task = scenarios.advance(task, now, reconcile_approvals=reconcile)
        self._store_locked(task)
        return task

    def _store_locked(self, task: Task) -> None:
        self._tasks[task.id] = task
        if task.is_final:
            self._secrets.pop(task.id, None)  # the spec: purged when the task ends
