"""`svc llms [--full]`: the service's agent guide (llms.txt), as text."""

from __future__ import annotations

import typer

from svc.cli.app import current

app = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Print the service's agent guide, /llms.txt (or /llms-full.txt with --full).\n\n"
    "Raw text; with --json, {url, content_type, text}.\n\n"
    "\b\nExamples:\n  svc llms\n  svc llms --full > llms-full.txt"
)
def llms(
    full: bool = typer.Option(False, "--full", help="The full guide, /llms-full.txt."),
) -> None:
    from svc.api.discovery import DiscoveryClient

    app_ctx = current()
    path = "/llms-full.txt" if full else "/llms.txt"
    client = DiscoveryClient(app_ctx.http, app_ctx.settings.base_url)
    text, content_type = client.text(path, what=path.lstrip("/"))
    output = app_ctx.output
    if app_ctx.settings.json_output:
        url = app_ctx.settings.base_url + path
        output.emit_json({"url": url, "content_type": content_type, "text": text})
    else:
        output.document(text)  # exact into a file or pipe, inert on a terminal
