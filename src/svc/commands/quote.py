"""`svc quote GOAL`: the free advisor's guide and price quote for a goal."""

from __future__ import annotations

from typing import Any, NoReturn

import typer

from svc import rail_table
from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.engines import advisor
from svc.engines.quote_body import QuoteFieldError, quote_body
from svc.errors import AdvisorUnavailableError, UsageError
from svc.operations.fields import Flag, Positional, marker, offered
from svc.operations.quote import QuoteRequest
from svc.ui import views
from svc.ui.face import FaceContext
from svc.ui.guide import show_markdown

app: typer.Typer = typer.Typer(rich_markup_mode=None)


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
def quote(**given: Any) -> None:
    # Built unchecked: the body's check below words each error with the flag that set it.
    raise typer.Exit(run(QuoteRequest.model_construct(**given), current()))


with_options_of(QuoteRequest, quote)  # GOAL, --quantity ... --pay: as the operation declares


def run(opts: QuoteRequest, ctx: FaceContext) -> int:
    pay = opts.pay
    if pay is not None and pay not in advisor.PROOF_RAILS:
        raise UsageError(
            f"invalid --pay: a quote is proven by {rail_table.in_words(advisor.PROOF_RAILS)} "
            "(a card cannot prove a zero "
            f"amount), got {pay[:20]!r}",
            code="validation_error",
        )
    # The body is the spec's members: what svc mcp's `quote` takes, without the CLI's --pay.
    body = _validated({name: getattr(opts, name) for name in offered(QuoteRequest, "mcp")})
    doc = advisor.quote(ctx, body, pay)
    if doc is None:  # the advisor is unavailable (503): the spec's answer is the guide
        _fallback(ctx, body["goal"])
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


def _validated(values: dict[str, Any]) -> dict[str, Any]:
    """The quote body checked against the spec's constraints before anything is sent, a
    refusal naming the flag that set the field."""
    try:
        return quote_body(values)
    except QuoteFieldError as exc:
        flag = _spelled(exc.field)
        raise UsageError(f"invalid {flag}: {exc.problem}", code="validation_error") from None


def _spelled(field: str) -> str:
    """A body field as the person typed it (GOAL, --budget, --human-available)."""
    if field not in QuoteRequest.model_fields:
        return field
    place = marker(QuoteRequest, field, Positional)
    if place is not None:
        return place.metavar or field
    flag = marker(QuoteRequest, field, Flag)
    return flag.spelling.split("/")[0] if flag is not None else field
