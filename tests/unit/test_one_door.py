"""One door to the terminal: only `svc.ui` imports rich or writes to stdout/stderr.

An AST scan of every module under src/svc outside src/svc/ui. What counts as a way around the
door: importing rich; calling `print` (the builtin, or a `.print` method, which is how a rich
console prints); touching `sys.stdout`/`sys.stderr`/`sys.__stdout__`/`sys.__stderr__`; any
attribute named `stdout`/`stderr` (an Output's or a stream's); an Output's rich consoles
(`.console`, `.err_console`, `._console`); writing to file descriptors 1 or 2 (`os.write`).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "svc"
UI = SRC / "ui"
STREAM_NAMES = {"stdout", "stderr", "__stdout__", "__stderr__"}
CONSOLE_NAMES = {"console", "err_console", "_console", "_err_console"}

# (module path relative to src/svc, offending source text, why it is not a way around the door)
ALLOWED = {
    ("pay/mpp.py", "proc.stdout"): "reads a helper subprocess's captured output; writes nothing",
}


def offences(tree: ast.AST, source: str) -> list[tuple[int, str]]:
    return [
        (getattr(node, "lineno", 0), ast.get_source_segment(source, node) or "")
        for node in ast.walk(tree)
        if _goes_around(node)
    ]


def _is_rich(module: str) -> bool:
    return module == "rich" or module.startswith("rich.")


def _goes_around(node: ast.AST) -> bool:
    if isinstance(node, ast.Import):
        return any(_is_rich(alias.name) for alias in node.names)
    if isinstance(node, ast.ImportFrom):
        module = node.module or ""
        from_sys = module == "sys" and any(a.name in STREAM_NAMES for a in node.names)
        return _is_rich(module) or from_sys
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name):
            return func.id == "print"
        return (isinstance(func, ast.Attribute) and func.attr == "print") or _os_write_std(node)
    if isinstance(node, ast.Attribute):
        return node.attr in STREAM_NAMES or node.attr in CONSOLE_NAMES
    return False


def _os_write_std(node: ast.Call) -> bool:
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "write"):
        return False
    if not (isinstance(func.value, ast.Name) and func.value.id == "os"):
        return False
    first = node.args[0] if node.args else None
    return isinstance(first, ast.Constant) and first.value in (1, 2)


def modules_outside_ui() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if UI not in p.parents)


def test_the_scan_sees_every_way_around_the_door() -> None:
    """The scanner itself: each form is caught, and a clean module is not flagged."""
    bad = (
        "import rich\n"
        "from rich.table import Table\n"
        "import rich.console as c\n"
        "print('x')\n"
        "console.print(x)\n"
        "sys.stdout.write('x')\n"
        "sys.stderr.flush()\n"
        "from sys import stderr\n"
        "out.stdout.write('x')\n"
        "app.output.err_console\n"
        "os.write(2, b'x')\n"
        "sys.__stdout__\n"
    )
    assert len(offences(ast.parse(bad), bad)) == 12
    good = "from svc.ui import views\nout.info('x')\nos.write(fd, data)\nprinted = 1\n"
    assert offences(ast.parse(good), good) == []


def test_scan_covers_the_tree() -> None:
    modules = modules_outside_ui()
    names = {p.relative_to(SRC).as_posix() for p in modules}
    assert {"engines/submit.py", "commands/watch.py", "pay/card.py", "api/http.py"} <= names
    assert not any(n.startswith("ui/") for n in names)


@pytest.mark.parametrize("path", modules_outside_ui(), ids=lambda p: p.relative_to(SRC).as_posix())
def test_no_module_outside_ui_reaches_the_terminal(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    where = path.relative_to(SRC).as_posix()
    found = [
        f"{where}:{line}: {text}"
        for line, text in offences(ast.parse(source, str(path)), source)
        if (where, text) not in ALLOWED
    ]
    assert not found, "goes around svc.ui:\n" + "\n".join(found)


def test_every_allowance_is_still_needed() -> None:
    """An allowance whose code is gone must go too, or it will quietly excuse new code."""
    for where, text in ALLOWED:
        source = (SRC / where).read_text(encoding="utf-8")
        assert text in source, (where, text)
