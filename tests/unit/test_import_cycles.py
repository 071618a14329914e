"""No import cycle in our packages (issues 17 and 23), not even through function-level imports,
and ui/ is imported only by the layers that talk to people.

A cycle makes the import order matter and hides layering mistakes; the sandbox had one
(payment_store -> x402 -> state -> payment_store), hidden by a function-level import.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.import_graph import cycle_path, cycles, import_graph, write_package

# `svc` joins this list once its own cycles are gone.
PACKAGES = ["svc_sandbox", "svc"]


@pytest.mark.parametrize("package", PACKAGES)
def test_package_has_no_import_cycle(package: str) -> None:
    graph = import_graph(package)
    assert len(graph) > 5, f"{package}: the graph is suspiciously small: {sorted(graph)}"
    loops = [" -> ".join(cycle_path(graph, group)) for group in cycles(graph)]
    assert not loops, f"{package} has import cycles:\n" + "\n".join(loops)


@pytest.mark.parametrize("package", PACKAGES)
def test_no_cycle_even_through_function_level_imports(package: str) -> None:
    # A function-level import runs later, but it is still a dependency: a cycle through one is
    # a layering mistake that import order merely happens to survive (issue 23).
    graph = import_graph(package, deferred=True)
    loops = [" -> ".join(cycle_path(graph, group)) for group in cycles(graph)]
    assert not loops, f"{package} has import cycles:\n" + "\n".join(loops)


# Who may talk to people: the commands, the MCP server, the flows, ui itself, and the place
# that wires the process together (the entry point). The app context is not one: it is the
# library's, and its face's prompts come in as callbacks (svc.ui.face builds the CLI's).
PEOPLE_FACING = ("svc.cli", "svc.commands", "svc.completion", "svc.mcp", "svc.engines", "svc.ui")
WIRING = {"svc.__main__"}


def test_ui_is_imported_only_by_the_layers_that_talk_to_people() -> None:
    graph = import_graph("svc", deferred=True)
    lower = {
        module: sorted(dep for dep in deps if dep.startswith("svc.ui"))
        for module, deps in graph.items()
        if not module.startswith(PEOPLE_FACING) and module not in WIRING
    }
    offenders = {module: deps for module, deps in lower.items() if deps}
    assert not offenders, f"lower layers import ui (pass a callback instead): {offenders}"
    assert any(dep.startswith("svc.ui") for dep in graph["svc.cli.runtime"])  # it sees edges


def test_finds_a_cycle_through_absolute_relative_and_from_imports(tmp_path: Path) -> None:
    root = write_package(
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
    root = write_package(
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
    root = write_package(
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
