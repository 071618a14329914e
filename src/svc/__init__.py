"""svc: the command-line client for the paid task-execution service."""

import sys as _sys

__version__ = "0.1.0"

# httpx imports its optional CLI (click, rich, pygments: ~45 ms) whenever click is importable,
# and click is (uvicorn needs it). A None entry makes that import fail fast and httpx falls back
# to a stub `main`. Set here, before any svc module can import httpx.
_sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
