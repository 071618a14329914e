"""`quote`: the free advisor's quote for a goal.

Its arguments and its declaration on each face; the faces drive it by their own code.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from svc import rail_table
from svc.operations.declare import Command, Operation, Tool, written
from svc.operations.fields import CLI_ONLY, Flag, Positional, Rail, Request, Usd
from svc.operations.shown import QuoteShown


class QuoteRequest(Request):
    """The spec's quote members, spelled as the service spells them (the CLI's flags as a
    person types them), and the CLI's choice of the rail that proves the quote."""

    goal: Annotated[
        str, Positional("GOAL", help="The goal (1..2000 characters; no credentials).")
    ] = Field(
        min_length=1,
        max_length=2000,
        description="The goal in natural language. No credentials.",
    )
    quantity: Annotated[
        int | None,
        Flag("--quantity", "N", help="Number of API calls (1..1000000), not returned items."),
    ] = Field(None, ge=1, le=1_000_000, description="Number of API calls, not returned items.")
    budgetUsd: Annotated[
        Usd | None,
        Flag(
            "--budget",
            "USD",
            help="Total cash budget in USD, e.g. 12.50 (up to 9 digits and 6 decimals).",
        ),
    ] = Field(None, description="Total cash budget in USD, e.g. '12.50'.")
    budgetExclusive: Annotated[
        bool | None,
        Flag("--budget-exclusive", help="The total must stay strictly below the budget."),
    ] = Field(None, description="Stay strictly below budget.")
    reviewAfterCalls: Annotated[
        int | None,
        Flag("--review-after", "N", help="Review the results after N calls (1..1000000)."),
    ] = Field(None, ge=1, le=1_000_000)
    requirements: Annotated[
        str | None,
        Flag("--requirements", "TEXT", help="Requirements in a sentence (1..300 characters)."),
    ] = Field(None, min_length=1, max_length=300)
    humanAvailable: Annotated[
        bool | None,
        Flag(
            "--human-available/--no-human-available",
            help="Whether a human can take part (no: anonymous identity advice).",
        ),
    ] = Field(None, description="Whether a person can take part.")
    payment: Annotated[
        Rail | None,
        Flag(
            "--payment",
            "|".join(rail_table.NAMES),
            help="The quote body's `payment`: how you will pay the eventual purchase (it does "
            "not choose this quote's proof: that is --pay).",
        ),
    ] = None
    # Which proof the CLI makes is the CLI's: svc mcp and the library prove as they are set up.
    pay: Annotated[str | None, Flag("--pay", "|".join(rail_table.FREE_PROOF_NAMES)), CLI_ONLY] = (
        Field(
            None,
            description="Prove with this rail when you have both: the wallet (x402) or the MPP "
            "token (SVC_SPT, spt_file, spt_command). Default: the wallet, else the token.",
        )
    )


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
