"""Help that names values the way people do: `ID`, `TEXT`, `N`, `PATH`, never `<str>`.

Typer 0.29 prints a Python type after every option (`--limit <int range>`) and braces around
required arguments (`svc poll [OPTIONS] {ID}`). `install()` replaces those two renderings once,
before any help is drawn; the options' own metavars (`--base-url URL`) are kept as they are.
"""

from __future__ import annotations

from typing import Any

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
    from typer.core import TyperArgument, _TyperParameter

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
