"""The import-time module graph of a package, read with `ast` (nothing is imported), and its cycles.

An edge A -> B means "importing A runs `import B` at module level": statements in the module
body, in `if`/`try`/`with` blocks and class bodies count; imports inside functions run later,
and `if TYPE_CHECKING:` blocks never run, so neither counts. `from P import n` is an edge to
`P.n` when that is a module of the package, else to `P`. Modules outside the package are
left out: a cycle needs a way back in.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
from pathlib import Path

Graph = dict[str, set[str]]


def package_root(package: str) -> Path:
    """The directory of an installed top-level package, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise LookupError(f"{package!r} is not an importable package")
    return Path(next(iter(spec.submodule_search_locations)))


def module_names(package: str, root: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file under the package directory."""
    names: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join([package, *parts])] = path
    return names


def import_graph(package: str, root: Path | None = None, *, deferred: bool = False) -> Graph:
    """The module-level import edges between the package's own modules.

    `deferred=True` also counts imports inside functions: a function-level import that only
    dodges a cycle is still a cycle in the design (the sandbox hid its cycle that way).
    """
    root = package_root(package) if root is None else root
    modules = module_names(package, root)
    graph: Graph = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        stat = path.stat()
        tree = _parsed(path, stat.st_mtime_ns, stat.st_size)
        targets: set[str] = set()
        for node in _runtime_imports(tree.body, deferred):
            targets |= _targets(node, name, is_package, modules)
        targets.discard(name)
        graph[name] = {t for t in targets if t.split(".")[0] == package}
    return graph


@functools.lru_cache(maxsize=4096)
def _parsed(path: Path, mtime_ns: int, size: int) -> ast.Module:
    """A source file's tree, parsed once per version of the file: the graph is drawn by
    several tests of a worker, and parsing svc's ~400 modules each time cost seconds."""
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _runtime_imports(body: list[ast.stmt], deferred: bool) -> list[ast.Import | ast.ImportFrom]:
    """The import statements run when the module is imported (with `deferred`, or later on
    by a function), never those only a type checker reads."""
    found: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                found += _runtime_imports(node.body, deferred)
            found += _runtime_imports(node.orelse, deferred)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                found += _runtime_imports(block, deferred)
            for handler in node.handlers:
                found += _runtime_imports(handler.body, deferred)
        elif isinstance(node, ast.With | ast.ClassDef | ast.For | ast.While) or (
            deferred and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        ):
            found += _runtime_imports(node.body, deferred)
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _targets(
    node: ast.Import | ast.ImportFrom, module: str, is_package: bool, modules: dict[str, Path]
) -> set[str]:
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    base = _absolute(node, module, is_package)
    found: set[str] = set()
    for alias in node.names:
        child = f"{base}.{alias.name}"
        found.add(child if child in modules else base)
    return found


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """`from ..x import y` resolved against the importing module."""
    if not node.level:
        return node.module or ""
    parts = module.split(".")
    if not is_package:
        parts.pop()  # a plain module's level-1 anchor is its package
    anchor = parts[: len(parts) - (node.level - 1)]
    return ".".join([*anchor, node.module] if node.module else anchor)


def write_package(tmp_path: Path, files: dict[str, str]) -> Path:
    """A throw-away package `pkg` under tmp_path (for the tests of these readers)."""
    root = tmp_path / "pkg"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def cycles(graph: Graph) -> list[list[str]]:
    """Each strongly connected group of two or more modules, as a sorted list (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups)


def cycle_path(graph: Graph, group: list[str]) -> list[str]:
    """One concrete loop through a group (a -> b -> ... -> a), for a readable failure."""
    members = set(group)
    start = group[0]
    path = [start]
    seen = {start}
    while True:
        nxt = sorted(t for t in graph[path[-1]] if t in members)
        back = start if start in nxt else None
        if back is not None and len(path) > 1:
            return [*path, start]
        step = next((t for t in nxt if t not in seen), None)
        if step is None:  # every neighbour seen: close the loop at the first repeat
            repeat = nxt[0]
            return [*path[path.index(repeat) :], repeat]
        path.append(step)
        seen.add(step)
