"""`svc submit --from FILE`: every line of a JSON-lines file submitted and paid once each.

`svc.commands.submit` reaches this module only when the run has --from (its BATCH branch), so a
single paid submit never imports the batch engine. The batch itself is
`svc.engines.batch.run_batch`; this is the command around it: the concurrency bound, the
confirmation of the batch's most on a terminal, the resume command and the exit code.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable

from svc import rail_table
from svc.cli.heap import freeze_start_up
from svc.cli.inputs import open_binary_source
from svc.commands.submit_options import SubmitOptions
from svc.engines.batch import MAX_CONCURRENCY, line_ranges
from svc.engines.batch import Options as BatchOptions
from svc.engines.batch import Summary as BatchSummary
from svc.engines.batch import run_batch as run_lines
from svc.errors import ExitCode, UsageError
from svc.money import for_people
from svc.next_words import cli as next_words
from svc.ui.batch import BatchLines
from svc.ui.face import FaceContext
from svc.ui.prompts import confirm_payment
from svc.words import plural


def run_batch(opts: SubmitOptions, app: FaceContext, path: str) -> int:
    """Submit every line of PATH, each paid once, after checking the file whole."""
    if not 1 <= opts.concurrency <= MAX_CONCURRENCY:
        raise UsageError(f"--concurrency must be between 1 and {MAX_CONCURRENCY}")
    if path != "-":
        open_binary_source(path, "the batch file").close()  # a missing file: one clear line
    options = BatchOptions(
        default_email=opts.email or app.settings.email,
        email_elsewhere="--email for all lines",
        concurrency=opts.concurrency,
        max_price_usd=opts.max_price_usd,
        trust_recipient=opts.trust_recipient,
        rail=opts.rail,
        skip_bad_lines=opts.skip_bad_lines,
        confirm=None if opts.yes else _batch_confirmation(app, opts),
        resume=_batch_resume(opts),
        present=next_words.present,
    )
    freeze_start_up()  # the workers' garbage is collected without walking the imports
    summary = run_lines(app, path, options, BatchLines(app.output))
    return _batch_exit(app, summary, opts.skip_bad_lines)


def _batch_exit(app: FaceContext, summary: BatchSummary, skipping: bool) -> int:
    """The batch's exit code: 2 when bad lines held it back (nothing was sent or paid), else
    the worst outcome of the lines sent (0 when none failed)."""
    if not summary.held:
        return int(summary.worst.exit_code) if summary.worst is not None else 0
    if not skipping:
        app.output.info(
            f"svc: nothing was sent or paid: {plural(summary.bad, 'bad line')} "
            f"({line_ranges(summary.bad_lines)}); fix them, or pass "
            "--skip-bad-lines to pay for the good ones"
        )
    return int(ExitCode.USAGE)


def _batch_confirmation(app: FaceContext, opts: SubmitOptions) -> Callable[[int, int], bool] | None:
    """On a terminal, the most a batch can cost is confirmed before the first payment (a
    300-line file paid 450 USD in 4 seconds); a script is bounded by the caps alone. Lines
    the ledger holds as accepted are not paid again: said, and not priced."""
    if app.settings.no_input or not app.output.stderr_tty:
        return None
    price = opts.max_price_usd if opts.max_price_usd is not None else app.settings.max_price_usd

    def ask(count: int, accepted: int) -> bool:
        if accepted:
            app.output.note(f"{plural(accepted, 'line')} accepted already: not sent or paid again")
        if not count:
            return True  # nothing new to pay for
        most = for_people(price * count)
        return confirm_payment(f"Pay up to {count} x {for_people(price)} = {most}?")

    return ask


def _batch_resume(opts: SubmitOptions) -> str:
    """The command that resumes an interrupted batch (FILE: the file, or stdin's copy)."""
    parts = ["svc submit --from FILE"]
    if opts.email:
        parts.append(f"--email {shlex.quote(opts.email)}")
    if opts.rail != rail_table.DEFAULT:
        parts.append(f"--pay {opts.rail}")
    if opts.max_price_usd is not None:
        parts.append(f"--max-price {opts.max_price_usd}")
    if opts.skip_bad_lines:
        parts.append("--skip-bad-lines")
    return " ".join(parts)
