"""`svc __complete WORD...`: shell completion answered from a static table.

The protocol is described in docs/completion-protocol.md. The answer comes from
`svc.completion.table` (generated from the Typer app by `tools.completion_table`) and, for
task ids, from a read-only look at the local ledger, so a TAB never imports Typer or a command
module and costs about as much as a bare Python start.
"""

from __future__ import annotations

import os

from svc.completion.table import TABLE
from svc.ui import terminal

# The state directories (pathlib, platformdirs), the sanitizer (re) and sqlite3 are imported
# by the answers that read the ledger or the config file: a TAB on a command or an option name
# loads only the table (a TAB costs one Python start).

# Not `from typing import ...`: typing costs ~3 ms, a third of a bare start. mypy reads this.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DIRECTIVE_FILES = ":files"  # let the shell complete file names
DIRECTIVE_NOFILES = ":nofiles"  # only the candidates printed (possibly none)
MAX_TASK_IDS = 200
LEDGER_FILE = (
    "ledger.sqlite3"  # as svc.store.paths.LEDGER_FILE (a test checks), without its imports
)
CONFIG_FILE = "config.toml"  # as svc.store.config.config_path, without its imports


def main(words: list[str]) -> int:
    """Print candidates (`value<TAB>description`) then one directive line; always exit 0."""
    if words[:1] == ["--"]:
        words = words[1:]
    try:
        candidates, directive = complete(words or [""])
    except Exception:  # completion must never print a traceback into the shell's line
        candidates, directive = [], DIRECTIVE_NOFILES
    lines = [
        f"{value}\t{description}" if description else value for value, description in candidates
    ]

    try:
        terminal.write_out("".join(f"{line}\n" for line in [*lines, directive]))
    except BrokenPipeError:  # the shell stopped reading: nothing to say about it
        terminal.silence_stdout()
    except (OSError, AttributeError):  # no stdout to speak of (closed: None; a full disk)
        pass  # a TAB never prints a traceback into the shell's line, and always exits 0
    return 0


class _Position:
    """Where the words before the cursor leave the command line: the command reached, how
    many positional words it has, and an option still waiting for its value."""

    def __init__(self, table: dict[str, Any]) -> None:
        self.node: dict[str, Any] = table
        self.positional = 0
        self.pending: dict[str, Any] | None = None  # an option whose value is the next word
        self.after_dashes = False
        self.seen: list[str] = []

    def take(self, word: str, globals_: list[dict[str, Any]]) -> None:
        if self.pending is not None:
            self.pending = None
        elif word == "--" and not self.after_dashes:
            self.after_dashes = True
        elif word.startswith("-") and word != "-" and not self.after_dashes:
            option = _find_option(self.node, globals_, word.partition("=")[0])
            if option is not None and option["value"] and "=" not in word:
                self.pending = option
        elif self.positional == 0 and word in (self.node.get("commands") or {}):
            self.node = self.node["commands"][word]
        else:
            self.positional += 1
            self.seen.append(word)


def complete(words: list[str]) -> tuple[list[tuple[str, str]], str]:
    globals_ = TABLE["globals"]
    at = _Position(TABLE)
    for word in words[:-1]:
        at.take(word, globals_)
    current = words[-1]
    if at.pending is not None:
        return _values(at.pending, current, "")
    if current.startswith("--") and "=" in current and not at.after_dashes:
        name, _, value = current.partition("=")
        option = _find_option(at.node, globals_, name)
        if option is None or not option["value"]:
            return [], DIRECTIVE_NOFILES
        return _values(option, value, name + "=")
    if current.startswith("-") and not at.after_dashes:
        return _option_names(at.node, globals_, current, top=at.node is TABLE), DIRECTIVE_NOFILES
    subcommands = at.node.get("commands")
    if subcommands and at.positional == 0:
        names = [(n, c["help"]) for n, c in subcommands.items() if n.startswith(current)]
        return names, DIRECTIVE_NOFILES
    return _argument(at, current)


def _option_names(
    node: dict[str, Any], globals_: list[dict[str, Any]], current: str, *, top: bool
) -> list[tuple[str, str]]:
    options = [*node.get("options", []), *globals_]
    if not top:
        options = [o for o in options if "--version" not in o["names"]]
    return [
        (name, option["help"])
        for option in options
        for name in option["names"]
        if name.startswith(current) and (name.startswith("--") or len(current) < 2)
    ]


def _argument(at: _Position, current: str) -> tuple[list[tuple[str, str]], str]:
    args = at.node.get("args", [])
    if not args:
        return [], DIRECTIVE_NOFILES
    arg = args[min(at.positional, len(args) - 1)]
    if at.positional >= len(args) and not arg["many"]:
        return [], DIRECTIVE_NOFILES
    if arg.get("kind") == "config_value" and at.seen:  # `svc config set KEY VALUE`
        arg = {**arg, "choices": TABLE["config_values"].get(at.seen[0])}  # if only some
    return _values(arg, current, "", exclude=set(at.seen))


def _find_option(
    node: dict[str, Any], globals_: list[dict[str, Any]], name: str
) -> dict[str, Any] | None:
    options: list[dict[str, Any]] = [*node.get("options", []), *globals_]
    return next((option for option in options if name in option["names"]), None)


def _values(
    option: dict[str, Any], current: str, prefix: str, exclude: set[str] | None = None
) -> tuple[list[tuple[str, str]], str]:
    choices = option.get("choices")
    if choices:
        return [(prefix + c, "") for c in choices if c.startswith(current)], DIRECTIVE_NOFILES
    return _by_kind(option.get("kind", "text"), current, prefix, exclude)


def _by_kind(
    kind: str, current: str, prefix: str, exclude: set[str] | None = None
) -> tuple[list[tuple[str, str]], str]:
    if kind == "file":
        return [], DIRECTIVE_FILES
    if kind == "task_id":
        skip = exclude or set()
        found = [(prefix + t, d) for t, d in task_ids(current) if t not in skip]
        return found, DIRECTIVE_NOFILES
    if kind == "profile":
        return [
            (prefix + p, "") for p in profile_names() if p.startswith(current)
        ], DIRECTIVE_NOFILES
    return [], DIRECTIVE_NOFILES


def task_ids(prefix: str) -> list[tuple[str, str]]:
    """Task ids from the ledger (newest first) with their last known state and a preview."""
    path = os.path.join(_state_dir("SVC_DATA_DIR"), LEDGER_FILE)
    if not os.path.exists(path):
        return []
    import sqlite3

    from svc.sanitize import clean

    db = sqlite3.connect(f"{_file_uri(path)}?mode=ro", uri=True, timeout=1)
    try:
        rows = db.execute(
            "SELECT task_id, state, task_preview FROM submissions"
            " WHERE task_id IS NOT NULL AND substr(task_id, 1, ?) = ?"
            " ORDER BY created_at DESC LIMIT ?",
            (len(prefix), prefix, MAX_TASK_IDS),
        ).fetchall()
    finally:
        db.close()
    return [
        (str(tid), clean(f"{state or '?'}: {preview}", 60, single_line=True).replace("\t", " "))
        for tid, state, preview in rows
    ]


def profile_names() -> list[str]:
    """`default` plus every `[profiles.NAME]` table of the config file.

    A line scan rather than tomllib: TAB pays for every import, and the file is ours (written by
    `svc config set`, one table header a line).
    """

    names = ["default"]
    try:
        with open(os.path.join(_state_dir("SVC_CONFIG_DIR"), CONFIG_FILE), encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return names
    for line in text.splitlines():
        header = line.strip()
        if header.startswith("[profiles.") and header.endswith("]"):
            name = header[len("[profiles.") : -1].strip().strip('"').strip("'")
            if name and name not in names and "\t" not in name:
                names.append(name)
    return names


def _state_dir(variable: str) -> str:
    """svc.store.paths' config_dir or data_dir, as a string: its override without pathlib (a
    tenth of a bare start, re included); platformdirs' default only when not overridden."""
    override = os.environ.get(variable)
    if override:
        return override
    from svc.store import paths

    return str(paths.data_dir() if variable == "SVC_DATA_DIR" else paths.config_dir())


def _file_uri(path: str) -> str:
    """A `file:` URI for sqlite3 (what Path.as_uri gives an absolute path, without pathlib)."""
    absolute = os.path.abspath(path)
    for char, escaped in (("%", "%25"), ("?", "%3F"), ("#", "%23")):
        absolute = absolute.replace(char, escaped)
    return "file:" + absolute
