"""docs/architecture.md is the map of the house as it is: every module path it names exists
(it once named client/_follow.py, gone for a while, and the lean HTTP route's files), and it
stays a map: under 250 lines."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# A path of at least one folder and a module: `api/http.py`, `svc/words.py`, `tests/inproc.py`.
NAMED = re.compile(r"(?<![\w./-])((?:[a-z_]+/)+[a-z_0-9]+\.py)\b")


def test_every_module_the_map_names_exists() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = {match.group(1) for match in NAMED.finditer(text)}
    assert len(named) > 20  # the map does name modules: the pattern still finds them
    places = (ROOT, ROOT / "src", ROOT / "src" / "svc")
    missing = sorted(p for p in named if not any((base / p).exists() for base in places))
    assert missing == []
    assert len(text.splitlines()) < 250  # the map's budget: history and figures live in git
