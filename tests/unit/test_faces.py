"""The faces present; the engines work: no module under `svc.commands` or `svc.mcp` imports
`svc.api` or `svc.store`, save the service's objects as data (`svc.api.models`: pydantic models,
no I/O, which a face validates a task into); no module under `svc.engines` imports `svc.ui`;
the operations' declarations import no face.

Every import counts here, wherever it sits: at the top, inside a function (deferred), or under
`if TYPE_CHECKING:` (a face that names `svc.store`'s types still depends on it). A face gets
what it does from an engine: the wire and the disk are the engines'.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.import_graph import _absolute, module_names, package_root, write_package

# Modules allowed to break the rule: none. (The lists emptied as issue 32's parts merged; a
# module that must break it again is named here with the reason, and the test below fails
# when the reason is gone.)
FACES_NOT_YET: frozenset[str] = frozenset()
ENGINES_NOT_YET: frozenset[str] = frozenset()
DATA = "svc.api.models"  # the service's objects as data, which a face may name


def every_import(package: str, root: Path | None = None) -> dict[str, set[str]]:
    """Module -> the modules it imports anywhere (top, functions, TYPE_CHECKING blocks)."""
    root = package_root(package) if root is None else root
    modules = module_names(package, root)
    found: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        targets: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(node, name, path.name == "__init__.py")
                targets |= {
                    f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                    for a in node.names
                }
        found[name] = targets
    return found


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def breaking(
    imports: dict[str, set[str]], layers: tuple[str, ...], forbidden: tuple[str, ...]
) -> dict[str, list[str]]:
    """The modules under `layers` that import anything under `forbidden`, and what."""
    return {
        module: sorted(t for t in targets if any(_under(t, f) for f in forbidden))
        for module, targets in imports.items()
        if any(_under(module, layer) for layer in layers)
        and any(_under(t, f) for t in targets for f in forbidden)
    }


def _judged(found: dict[str, list[str]], not_yet: frozenset[str]) -> list[str]:
    wrong = [
        f"{module} imports {', '.join(t)}" for module, t in found.items() if module not in not_yet
    ]
    wrong += [
        f"{module} keeps the rule now: take it off the list" for module in not_yet - set(found)
    ]
    return sorted(wrong)


def test_no_face_imports_api_or_store() -> None:
    imports = every_import("svc")
    assert "svc.commands.quote" in imports and "svc.mcp.server" in imports  # the scan sees them
    found = breaking(imports, ("svc.commands", "svc.mcp"), ("svc.api", "svc.store"))
    found = {
        module: rest
        for module, targets in found.items()
        if (rest := [t for t in targets if t != DATA])
    }
    wrong = _judged(found, FACES_NOT_YET)
    assert not wrong, "a face talks to api/ or store/ itself; call an engine:\n" + "\n".join(wrong)


def test_the_declarations_import_no_face() -> None:
    imports = every_import("svc")
    assert "svc.operations.table" in imports
    faces = ("svc.ui", "svc.cli", "svc.commands", "svc.mcp", "svc.client")
    found = breaking(imports, ("svc.operations",), faces)
    assert not found, f"a declaration reaches into a face: {found}"


def test_no_engine_imports_ui() -> None:
    imports = every_import("svc")
    found = breaking(imports, ("svc.engines",), ("svc.ui",))
    wrong = _judged(found, ENGINES_NOT_YET)
    assert not wrong, "an engine draws; return data to the face:\n" + "\n".join(wrong)


def test_the_scan_sees_every_kind_of_import(tmp_path: Path) -> None:
    root = write_package(
        tmp_path,
        {
            "__init__.py": "",
            "api/__init__.py": "",
            "api/models.py": "",
            "store.py": "",
            "faces/__init__.py": "",
            "faces/top.py": "from pkg.api.models import Task\n",
            "faces/late.py": "def run():\n    from ..store import x\n",
            "faces/typed.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.api\n"
            ),
            "faces/module.py": "from pkg import store\n",
            "faces/clean.py": "from pkg.faces import top\n",
        },
    )
    found = breaking(every_import("pkg", root), ("pkg.faces",), ("pkg.api", "pkg.store"))
    assert found == {
        "pkg.faces.top": ["pkg.api.models"],
        "pkg.faces.late": ["pkg.store"],
        "pkg.faces.typed": ["pkg.api"],
        "pkg.faces.module": ["pkg.store"],
    }
    assert _judged(found, frozenset({"pkg.faces.top", "pkg.faces.clean"})) == [
        "pkg.faces.clean keeps the rule now: take it off the list",
        "pkg.faces.late imports pkg.store",
        "pkg.faces.module imports pkg.store",
        "pkg.faces.typed imports pkg.api",
    ]
