"""svc as a Python library: `Client` (and `AsyncClient`) over the engines the CLI and
`svc mcp` use, the typed results (`types`), and the neutral answers of svc.replies.

Importing this package loads httpx and pydantic; `import svc` alone does not (svc/__init__.py
resolves these names on first use).
"""

from svc.client._async import AsyncClient
from svc.client._sync import Client
from svc.client.types import (
    Ask,
    BatchResult,
    PaymentApproval,
    PaymentOffer,
    PlainAsk,
    QuestionsAsk,
    SecretAsk,
    Submission,
    Task,
)

__all__ = [
    "Ask",
    "AsyncClient",
    "BatchResult",
    "Client",
    "PaymentApproval",
    "PaymentOffer",
    "PlainAsk",
    "QuestionsAsk",
    "SecretAsk",
    "Submission",
    "Task",
]
