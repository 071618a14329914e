"""`svc request [options] URL`: a curl-like HTTP request whose 402 is paid as `svc submit`
pays one (svc.engines.request).

curl's spellings where they do not clash with svc's output flags: `-X/--method`,
`-H/--header`, `-d/--data` (`@file`, `@-`), `-o/--output`, `-i/--include`. The body goes to
stdout or the file as it comes; `--json` prints the answer's status, headers, what was paid
and the request id as one object instead (with the body in it when there is no `-o`).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import typer

from svc import paid_record, rail_table
from svc.cli.app import current
from svc.cli.inputs import open_binary_source, payment_flags
from svc.cli.options import with_options_of
from svc.engines import probe as submit_probe
from svc.engines.request import (
    PaidResponse,
    RequestSpec,
    dry_run_request,
    probe_request,
    request,
)
from svc.engines.request_headers import is_token, refuse_headers
from svc.engines.submit import new_request_id
from svc.errors import Interrupted, ProtocolError, UsageError
from svc.next_step import step
from svc.operations.request import PaidRequestRequest
from svc.promises import refuse_sending
from svc.ui.body import BodySink
from svc.ui.face import FaceContext
from svc.ui.views_request import probe as probe_view
from svc.words import usd

app: typer.Typer = typer.Typer(rich_markup_mode=None)

MAX_JSON_BODY = 16 * 1024 * 1024  # a body put inside the --json object is held: bounded


@dataclass(frozen=True)
class RequestOptions:
    """The options as `run` reads them (the request as typed is `PaidRequestRequest`): the
    rail only when --pay named one (else the engine picks: the config's, x402 for a card),
    the cap an amount."""

    url: str
    method: str | None = None
    headers: tuple[str, ...] = ()
    data: str | None = None
    output: str | None = None
    include: bool = False
    rail: str | None = None
    max_price_usd: Decimal | None = None
    request_id: str | None = None
    dry_run: bool = False
    probe: bool = False
    trust_recipient: bool = False


@app.command(
    help="Send an HTTP request and pay its 402 (x402 v1/v2 or MPP), as svc submit pays.\n\n"
    "The same policy as a submit (max price, daily cap, budgets, pinned recipients, allowed "
    "networks and assets); the request id and the proof are journaled before the proof is "
    "sent, and only to the URL's own origin; redirects are not followed. The body streams "
    "to stdout or -o PATH. svc spend and svc receipt show what was paid.\n\n"
    "\b\nExamples:\n"
    "  svc request https://api.example.com/paid/report\n"
    "  svc request -X POST -d '{}' -H 'Content-Type: application/json' https://api.example.com/run\n"
    "  svc request -d @query.json -o answer.bin https://api.example.com/export\n"
    "  svc request --probe https://api.example.com/paid/report\n"
    "  svc request --json https://api.example.com/paid/report | jq .paid_usd"
)
def request_command(**given: Any) -> None:
    # Built unchecked: this command words each error itself, in the flags a person typed.
    typed = PaidRequestRequest.model_construct(**given)
    ctx = current()
    promised = {"dry_run": typed.dry_run, "probe": typed.probe}
    sending = {"request_id": typed.request_id is not None, "trust_recipient": typed.trust_recipient}
    refuse_sending("cli", promised | sending)
    rail, cap = payment_flags(ctx, typed.pay, typed.max_price)
    if typed.pay is not None and rail == rail_table.CARD:
        raise UsageError("--pay must be x402 or mpp for svc request (a card page is for tasks)")
    opts = RequestOptions(
        url=typed.url,
        method=typed.verb,
        headers=tuple(typed.header or ()),
        data=typed.data,
        output=typed.output,
        include=typed.include,
        rail=typed.pay and rail,
        max_price_usd=cap,
        request_id=typed.request_id,
        dry_run=typed.dry_run,
        probe=typed.probe,
        trust_recipient=typed.trust_recipient,
    )
    raise typer.Exit(run(opts, ctx))


with_options_of(PaidRequestRequest, request_command)  # URL, -X ... --trust-recipient: as declared


def run(opts: RequestOptions, ctx: FaceContext) -> int:
    spec = RequestSpec(
        opts.method or ("POST" if opts.data is not None else "GET"),
        opts.url,
        _headers(opts),
        _body(opts.data),
    )
    if opts.probe:
        doc = probe_request(ctx, spec, opts.rail, opts.max_price_usd)
        ctx.output.show(doc, probe_view)
        refused = submit_probe.refusal(doc) if doc["would_pay"] is not None else None
        if refused is not None:
            raise refused
        return 0
    if opts.dry_run:
        return _dry_run(ctx, spec, opts)
    explicit_json = ctx.settings.json_output
    sink = None if explicit_json and opts.output is None else BodySink.open(opts.output)
    rid = opts.request_id or new_request_id()  # known here, so an interrupt can name it
    try:
        answer = request(
            ctx,
            spec,
            request_id=rid,
            max_price_usd=opts.max_price_usd,
            trust_recipient=opts.trust_recipient,
            rail=opts.rail,
        )
        if answer.paid_usd is not None:
            ctx.output.note(
                f"paid {usd(answer.paid_usd)} by {answer.rail}; request {answer.request_id}"
            )
        return _present(ctx, opts, answer, sink)
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM, SIGHUP: the request id is the way back
        raise _interrupted(rid) from None
    finally:
        if sink is not None:
            sink.discard()  # nothing, once the body was whole: it took the file's place


def _interrupted(rid: str) -> Interrupted:
    """The way back from an interrupt: the receipt once the answer came (a resume would send
    nothing: it was answered), else the resume, which re-sends the journaled proof if any."""
    if paid_record.current().task_for(rid) is not None:
        return Interrupted(
            f"interrupted; request {rid} was paid and answered, and its body not all written",
            hint=f"svc receipt {rid} shows what was paid; a resume sends nothing again",
        )
    return Interrupted(
        "interrupted while sending the paid request; it may have been paid",
        next=step("resume_request", "resume it without paying again: ", request_id=rid),
        data={"request_id": rid},
    )


def _present(ctx: FaceContext, opts: RequestOptions, answer: PaidResponse, sink: Any) -> int:
    """The body where it goes, then the object (--json), then the status's exit code. A
    failure to write after a payment is a warning: the payment's outcome decides the exit."""
    doc = answer.summary()
    try:
        if sink is None:
            doc |= _inline_body(answer)
        else:
            if opts.include:
                sink.head(answer.status, answer.reason, answer.headers)
            doc["bytes"] = sink.body(answer.chunks)
            sink.close()
    except (OSError, ProtocolError) as exc:
        if answer.paid_usd is None:
            raise
        ctx.output.warn(f"request {answer.request_id} was paid; writing its body failed: {exc}")
        return 0
    if answer.error is not None:
        if ctx.settings.json_output:
            answer.error.data |= {"response": doc}
        raise answer.error
    if ctx.settings.json_output:
        ctx.output.emit_json(doc)
    return 0


def _inline_body(answer: PaidResponse) -> dict[str, Any]:
    """The body inside the --json object: text when it is UTF-8, else base64; bounded."""
    held = answer.held(MAX_JSON_BODY, "write it to a file with -o PATH")
    try:
        return {"body": bytes(held).decode("utf-8")}
    except UnicodeDecodeError:
        return {"body_base64": base64.b64encode(bytes(held)).decode("ascii")}


def _headers(opts: RequestOptions) -> tuple[tuple[str, str], ...]:
    pairs: list[tuple[str, str]] = []
    for raw in opts.headers:
        name, sep, value = raw.partition(":")
        name = name.strip()
        if not sep or not is_token(name):
            raise UsageError(f"--header must be 'NAME: VALUE', got {raw[:40]!r}")
        pairs.append((name, value.strip()))
    refuse_headers(name for name, _ in pairs)  # the body's framing is httpx's to write
    return tuple(pairs)


def _body(data: str | None) -> bytes | None:
    if data is None:
        return None
    if not data.startswith("@"):
        return data.encode()
    with open_binary_source(data[1:], "--data") as source:
        return source.read()


def _dry_run(ctx: FaceContext, spec: RequestSpec, opts: RequestOptions) -> int:
    ctx.output.show(dry_run_request(ctx, spec, opts.rail, opts.max_price_usd), _dry_run_view)
    return 0


def _dry_run_view(out: Any, doc: dict[str, Any]) -> None:
    request = doc["request"]
    out.line(
        "Would send {method} {url} ({size} bytes of body) and pay its 402 by {rail}, up to "
        "{cap} USD. Nothing was sent.",
        method=request["method"],
        url=request["url"],
        size=request["body_bytes"],
        rail=doc["pay"],
        cap=doc["max_price_usd"],
    )


__all__ = ["RequestOptions", "run"]
