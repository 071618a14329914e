"""Which of a package's function-level imports of its own modules earn their place (issue 23).

A module's header should say what it needs, so svc's own imports sit at the top of each file.
An import stays inside a function for one reason only: to keep a heavy third-party package
(httpx, rich, eth-account, ...) from loading before a command needs it. That is measurable
from the source: an import of module M inside module F is *deferred for a reason* when M loads,
at its top level or through its own top-level imports, a heavy package that F does not load
already. Every other deferred import only hides a dependency. The command table (the entry
point and the lazy group) is the one place that defers by design.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tests.import_graph import _absolute, _is_type_checking, module_names, package_root

HEAVY = frozenset(
    {
        "anyio",
        "click",
        "eth_account",
        "eth_keys",
        "eth_utils",
        "httpcore",
        "httpx",
        "jinja2",
        "jq",
        "keyring",
        "mcp",
        "mcp_types",
        "psycopg",
        "pydantic",
        "pympp",
        "mpp",
        "rich",
        "segno",
        "typer",
    }
)


@dataclass(frozen=True)
class Deferred:
    importer: str  # the module whose function holds the import
    path: Path
    line: int
    end_line: int
    target: str  # the module it imports
    statement: ast.Import | ast.ImportFrom


class Imports:
    """A package's imports, read with `ast`: what each module runs at import time, and what
    its functions import later."""

    def __init__(self, package: str, root: Path | None = None) -> None:
        self.package = package
        self.modules = module_names(package, package_root(package) if root is None else root)
        self.top: dict[str, set[str]] = {}
        self.deferred: list[Deferred] = []
        for name, path in self.modules.items():
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            self.top[name] = self._runtime_targets(tree.body, name, path)
            self._collect_deferred(tree, name, path)

    def _target_of(self, node: ast.Import | ast.ImportFrom, module: str, path: Path) -> set[str]:
        if isinstance(node, ast.Import):
            return {alias.name for alias in node.names}
        base = _absolute(node, module, path.name == "__init__.py")
        return {
            f"{base}.{alias.name}" if f"{base}.{alias.name}" in self.modules else base
            for alias in node.names
        }

    def _runtime_targets(self, body: list[ast.stmt], module: str, path: Path) -> set[str]:
        found: set[str] = set()
        for node in body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                found |= self._target_of(node, module, path)
            elif isinstance(node, ast.If) and not _is_type_checking(node.test):
                found |= self._runtime_targets(node.body + node.orelse, module, path)
            elif isinstance(node, ast.Try):
                blocks = node.body + node.orelse + node.finalbody
                for handler in node.handlers:
                    blocks += handler.body
                found |= self._runtime_targets(blocks, module, path)
            elif isinstance(node, ast.With | ast.ClassDef):
                found |= self._runtime_targets(node.body, module, path)
        return found

    def _collect_deferred(self, tree: ast.Module, module: str, path: Path) -> None:
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(func):
                if not isinstance(node, ast.Import | ast.ImportFrom):
                    continue
                for target in sorted(self._target_of(node, module, path)):
                    if target.split(".")[0] == self.package:
                        end = node.end_lineno or node.lineno
                        self.deferred.append(Deferred(module, path, node.lineno, end, target, node))

    @cache
    def heavy(self, module: str) -> frozenset[str]:
        """The heavy third-party packages importing `module` loads (its packages' too)."""
        loads: set[str] = set()
        seen: set[str] = set()
        stack = [module, *self._parents(module)]
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            for target in self.top.get(current, ()):
                root = target.split(".")[0]
                if root in HEAVY:
                    loads.add(root)
                elif root == self.package:
                    stack += [target, *self._parents(target)]
        return frozenset(loads)

    def _parents(self, module: str) -> list[str]:
        parts = module.split(".")
        return [".".join(parts[:i]) for i in range(1, len(parts))]

    def loaded_by(self, roots: tuple[str, ...]) -> frozenset[str]:
        """The package's modules that importing `roots` loads (with their packages)."""
        seen: set[str] = set()
        stack = list(roots)
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            stack += self._parents(current)
            stack += [t for t in self.top.get(current, ()) if t.split(".")[0] == self.package]
        return frozenset(seen)

    def hiding(self, exempt: frozenset[str] = frozenset()) -> list[Deferred]:
        """Deferred imports of the package's own modules that keep no heavy package away."""
        return [
            d
            for d in self.deferred
            if d.importer not in exempt and self.heavy(d.target) <= self.heavy(d.importer)
        ]
