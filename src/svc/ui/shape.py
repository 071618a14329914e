"""What `--json FIELDS`, `--jq EXPR` and `--template TPL` make of a JSON document (issue 15.5).

Every command's machine output goes through `Output.emit_json` / `emit_line`, and those hand
the document here, so the flags work on every command that prints JSON, and per line on NDJSON
streams. The expression and the template are compiled when the command starts: a typo is exit
2 before anything is sent or paid. Neither jq nor Jinja is imported unless its flag is given.

Server text stays inert: a string printed raw by `--jq` or a rendered template is cleaned on a
terminal (escape sequences shown, never run); into a pipe it goes as the server sent it, as
`svc llms > file` does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from svc.errors import ExitCode, SvcError, UsageError


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
        self._jq = _compile_jq(jq) if jq is not None else None
        self._template = _compile_template(template) if template is not None else None
        self._warn = warn
        self._warned = False

    @property
    def active(self) -> bool:
        return bool(self.fields) or self._jq is not None or self._template is not None

    def apply(self, doc: Any) -> list[str | Any]:
        """The pieces to print: a str is text (printed raw), anything else a JSON value."""
        if self.fields:
            doc = self._select(doc)
        if self._jq is not None:
            try:
                return list(self._jq.input_value(doc).all())
            except ValueError as exc:
                raise ShapeError(f"--jq: {exc}") from None
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
        if not docs or self._warned or self._warn is None:
            return
        present = {key for doc in docs for key in doc}
        unknown = [name for name in self.fields if name not in present]
        if unknown:
            self._warned = True
            self._warn(
                f"--json: no field {unknown[0]!r} in this output (shown as null); "
                f"fields: {', '.join(sorted(present))}"
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


def _compile_template(source: str) -> Any:
    from jinja2 import TemplateSyntaxError
    from jinja2.sandbox import SandboxedEnvironment

    env = SandboxedEnvironment(autoescape=False, keep_trailing_newline=True)
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
