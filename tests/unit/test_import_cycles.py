"""No import cycle in our packages (issue 17): the module graph of top-level imports is acyclic.

A cycle makes the import order matter and hides layering mistakes; the sandbox had one
(payment_store -> x402 -> state -> payment_store), hidden by a function-level import.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.import_graph import cycle_path, cycles, import_graph

# `svc` joins this list once its own cycles are gone.
PACKAGES = ["svc_sandbox", "svc"]


@pytest.mark.parametrize("package", PACKAGES)
def test_package_has_no_import_cycle(package: str) -> None:
    graph = import_graph(package)
    assert len(graph) > 5, f"{package}: the graph is suspiciously small: {sorted(graph)}"
    loops = [" -> ".join(cycle_path(graph, group)) for group in cycles(graph)]
    assert not loops, f"{package} has import cycles:\n" + "\n".join(loops)


def test_sandbox_has_no_cycle_even_through_function_level_imports() -> None:
    # The sandbox imports nothing lazily to save start-up time, so a function-level import
    # inside it could only be hiding a cycle.
    graph = import_graph("svc_sandbox", deferred=True)
    loops = [" -> ".join(cycle_path(graph, group)) for group in cycles(graph)]
    assert not loops, "svc_sandbox has import cycles:\n" + "\n".join(loops)


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_finds_a_cycle_through_absolute_relative_and_from_imports(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from pkg import b\n",
            "b.py": "from .sub.c import thing\n",
            "sub/__init__.py": "",
            "sub/c.py": "import pkg.a\nthing = 1\n",
            "d.py": "import os\nfrom pkg.a import x\n",
        },
    )
    graph = import_graph("pkg", root)
    assert graph["pkg.b"] == {"pkg.sub.c"}
    assert graph["pkg.d"] == {"pkg.a"}  # os is outside the package
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.sub.c"]]
    assert cycle_path(graph, ["pkg.a", "pkg.b", "pkg.sub.c"]) == [
        "pkg.a",
        "pkg.b",
        "pkg.sub.c",
        "pkg.a",
    ]


def test_imports_that_do_not_run_at_import_time_are_not_edges(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from pkg import b\n",
            "b.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from pkg import a\n"
                "def later():\n    from pkg import a\n"
            ),
        },
    )
    graph = import_graph("pkg", root)
    assert graph["pkg.b"] == set()
    assert cycles(graph) == []
    # counted when asked for: a function-level import can hide a cycle, not a typing one
    deferred = import_graph("pkg", root, deferred=True)
    assert deferred["pkg.b"] == {"pkg.a"}
    assert cycles(deferred) == [["pkg.a", "pkg.b"]]


def test_imports_in_module_level_blocks_are_edges(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "__init__.py": "from . import a\n",
            "a.py": "try:\n    import pkg.b\nexcept ImportError:\n    pass\n",
            "b.py": "class K:\n    from pkg import a\n",
        },
    )
    graph = import_graph("pkg", root)
    assert graph == {"pkg": {"pkg.a"}, "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}}
    assert cycles(graph) == [["pkg.a", "pkg.b"]]
