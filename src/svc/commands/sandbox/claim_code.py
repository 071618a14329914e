"""`svc sandbox claim-code`: the code of a pending claim link, signed in as its person."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.engines import sandbox_admin
from svc.engines.ids import task_id_arg
from svc.operations.sandbox import SandboxClaimCodeRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    name="claim-code",
    help="Print the code of a pending claim link, so a claim can be tried without a browser.\n\n"
    "Signs in to the newest pending claim link (or --attempt) as its person and approves it, "
    "as the person would on the sign-in page (sandbox only).\n\n"
    "\b\nExamples:\n  svc sandbox claim-code\n"
    '  svc identity claim --code "$(svc sandbox claim-code | jq -r .user_code)"',
)
def claim_code(**given: Any) -> None:
    raise typer.Exit(run(SandboxClaimCodeRequest.model_construct(**given), current()))


with_options_of(SandboxClaimCodeRequest, claim_code)  # --attempt: as the operation declares it


def run(opts: SandboxClaimCodeRequest, app_ctx: FaceContext) -> int:
    attempt = opts.attempt
    checked = task_id_arg(attempt, "--attempt") if attempt is not None else None
    code, doc = sandbox_admin.claim_code(app_ctx, checked)
    if app_ctx.output.json_mode:
        app_ctx.output.emit_json(doc)
    else:
        app_ctx.output.line(code)
    return 0
