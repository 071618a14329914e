"""Fixtures for the sandbox's unit tests: an in-process app, payers, paid submits."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # for `sandbox_proofs`, whatever pytest's import mode
try:
    import svc_sandbox  # noqa: F401
except ImportError:  # not installed: run from the source tree
    sys.path.insert(0, str(HERE.parents[2] / "src"))

from eth_account import Account  # noqa: E402
from eth_account.signers.local import LocalAccount  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402
from sandbox_proofs import BODY, sign_proof  # noqa: E402

from svc_sandbox.app import create_app  # noqa: E402
from svc_sandbox.state.sandbox import SandboxState  # noqa: E402


@pytest.fixture
def state() -> SandboxState:
    return SandboxState()


@pytest.fixture
def client(state: SandboxState) -> Iterator[TestClient]:
    with TestClient(create_app(state)) as test_client:
        yield test_client


@pytest.fixture
def payer() -> LocalAccount:
    account: LocalAccount = Account.create()
    return account


@pytest.fixture
def other_payer() -> LocalAccount:
    account: LocalAccount = Account.create()
    return account


@pytest.fixture
def submit(client: TestClient, payer: LocalAccount) -> Callable[..., Any]:
    """Pay for and submit a task; returns the response."""

    def _submit(
        task: str = BODY["task"],
        *,
        account: LocalAccount | None = None,
        request_id: str | None = None,
        proof: str | None = None,
        **sign: Any,
    ) -> Any:
        headers = {"x-payment": proof or sign_proof(account or payer, **sign)}
        if request_id is not None:
            headers["svc-request-id"] = request_id
        return client.post(
            "/svc/tasks", json={"task": task, "email": BODY["email"]}, headers=headers
        )

    return _submit


@pytest.fixture
def new_task(submit: Callable[..., Any]) -> Callable[[str], dict[str, Any]]:
    """Submit a paid task with this text and return its task object."""

    def _new(text: str) -> dict[str, Any]:
        response = submit(text)
        assert response.status_code == 202, response.text
        task: dict[str, Any] = response.json()
        return task

    return _new
