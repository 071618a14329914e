"""`svc doctor`: check the set-up, explain each finding, exit with the first failure's code."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.commands.doctor_checks import cli_checks
from svc.engines.doctor import first_failure, run_checks
from svc.next_words import cli as next_words
from svc.operations.setup import DoctorRequest
from svc.ui.doctor import show_findings
from svc.ui.face import FaceContext
from svc.ui.notify import desktop_notifier

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Check the set-up and explain what each finding means.\n\n"
    "Checks the config file, the profile in effect, where secrets are kept (keyring or file, "
    "and why), the wallet and its address, the service at the base URL (sandbox or real host, "
    "and the clock against the service's Date header: x402 windows depend on it), the "
    "identity platform and the stored credential, recipients pinned for this origin and what "
    "is left of today's cap, how `watch --notify` reaches you (desktop notifier or terminal "
    "only), and what an MCP host runs (`svc mcp`, the pre-approved amount, whether the model "
    "may type secrets). Nothing is paid or signed. Exits 0 when nothing failed, else "
    "with the contract's code of the first failing check.\n\n"
    "\b\nExamples:\n"
    "  svc doctor\n"
    "  svc doctor --json | jq -r '.checks[] | select(.status != \"ok\") | .detail'"
)
def doctor(**given: Any) -> None:
    raise typer.Exit(run(DoctorRequest.model_construct(**given), current()))


with_options_of(DoctorRequest, doctor)  # no arguments of its own


def run(opts: DoctorRequest, app_ctx: FaceContext) -> int:
    findings = run_checks(
        app_ctx,
        face_checks=cli_checks(desktop_notifier),
        present=next_words.present,
        words=next_words.words,
    )
    failed = first_failure(findings)
    code = failed.exit_code if failed else 0
    checks = [f.as_dict() for f in findings]
    doc: dict[str, Any] = {"ok": code == 0, "exit_code": code, "checks": checks}
    app_ctx.output.show(doc, lambda out, d: show_findings(out, d["checks"]))
    return code
