"""Generate man/ (one page per command) and completions/ from the command definitions.

    python -m tools.docgen              # rewrite man/, completions/ and the completion table
    python -m tools.docgen --check      # exit 1, naming the stale files, if any is out of date
    python -m tools.docgen --out DIR    # write man/ and completions/ under DIR instead

`make docs` runs the first form. Pages are built from Typer's own command objects (the same
ones `--help` prints), not through click-man, which drops every option of a Typer >= 0.26 app.
Each page has NAME, SYNOPSIS, DESCRIPTION, ARGUMENTS, OPTIONS, GLOBAL OPTIONS, COMMANDS (for
groups), EXAMPLES (taken from the help's `Examples:` block), ENVIRONMENT, FILES, EXIT STATUS
and SEE ALSO; the last three come from `svc.cli.help_topics`, as `svc help TOPIC` does.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from svc import __version__
from svc.cli import help_topics
from svc.cli.help_format import install
from svc.ui.terminal import error_line
from tools import completion_scripts
from tools import completion_table as complete_gen

REPO = Path(__file__).resolve().parents[1]
GLOBAL_NAMES = frozenset({"base_url", "auth_base", "profile", "json_output", "no_input", "verbose"})


@dataclass
class HelpDoc:
    """A command's help split the way people read it: summary, paragraphs, examples."""

    summary: str
    paragraphs: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)


def parse_help(text: str) -> HelpDoc:
    """Split Click help text: first paragraph = summary, an `Examples:` block = examples."""
    blocks = [b.strip("\n") for b in text.replace("\b\n", "").replace("\b", "").split("\n\n")]
    blocks = [b for b in blocks if b.strip()]
    if not blocks:
        return HelpDoc("")
    doc = HelpDoc(" ".join(blocks[0].split()))
    for block in blocks[1:]:
        head, _, rest = block.strip().partition("\n")
        if head.rstrip(":").strip() in ("Example", "Examples"):
            doc.examples.extend(line.strip() for line in rest.splitlines() if line.strip())
        else:
            doc.paragraphs.append(block)
    return doc


@dataclass
class Node:
    """A command with its path (`["svc", "identity", "register"]`) and Click context."""

    path: list[str]
    command: Any
    ctx: Any
    children: list[Node] = field(default_factory=list)

    @property
    def page(self) -> str:
        return "-".join(self.path)


def command_tree() -> Node:
    """Every command and subcommand, resolved through the lazy group (imports every module)."""
    import typer
    from typer._click import Context

    from svc.cli.app import app

    install()  # man pages show the metavars `--help` shows (ID, TEXT, N), not Python types
    root_cmd = typer.main.get_command(app)
    root = Node(["svc"], root_cmd, Context(root_cmd, info_name="svc"))

    def expand(node: Node) -> None:
        list_commands = getattr(node.command, "list_commands", None)
        if list_commands is None:
            return
        for name in list_commands(node.ctx):
            sub = node.command.get_command(node.ctx, name)
            if sub is None or sub.hidden:
                continue
            child = Node([*node.path, name], sub, Context(sub, info_name=name, parent=node.ctx))
            node.children.append(child)
            expand(child)

    expand(root)
    return root


def walk(node: Node) -> Iterator[Node]:
    yield node
    for child in node.children:
        yield from walk(child)


# --- roff -------------------------------------------------------------------------------------


def esc(text: str) -> str:
    """Escape text for roff: backslashes, hyphens, a leading dot or quote (a request)."""
    # `\-` everywhere: a bare `-` may render as a typographic hyphen that breaks copy-paste.
    out = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join(
        "\\&" + line if line.startswith((".", "'")) else line for line in out.split("\n")
    )


def esc_opt(text: str) -> str:
    return esc(text)


def _flow(paragraph: str) -> str:
    """One paragraph: prose is joined (roff fills it); indented lines stay as they are."""
    lines = paragraph.splitlines()
    if any(line.startswith("  ") for line in lines[1:]):
        return ".nf\n" + esc("\n".join(line.rstrip() for line in lines)) + "\n.fi"
    return esc(" ".join(" ".join(lines).split()))


def _record(names: str, help_text: str) -> str:
    """`.TP` entry: bold option names, italic metavar, then the help."""
    tokens = names.split(" ")
    # Names (`-n,` `--limit`, `/`) come first; the metavar is the rest (`<int range>`).
    cut = next(
        (i for i, t in enumerate(tokens) if i and not t.startswith("-") and t != "/"), len(tokens)
    )
    metavar = " ".join(tokens[cut:])
    rendered = " ".join(
        t if t == "/" else f"\\fB{esc_opt(t.rstrip(','))}\\fR" + ("," if t.endswith(",") else "")
        for t in tokens[:cut]
    )
    if metavar:
        rendered += f" \\fI{esc(metavar)}\\fR"
    return f".TP\n{rendered}\n{esc(' '.join(help_text.split())) or '.'}"


def _params(node: Node) -> tuple[list[str], list[str], list[str]]:
    """(arguments, command options, global options) as `.TP` entries."""
    from typer.core import TyperArgument

    args: list[str] = []
    opts: list[str] = []
    globals_: list[str] = []
    for param in node.command.params:
        if getattr(param, "hidden", False):
            continue
        record = param.get_help_record(node.ctx)
        if record is None:
            continue
        names, help_text = record
        if isinstance(param, TyperArgument):
            names = (param.metavar or param.name or "").strip("[]").split(" ")[0]
            args.append(_record(names, help_text))
        elif node.path != ["svc"] and param.name in GLOBAL_NAMES:
            globals_.append(_record(names, help_text))
        else:
            opts.append(_record(names, help_text))
    opts.append(_record("-h, --help", "Show the help and exit."))
    return args, opts, globals_


def _reference_sections() -> list[str]:
    env = [f".TP\n.B {esc(name)}\n{esc(text)}" for name, text in help_topics.ENVIRONMENT]
    files = [f".TP\n.I {esc(path)}\n{esc(text)}" for path, text in help_topics.FILES]
    codes = []
    for code, name, meaning, todo in help_topics.EXIT_CODES:
        body = esc(meaning) + (f"; {esc(todo)}" if todo else "")
        codes.append(f".TP\n.B {code}\n{esc(name)}: {body}")
    return [
        ".SH ENVIRONMENT\nA flag wins over the environment, which wins over the config profile.",
        *env,
        ".SH FILES",
        *files,
        ".SH EXIT STATUS",
        *codes,
        ".PP\nEvery non-zero exit prints one line on stderr and, with \\fB\\-\\-json\\fR, a JSON "
        'error object {"error", "detail", "exit_code"} on stdout.',
    ]


def man_page(node: Node, parent: Node | None) -> str:
    from svc.cli.app import COMMANDS

    doc = parse_help(node.command.help or "")
    title = node.page.upper()
    name = " ".join(node.path)
    usage = " ".join(node.command.collect_usage_pieces(node.ctx))
    out = [
        '.\\" Generated by `make docs` (python -m tools.docgen) from the command definitions.',
        f'.TH "{title}" "1" "" "svc {__version__}" "svc manual"',
        ".SH NAME",
        f"{esc_opt(node.page)} \\- {esc(doc.summary)}",
        ".SH SYNOPSIS",
        f".B {esc_opt(name)}\n{esc_opt(usage)}",
        ".SH DESCRIPTION",
        esc(doc.summary),
    ]
    for paragraph in doc.paragraphs:
        out += [".PP", _flow(paragraph)]
    args, opts, globals_ = _params(node)
    if args:
        out += [".SH ARGUMENTS", *args]
    out += [".SH OPTIONS", *opts]
    if globals_:
        out += [
            ".SH GLOBAL OPTIONS",
            "Accepted by every command, before or after the command name.",
            *globals_,
        ]
    if node.children:
        out.append(".SH COMMANDS")
        for child in node.children:
            summary = COMMANDS[child.path[1]][1] if parent is None else None
            summary = summary or parse_help(child.command.help or "").summary
            out.append(f".TP\n.BR {esc_opt(child.page)} (1)\n{esc(summary)}")
    if doc.examples:
        out += [".SH EXAMPLES", ".nf", ".RS 4", *(esc(line) for line in doc.examples), ".RE", ".fi"]
    out += _reference_sections()
    see = [] if parent is None else [parent.page]
    see += [child.page for child in node.children]
    if parent is not None and parent.page != "svc":
        see.insert(0, "svc")
    out += [".SH SEE ALSO", ",\n".join(f".BR {esc_opt(p)} (1)" for p in see) or ".BR svc (1)"]
    return "\n".join(out) + "\n"


def render_all(tree: Node | None = None) -> dict[str, str]:
    """Every generated file: relative path -> text."""
    tree = tree or command_tree()
    files: dict[str, str] = {}
    parents: dict[str, Node] = {}
    for node in walk(tree):
        for child in node.children:
            parents[child.page] = node
        files[f"man/{node.page}.1"] = man_page(node, parents.get(node.page))
    for shell, (file_name, _, _) in completion_scripts.SCRIPTS.items():
        files[f"completions/{file_name}"] = completion_scripts.render(shell)
    return files


def stale(root: Path, files: dict[str, str]) -> list[str]:
    """Paths under root that differ from `files`, are missing, or are left over."""
    wrong = [p for p, text in files.items() if _read(root / p) != text]
    for folder in ("man", "completions"):
        if (root / folder).is_dir():
            wrong += [
                f"{folder}/{f.name}"
                for f in sorted((root / folder).iterdir())
                if f"{folder}/{f.name}" not in files
            ]
    return sorted(wrong)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def write(root: Path, files: dict[str, str]) -> None:
    for folder in ("man", "completions"):
        if (root / folder).is_dir():
            for old in (root / folder).iterdir():
                if f"{folder}/{old.name}" not in files:
                    old.unlink()
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def main(argv: list[str]) -> int:
    files = render_all()
    if "--out" in argv:
        write(Path(argv[argv.index("--out") + 1]), files)
        return 0
    if "--check" in argv:
        wrong = stale(REPO, files)
        table_ok = complete_gen.main(["--check"]) == 0
        if wrong:
            error_line(
                f"stale generated docs ({', '.join(wrong)}): run `make docs` and commit them"
            )
        return 0 if not wrong and table_ok else 1
    write(REPO, files)
    return complete_gen.main([])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
