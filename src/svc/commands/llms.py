"""`svc llms [--full]`: the service's agent guide (llms.txt), as text."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.engines.discovery import llms_text
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class LlmsOptions:
    full: bool = False  # /llms-full.txt instead of /llms.txt


@app.command(
    help="Print the service's agent guide, /llms.txt (or /llms-full.txt with --full).\n\n"
    "Raw text; with --json, {url, content_type, text}.\n\n"
    "\b\nExamples:\n  svc llms\n  svc llms --full > llms-full.txt"
)
def llms(
    full: bool = typer.Option(False, "--full", help="The full guide, /llms-full.txt."),
) -> None:
    raise typer.Exit(run(LlmsOptions(full), current()))


def run(opts: LlmsOptions, app_ctx: FaceContext) -> int:
    guide = llms_text(app_ctx, full=opts.full)
    output = app_ctx.output
    if app_ctx.settings.json_output:
        output.emit_json({"url": guide.url, "content_type": guide.content_type, "text": guide.text})
    else:
        output.document(guide.text)  # exact into a file or pipe, inert on a terminal
    return 0
