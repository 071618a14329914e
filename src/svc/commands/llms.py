"""`svc llms [--full]`: the service's agent guide (llms.txt), as text."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.api.discovery import DiscoveryClient
from svc.cli.app import current
from svc.ui.face import FaceContext

app = typer.Typer(rich_markup_mode=None)


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
    path = "/llms-full.txt" if opts.full else "/llms.txt"
    client = DiscoveryClient(app_ctx.http, app_ctx.settings.base_url)
    text, content_type = client.text(path, what=path.lstrip("/"))
    output = app_ctx.output
    if app_ctx.settings.json_output:
        url = app_ctx.settings.base_url + path
        output.emit_json({"url": url, "content_type": content_type, "text": text})
    else:
        output.document(text)  # exact into a file or pipe, inert on a terminal
    return 0
