"""`svc reply ID`: answer a task's ask."""

from __future__ import annotations

import typer

from svc.cli.app import current
from svc.cli.inputs import read_text_source
from svc.engines.reply_run import ReplyOptions, run
from svc.errors import UsageError

app = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Answer what a blocked task asks: a 2FA code, missing fields, a payment approval.\n\n"
    "The task is fetched first and the answer checked against its ask before sending. "
    "Secret values are never taken on the command line: they come from a file, stdin or a "
    "hidden prompt. With no answer flags on a terminal, an interactive form is shown: "
    "options are numbered, and every answer is reviewed (secrets hidden) before sending.\n\n"
    "\b\nExamples:\n"
    "  svc reply task_8f2c41d09b7e6a13 --field sms_code --sensitive --value-file - <<< 123456\n"
    "  svc reply task_8f2c41d09b7e6a13 --message 'Use the window seat'\n"
    "  svc reply task_8f2c41d09b7e6a13 --set shipping_address='1 Main St' --set phone=5550100\n"
    "  svc reply task_8f2c41d09b7e6a13 --decline-payment\n"
    "  svc reply task_8f2c41d09b7e6a13            # interactive form on a terminal"
)
def reply(
    task_id: str = typer.Argument(..., metavar="ID", help="Task id."),
    message: str | None = typer.Option(
        None, "--message", "-m", metavar="TEXT", help="Free-form answer to a plain ask."
    ),
    field: str | None = typer.Option(
        None, "--field", metavar="NAME", help="Name of the requested item, e.g. sms_code."
    ),
    value_file: str | None = typer.Option(
        None,
        "--value-file",
        metavar="PATH|-",
        help="Read the value for --field from a file or stdin (else a hidden prompt).",
    ),
    sensitive: bool = typer.Option(
        False,
        "--sensitive",
        help="The value is a secret (2FA code, password): encrypted and purged by the service.",
    ),
    sets: list[str] = typer.Option(
        [], "--set", metavar="KEY=VALUE", help="A value for info.field_values (repeatable)."
    ),
    approve: bool = typer.Option(
        False, "--approve-payment", help="Re-send an expired payment approval to the user's app."
    ),
    decline: bool = typer.Option(
        False,
        "--decline-payment",
        help="Decline the charge: the task ends failed (payment_rejected).",
    ),
) -> None:
    from svc.engines.reply import parse_sets

    if approve and decline:
        raise UsageError("--approve-payment and --decline-payment exclude each other")
    if value_file is not None and field is None:
        raise UsageError("--value-file goes with --field")
    value = None if value_file is None else read_text_source(value_file, "the value")
    opts = ReplyOptions(
        task_id=task_id,
        message=message,
        field=field,
        value=None if value is None else value.rstrip("\r\n"),
        sensitive=sensitive,
        sets=parse_sets(sets),
        payment_approved=True if approve else (False if decline else None),
    )
    raise typer.Exit(run(opts, current()))
