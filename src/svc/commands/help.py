"""`svc help [TOPIC]`: reference topics that belong to no single command."""

from __future__ import annotations

import enum
from typing import Any

import typer

from svc.cli.app import COMMANDS, current
from svc.cli.help_topics import ENVIRONMENT, EXIT_CODES, FILES, OUTPUT, TOPICS, render
from svc.cli.options import with_options_of
from svc.errors import UsageError
from svc.operations.setup import HelpRequest
from svc.ui.face import FaceContext


class Topic(enum.StrEnum):
    EXIT_CODES = "exit-codes"
    ENVIRONMENT = "environment"
    FILES = "files"
    OUTPUT = "output"


app: typer.Typer = typer.Typer(rich_markup_mode=None)


def _names(incomplete: str) -> list[str]:
    """What `svc help` takes: the topics, then the commands (for completion)."""

    names = [t.value for t in Topic] + [c for c in COMMANDS if c != "help"]
    return [name for name in names if name.startswith(incomplete)]


@app.command(
    help="Show a reference topic: exit codes, environment variables, files, output flags.\n\n"
    "Without a TOPIC, lists the topics. `svc help COMMAND` is `svc COMMAND --help` (and `man "
    "svc-COMMAND` once the man pages are installed). Topics are text, piped or not (so grep "
    "works); with --json a topic is printed as a JSON array.\n\n"
    "\b\nExamples:\n"
    "  svc help exit-codes\n"
    "  svc help environment | grep SVC_\n"
    "  svc help submit\n"
    "  svc help exit-codes --json | jq -r '.[] | select(.code == 6) | .meaning'"
)
def show_topic(**given: Any) -> None:
    raise typer.Exit(run(HelpRequest.model_construct(**given), current()))


# TOPIC: as the operation declares it; the shell completes the topics and the commands.
with_options_of(HelpRequest, show_topic, {"topic": {"autocompletion": _names}})


def run(opts: HelpRequest, app_ctx: FaceContext) -> int:
    if opts.topic is not None and opts.topic not in set(Topic):
        _command_help(app_ctx, opts.topic)
    elif app_ctx.settings.json_output:  # when asked (an output flag asks): `| grep` is text
        app_ctx.output.emit_json(_topic_json(None if opts.topic is None else Topic(opts.topic)))
    elif opts.topic is None:
        width = max(map(len, TOPICS)) + 2
        lines = ["Help topics (svc help TOPIC):", ""]
        lines += [f"  {name:<{width}}{text}" for name, text in TOPICS.items()]
        lines += ["", "Commands: svc --help; one command: svc COMMAND --help."]
        app_ctx.output.document("\n".join(lines))
    else:
        app_ctx.output.document(render(opts.topic))
    return 0


def _topic_json(topic: Topic | None) -> list[dict[str, object]]:
    if topic is None:
        return [{"topic": name, "summary": text} for name, text in TOPICS.items()]
    if topic is Topic.EXIT_CODES:
        return [
            {"code": code, "name": name, "meaning": meaning, "what_to_do": todo}
            for code, name, meaning, todo in EXIT_CODES
        ]
    rows, key = {
        Topic.ENVIRONMENT: (ENVIRONMENT, "variable"),
        Topic.FILES: (FILES, "path"),
        Topic.OUTPUT: (OUTPUT, "flag"),
    }[topic]
    return [{key: name, "meaning": text} for name, text in rows]


def _command_help(app_ctx: FaceContext, name: str) -> None:
    """`svc help submit` = `svc submit --help`; anything else is a usage error naming both."""

    if name not in COMMANDS:
        known = ", ".join(t.value for t in Topic)
        raise UsageError(
            f"{name!r} is neither a help topic ({known}) nor a command",
            hint="svc help lists the topics; svc --help lists the commands",
        )
    from typer._click.globals import get_current_context

    output = app_ctx.output
    root = get_current_context().find_root()
    command = root.command.get_command(root, name)  # type: ignore[attr-defined]
    with command.make_context(name, [], parent=root, resilient_parsing=True) as ctx:
        text = command.get_help(ctx)
    output.document(text.rstrip("\n"))
