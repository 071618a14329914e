"""`quote`: the free advisor's quote for a goal.

Its arguments and its declaration on each face; the faces drive it by their own code.
"""

from __future__ import annotations

from pydantic import Field

from svc.operations.declare import Command, Operation, Tool, written
from svc.operations.fields import Rail, Request, Usd
from svc.operations.shown import QuoteShown


class QuoteRequest(Request):
    """The spec's quote members, spelled as the service spells them."""

    goal: str = Field(
        min_length=1,
        max_length=2000,
        description="The goal in natural language. No credentials.",
    )
    quantity: int | None = Field(
        None, ge=1, le=1_000_000, description="Number of API calls, not returned items."
    )
    budgetUsd: Usd | None = Field(None, description="Total cash budget in USD, e.g. '12.50'.")
    budgetExclusive: bool | None = Field(None, description="Stay strictly below budget.")
    reviewAfterCalls: int | None = Field(None, ge=1, le=1_000_000)
    requirements: str | None = Field(None, min_length=1, max_length=300)
    humanAvailable: bool | None = Field(None, description="Whether a person can take part.")
    payment: Rail | None = None


QUOTE = Operation(
    "quote",
    QuoteRequest,
    cli=Command("quote"),
    mcp=Tool(
        "quote",
        "Quote a goal",
        "Ask the free advisor what a goal will cost and how to go about it (status, guide, "
        "price of the quote: 0). Costs nothing and authorizes no spending. `source` says "
        'which answer came: "advisor" (the quote), or "fallback" when the advisor is '
        "unavailable and the wallet-free guide is returned instead (not a quote).",
        QuoteShown,
        read_only=True,
    ),
    library=written("quote"),
)
