"""Fast paths: answer the hottest invocations without importing Typer, pydantic or rich.

Typer (with its pydantic and rich imports) costs about 100 ms per start, ten times a bare
Python start. These invocations run often enough in loops and on every TAB, or pay for many
tasks in one start, so that this matters:

* ``svc --version``;
* ``svc --help`` (and ``-h``): the text the full app prints, generated into
  `svc.cli.root_help` by ``make docs``, when Click would wrap it at that width;
* ``svc __complete WORD...`` (the completion protocol, answered from a static table);
* ``svc poll ID`` in JSON mode (``--json`` or stdout not a terminal), with only global
  options and ``--exit-status``;
* ``svc submit --from FILE`` in JSON mode, with only global options and the batch's own
  (``--concurrency``, ``--email``, ``--pay``, ``--max-price``, ``--skip-bad-lines``,
  ``--yes``, ``--trust-recipient``): a batch of a thousand lines has its start-up in its wall
  time, and Typer's was a third of that start (issue 34).

Everything else, and any argument list that is not plainly one of these, returns ``None`` and
runs through the full Typer app. The poll path reuses the same functions as the Typer command
(`build_context`, `poll_once`, `run_guarded`, and `present_machine`, which the Typer command's
`present` hands machine mode to), so output bytes, errors and exit codes match; the batch path
builds the same `SubmitOptions` the Typer command builds and runs the same `run_batch`.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing itself costs ~10 ms on `svc --version`
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

# Imports are deferred to the branch that answers: `--version` loads only what it prints
# (svc and the terminal's door), `--help` the generated text, TAB the completion table.


def dispatch(argv: list[str]) -> int | None:
    """The exit code if a fast path answered, else None (run the full app).

    SVC_NO_FASTPATH=1 sends everything to the full app (tests compare both paths with it).
    """
    if os.environ.get("SVC_NO_FASTPATH"):
        return None
    if argv == ["--version"]:
        from svc import __version__
        from svc.ui.plain import say

        return say(f"svc {__version__}\n")
    if argv in (["--help"], ["-h"]):
        from svc.cli import root_help
        from svc.ui.plain import help_columns, say

        if help_columns() >= root_help.WIDTH_COLUMNS:  # else Click wraps to a narrower screen
            return say(root_help.TEXT)
    if argv[:1] == ["__complete"]:
        from svc.completion.complete import main as complete

        return complete(argv[1:])
    return _command(argv)


def _command(argv: list[str]) -> int | None:
    """`poll ID` or `submit --from FILE` in machine mode, else None (the full app runs it)."""
    from svc.cli.globals import split_json_fields

    args = split_json_fields(argv, frozenset({"poll", "submit"}))
    if (poll := parse_poll(args)) is not None:
        flags, body = poll[0], _poll(*poll)
    elif (batch := parse_batch(args)) is not None:
        flags, body = batch.flags, _batch(batch)
    else:
        return None
    from svc.ui.terminal import stdout_is_tty

    machine = any(flags.get(key) for key in ("json_output", "json_fields", "jq", "template"))
    if not machine and stdout_is_tty():
        return None  # a terminal wants rich rendering: the full app does that
    from svc.cli.runtime import run_guarded

    return run_guarded(body, argv)


def _poll(flags: dict[str, object], task_id: str, exit_status: bool) -> Callable[[], int]:
    def body() -> int:
        # Machine mode only (a terminal went to the full app): `polled_json`, not the
        # person's panel and hints, so no presentation module is loaded.
        from svc.cli.polled_json import present_machine
        from svc.cli.runtime import build_context
        from svc.engines.poll import poll_once

        app = build_context(flags)
        return present_machine(app, poll_once(app, task_id), exit_status)

    return body


def _batch(batch: Invocation) -> Callable[[], int]:
    """The batch's own face (commands/submit_batch.py), loaded by name as the command table
    loads a command (no layer imports the commands), over the options read here."""

    def body() -> int:
        from importlib import import_module

        from svc.cli.runtime import build_context

        app = build_context(batch.flags)
        code: int = import_module(BATCH_FACE).run_parsed(app, batch.options)
        return code

    return body


class Invocation:
    """A command's arguments as a fast path reads them."""

    __slots__ = ("flags", "operands", "options")

    def __init__(self) -> None:
        self.flags: dict[str, object] = {}  # the global options, by settings key
        self.options: dict[str, str | bool] = {}  # the command's own, by name
        self.operands: list[str] = []


def scan(
    argv: list[str],
    command: str,
    switches: Mapping[str, str],
    values: Mapping[str, str],
) -> Invocation | None:
    """`[GLOBAL...] COMMAND [GLOBAL | OPTION | OPERAND]...`, or None if anything else.

    `switches` and `values` map the command's own flags to names (a value option takes the
    next word, or its `--name=VALUE` form). Later values win, as with Click; anything unusual
    (an unknown option, `--`, `-h`, an empty value, a value that looks like an option but
    stdin's `-`, an operand before the command) goes to the full app instead."""
    from svc.cli.globals import SWITCH_FLAGS, VALUE_FLAGS

    got = Invocation()
    seen_command = False
    words = iter(argv)
    for token in words:
        if not seen_command and token == command:
            seen_command = True
            continue
        own = values if seen_command else {}  # the command's options follow its name
        # Only a long option has an `=VALUE` form (Click reads `-e=x` as the value `=x`).
        name, eq, inline = token.partition("=") if token.startswith("--") else (token, "", "")
        if name in VALUE_FLAGS or name in own:
            value = inline if eq else next(words, "")
            if not _plain_value(value, bool(eq), stdin=name in own):
                return None
            if name in VALUE_FLAGS:
                got.flags[VALUE_FLAGS[name]] = value
            else:
                got.options[own[name]] = value
        elif token in SWITCH_FLAGS:
            got.flags[SWITCH_FLAGS[token]] = True
        elif seen_command and token in switches:
            got.options[switches[token]] = True
        elif seen_command and token and not token.startswith("-"):
            got.operands.append(token)
        else:
            return None
    return got if seen_command else None


def _plain_value(value: str, inline: bool, *, stdin: bool) -> bool:
    """A value a fast path takes as given: not empty, and not what Click might read as an
    option (a command's own may be `-`, standard input)."""
    if not value:
        return False
    return inline or not value.startswith("-") or (stdin and value == "-")


def parse_poll(argv: list[str]) -> tuple[dict[str, object], str, bool] | None:
    """`[GLOBAL...] poll [GLOBAL | --exit-status]... ID`, or None if anything else."""
    got = scan(argv, "poll", {"--exit-status": "exit_status"}, {})
    if got is None or len(got.operands) != 1:
        return None
    return got.flags, got.operands[0], bool(got.options.get("exit_status"))


BATCH_FACE = "svc.commands.submit_batch"
# `svc submit --from FILE`'s options a fast path takes, in the Typer command's own spellings and
# by the names of its parameters (tests/e2e/test_batch_fast_path.py holds both to the command);
# any other (a task, --wait, --dry-run, --help...) sends the run to the full app.
BATCH_SWITCHES = {
    "--skip-bad-lines": "skip_bad_lines",
    "--yes": "yes",
    "-y": "yes",
    "--trust-recipient": "trust_recipient",
}
BATCH_VALUES = {
    "--from": "from_file",
    "--concurrency": "concurrency",
    "--email": "email",
    "-e": "email",
    "--pay": "pay",
    "--max-price": "max_price",
}


def parse_batch(argv: list[str]) -> Invocation | None:
    """`[GLOBAL...] submit --from FILE [OPTION | GLOBAL]...`, or None if anything else. A
    concurrency is taken only as up to nine ASCII digits, which int() and Typer read alike; a
    fullwidth, signed or longer one goes to the full app, and its own error."""
    got = scan(argv, "submit", BATCH_SWITCHES, BATCH_VALUES)
    if got is None or got.operands or "from_file" not in got.options:
        return None
    concurrency = got.options.get("concurrency")
    if concurrency is None:
        return got
    plain = isinstance(concurrency, str) and concurrency.isascii() and concurrency.isdigit()
    return got if plain and len(str(concurrency)) <= 9 else None
