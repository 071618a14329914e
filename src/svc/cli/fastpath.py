"""Fast paths: answer the hottest invocations without importing Typer, pydantic or rich.

Typer (with its pydantic and rich imports) costs about 100 ms per start, ten times a bare
Python start. Three invocations run often enough in loops and on every TAB that this matters:

* ``svc --version``;
* ``svc --help`` (and ``-h``): the text the full app prints, generated into
  `svc.cli.root_help` by ``make docs``, when Click would wrap it at that width;
* ``svc __complete WORD...`` (the completion protocol, answered from a static table);
* ``svc poll ID`` in JSON mode (``--json`` or stdout not a terminal), with only global
  options and ``--exit-status``.

Everything else, and any argument list that is not plainly one of these, returns ``None`` and
runs through the full Typer app. The poll path reuses the same functions as the Typer command
(`build_context`, `poll_once`, `run_guarded`, and `present_machine`, which the Typer command's
`present` hands machine mode to), so output bytes, errors and exit codes match.
"""

from __future__ import annotations

import os

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
    from svc.cli.globals import split_json_fields

    poll = parse_poll(split_json_fields(argv, frozenset({"poll"})))
    if poll is None:
        return None
    flags, task_id, exit_status = poll
    from svc.ui.terminal import stdout_is_tty

    machine = any(flags.get(key) for key in ("json_output", "json_fields", "jq", "template"))
    if not machine and stdout_is_tty():
        return None  # a terminal wants rich rendering: the full app does that

    def body() -> int:
        # Machine mode only (a terminal went to the full app above): `polled_json`, not the
        # person's panel and hints, so no presentation module is loaded.
        from svc.cli.polled_json import present_machine
        from svc.cli.runtime import build_context
        from svc.engines.poll import poll_once

        app = build_context(flags)
        return present_machine(app, poll_once(app, task_id), exit_status)

    from svc.cli.runtime import run_guarded

    return run_guarded(body, argv)


def parse_poll(argv: list[str]) -> tuple[dict[str, object], str, bool] | None:
    """`[GLOBAL...] poll [GLOBAL | --exit-status]... ID [...]`, or None if anything else.

    Later values win, as with Click; anything unusual (unknown option, `--`, `-h`, an empty
    value, a second ID, an ID that looks like an option) goes to the full app instead.
    """
    from svc.cli.globals import SWITCH_FLAGS as _FLAG_OPTIONS
    from svc.cli.globals import VALUE_FLAGS as _VALUE_OPTIONS

    flags: dict[str, object] = {}
    seen_command = False
    task_id: str | None = None
    exit_status = False
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        name, eq, inline = token.partition("=")
        if name in _VALUE_OPTIONS and token.startswith("--"):
            if eq:
                value = inline
            elif i < len(argv):
                value = argv[i]
                i += 1
            else:
                return None
            if not value or (not eq and value.startswith("-")):
                return None
            flags[_VALUE_OPTIONS[name]] = value
        elif token in _FLAG_OPTIONS:
            flags[_FLAG_OPTIONS[token]] = True
        elif token == "--exit-status" and seen_command:
            exit_status = True
        elif not seen_command and token == "poll":
            seen_command = True
        elif seen_command and task_id is None and token and not token.startswith("-"):
            task_id = token
        else:
            return None
    if not seen_command or task_id is None:
        return None
    return flags, task_id, exit_status
