"""The `svc submit --from FILE` branch: flag checks, then `svc.flows.batch.run_batch`."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from svc.api.errors import UsageError
from svc.context import AppContext


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
    from svc.flows.batch import MAX_CONCURRENCY, Options, open_source, run_batch

    given = [flag for flag, present in conflicting.items() if present]
    if given:
        raise UsageError(
            f"--from cannot be combined with {given[0]}: each line carries its own task "
            "(follow the tasks afterwards with `svc watch --all`)"
        )
    method = pay or app_ctx.settings.pay
    if method not in ("x402", "mpp", "card"):
        raise UsageError(f"--pay must be x402, mpp or card, got {method!r}")
    cap: Decimal | None = None
    if max_price is not None:
        try:
            cap = Decimal(max_price)
        except InvalidOperation:
            raise UsageError(
                f"--max-price must be a USD amount like 1.50, got {max_price!r}"
            ) from None
        if not cap.is_finite() or cap < 0:
            raise UsageError("--max-price must be a non-negative amount")
    options = Options(
        default_email=email or app_ctx.settings.email,
        concurrency=concurrency,
        max_price_usd=cap,
        trust_recipient=trust_recipient,
        rail=method,
    )
    if not 1 <= concurrency <= MAX_CONCURRENCY:
        raise UsageError(f"--concurrency must be between 1 and {MAX_CONCURRENCY}")
    stream = open_source(path)
    try:
        return run_batch(app_ctx, stream, options)
    finally:
        if path != "-":
            stream.close()
