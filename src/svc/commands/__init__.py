"""One module per command: `svc X` is `commands/X.py`, `svc X Y` is `commands/X/Y.py`.

Each module holds the command's options dataclass, the Typer function that only parses the
flags into it, and `run(opts, ctx) -> exit code`, which does the work through the engines
(`svc.engines`) the MCP tools share. A group's package (`commands/identity/`) names its
members in a lazy table, as `svc.cli.app.COMMANDS` names the groups and top-level commands:
nothing here is imported until its command runs.
"""
