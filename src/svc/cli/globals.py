"""The global options, declared once.

The root callback and every command (`svc.cli.app`), the completion table and the error
boundary's "was JSON asked for?" (`svc.cli.runtime`) all derive their tables from `GLOBALS`.
Plain data with no imports.
"""

from __future__ import annotations


class GlobalOption:
    """One global option: its settings key, its flags, and whether it takes a value."""

    __slots__ = ("flags", "help", "hidden", "key", "metavar", "takes_value")

    def __init__(
        self,
        key: str,
        flags: tuple[str, ...],
        help: str,
        *,
        metavar: str | None = None,
        hidden: bool = False,
    ) -> None:
        self.key: str = key
        self.flags: tuple[str, ...] = flags
        self.help: str = help
        self.metavar: str | None = metavar
        self.takes_value: bool = metavar is not None
        self.hidden: bool = hidden


GLOBALS: tuple[GlobalOption, ...] = (
    GlobalOption(
        "base_url", ("--base-url",), "Service base address [env: SVC_BASE_URL].", metavar="URL"
    ),
    GlobalOption(
        "auth_base",
        ("--auth-base",),
        "Identity endpoints base [env: SVC_AUTH_BASE].",
        metavar="URL",
    ),
    GlobalOption("profile", ("--profile",), "Config profile [env: SVC_PROFILE].", metavar="NAME"),
    GlobalOption(
        "json_output",
        ("--json",),
        "Machine output (JSON) on stdout, even on a terminal. --json=F1,F2 (or --json F1,F2) "
        "keeps only those top-level fields.",
    ),
    # `--json=FIELDS` is rewritten to `--json --json-fields FIELDS` before Click parses.
    GlobalOption("json_fields", ("--json-fields",), "Fields to keep.", metavar="F,F", hidden=True),
    GlobalOption(
        "jq",
        ("--jq",),
        "Filter the JSON output with a jq expression (strings print raw; implies --json).",
        metavar="EXPR",
    ),
    GlobalOption(
        "template",
        ("--template",),
        "Format the JSON output with a Jinja template, e.g. '{{ id }} {{ state }}' (implies "
        "--json; a list is given as `items`).",
        metavar="TPL",
    ),
    GlobalOption("no_pager", ("--no-pager",), "Never page long output [env: SVC_PAGER=]."),
    GlobalOption("no_input", ("--no-input",), "Never prompt [env: SVC_NO_INPUT=1]."),
    GlobalOption("verbose", ("-v", "--verbose"), "HTTP trace on stderr, secrets redacted."),
)

KEYS: tuple[str, ...] = tuple(option.key for option in GLOBALS)
# Flags after which stdout carries JSON (errors then also go to stdout as a JSON document).
JSON_FLAGS = ("--json", "--jq", "--template")
# Flags whose stdout is what a program made of the answer: a failure leaves it empty (issue
# 30.1), or `id=$(svc submit ... --jq .id)` would take the error object for an id.
SHAPING_FLAGS = ("--jq", "--template")


def json_flag_given(argv: list[str]) -> bool:
    return any(arg.partition("=")[0] in JSON_FLAGS for arg in argv)


def shaping_flag_given(argv: list[str]) -> bool:
    return any(arg.partition("=")[0] in SHAPING_FLAGS for arg in argv)


def split_json_fields(argv: list[str], commands: set[str] | frozenset[str]) -> list[str]:
    """`--json=F1,F2` and `--json F1,F2` (a comma list of field names, not a command) become
    `--json --json-fields F1,F2`; a bare `--json` is left as it is. One field alone needs the
    `=` form: `--json ID` must stay `--json` followed by an id."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        if token == "--":
            out += argv[i - 1 :]
            break
        if token.startswith("--json="):
            out += ["--json", "--json-fields", token.removeprefix("--json=")]
        elif token == "--json" and i < len(argv) and _is_field_list(argv[i], commands):
            out += ["--json", "--json-fields", argv[i]]
            i += 1
        else:
            out.append(token)
    return out


def _is_field_list(token: str, commands: set[str] | frozenset[str]) -> bool:
    if "," not in token or token in commands:
        return False
    return all(part.isidentifier() for part in token.split(","))


# The top-level fields of the commands whose output people pick fields of: gh's
# `--json state` habit. A usage error where such a word follows `--json` says that one field
# needs the `=` form. Kept here as plain data (no import on the error path); a test holds
# them to the task detail model, the ledger row and the spend report.
TASK_FIELDS = frozenset(
    [
        "id",
        "state",
        "goal",
        "flow",
        "error",
        "result",
        "reason",
        "created_at",
        "updated_at",
        "completed_at",
        "webhook_url",
        "max_budget_usd",
        "info_request",
        "events",
    ]
)
LEDGER_ROW_FIELDS = frozenset(
    [
        "request_id",
        "base_url",
        "email",
        "task_preview",
        "method",
        "status",
        "amount_atomic",
        "pay_to",
        "payer",
        "network",
        "asset",
        "task_id",
        "state",
        "http_status",
        "billing",
        "error",
        "created_at",
        "updated_at",
        "usage_error",
        "refunded_atomic",
        "origin",
        "runner",
        "has_proof",
        "status_reason",
        "refresh_error",
    ]
)
SPEND_FIELDS = frozenset(
    [
        "window",
        "total_usd",
        "paid_usd",
        "refunded_usd",
        "paid_count",
        "refund_count",
        "by_day",
        "by_rail",
        "by_method",
        "by_runner",
        "tasks",
        "outstanding_usd",
        "outstanding",
        "unknown_outcome",
        "awaiting_card",
        "cap",
    ]
)
OUTPUT_FIELDS: dict[str, frozenset[str]] = {
    "submit": TASK_FIELDS,
    "poll": TASK_FIELDS,
    "watch": TASK_FIELDS,
    "reply": TASK_FIELDS,
    "tasks": LEDGER_ROW_FIELDS,
    "spend": SPEND_FIELDS,
}


def lone_json_field(argv: list[str], command: str) -> str | None:
    """The word after a bare `--json` when it is a field of `command`'s output (`svc poll ID
    --json state`): what a gh user meant as `--json=state`."""
    fields = OUTPUT_FIELDS.get(command, frozenset())
    for i, flag in enumerate(argv[:-1]):  # no itertools: this module imports nothing
        if flag == "--json" and argv[i + 1] in fields:
            return argv[i + 1]
    return None
