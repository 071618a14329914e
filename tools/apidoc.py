"""Render the Python API reference (HTML) from the docstrings of what `import svc` exports.

    python -m tools.apidoc              # write build/api/ (svc.html, index.html, search.js)
    python -m tools.apidoc --out DIR    # write it under DIR instead

`make docs` runs the first form; the result is not committed (build/ is ignored): it is made
from the source in seconds. The reference is one page, the `svc` package as a Python user
imports it: every name in `svc.__all__` (Client, AsyncClient, the answer types, the errors) is
documented there, wherever it is defined. The internal packages (`svc.engines`, `svc.cli`, ...)
are left out on purpose: they are not a promise. pdoc was chosen over mkdocstrings because it
is one package (its jinja2 and pygments are dependencies already) and needs no config file or
site (docs/python.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "build" / "api"
# pdoc's module specs: the package, and no submodule of it (a `!` spec is a regular expression).
SPECS = ("svc", r"!svc\..*")


def render(out: Path) -> Path:
    """Write the reference under `out`; returns the page of the `svc` package."""
    import pdoc
    import pdoc.render

    pdoc.render.configure(
        docformat="markdown",  # the docstrings use Markdown's `code` and lists
        footer_text=f"svc {_version()}",
        search=True,
    )
    pdoc.pdoc(*SPECS, output_directory=out)
    return out / "svc.html"


def _version() -> str:
    from svc import __version__

    return __version__


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="directory to write (build/api)")
    args = parser.parse_args(argv)
    page = render(args.out)
    print(f"API reference: {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
