"""`svc guide GOAL`: the advisor's wallet-free guide."""

from __future__ import annotations

import typer

from svc.cli.app import current
from svc.context import AppContext
from svc.errors import UsageError
from svc.ui.guide import show_markdown

app = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Show the advisor's wallet-free guide for a goal (no wallet, no proof, free).\n\n"
    "Rendered Markdown on a terminal; the raw Markdown when piped; the service's object "
    "with --json. Long goals are sent in a POST body instead of the URL.\n\n"
    "\b\nExamples:\n"
    "  svc guide 'Renew my library books'\n"
    "  svc guide 'Book a table for two' > guide.md"
)
def guide(
    goal: str = typer.Argument(..., metavar="GOAL", help="The goal in natural language."),
) -> None:
    if not goal.strip():
        raise UsageError("the goal is empty: say what you want done")
    show_guide(current(), goal)


def show_guide(app_ctx: AppContext, goal: str, *, as_json: bool | None = None) -> None:
    """JSON with --json (or `as_json`), raw Markdown when piped, rendered on a terminal."""
    from svc.api.advisor import AdvisorClient

    result = AdvisorClient(app_ctx.http, app_ctx.settings.base_url).guide(goal)
    output = app_ctx.output
    if app_ctx.settings.json_output if as_json is None else as_json:
        output.emit_json(result.doc if result.doc is not None else {"guide": result.markdown})
    elif not output.stdout_tty:
        output.document(result.markdown.rstrip("\n"))  # raw Markdown for files/pipes
    else:
        show_markdown(output, result.markdown)
