"""`svc tasks`: the ledger's submissions, filtered (`svc.engines.task_list` collects them);
`svc tasks forget ID...` and `svc tasks prune --gone`: rows that are not money, removed.

The group's own callback is the listing, as `svc services` is: `svc tasks` alone (and with its
flags) lists as it always did, and the two members load only when one runs.
"""

from __future__ import annotations

import re
import time
from typing import Any

import typer
from typer._click.globals import get_current_context

from svc.cli.app import current, lazy_group, with_globals
from svc.cli.options import with_options_of
from svc.engines.task_list import TASK_STATES, TaskQuery, collect
from svc.errors import LedgerDiskError, LedgerUnavailableError, UsageError, ledger_read_hint
from svc.operations.tasks import TasksRequest
from svc.suggest import did_you_mean
from svc.ui import views
from svc.ui.face import FaceContext
from svc.words import plural

MEMBERS = {
    "forget": (
        "svc.commands.tasks.forget",
        "Remove rows from the ledger by task or request id (never a charge without --force).",
    ),
    "prune": (
        "svc.commands.tasks.prune",
        "Remove the rows of tasks the service no longer knows (--gone) or refused (--refused).",
    ),
}

app: typer.Typer = typer.Typer(cls=lazy_group(MEMBERS), rich_markup_mode=None)

_UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_DURATION = re.compile(r"([0-9]{1,6})([mhdw])", re.ASCII)


HELP = (
    "List the tasks submitted from here (on a shared ledger, by the fleet), newest first.\n\n"
    "`svc tasks forget ID...` and `svc tasks prune --gone` remove rows that are not money. "
    "The newest 50 are shown unless --limit N or --all says otherwise; a cut list says so on "
    "stderr (showing 50 of 351). "
    "The service has no list call; the ledger remembers every submission, its request id, "
    "payment and last known state. --refresh polls the live ones first (free calls, a few at "
    "a time, only for this base URL; a row that cannot be read is marked and the others go "
    "on). State 'gone' is the ledger's own: the service answered 404 for the task (a sandbox "
    "restarted, or another agent's task). A submit refused before anything was paid has no "
    "task id: the state column says why (refused: price 1.50 USD is above the limit 1.00 "
    "USD), and JSON keeps task_id null beside status and status_reason. Ids are shown whole so they can be copied; times "
    "are relative on a terminal, and JSON keeps the exact values. Rows with status 'unknown' are paid submissions whose "
    "answer was lost: resume them with `svc submit --request-id ID` and the same task. On a "
    "shared ledger (ledger_url) the list is the fleet's, each row naming its runner; "
    "--runner NAME keeps one runner's.\n\n"
    "\b\nExamples:\n"
    "  svc tasks\n"
    "  svc tasks --refresh --state blocked_on_user\n"
    "  svc tasks --since 2h --state completed,failed\n"
    "  svc tasks --all --json | jq -r '.[] | select(.state==\"blocked_on_user\") | .task_id'\n"
    "  svc tasks --runner ci-7\n"
    "  svc tasks prune --gone"
)


def tasks(**given: Any) -> None:
    # Built unchecked: the query's parsing words each error with its flag's name.
    opts = TasksRequest.model_construct(**given)
    if get_current_context().invoked_subcommand is not None:
        query(opts)  # the group's own flags are checked before a member runs, as always
        return
    raise typer.Exit(run(opts, current()))


with_options_of(TasksRequest, tasks, {"limit": {"min": 0}})  # --limit ... --runner


def query(opts: TasksRequest) -> TaskQuery:
    """The engine's query from the flags: --all is --limit 0, states and --since parsed."""
    return TaskQuery(
        limit=0 if opts.every else opts.limit,
        states=parse_states(opts.state or []),
        since=parse_since(opts.since),
        refresh=opts.refresh,
        runner=opts.runner,
    )


def run(opts: TasksRequest, ctx: FaceContext) -> int:
    """Show the listing; a failed refresh of some rows is a warning, not a failure."""
    try:
        listing = collect(query(opts), ctx)
    except LedgerUnavailableError as error:
        if not isinstance(error, LedgerDiskError):  # a local file's own hint names the disk
            error.hint = ledger_read_hint("svc tasks")
        raise
    ctx.output.show(listing.documents(), lambda out, _: views.task_list(out, listing))
    if listing.cut:  # on stderr, whatever the mode: `--jq length` must not pass for "all"
        total = f"{listing.total}" if listing.total_exact else f"at least {listing.total}"
        ctx.output.note(f"showing {len(listing.rows)} of {total} (--limit N, --all)")
    if listing.errors:
        first = next(iter(listing.errors.values()))
        count = plural(len(listing.errors), "task")
        ctx.output.warn(f"could not refresh {count} (shown as last known): {first}")
    return 0


def parse_states(values: list[str]) -> tuple[str, ...]:
    states = [part.strip() for value in values for part in value.split(",") if part.strip()]
    for name in states:
        if name not in TASK_STATES:
            raise UsageError(
                f"--state: unknown state {name!r}" + did_you_mean(name, TASK_STATES),
                hint="states: " + ", ".join(TASK_STATES),
            )
    return tuple(dict.fromkeys(states))


def parse_since(text: str | None, now: float | None = None) -> float | None:
    """A timestamp from `30m`/`2h`/`3d`/`1w` (ago) or an ISO date or date-time (local time)."""
    if text is None:
        return None
    value = text.strip()
    duration = _DURATION.fullmatch(value)
    if duration:
        return (time.time() if now is None else now) - int(duration[1]) * _UNITS[duration[2]]
    from datetime import datetime

    try:
        return datetime.fromisoformat(value).timestamp()
    except (ValueError, OverflowError, OSError):
        raise UsageError(
            f"--since: {value[:40]!r} is not a duration or a date",
            hint="e.g. --since 30m, 2h, 3d, 1w or 2026-11-01",
        ) from None


app.callback(invoke_without_command=True, help=HELP)(with_globals(tasks))
