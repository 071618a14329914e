"""Help that names values the way people do, and wraps where people can still copy it.

Typer 0.29 prints a Python type after every option (`--limit <int range>`) and braces around
required arguments (`svc poll [OPTIONS] {ID}`). `install()` replaces those two renderings once,
before any help is drawn; the options' own metavars (`--base-url URL`) are kept as they are.

It also replaces Click's text wrapping (`wrap_text`): Click breaks lines at hyphens and at any
space, so a flag (`--allow-` / `remote`), a command (`svc budget reset-` / `breaker`) or a
template (`'{{ id` / `}}'`) came out in two pieces that no longer paste. Here a hyphen never
ends a line, a `{{ ... }}` and a `svc` command name stay on one line, and an example too long
for the width is continued on the next line with a shell `\\`, never cut.
"""

from __future__ import annotations

import re
from typing import Any

# Spaces and hyphens inside a unit are swapped for these while the text is wrapped (the
# wrapper breaks at neither), and swapped back after.
_KEEP_SPACE = "\u00a0"
_KEEP_HYPHEN = "\u2011"
_TEMPLATE = re.compile(r"\{\{.*?\}\}")
_WORD = r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*"
_COMMAND = re.compile(rf"(?<![\w-])svc ({_WORD})(?: {_WORD})?(?![\w-])")
# An example line is continued before a pipe (or a redirection) where it can be, else before
# a flag, else wherever it is full.
_OPERATORS = ("|", "&&", ">", "<")
# Click wraps text 2 columns short of the terminal (80 at most); an example may use them.
_MARGIN = 2
_SHELL_WORD = re.compile(r"""(?:'[^']*'|"(?:\\.|[^"\\])*"|\\.|[^\s'"])+""")

# Typer's type label (between its angle brackets) -> the metavar shown to people.
_WORDS = {
    "str": "TEXT",
    "int": "N",
    "int range": "N",
    "float": "NUMBER",
    "float range": "NUMBER",
    "Path": "PATH",
    "path": "PATH",
    "file": "PATH",
    "directory": "DIR",
    "datetime": "DATE",
}


def human_type(label: str) -> str:
    """`<int range>` -> `N`, `<list[str]>` -> `TEXT`, `<a|b>` -> `a|b`."""
    bare = label.strip("<>")
    if bare.startswith("list[") and bare.endswith("]"):
        bare = bare[5:-1]
    return _WORDS.get(bare, bare)


def install() -> None:
    """Idempotent: `main` may run more than once in one process (in-process tests)."""
    from typer._click import formatting
    from typer.core import TyperArgument, _TyperParameter

    formatting.wrap_text = wrap_text  # HelpFormatter looks it up in its module at each call

    typer_display_type = _TyperParameter.display_type
    if getattr(typer_display_type, "svc_human", False):
        return

    def display_type(self: Any, ctx: Any) -> str:
        return human_type(typer_display_type(self, ctx))

    def usage_name(self: Any) -> str:
        name = str(self.display_name_raw)
        name = name if self.required else f"[{name}]"
        return name + ("..." if self.nargs != 1 else "")

    def no_type(self: Any, ctx: Any) -> None:
        return None  # an argument's name is its metavar already (`ID`, `TASK`)

    display_type.svc_human = True  # type: ignore[attr-defined]
    _TyperParameter.display_type = display_type  # type: ignore[method-assign]
    TyperArgument._usage_display_name = usage_name  # type: ignore[method-assign]
    TyperArgument.display_type_rich = no_type  # type: ignore[method-assign]


def wrap_text(
    text: str,
    width: int = 78,
    initial_indent: str = "",
    subsequent_indent: str = "",
    preserve_paragraphs: bool = False,
) -> str:
    """Click's `wrap_text` (same arguments, same paragraphs and `\\b` blocks), wrapping only
    between units that can be copied whole."""
    from typer._click._textwrap import TextWrapper

    wrapper = TextWrapper(
        width,
        initial_indent=initial_indent,
        subsequent_indent=subsequent_indent,
        replace_whitespace=False,
        break_on_hyphens=False,
        break_long_words=False,  # a unit wider than the text is shown whole on its own line
    )
    text = text.expandtabs()
    if not preserve_paragraphs:
        return _fill(wrapper, text)
    shown = []
    for indent, raw, paragraph in _paragraphs(text):
        with wrapper.extra_indent(" " * indent):
            if raw:
                lines = wrapper.indent_only(paragraph).splitlines()
                fitted = [part for line in lines for part in _example(line, width + _MARGIN)]
                shown.append("\n".join(fitted))
            else:
                shown.append(_fill(wrapper, paragraph))
    return "\n\n".join(shown)


def _fill(wrapper: Any, text: str) -> str:
    return str(wrapper.fill(_kept(text))).replace(_KEEP_SPACE, " ").replace(_KEEP_HYPHEN, "-")


def _kept(text: str) -> str:
    """The text with every unit made one unbreakable word: a template, a command's name (a
    command of svc's, then one more word: its subcommand or topic), a hyphenated word."""
    text = _TEMPLATE.sub(lambda m: m.group(0).replace(" ", _KEEP_SPACE), text)
    text = _COMMAND.sub(_command_unit, text)
    return text.replace("-", _KEEP_HYPHEN)


def _command_unit(match: re.Match[str]) -> str:
    named = match.group(0)
    commands = _command_names()
    if commands is not None and match.group(1) not in commands:
        return named  # prose (`svc is`), free to wrap
    return named.replace(" ", _KEEP_SPACE)


def _command_names() -> frozenset[str] | None:
    """The root command's names, from the help being drawn (a lazy group lists them without
    importing a module); None outside a command's context (then any word may be one)."""
    from typer._click.globals import get_current_context

    ctx = get_current_context(silent=True)
    if ctx is None:
        return None
    root = ctx.find_root()
    list_commands = getattr(root.command, "list_commands", None)
    return None if list_commands is None else frozenset(list_commands(root))


def _paragraphs(text: str) -> list[tuple[int, bool, str]]:
    """(indent, raw, text) of each paragraph, split as Click splits them: a paragraph whose
    first line is `\\b` is raw, its lines kept as they are."""
    found: list[tuple[int, bool, str]] = []
    lines: list[str] = []
    indent: int | None = None
    for line in [*text.splitlines(), ""]:
        if line:
            if indent is None:  # the first line's indent is the paragraph's, as Click's
                indent = len(line) - len(line.lstrip())
            lines.append(line.lstrip() if not lines else line)
            continue
        if lines:
            raw = lines[0].strip() == "\b"
            found.append((indent or 0, raw, "\n".join(lines[1:]) if raw else " ".join(lines)))
        lines, indent = [], None
    return found


def _example(line: str, width: int) -> list[str]:
    """A raw line; a `svc` command wider than `width` is continued with ` \\` on lines
    indented two more, breaking before a pipe or a flag where it can, never inside quotes."""
    body = line.lstrip()
    if len(line) <= width or not body.startswith("svc "):
        return [line]
    margin = line[: len(line) - len(body)]
    words = _SHELL_WORD.findall(body)
    comment = next((i for i, word in enumerate(words) if word.startswith("#")), len(words))
    words = words[:comment] + ([" ".join(words[comment:])] if comment < len(words) else [])
    lines: list[list[str]] = [[]]
    for word in words:
        current = lines[-1]
        indent = len(margin) + (2 if len(lines) > 1 else 0)
        if current and indent + len(" ".join([*current, word])) + 2 > width:
            cut = _break_at(current)
            lines[-1] = current[:cut]
            lines.append(current[cut:])
        lines[-1].append(word)
    shown = [margin + " ".join(lines[0])] + [f"{margin}  {' '.join(w)}" for w in lines[1:]]
    return [f"{text} \\" for text in shown[:-1]] + shown[-1:]


def _break_at(words: list[str]) -> int:
    """Where to continue a full line: before its last pipe, else its last flag, in its second
    half; else at its end."""
    second_half = range(len(words) - 1, max(len(words) // 2, 1) - 1, -1)
    for starts in (_OPERATORS, ("-",)):
        for index in second_half:
            if words[index].startswith(starts):
                return index
    return len(words)
