"""`svc watch ID...` / `svc watch --all`: follow tasks until they are final, answering asks.

The Typer function only parses its request (`WaitRequest`, the operation's) into `WatchOptions`
(every id and number checked before any poll); `run` picks the tasks and hands them to the
watch face (`svc.commands.watch_face`, which `submit --wait` uses too), which presents what the
follower engine (`svc.engines.watch`) yields.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import typer

from svc.cli.app import current
from svc.cli.heap import freeze_start_up
from svc.cli.options import with_options_of
from svc.commands.watch_face import Following, WatchFace
from svc.engines.ids import task_id_arg
from svc.engines.watch_parts import LedgerView, ledger_view
from svc.errors import Interrupted, UsageError
from svc.operations.watch import WaitRequest
from svc.settings import poll_seconds, positive_seconds
from svc.ui.face import FaceContext
from svc.ui.terminal import interrupted_line

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class WatchOptions:
    task_ids: list[str] = field(default_factory=list)
    all_live: bool = False
    interval: float | None = None
    notify: bool = False
    exec_command: str | None = None
    exec_timeout: float = 30.0


@app.command(
    help="Poll tasks until every one is final, showing state changes and events live.\n\n"
    "On a terminal, an ask (blocked_on_user) is answered in place while polling goes on (a "
    "prompt the task no longer needs closes, saying why), with a countdown to the ask's "
    "expiry; a payment approval shows a waiting line: leave it to the approval app, or "
    "decline (after a second, explicit yes). With --no-input (or in CI, or when stdin is not a terminal) "
    "watch stops with exit 6 and prints the exact `svc reply` command and the time left. "
    "The exit code follows the final states: 0 all completed, 3 one failed or was cancelled, "
    "6 one waits on the user. Interrupted, it can simply be started again.\n\n"
    "With --json: NDJSON, one task detail per observed change; the last line of each task is "
    "its final detail, or for a task left waiting on the user a stop line {id, state, ask, "
    "reply_command, decline_command, reply_keys, expires_at, seconds_left}; for a payment ask "
    "reply_command is `svc watch ID` (approve in the user's app first), never the decline.\n\n"
    "--notify rings the terminal (bell and OSC 9/777 notification, only when stdout is a "
    "terminal) and shows a desktop notification (notify-send or osascript, if present) when a "
    "task starts waiting on the user or ends. --exec CMD runs CMD (via /bin/sh if it uses shell syntax) for every "
    "observed change: the task detail JSON on stdin, SVC_TASK_ID, SVC_TASK_STATE, "
    "SVC_TASK_PREVIOUS_STATE and SVC_TASK_ASK (none, plain, structured, payment) in the "
    "environment; it runs beside the polls, bounded by --exec-timeout, and a failure is a "
    "warning on stderr that never changes the exit code.\n\n"
    "Thousands of tasks can be watched at once (--all: every live task in the ledger; one the "
    "service no longer knows, 404, is marked gone with a warning and the others are watched; "
    "with --json its line is {id, state: gone}): polls "
    "are spread over the interval with jitter, on real hosts unchanged tasks back off towards "
    "60 s, and a terminal shows counts per state instead of every event.\n\n"
    "\b\nExamples:\n"
    "  svc watch task_8f2c41d09b7e6a13\n"
    "  svc watch task_8f2c41d09b7e6a13 task_51e0a7c3d2b94f68 --json | jq -r '.id + \" \" + .state'\n"
    "  svc watch --all --no-input --notify\n"
    "  svc watch task_8f2c41d09b7e6a13 --exec 'jq -c . >> changes.ndjson'\n"
    "  svc watch task_8f2c41d09b7e6a13 --no-input || svc reply task_8f2c41d09b7e6a13 ..."
)
def watch(**given: Any) -> None:
    app_ctx = current()
    # Built unchecked: `options` reads each value, in svc's own words for a bad one.
    opts = options(WaitRequest.model_construct(**given), app_ctx)
    raise typer.Exit(run(opts, app_ctx))


with_options_of(WaitRequest, watch)  # ID... to --exec-timeout: as the operation declares them


def options(request: WaitRequest, app: FaceContext) -> WatchOptions:
    """The CLI's fields, every id and number checked before any poll."""
    return WatchOptions(
        task_ids=[task_id_arg(t) for t in request.task_ids or []],
        all_live=request.all_live,
        interval=None if request.interval is None else poll_seconds("--interval", request.interval),
        notify=app.settings.notify if request.notify is None else request.notify,
        exec_command=request.exec_command,
        exec_timeout=positive_seconds("--exec-timeout", request.exec_timeout),
    )


def run(opts: WatchOptions, app: FaceContext) -> int:
    """Watch the tasks the options name; returns the exit code (raises the contract's errors)."""
    ids = list(opts.task_ids)
    from_ledger: list[str] = []
    view: LedgerView | None = None
    if opts.all_live:
        view = ledger_view(app)  # the rows read once: the live ids and the states known
        from_ledger = view.live
        ids += from_ledger
        if not ids:
            app.output.note("no live task in the ledger for " + app.settings.base_url)
            return 0
    elif not ids:
        raise UsageError("missing ID: give task ids, or --all for every live task in the ledger")
    following = Following(
        opts.interval,
        opts.notify,
        opts.exec_command,
        opts.exec_timeout,
        from_ledger=frozenset(from_ledger) - set(opts.task_ids),
        known_states=None if view is None else view.states,
    )
    freeze_start_up()  # a long run: its collections skip what start-up built
    try:
        return WatchFace(app, list(dict.fromkeys(ids)), following).run()
    except KeyboardInterrupt:  # nothing is lost: say the command that follows them again
        again = " ".join(["svc watch", *(["--all"] if opts.all_live else []), *opts.task_ids])
        raise Interrupted(
            interrupted_line().removeprefix("svc: "), hint=f"follow again with: {again}"
        ) from None
