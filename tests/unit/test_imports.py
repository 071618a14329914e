"""svc's own imports sit at the top of each file (issue 23.4): a module's header says what it
needs. A function-level import of one of svc's modules is allowed in two places only: the
command table (what every start of `svc` runs, kept lean), and where it keeps a heavy
third-party package (httpx, rich, eth-account, ...) from loading before a command needs it.
"""

from __future__ import annotations

from pathlib import Path

from tests.deferred_imports import Imports
from tests.import_graph import write_package

# What every start runs before a command's own module: the entry point, the fast path
# (version, help, completion, poll) and the completer (every TAB), the lazy command group, the runtime that builds the app
# context, and the context, whose members (ledger, secrets, policy, config) import their
# modules when first built, with the face's part of it (its prompts likewise).
# `svc --help` must not pay for what a command may need.
COMMAND_TABLE = (
    "svc.__main__",
    "svc.completion.complete",
    "svc.cli.app",
    "svc.cli.runtime",
    "svc.context",
    "svc.ui.face",
)


def test_svc_imports_its_own_modules_at_the_top() -> None:
    imports = Imports("svc")
    start = imports.loaded_by(COMMAND_TABLE)
    assert {"svc.__main__", "svc.ui.terminal", "svc.cli.globals", "svc.ui.output"} <= start
    hiding = [
        f"{d.path.name}:{d.line} imports {d.target} inside a function, keeping no heavy "
        "package away: move it to the top"
        for d in imports.hiding(start)
    ]
    assert not hiding, "\n".join(hiding)
    assert imports.deferred  # the lazy ones are still seen (commands defer httpx, mcp, ...)


def test_a_deferred_import_is_judged_by_the_heavy_packages_it_keeps_away(tmp_path: Path) -> None:
    root = write_package(
        tmp_path,
        {
            "__init__.py": "",
            "light.py": "import json\n",
            "net.py": "import httpx\n",
            "wraps_net.py": "from pkg import net\n",
            "cmd.py": (
                "def run():\n    from pkg import light\n"
                "def fetch():\n    from pkg.wraps_net import net\n"
            ),
            "already.py": "import httpx\ndef f():\n    from pkg import net\n",
            "typed.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import light\n"
            ),
        },
    )
    imports = Imports("pkg", root)
    assert imports.heavy("pkg.wraps_net") == {"httpx"}  # through its own top-level import
    judged = {(d.importer, d.target) for d in imports.hiding()}
    assert judged == {("pkg.cmd", "pkg.light"), ("pkg.already", "pkg.net")}
    assert imports.hiding(frozenset({"pkg.cmd", "pkg.already"})) == []
    assert imports.loaded_by(("pkg.wraps_net",)) == {"pkg", "pkg.wraps_net", "pkg.net"}
