"""Generate `svc.completion.table` from the Typer app (imports every command module).

    python -m tools.completion_table          # rewrite the table
    python -m tools.completion_table --check  # exit 1 if the table is stale (the test does this)

The table is what `svc __complete` answers from, so a TAB never imports a command module.
"""

from __future__ import annotations

import pprint
import sys
from pathlib import Path
from typing import Any

from svc.cli.globals import KEYS as GLOBAL_KEYS
from svc.ui.terminal import error_line

TABLE_PATH = Path(__file__).resolve().parents[1] / "src" / "svc" / "completion" / "table.py"

# Value kinds the shell scripts understand: a file path, a task id (from the ledger), or free.
_FILE_METAVARS = ("PATH", "FILE")


def _kind(param: Any) -> str:
    metavar = (getattr(param, "metavar", None) or "").upper()
    name = (param.name or "").lower()
    if any(word in metavar for word in _FILE_METAVARS) or name == "file" or name.endswith("_file"):
        return "file"
    if metavar.startswith("ID") or name in ("task_id", "task_ids"):
        return "task_id"
    if name == "profile":  # names of the config file's profiles
        return "profile"
    return "text"


def _choices(param: Any) -> list[str] | None:
    import enum
    import typing

    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return [str(member.value) for member in annotation]
    if typing.get_origin(annotation) is typing.Literal:
        return [str(value) for value in typing.get_args(annotation)]
    custom = getattr(param, "_custom_shell_complete", None)
    if custom is not None:  # a parameter that names its values itself (`svc help TOPIC`)
        return [str(getattr(item, "value", item)) for item in custom(None, param, "")]
    metavar = param.metavar or ""
    parts = metavar.split("|")
    # `x402|mpp|card` lists the values; `PATH|-` is a metavar, not a choice.
    if len(parts) > 1 and all(p and not p.isupper() and p != "-" for p in parts):
        return parts
    return None


def _describe(command: Any, ctx: Any, skip: frozenset[str] = frozenset()) -> dict[str, Any]:
    from typer.core import TyperArgument, TyperGroup, TyperOption

    options: list[dict[str, Any]] = []
    args: list[dict[str, Any]] = []
    for param in command.params:
        if isinstance(param, TyperOption):
            if param.hidden or param.name in skip:
                continue
            entry: dict[str, Any] = {
                "names": [*param.opts, *param.secondary_opts],
                "value": not (param.is_flag or param.count),
                "help": (param.help or "").split("\n")[0],
            }
            if entry["value"]:
                choices = _choices(param)
                if choices:
                    entry["choices"] = choices
                else:
                    entry["kind"] = _kind(param)
            options.append(entry)
        elif isinstance(param, TyperArgument):
            arg: dict[str, Any] = {"kind": _kind(param), "many": param.nargs != 1}
            choices = _choices(param)
            if choices:  # an enum argument (`svc completion show SHELL`, `svc help TOPIC`)
                arg["choices"] = choices
            args.append(arg)
    doc: dict[str, Any] = {"options": options, "args": args}
    if isinstance(command, TyperGroup):
        subs: dict[str, Any] = {}
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is None or sub.hidden:
                continue
            subs[name] = {"help": sub.get_short_help_str(limit=80), **_describe(sub, ctx, skip)}
        doc["commands"] = subs
    return doc


def build_table() -> dict[str, Any]:
    import typer

    from svc.cli.app import COMMANDS, app

    root = typer.main.get_command(app)
    ctx = root.make_context("svc", ["--help"], resilient_parsing=True)
    # The global options are accepted by every command: listed once, under "globals".
    table = _describe(root, ctx, frozenset(GLOBAL_KEYS))
    root_only = _describe(root, ctx)["options"]
    table["globals"] = [
        *(o for o in root_only if o not in table["options"]),
        {"names": ["-h", "--help"], "value": False, "help": "Show help and exit."},
    ]
    for name, (_, summary) in COMMANDS.items():
        table["commands"][name]["help"] = summary
    _config_values(table)
    return table


def _config_values(table: dict[str, Any]) -> None:
    """`svc config set KEY <TAB>`: the values of a key that takes only some (the settings
    table's choices: true/false, the rails), looked up by the KEY typed before."""
    from svc.settings_table import SETTINGS

    table["commands"]["config"]["commands"]["set"]["args"][1]["kind"] = "config_value"
    table["config_values"] = {row.key: list(row.choices) for row in SETTINGS if row.choices}


def render(table: dict[str, Any]) -> str:
    body = pprint.pformat(table, width=99, compact=True, sort_dicts=True)
    return (
        '"""Generated by `python -m tools.completion_table`: do not edit by hand."""\n\n'
        "from __future__ import annotations\n\n"
        "TYPE_CHECKING = False  # no typing import at run time: completion start-up matters\n"
        "if TYPE_CHECKING:\n"
        "    from typing import Any\n\n"
        f"TABLE: dict[str, Any] = {body}\n"
    )


def main(argv: list[str]) -> int:
    text = render(build_table())
    if "--check" in argv:
        current = TABLE_PATH.read_text(encoding="utf-8") if TABLE_PATH.exists() else ""
        if current != text:
            error_line(
                "src/svc/completion/table.py is stale: run `python -m tools.completion_table`"
            )
            return 1
        return 0
    TABLE_PATH.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
