"""`svc help [TOPIC]`: reference topics that belong to no single command."""

from __future__ import annotations

import enum

import typer

from svc.cli.app import current
from svc.cli.help_topics import ENVIRONMENT, EXIT_CODES, FILES, TOPICS, render


class Topic(enum.StrEnum):
    EXIT_CODES = "exit-codes"
    ENVIRONMENT = "environment"
    FILES = "files"


app = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Show a reference topic: exit codes, environment variables, files.\n\n"
    "Without a TOPIC, lists the topics. Each command's own help is `svc COMMAND --help` "
    "(and `man svc-COMMAND` once the man pages are installed). With --json the topic is "
    "printed as a JSON array.\n\n"
    "\b\nExamples:\n"
    "  svc help exit-codes\n"
    "  svc help environment\n"
    "  svc help exit-codes --json | jq -r '.[] | select(.code == 6) | .meaning'"
)
def show_topic(
    topic: Topic | None = typer.Argument(
        None, metavar="TOPIC", help="exit-codes, environment or files."
    ),
) -> None:
    output = current().output
    emit_json = output.emit_json
    if output.json_mode:
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
            rows = ENVIRONMENT if topic is Topic.ENVIRONMENT else FILES
            key = "variable" if topic is Topic.ENVIRONMENT else "path"
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
