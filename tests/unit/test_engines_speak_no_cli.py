"""Engines return data and raise the contract's errors; the faces present them (issue 32).

The app context and these engines import nothing of svc.ui (not even for a type: a library
caller has no terminal), and none of their public functions or methods returns an exit code:
the faces map outcomes to codes (the CLI) or to tool results (`svc mcp`)."""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# The engines issue 32 has turned already (watch, poll and reply follow on their own branches).
ENGINES = (
    "advisor",
    "asks",
    "auth",
    "batch",
    "batch_file",
    "claim",
    "doctor",
    "dry_run",
    "forget",
    "probe",
    "spend",
    "submit",
    "task_list",
    "task_state",
    "validate",
)
MODULES = ("svc.context", "svc.report", *(f"svc.engines.{name}" for name in ENGINES))
# Public functions that return an int that is not an exit code: counts and seconds.
NOT_EXIT_CODES = {
    "svc.engines.batch.Summary.done",
    "svc.engines.batch.Summary.sent",
    "svc.engines.asks.seconds_left",
}
# As written (annotations are strings here: `from __future__ import annotations`).
EXIT_CODE_TYPES = {"int", "ExitCode", "int | None", "ExitCode | None", "Optional[int]"}


def ui_imports(path: Path) -> list[str]:
    """Every import of svc.ui in a file, wherever it sits (top, function, TYPE_CHECKING)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name.startswith("svc.ui")]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("svc.ui"):
                found.append(node.module)
            elif node.module == "svc":
                found += [f"svc.{a.name}" for a in node.names if a.name == "ui"]
    return found


@pytest.mark.parametrize("name", MODULES)
def test_no_svc_ui_import(name: str) -> None:
    path = Path(inspect.getfile(importlib.import_module(name)))
    assert ui_imports(path) == [], f"{name} imports {ui_imports(path)}: pass a callback instead"


def test_the_ui_check_sees_an_import_of_ui() -> None:
    import svc.cli.runtime

    assert "svc.ui.output" in ui_imports(Path(inspect.getfile(svc.cli.runtime)))


def public_callables(name: str) -> Iterator[tuple[str, Callable[..., Any]]]:
    """The module's own public functions, and the public methods and properties of its own
    public classes (`__call__` included: a callable object is a function too)."""
    module = importlib.import_module(name)
    for attr, value in vars(module).items():
        if attr.startswith("_") or getattr(value, "__module__", None) != name:
            continue
        if inspect.isfunction(value):
            yield f"{name}.{attr}", value
        elif inspect.isclass(value):
            for member, inner in vars(value).items():
                if member.startswith("_") and member != "__call__":
                    continue
                function = inner.fget if isinstance(inner, property) else inner
                if inspect.isfunction(function):
                    yield f"{name}.{attr}.{member}", function


def returns(function: Callable[..., Any]) -> str:
    annotation = inspect.signature(function).return_annotation
    return annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")


def test_no_public_function_returns_an_exit_code() -> None:
    seen, offenders = 0, []
    for name in MODULES:
        for qualified, function in public_callables(name):
            seen += 1
            returned = returns(function)
            if returned in EXIT_CODE_TYPES and qualified not in NOT_EXIT_CODES:
                offenders.append(f"{qualified} -> {returned}")
    assert not offenders, "engines return data, the faces choose exit codes: " + str(offenders)
    assert seen > 60  # the walk found the engines' functions (a wrong walk would find none)


def test_the_exit_code_check_finds_one() -> None:
    found = dict(public_callables("svc.cli.runtime"))
    assert returns(found["svc.cli.runtime.settle"]) in EXIT_CODE_TYPES  # a face's: it may
