"""`svc quote GOAL`: the free advisor's guide and price quote for a goal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NoReturn

import typer

from svc import rail_table
from svc.cli.app import current
from svc.engines import advisor
from svc.engines.quote_body import QuoteFieldError, quote_body
from svc.errors import AdvisorUnavailableError, UsageError
from svc.ui import views
from svc.ui.face import FaceContext
from svc.ui.guide import show_markdown

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class QuoteOptions:
    """The quote's body, checked against the spec's constraints while parsing."""

    body: dict[str, Any]  # the spec's QuoteRequest, its None fields left out
    rail: str | None = None  # the zero-amount proof's rail (--pay); None: the one you have


# The options' definitions, so `quote` itself stays a short list of steps.
GOAL = typer.Argument(..., metavar="GOAL", help="The goal (1..2000 characters; no credentials).")
QUANTITY = typer.Option(
    None, "--quantity", metavar="N", help="Number of API calls (1..1000000), not returned items."
)
BUDGET = typer.Option(
    None,
    "--budget",
    metavar="USD",
    help="Total cash budget in USD, e.g. 12.50 (up to 9 digits and 6 decimals).",
)
BUDGET_EXCLUSIVE = typer.Option(
    None, "--budget-exclusive", help="The total must stay strictly below the budget."
)
REVIEW_AFTER = typer.Option(
    None, "--review-after", metavar="N", help="Review the results after N calls (1..1000000)."
)
REQUIREMENTS = typer.Option(
    None, "--requirements", metavar="TEXT", help="Requirements in a sentence (1..300 characters)."
)
HUMAN_AVAILABLE = typer.Option(
    None,
    "--human-available/--no-human-available",
    help="Whether a human can take part (no: anonymous identity advice).",
)
PAYMENT = typer.Option(
    None,
    "--payment",
    metavar="|".join(rail_table.NAMES),
    help="The quote body's `payment`: how you will pay the eventual purchase (it does not "
    "choose this quote's proof: that is --pay).",
)
PAY = typer.Option(
    None,
    "--pay",
    metavar="|".join(rail_table.FREE_PROOF_NAMES),
    help="Prove with this rail when you have both: the wallet (x402) or the MPP token "
    "(SVC_SPT, spt_file, spt_command). Default: the wallet, else the token.",
)


@app.command(
    help="Ask the free advisor what a goal will cost and how to go about it.\n\n"
    "Costs nothing: when the advisor asks for it (402), a zero-amount proof is signed by your "
    "wallet (x402), or made with your MPP token when you have no wallet or say --pay mpp (no "
    "funds move; the payment policy still applies). If the advisor is unavailable (503), "
    "the wallet-free guide is shown instead. A quote authorizes no spending.\n\n"
    "\b\nExamples:\n"
    "  svc quote 'Renew my library books'\n"
    "  svc quote 'Buy 3 concert tickets' --budget 300 --no-human-available\n"
    "  SVC_SPT=spt_... svc quote 'Renew my library books' --pay mpp\n"
    "  svc quote 'Check my order status' --json | jq -r .status"
)
def quote(
    goal: str = GOAL,
    quantity: int | None = QUANTITY,
    budget: str | None = BUDGET,
    budget_exclusive: bool | None = BUDGET_EXCLUSIVE,
    review_after: int | None = REVIEW_AFTER,
    requirements: str | None = REQUIREMENTS,
    human_available: bool | None = HUMAN_AVAILABLE,
    payment: str | None = PAYMENT,
    pay: str | None = PAY,
) -> None:
    if pay is not None and pay not in advisor.PROOF_RAILS:
        raise UsageError(
            f"invalid --pay: a quote is proven by {rail_table.in_words(advisor.PROOF_RAILS)} "
            "(a card cannot prove a zero "
            f"amount), got {pay[:20]!r}",
            code="validation_error",
        )
    body = _validated(
        goal=goal,
        quantity=quantity,
        budgetUsd=budget,
        budgetExclusive=budget_exclusive,
        reviewAfterCalls=review_after,
        requirements=requirements,
        humanAvailable=human_available,
        payment=payment,
    )
    raise typer.Exit(run(QuoteOptions(body, pay), current()))


def run(opts: QuoteOptions, ctx: FaceContext) -> int:
    doc = advisor.quote(ctx, opts.body, opts.rail)
    if doc is None:  # the advisor is unavailable (503): the spec's answer is the guide
        _fallback(ctx, opts.body["goal"])
    ctx.output.show(doc, views.quote)
    return 0


def _fallback(ctx: FaceContext, goal: str) -> NoReturn:
    """The wallet-free guide in the quote's place, and exit 9 (the contract's "service
    unavailable"): a person sees the guide; in JSON the error object carries it, marked
    `"source": "fallback"`, so a script still reads the guide but never takes it for a quote
    (its fields look like one: `status`, `priceUsd`)."""
    result = advisor.guide(ctx, goal)
    if not ctx.output.json_mode:  # for a person: as `svc guide` draws it
        if ctx.output.stdout_tty:
            show_markdown(ctx.output, result.markdown)
        else:
            ctx.output.document(result.markdown.rstrip("\n"))
    raise AdvisorUnavailableError(
        "the advisor is unavailable (503): this is the wallet-free guide, not a quote",
        hint="ask for the quote again later; `svc guide GOAL` gives the guide alone",
        data=advisor.fallback_document(result),
    )


# Which flag sets which body field, for error messages in the user's terms.
FLAGS = {
    "goal": "GOAL",
    "quantity": "--quantity",
    "budgetUsd": "--budget",
    "budgetExclusive": "--budget-exclusive",
    "reviewAfterCalls": "--review-after",
    "requirements": "--requirements",
    "humanAvailable": "--human-available",
    "payment": "--payment",
}


def _validated(**values: Any) -> dict[str, Any]:
    """The quote body checked against the spec's constraints before anything is sent, a
    refusal naming the flag that set the field."""
    try:
        return quote_body(values)
    except QuoteFieldError as exc:
        flag = FLAGS.get(exc.field, exc.field)
        raise UsageError(f"invalid {flag}: {exc.problem}", code="validation_error") from None
