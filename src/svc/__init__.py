"""svc: the client of the paid task-execution service, as a Python library and a CLI.

    from svc import Client, Secret

The public names (the clients, the results, the answers to an ask, the errors of the exit-code
table) are resolved on first use (PEP 562): `import svc` and `from svc import Client` load
nothing heavy (httpx, pydantic, rich) until a client is built, so `svc --version` and a
program's start stay fast (tests/e2e/test_lazy_imports.py).
"""

from __future__ import annotations

import sys as _sys

from svc.version import __version__

# Not `from typing import TYPE_CHECKING`: typing (and re) cost more than `python -c pass`
# itself, and type checkers read a constant of this name the same way.
TYPE_CHECKING = False


# httpx imports its optional CLI (click, rich, pygments: ~45 ms) whenever click is importable,
# and click is (uvicorn needs it). A None entry makes that import fail fast and httpx falls back
# to a stub `main`. Set here, before any svc module can import httpx.
_sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

if TYPE_CHECKING:  # what a type checker sees; at run time __getattr__ imports on first use
    from typing import Any

    from svc.client._async import AsyncClient
    from svc.client._sync import Client
    from svc.client.types import (
        Ask,
        BatchResult,
        DryRun,
        PaidAnswer,
        PaymentApproval,
        PaymentOffer,
        PlainAsk,
        QuestionsAsk,
        Rail,
        SecretAsk,
        Submission,
        Task,
        TaskState,
    )
    from svc.engines.changes import TaskChange
    from svc.errors import (
        AuthError,
        Conflict,
        ExitCode,
        HumanNeeded,
        Interrupted,
        NotFound,
        OutcomeUnknown,
        PaymentFailed,
        PolicyRefused,
        SvcError,
        TaskFailed,
        Unavailable,
        UsageError,
    )
    from svc.operations.results import Budgets, DoctorReport, Guide, IdentityStatus, Quote, TaskRow
    from svc.replies import Answer, Approve, Decline, Fields, Message, Secret, Value

# name -> the module that defines it (imported by name, so importing svc imports none of them)
_PUBLIC = {
    "Client": "svc.client._sync",
    "AsyncClient": "svc.client._async",
    **dict.fromkeys(
        (
            "Ask",
            "BatchResult",
            "DryRun",
            "PaidAnswer",
            "PaymentApproval",
            "PaymentOffer",
            "PlainAsk",
            "QuestionsAsk",
            "Rail",
            "SecretAsk",
            "Submission",
            "Task",
            "TaskState",
        ),
        "svc.client.types",
    ),
    **dict.fromkeys(
        (
            "Budgets",
            "DoctorReport",
            "Guide",
            "IdentityStatus",
            "Quote",
            "TaskRow",
        ),
        "svc.operations.results",
    ),
    "TaskChange": "svc.engines.changes",
    **dict.fromkeys(
        ("Answer", "Approve", "Decline", "Fields", "Message", "Secret", "Value"), "svc.replies"
    ),
    **dict.fromkeys(
        (
            "SvcError",
            "ExitCode",
            "UsageError",
            "TaskFailed",
            "AuthError",
            "PaymentFailed",
            "PolicyRefused",
            "HumanNeeded",
            "NotFound",
            "Conflict",
            "Unavailable",
            "OutcomeUnknown",
            "Interrupted",
        ),
        "svc.errors",
    ),
}

__all__ = [  # exactly the names of _PUBLIC (tests/unit/test_library_surface.py)
    "Answer",
    "Approve",
    "Ask",
    "AsyncClient",
    "AuthError",
    "BatchResult",
    "Budgets",
    "Client",
    "Conflict",
    "Decline",
    "DoctorReport",
    "DryRun",
    "ExitCode",
    "Fields",
    "Guide",
    "HumanNeeded",
    "IdentityStatus",
    "Interrupted",
    "Message",
    "NotFound",
    "OutcomeUnknown",
    "PaidAnswer",
    "PaymentApproval",
    "PaymentFailed",
    "PaymentOffer",
    "PlainAsk",
    "PolicyRefused",
    "QuestionsAsk",
    "Quote",
    "Rail",
    "Secret",
    "SecretAsk",
    "Submission",
    "SvcError",
    "Task",
    "TaskChange",
    "TaskFailed",
    "TaskRow",
    "TaskState",
    "Unavailable",
    "UsageError",
    "Value",
    "__version__",
]

# --- served results: written by `python -m tools.gen_faces` ---
# The result of each operation served whole from its declaration, from its own module.
if TYPE_CHECKING:
    from svc.operations.price import Price
    from svc.operations.receipt import Receipt
    from svc.operations.spend import Spend
_PUBLIC.update(
    {
        "Price": "svc.operations.price",
        "Receipt": "svc.operations.receipt",
        "Spend": "svc.operations.spend",
    }
)
__all__ += ["Price", "Receipt", "Spend"]
# --- end of served results ---


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:  # also how `from svc import numbers` falls back to the submodule
        raise AttributeError(f"module 'svc' has no attribute {name!r}")
    # __import__ rather than importlib.import_module: nothing more to load on this path
    value = getattr(__import__(module, fromlist=[name]), name)
    globals()[name] = value  # once: later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})
