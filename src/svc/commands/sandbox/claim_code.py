"""`svc sandbox claim-code`: the code of a pending claim link, signed in as its person."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.engines import sandbox_admin
from svc.engines.ids import task_id_arg
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class ClaimCodeOptions:
    attempt: str | None = None  # None: the newest pending claim link


@app.command(
    name="claim-code",
    help="Print the code of a pending claim link, so a claim can be tried without a browser.\n\n"
    "Signs in to the newest pending claim link (or --attempt) as its person and approves it, "
    "as the person would on the sign-in page (sandbox only).\n\n"
    "\b\nExamples:\n  svc sandbox claim-code\n"
    '  svc identity claim --code "$(svc sandbox claim-code | jq -r .user_code)"',
)
def claim_code(
    attempt: str | None = typer.Option(
        None, "--attempt", metavar="ID", help="A claim link's attempt id (default: the newest)."
    ),
) -> None:
    checked = task_id_arg(attempt, "--attempt") if attempt is not None else None
    raise typer.Exit(run(ClaimCodeOptions(checked), current()))


def run(opts: ClaimCodeOptions, app_ctx: FaceContext) -> int:
    code, doc = sandbox_admin.claim_code(app_ctx, opts.attempt)
    if app_ctx.output.json_mode:
        app_ctx.output.emit_json(doc)
    else:
        app_ctx.output.line(code)
    return 0
