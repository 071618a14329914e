"""The `svc submit --from FILE` branch: flag checks, then `svc.engines.batch.run_batch`."""

from __future__ import annotations

from svc.cli.inputs import open_binary_source, payment_flags
from svc.context import AppContext
from svc.engines.batch import MAX_CONCURRENCY, Options, run_batch
from svc.errors import UsageError


def run(
    app_ctx: AppContext,
    path: str,
    *,
    conflicting: dict[str, bool],
    email: str | None,
    pay: str | None,
    max_price: str | None,
    trust_recipient: bool,
    concurrency: int,
) -> int:
    """Submit every line of PATH; the batch's exit code. `conflicting`: flag -> was it given."""

    given = [flag for flag, present in conflicting.items() if present]
    if given:
        raise UsageError(
            f"--from cannot be combined with {given[0]}: each line carries its own task "
            "(follow the tasks afterwards with `svc watch --all`)"
        )
    method, cap = payment_flags(app_ctx, pay, max_price)
    options = Options(
        default_email=email or app_ctx.settings.email,
        concurrency=concurrency,
        max_price_usd=cap,
        trust_recipient=trust_recipient,
        rail=method,
    )
    if not 1 <= concurrency <= MAX_CONCURRENCY:
        raise UsageError(f"--concurrency must be between 1 and {MAX_CONCURRENCY}")
    stream = open_binary_source(path, "the batch file")
    try:
        return run_batch(app_ctx, stream, options)
    finally:
        if path != "-":
            stream.close()
