"""No engine names a CLI flag or an `svc` command in what it says (issue 32.3).

Engines (src/svc/engines/, and src/svc/pay/ which they drive) raise errors with a next step as
data (svc.next_step) and each face words it: a model under `svc mcp` or a Python caller cannot
type `--max-price`. Every string literal there is checked (docstrings aside: they are for the
maintainer). The allow-list of sites not converted yet is empty now; it stays, empty, so
that a site let back in has to be argued for here."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import svc

ROOT = Path(svc.__file__).parent
# A flag (`--max-price`, not a `---` rule or a `--` in prose) or a command (`svc submit`).
COMMANDS = (
    "submit|reply|watch|poll|tasks|spend|config|wallet|identity|pay|mcp|guide|quote|doctor"
    "|sandbox|receipt|completion"
)
CLI_WORDS = re.compile(rf"(?<![\w-])--[a-z][a-z-]+|\bsvc (?:{COMMANDS})\b")

# (file, enclosing def) -> why it still names the CLI. Empty: keep it so.
ALLOWED: dict[tuple[str, str], str] = {}


def _literals(tree: ast.Module) -> Iterator[tuple[str, str]]:
    """(enclosing def's qualified name, text) of every string literal that is not a docstring."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }

    def walk(node: ast.AST, scope: str) -> Iterator[tuple[str, str]]:
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                inner = child.name if scope == "<module>" else f"{scope}.{child.name}"
            if (
                isinstance(child, ast.Constant)
                and isinstance(child.value, str)
                and id(child) not in docstrings
            ):
                yield scope, child.value
            yield from walk(child, inner)

    yield from walk(tree, "<module>")


def sites() -> dict[tuple[str, str], list[str]]:
    found: dict[tuple[str, str], list[str]] = {}
    for folder in ("engines", "pay"):
        for path in sorted((ROOT / folder).glob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for scope, text in _literals(tree):
                if CLI_WORDS.search(text):
                    key = (f"{folder}/{path.name}", scope)
                    found.setdefault(key, []).append(text)
    return found


def test_no_engine_names_a_flag_or_command_outside_the_allow_list() -> None:
    unlisted = {key: texts for key, texts in sites().items() if key not in ALLOWED}
    assert not unlisted, f"say it with a svc.next_step.Next, not the CLI's words: {unlisted}"


def test_the_allow_list_only_shrinks() -> None:
    clean = sorted(set(ALLOWED) - set(sites()))
    assert not clean, f"these sites speak no CLI any more: remove them from ALLOWED: {clean}"


def test_the_check_sees_a_flag_and_a_command_and_not_prose() -> None:
    assert CLI_WORDS.search("pay with --pay x402")
    assert CLI_WORDS.search("see `svc tasks`")
    assert not CLI_WORDS.search("upgrade svc on this runner -- then pay")
    tree = ast.parse('def f():\n    """--doc"""\n    return "x --flag"\n')
    assert list(_literals(tree)) == [("f", "x --flag")]
