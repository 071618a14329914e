"""No function over 50 lines (issue 17): a long function is several steps without names.

Counted from the `def` line to the last line of the body (decorators excluded), nested
functions on their own and inside their parent.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from tests.import_graph import package_root

LIMIT = 50
PACKAGES = ["svc_sandbox", "svc"]


def long_functions(root: Path, limit: int = LIMIT) -> list[str]:
    """`file:line name (N lines)` for each function longer than `limit` under `root`."""
    found: list[str] = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > limit:
                    found.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({size})")
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_no_function_is_longer_than_the_limit(package: str) -> None:
    root = package_root(package)
    assert len(list(root.rglob("*.py"))) > 5, f"{package}: no sources found under {root}"
    assert long_functions(root) == []


def test_the_count_includes_the_def_line_and_nested_functions(tmp_path: Path) -> None:
    body = "\n".join(f"    x{n} = {n}" for n in range(LIMIT - 1))
    (tmp_path / "ok.py").write_text(f"def fits():\n{body}\n")  # exactly LIMIT lines
    nested = "\n".join(f"        y{n} = {n}" for n in range(LIMIT))
    (tmp_path / "long.py").write_text(f"def outer():\n    async def inner():\n{nested}\n")
    assert long_functions(tmp_path) == ["long.py:1 outer (52)", "long.py:2 inner (51)"]
