"""`/_sandbox/...`: test and demo controls (books, clock, config, wallets, faults, tasks).

Card payment controls live beside the card rail (`svc_sandbox.payments`), identity controls
beside the identity platform (`svc_sandbox.routes.identity`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field

from svc_sandbox import scenarios
from svc_sandbox.errors import api_error
from svc_sandbox.faults.queue import Fault, FaultQueue, PaymentFault
from svc_sandbox.routes.deps import sandbox_state
from svc_sandbox.routes.tasks import rejection_error
from svc_sandbox.state.records import iso
from svc_sandbox.state.sandbox import SandboxState

router = APIRouter(prefix="/_sandbox", tags=["sandbox"])

State = Annotated[SandboxState, Depends(sandbox_state)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ClockChange(_Strict):
    advance_seconds: float | None = Field(default=None, ge=0)
    speed: float | None = Field(default=None, gt=0)


class ConfigChange(_Strict):
    price_atomic: int | None = Field(default=None, ge=0)
    pay_to: str | None = Field(default=None, pattern=r"^0x[0-9a-fA-F]{40}$")
    asset: str | None = Field(default=None, pattern=r"^0x[0-9a-fA-F]{40}$")
    network: str | None = Field(default=None, min_length=1)
    x402_version: Literal[1, 2] | None = None
    require_agent: bool | None = None
    require_bearer: bool | None = None
    anonymous_registration: bool | None = None
    service_auth_registration: bool | None = None
    access_token_ttl_seconds: int | None = Field(default=None, ge=1, le=86_400)
    discovery_sample_operations: int | None = Field(default=None, ge=0, le=500)
    discovery_next: Literal["both", "x-next", "link"] | None = None
    replay_receipts: bool | None = None


class WalletChange(_Strict):
    balance_atomic: int = Field(ge=0)


class FaultList(_Strict):
    faults: list[Fault]


class PaymentFaultList(_Strict):
    faults: list[PaymentFault]


@router.get("/books")
def books(state: State) -> dict[str, Any]:
    return state.books()


def _clock_view(state: SandboxState) -> dict[str, Any]:
    return {
        "now": iso(state.clock.now()),
        "speed": state.clock.speed,
        "offset_seconds": round(state.clock.offset_seconds, 3),
    }


@router.get("/clock")
def get_clock(state: State) -> dict[str, Any]:
    return _clock_view(state)


@router.post("/clock")
def change_clock(change: ClockChange, state: State) -> dict[str, Any]:
    if change.speed is not None:
        state.clock.set_speed(change.speed)
    if change.advance_seconds is not None:
        state.clock.advance(change.advance_seconds)
    return _clock_view(state)


@router.get("/config")
def get_config(state: State) -> dict[str, Any]:
    return state.get_config().to_dict()


@router.post("/config")
def change_config(change: ConfigChange, state: State) -> dict[str, Any]:
    return state.update_config(change.model_dump(exclude_none=True)).to_dict()


@router.get("/wallets/{address}")
def get_wallet(address: str, state: State) -> dict[str, Any]:
    return {"address": address, "balance_atomic": state.balance(address)}


@router.post("/wallets/{address}")
def set_wallet(address: str, change: WalletChange, state: State) -> dict[str, Any]:
    state.set_balance(address, change.balance_atomic)
    return {"address": address, "balance_atomic": state.balance(address)}


def _faults_view(queue: FaultQueue[Fault] | FaultQueue[PaymentFault]) -> dict[str, Any]:
    return {"faults": queue.view()}


@router.get("/faults")
def get_faults(state: State) -> dict[str, Any]:
    return _faults_view(state.faults)


@router.post("/faults")
def add_faults(faults: FaultList, state: State) -> dict[str, Any]:
    state.faults.add(faults.faults)
    return _faults_view(state.faults)


@router.delete("/faults")
def clear_faults(state: State) -> dict[str, Any]:
    state.faults.clear()
    return _faults_view(state.faults)


@router.get("/payment-faults")
def get_payment_faults(state: State) -> dict[str, Any]:
    return _faults_view(state.payments.faults)


@router.post("/payment-faults")
def add_payment_faults(faults: PaymentFaultList, state: State) -> dict[str, Any]:
    state.payments.faults.add(faults.faults)
    return _faults_view(state.payments.faults)


@router.delete("/payment-faults")
def clear_payment_faults(state: State) -> dict[str, Any]:
    state.payments.faults.clear()
    return _faults_view(state.payments.faults)


@router.get("/tasks/{task_id}")
def task_internals(task_id: str, state: State) -> dict[str, Any]:
    view = state.internals(task_id)
    if view is None:
        raise api_error(404, "not_found", f"no task {task_id!r}")
    return view


@router.post("/tasks/{task_id}/approve")
def approve_payment(task_id: str, state: State) -> dict[str, Any]:
    """The user approves the pending payment in their app; the next poll reconciles it."""
    try:
        task = state.update(task_id, scenarios.approve)
    except scenarios.ReplyRejected as exc:
        raise rejection_error(exc) from None
    if task is None:
        raise api_error(404, "not_found", f"no task {task_id!r}")
    return {"approved": True, "task_id": task_id, "approved_at": iso(state.clock.now())}


@router.post("/reset")
def reset(state: State) -> dict[str, Any]:
    state.reset()
    return {"reset": True}
