"""`svc guide GOAL`: the advisor's wallet-free guide."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.engines.advisor import guide as fetch_guide
from svc.engines.advisor import guide_document
from svc.operations.guide import GuideRequest
from svc.ui.face import FaceContext
from svc.ui.guide import show_markdown

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Show the advisor's wallet-free guide for a goal (no wallet, no proof, free).\n\n"
    "Rendered Markdown on a terminal; the raw Markdown when piped; the service's object "
    "with --json. Long goals are sent in a POST body instead of the URL.\n\n"
    "\b\nExamples:\n"
    "  svc guide 'Renew my library books'\n"
    "  svc guide 'Book a table for two' > guide.md"
)
def guide(**given: Any) -> None:
    raise typer.Exit(run(GuideRequest.model_construct(**given), current()))


with_options_of(GuideRequest, guide)  # GOAL: as the operation declares it


def run(opts: GuideRequest, ctx: FaceContext) -> int:
    show_guide(ctx, opts.goal)
    return 0


def show_guide(app_ctx: FaceContext, goal: str, *, as_json: bool | None = None) -> None:
    """JSON with --json (or `as_json`), raw Markdown when piped, rendered on a terminal."""
    result = fetch_guide(app_ctx, goal)
    output = app_ctx.output
    if app_ctx.settings.json_output if as_json is None else as_json:
        output.emit_json(guide_document(result))
    elif not output.stdout_tty:
        output.document(result.markdown.rstrip("\n"))  # raw Markdown for files/pipes
    else:
        show_markdown(output, result.markdown)
