"""`svc sandbox tags`: the scenario tags a task's text may carry, and what each does."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.commands.sandbox.scenario_tags import CODE_FAULTS, QUOTE_TAGS, TASK_TAGS, cheat_sheet
from svc.operations.sandbox import SandboxTagsRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="List the scenario tags a task's text may carry, and what each does.\n\n"
    "A tag anywhere in the task text (or a quote's goal) picks the sandbox's behaviour; the "
    "list is text even when piped, and JSON with --json.\n\n"
    "\b\nExamples:\n  svc sandbox tags\n  svc sandbox tags | grep approval"
)
def tags(**given: Any) -> None:
    raise typer.Exit(run(SandboxTagsRequest.model_construct(**given), current()))


with_options_of(SandboxTagsRequest, tags)  # no arguments of its own


def run(opts: SandboxTagsRequest, app_ctx: FaceContext) -> int:
    output = app_ctx.output
    if app_ctx.settings.json_output:  # only when asked, like help topics: `| grep` is text
        tasks = [{"tag": tag, "effect": what} for tag, what in TASK_TAGS]
        faults = [{"codes": what, "post": path, "body": body} for what, path, body in CODE_FAULTS]
        output.emit_json(
            {"task_tags": tasks, "quote_tags": QUOTE_TAGS.split(), "code_faults": faults}
        )
    else:
        output.document(cheat_sheet())
    return 0
