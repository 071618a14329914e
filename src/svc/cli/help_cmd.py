"""`svc help [TOPIC]`: reference topics that belong to no single command."""

from __future__ import annotations

import enum

import typer

from svc.cli.app import COMMANDS, current
from svc.cli.help_topics import ENVIRONMENT, EXIT_CODES, FILES, OUTPUT, TOPICS, render
from svc.errors import UsageError


class Topic(enum.StrEnum):
    EXIT_CODES = "exit-codes"
    ENVIRONMENT = "environment"
    FILES = "files"
    OUTPUT = "output"


app = typer.Typer(rich_markup_mode=None)


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
def show_topic(
    topic: str | None = typer.Argument(
        None,
        metavar="TOPIC",
        help="exit-codes, environment, files, output, or a command's name.",
        autocompletion=_names,
    ),
) -> None:
    if topic is not None and topic not in set(Topic):
        _command_help(topic)
        return
    topic = None if topic is None else Topic(topic)
    output = current().output
    emit_json = output.emit_json
    if current().settings.json_output:  # when asked (an output flag asks): `| grep` is text
        if topic is None:
            emit_json([{"topic": name, "summary": text} for name, text in TOPICS.items()])
        elif topic is Topic.EXIT_CODES:
            emit_json(
                [
                    {"code": code, "name": name, "meaning": meaning, "what_to_do": todo}
                    for code, name, meaning, todo in EXIT_CODES
                ]
            )
        else:
            rows, key = {
                Topic.ENVIRONMENT: (ENVIRONMENT, "variable"),
                Topic.FILES: (FILES, "path"),
                Topic.OUTPUT: (OUTPUT, "flag"),
            }[topic]
            emit_json([{key: name, "meaning": text} for name, text in rows])
        return
    if topic is None:
        width = max(map(len, TOPICS)) + 2
        lines = ["Help topics (svc help TOPIC):", ""]
        lines += [f"  {name:<{width}}{text}" for name, text in TOPICS.items()]
        lines += ["", "Commands: svc --help; one command: svc COMMAND --help."]
        output.document("\n".join(lines))
        return
    output.document(render(topic.value))


def _command_help(name: str) -> None:
    """`svc help submit` = `svc submit --help`; anything else is a usage error naming both."""

    if name not in COMMANDS:
        known = ", ".join(t.value for t in Topic)
        raise UsageError(
            f"{name!r} is neither a help topic ({known}) nor a command",
            hint="svc help lists the topics; svc --help lists the commands",
        )
    from typer._click.globals import get_current_context

    output = current().output  # before a command context of its own is pushed
    root = get_current_context().find_root()
    command = root.command.get_command(root, name)  # type: ignore[attr-defined]
    with command.make_context(name, [], parent=root, resilient_parsing=True) as ctx:
        text = command.get_help(ctx)
    output.document(text.rstrip("\n"))
