"""What `--json FIELDS`, `--jq EXPR` and `--template TPL` make of a JSON document.

Every command's machine output goes through `Output.emit_json` / `emit_line`, and those hand
the document here, so the flags work on every command that prints JSON, and per line on NDJSON
streams. The expression and the template are compiled when the command starts: a typo is exit
2 before anything is sent or paid. Neither jq nor Jinja is imported unless its flag is given.

One rule for a field the output does not have, whichever flag names it: it is null (empty in a
template), never an error, and one warning on stderr names it and the fields there are. A jq
program or a template that fails outright is exit 2 (the flag is wrong) on a free command; once
a request is paid it is a warning naming the task, and the paid outcome's exit code stands
(`Output.after_payment`).

Server text stays inert: a string printed raw by `--jq` or a rendered template is cleaned on a
terminal (escape sequences shown, never run); into a pipe it goes as the server sent it, as
`svc llms > file` does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from svc.errors import ExitCode, SvcError, UsageError

# A jq program that starts with a top-level field: `.task_id`, `.id | tonumber`, `.["x"]` not.
_JQ_FIELD = re.compile(r"\s*\.([A-Za-z_][A-Za-z0-9_]*)\s*($|\|)")


class ShapeError(SvcError):
    """The jq program or the template failed on this document (exit 2: the flag is wrong)."""

    exit_code = ExitCode.USAGE
    default_code = "output_flag_error"


class Shape:
    """The output flags of one run; `active` is False when none was given."""

    def __init__(
        self,
        fields: tuple[str, ...] = (),
        jq: str | None = None,
        template: str | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        if jq is not None and template is not None:
            raise UsageError("--jq and --template cannot be combined: pick one")
        self.fields = fields
        self._jq_source = jq
        self._jq = _compile_jq(jq) if jq is not None else None
        self._template = (
            _compile_template(template, self._unknown) if template is not None else None
        )
        self._warn = warn
        self._warned = False
        self._present: set[str] = set()  # the fields of the document being shaped

    @property
    def active(self) -> bool:
        return bool(self.fields) or self._jq is not None or self._template is not None

    def apply(self, doc: Any) -> list[str | Any]:
        """The pieces to print: a str is text (printed raw), anything else a JSON value."""
        if self.fields:
            doc = self._select(doc)
        self._present = _fields_of(doc)
        if self._jq is not None:
            try:
                out = list(self._jq.input_value(doc).all())
            except ValueError as exc:
                raise ShapeError(f"--jq: {' '.join(str(exc).split())}") from None
            self._check_jq(out)
            return out
        if self._template is not None:
            return [self._render(doc)]
        return [doc]

    def _select(self, doc: Any) -> Any:
        if isinstance(doc, list):
            self._check([item for item in doc if isinstance(item, dict)])
            return [self._pick(item) if isinstance(item, dict) else item for item in doc]
        if isinstance(doc, dict):
            self._check([doc])
            return self._pick(doc)
        return doc

    def _pick(self, doc: dict[str, Any]) -> dict[str, Any]:
        return {name: doc.get(name) for name in self.fields}

    def _check(self, docs: list[dict[str, Any]]) -> None:
        """A field no document has is null, and said once on stderr with the ones there are:
        a typo must not turn a paid submit into a failure exit (a script would pay again)."""
        if not docs:
            return
        present = {key for doc in docs for key in doc}
        unknown = [name for name in self.fields if name not in present]
        if unknown:
            self._say_unknown("--json", unknown[0], present, "null")

    def _check_jq(self, out: list[Any]) -> None:
        """jq makes an absent `.name` null by its own rules: said like the other flags when
        the program starts with a top-level field this output lacks and gives only nulls."""
        match = _JQ_FIELD.match(self._jq_source or "")
        name = match.group(1) if match else None
        if name and self._present and name not in self._present and all(v is None for v in out):
            self._say_unknown("--jq", name, self._present, "null")

    def _unknown(self, name: str) -> None:
        """A template named a variable the output lacks (called by the template's Undefined)."""
        if name not in ("doc", "items"):
            self._say_unknown("--template", name, self._present, "empty")

    def _say_unknown(self, flag: str, name: str, present: set[str], shown: str) -> None:
        if self._warned or self._warn is None:
            return
        self._warned = True
        self._warn(
            f"{flag}: no field {name!r} in this output (shown as {shown}); "
            f"fields: {', '.join(sorted(present)) or 'none'}"
        )

    def _render(self, doc: Any) -> str:
        context = dict(doc) if isinstance(doc, dict) else {}
        context |= {"doc": doc, "items": doc if isinstance(doc, list) else [doc]}
        try:
            text = str(self._template.render(context))  # type: ignore[union-attr]
        except Exception as exc:  # a template error names the template's mistake
            raise ShapeError(f"--template: {exc}") from None
        return text if text.endswith("\n") else text + "\n"


def parse_fields(value: str | None) -> tuple[str, ...]:
    """`id,state` -> ("id", "state"); each must be a plain name."""
    if value is None:
        return ()
    names = tuple(part.strip() for part in value.split(","))
    bad = [name for name in names if not name.isidentifier()]
    if bad or not names:
        raise UsageError(
            f"--json: {bad[0] if bad else value!r} is not a field name",
            hint="e.g. --json=id,state (top-level fields, comma-separated)",
        )
    return tuple(dict.fromkeys(names))


def _compile_jq(expression: str) -> Any:
    import jq  # type: ignore[import-not-found]

    try:
        return jq.compile(expression)
    except ValueError as exc:
        message = " ".join(str(exc).split())
        raise UsageError(f"--jq: {message}", hint="see https://jqlang.org/manual/") from None


def _fields_of(doc: Any) -> set[str]:
    if isinstance(doc, dict):
        return {str(key) for key in doc}
    if isinstance(doc, list):
        return {str(key) for item in doc if isinstance(item, dict) for key in item}
    return set()


def _compile_template(source: str, on_unknown: Callable[[str], None]) -> Any:
    from jinja2 import ChainableUndefined, TemplateSyntaxError
    from jinja2.sandbox import SandboxedEnvironment

    class Reported(ChainableUndefined):
        """An unknown name is empty (`{{ nope.x }}` too), and reported once: the same rule
        as `--json=nope`, instead of an empty line after paying or an error on a poll."""

        def __init__(self, hint: Any = None, obj: Any = None, name: Any = None, *a: Any) -> None:
            super().__init__(hint, obj, name, *a)
            if isinstance(name, str):
                on_unknown(name)

    env = SandboxedEnvironment(autoescape=False, keep_trailing_newline=True, undefined=Reported)
    env.filters["json"] = _to_json
    try:
        return env.from_string(source)
    except TemplateSyntaxError as exc:
        raise UsageError(
            f"--template: {exc.message} (line {exc.lineno})",
            hint="a Jinja template, e.g. --template '{{ id }} {{ state }}'",
        ) from None


def _to_json(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)
