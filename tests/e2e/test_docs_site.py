"""The documentation site builds with `mkdocs build --strict`, and strict is real; the README is
a front door (under 300 lines) whose every relative link resolves.

The site is built as `make docs` builds it (mkdocs.yml at the top, from the top: the snippets
of the README and the examples are read from there), into a temp dir. A copy of docs/ with one
defect planted (a link to no page, an anchor no heading makes, a page left out of the nav)
must fail the same strict build, naming each defect: a strict flag that stopped failing would
let every later broken link through.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import svc

REPO = Path(__file__).resolve().parents[2]
MKDOCS = Path(sys.executable).parent / "mkdocs"
README = REPO / "README.md"
# Material prints a banner about MkDocs 2.0 on every build; it says nothing about the pages.
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


def text_of(page: Path) -> str:
    """A built page's text, as a reader sees it: code is split into highlighted spans."""
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


def build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(MKDOCS), "build", "--strict", "--config-file", str(config), "--site-dir", str(site)],
        cwd=REPO,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    built = build(REPO / "mkdocs.yml", out)
    assert built.returncode == 0, built.stderr[-4000:]
    return out


def test_the_site_builds_strict_with_every_section(site: Path) -> None:
    for page in (
        "index.html",
        "getting-started.html",
        "guide/money.html",
        "guide/scripting.html",
        "reference/commands.html",
        "reference/exit-codes.html",
        "reference/api.html",
        "changelog.html",
        "architecture.html",
    ):
        assert (site / page).is_file(), page
    # The README's tour reached the Getting started page through its snippet markers.
    started = text_of(site / "getting-started.html")
    assert "svc sandbox serve --clock-speed" in started and "pipx install" in started
    commands = (site / "reference" / "commands.html").read_text(encoding="utf-8")
    assert 'id="svc-identity-register"' in commands and "--max-price USD" in text_of(
        site / "reference" / "commands.html"
    )


def test_the_api_page_documents_every_public_name_and_method(site: Path) -> None:
    """Every name `svc.__all__` exports (resolved lazily, PEP 562: a name the renderer cannot
    resolve would silently vanish) and every public method of both clients, wherever the
    method is defined; none of the internal packages."""
    page = (site / "reference" / "api.html").read_text(encoding="utf-8")
    ids = set(re.findall(r'id="(svc\.[^"]+)"', page))
    public = [name for name in svc.__all__ if not name.startswith("_")]
    assert {"Client", "AsyncClient", "SvcError", "Secret", "PolicyRefused"} <= set(public)
    assert [name for name in public if f"svc.{name}" not in ids] == []
    for name in ("Client", "AsyncClient"):
        cls = getattr(svc, name)
        methods = [m for m in dir(cls) if not m.startswith("_") and callable(getattr(cls, m))]
        assert [m for m in methods if f"svc.{name}.{m}" not in ids] == [], name
    assert not [i for i in ids if re.match(r"svc\.(engines|pay|cli|commands|store)\b", i)]


def docs_copy(tmp_path: Path) -> Path:
    """docs/ copied beside a config that inherits the real one. The API page is a stub: its
    rendering (most of a build's time) is not what the defects test."""
    shutil.copytree(REPO / "docs", tmp_path / "docs")
    (tmp_path / "docs" / "reference" / "api.md").write_text("# Python API\n", encoding="utf-8")
    config = tmp_path / "mkdocs.yml"
    config.write_text(f"INHERIT: {REPO / 'mkdocs.yml'}\ndocs_dir: docs\n", encoding="utf-8")
    return config


# Each defect, where it is planted, and what its warning names.
DEFECTS = (
    ("guide/money.md", "\nSee [the gone page](no-such-page.md).\n", "'no-such-page.md'"),
    ("guide/money.md", "\nSee [batches](../batch.md#no-such-heading).\n", "'#no-such-heading'"),
    ("orphan.md", "# A page no nav names\n", "  - orphan.md"),
)


def test_strict_fails_on_a_broken_link_a_broken_anchor_and_a_page_not_in_nav(
    tmp_path: Path,
) -> None:
    """One build with the three defects planted: it stops with exactly three warnings, each
    naming its defect, so each alone fails a strict build and the copy itself adds none."""
    config = docs_copy(tmp_path)
    for page, defect, _ in DEFECTS:
        target = tmp_path / "docs" / page
        before = target.read_text(encoding="utf-8") if target.exists() else ""
        target.write_text(before + defect, encoding="utf-8")
    built = build(config, tmp_path / "site")
    said = built.stdout + built.stderr  # mkdocs logs to stderr, and says why it stopped on stdout
    assert built.returncode != 0, said[-4000:]
    assert "Aborted with 3 warnings in strict mode" in said, said[-4000:]
    # A warning may go on over lines (the nav's lists the pages it lacks, one a line).
    warnings = re.split(r"^WARNING", built.stderr, flags=re.M)[1:]
    for _, _, named in DEFECTS:
        assert [w for w in warnings if named in w], (named, said[-4000:])


# --- the README -----------------------------------------------------------------------------


def relative_links(markdown: str) -> list[str]:
    """The targets of inline links and images that point into the repository (no scheme, no
    bare `#anchor`), their anchors cut."""
    targets = re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", markdown)
    return [
        t.split("#", 1)[0]
        for t in targets
        if not re.match(r"^[a-z][a-z0-9+.-]*:", t, re.I) and not t.startswith("#")
    ]


def test_the_readme_is_a_front_door_under_300_lines() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 300
    for needed in ("make demo", "make test", "pipx install dist/", "uv tool install dist/"):
        assert needed in text, needed
    assert "<!-- tour:" in text  # the block tests/e2e/test_readme_tour.py runs
    changes = text.split("\n## Changes to the contract\n", 1)[1]
    assert "(docs/changelog.md)" in changes


def test_every_relative_link_in_the_readme_resolves() -> None:
    links = relative_links(README.read_text(encoding="utf-8"))
    assert len(links) >= 20
    assert [link for link in links if not (REPO / link).exists()] == []


def test_the_readme_links_every_guide_page() -> None:
    links = set(relative_links(README.read_text(encoding="utf-8")))
    guide = {f"docs/guide/{p.name}" for p in (REPO / "docs" / "guide").glob("*.md")}
    assert guide and guide <= links, guide - links


def test_the_link_reader_sees_what_a_broken_link_looks_like() -> None:
    """The checks above can fail: the reader finds repository links, anchors cut, and leaves
    out web addresses and in-page anchors."""
    text = (
        "[a](docs/gone.md#top) ![b](img/x.png) [c](https://example.com/x.md) [d](#install) "
        '[e](docs/batch.md "Batches")'
    )
    assert relative_links(text) == ["docs/gone.md", "img/x.png", "docs/batch.md"]
    assert not (REPO / "docs/gone.md").exists()
