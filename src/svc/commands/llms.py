"""`svc llms [--full]`: the service's agent guide (llms.txt), as text."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.engines.discovery import llms_text
from svc.operations.discovery import LlmsRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Print the service's agent guide, /llms.txt (or /llms-full.txt with --full).\n\n"
    "Raw text; with --json, {url, content_type, text}.\n\n"
    "\b\nExamples:\n  svc llms\n  svc llms --full > llms-full.txt"
)
def llms(**given: Any) -> None:
    raise typer.Exit(run(LlmsRequest.model_construct(**given), current()))


with_options_of(LlmsRequest, llms)  # --full: as the operation declares it


def run(opts: LlmsRequest, app_ctx: FaceContext) -> int:
    guide = llms_text(app_ctx, full=opts.full)
    output = app_ctx.output
    if app_ctx.settings.json_output:
        output.emit_json({"url": guide.url, "content_type": guide.content_type, "text": guide.text})
    else:
        output.document(guide.text)  # exact into a file or pipe, inert on a terminal
    return 0
