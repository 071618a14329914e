"""The reference text shared by `svc help TOPIC`, the man pages and the docs site.

Plain data (the settings table's rows are plain data too): `svc help` prints it,
`tools.docgen` writes it into every man page's ENVIRONMENT, FILES and EXIT STATUS sections, and
tests check it against `ExitCode` and the environment variables the code reads, so the three
never drift apart. The variables of settings come from the settings table
(svc/settings_table.py); only the others are written here.
"""

from __future__ import annotations

from svc.settings_table import SETTINGS, Setting

# (code, name, meaning, what to do)
EXIT_CODES: tuple[tuple[int, str, str, str], ...] = (
    (0, "ok", "success (for watch, --wait, poll --exit-status: the task completed)", ""),
    (
        1,
        "error",
        "an error not covered below; also a run that paid and then failed in a way that would "
        "otherwise be 2, 5 or 9 (the message names the paid task)",
        "read the message; SVC_DEBUG=1 shows a traceback; a paid task: `svc watch ID`",
    ),
    (
        2,
        "usage",
        "usage or input error: bad flags or arguments, client-side validation, server 400/422",
        "fix the flags or the input; nothing was sent or charged",
    ),
    (
        3,
        "task failed",
        "the task ended failed or cancelled",
        "see error and reason in `svc poll ID`",
    ),
    (
        4,
        "auth",
        "authentication or identity: 401, no credential, claim needed or failed",
        "`svc identity status`, then `svc identity register` or `svc identity claim`",
    ),
    (
        5,
        "payment",
        "payment refused or failed: policy, no wallet, settlement, payment rejected",
        "the message names the limit (`svc config list`); nothing was signed or charged",
    ),
    (
        6,
        "human needed",
        "the task waits on the user (or a card page) and prompting is off",
        "`svc reply ID ...` (or `svc pay card`), then `svc watch ID`",
    ),
    (7, "not found", "not found (404)", "check the id: `svc tasks`"),
    (
        8,
        "conflict",
        "conflict or expired (409, 410)",
        "the task is not waiting on that answer, or the ask expired: `svc poll ID`",
    ),
    (
        9,
        "unavailable",
        "service unavailable: network failure, 5xx or rate limit after bounded retries",
        "try again later; nothing was charged",
    ),
    (
        10,
        "outcome unknown",
        "a paid request's response was lost and could not be reconciled",
        "run the command the error line names (`svc submit --request-id ID --email E TASK`): "
        "it re-sends the same proof and never pays again",
    ),
    (
        11,
        "pending",
        "poll --exit-status only: the task is still live (pending or running), not an error",
        "poll again later, or `svc watch ID` to wait for it",
    ),
    (
        130,
        "interrupted",
        "interrupted (Ctrl-C); SIGTERM (143) and SIGHUP (129) take the same path",
        "a read or `svc watch ID` can simply be started again; an interrupted paid submit names "
        "the command that resumes it without paying (`svc watch ID` once the task exists, "
        "`svc submit --request-id ID ...` before): a plain re-run of the submit pays again",
    ),
)


def _variable(row: Setting) -> tuple[str, str]:
    """A setting's environment variable and its meaning: the help, then the flag, the config
    key and the default that stand beside it."""
    beside = [
        row.flag,
        f"config {row.key}" if row.in_file else None,
        f"default {row.default_words}" if row.default_words else None,
    ]
    return str(row.env), f"{row.help} ({'; '.join(part for part in beside if part)})"


# (variable, meaning): the settings' variables, then the others. Internal switches used only by
# the test suite are left out on purpose.
ENVIRONMENT: tuple[tuple[str, str], ...] = (
    *(_variable(row) for row in SETTINGS if row.env),
    ("SVC_TASK_ID", "set (not read) for a `watch --exec` hook: the task's id"),
    ("SVC_TASK_STATE", "set for a `watch --exec` hook: the state now"),
    ("SVC_TASK_PREVIOUS_STATE", "set for a `watch --exec` hook: the state seen before (or empty)"),
    ("SVC_TASK_ASK", "set for a `watch --exec` hook: none, plain, structured or payment"),
    ("SVC_NO_INPUT", "1: never prompt (--no-input); exit 6 where a person is needed"),
    ("CI", "set (any value): never prompt, as with SVC_NO_INPUT=1"),
    ("SVC_PAGER", "the pager for long terminal output (empty: none); else PAGER, else less -FRX"),
    ("PAGER", "the pager when SVC_PAGER is unset (empty or cat: none)"),
    ("SVC_WALLET_KEY", "x402 signing key (hex) for CI, instead of the stored one"),
    ("SVC_SPT", "MPP shared payment token for CI, instead of the stored one"),
    ("SVC_TIMEOUT", "seconds for each read, and for each whole answer (default 30)"),
    ("SVC_MAX_RESPONSE_BYTES", "largest answer accepted, in decoded bytes (default 16 MiB)"),
    (
        "HTTPS_PROXY",
        "proxy for https:// URLs (https_proxy too; scheme-less means http://); "
        "svc doctor names the one in effect",
    ),
    ("HTTP_PROXY", "proxy for http:// URLs (http_proxy too; ignored when REQUEST_METHOD is set)"),
    ("ALL_PROXY", "proxy for both when the one above is unset (all_proxy too)"),
    (
        "NO_PROXY",
        "hosts reached directly, as curl reads it: name (and its subdomains), .name, IP, "
        "CIDR, * (no_proxy too); loopback goes through the proxy unless listed",
    ),
    ("SSL_CERT_FILE", "CA bundle (PEM) to verify https servers with, instead of the built-in one"),
    ("SSL_CERT_DIR", "directory of CA certificates (c_rehash), when SSL_CERT_FILE is unset"),
    ("SVC_CONFIG_DIR", "directory of config.toml (and of secrets.json when there is no keyring)"),
    ("SVC_DATA_DIR", "directory of the local ledger, ledger.sqlite3"),
    ("SVC_KEYRING", "file: keep secrets in a 0600 file in the config dir, not the OS keyring"),
    ("SVC_DEBUG", "1: print a traceback on an internal error"),
    ("NO_COLOR", "set (any value): no colour on a terminal"),
    ("BROWSER", "the browser to open a payment or claim page with (also over SSH)"),
    (
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "traces over OTLP/HTTP to this collector (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT too); "
        "off unless set, and with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none",
    ),
    ("OTEL_SERVICE_NAME", "the service name of svc's traces (default svc)"),
)

# (path, meaning)
FILES: tuple[tuple[str, str], ...] = (
    (
        "$SVC_CONFIG_DIR/config.toml",
        "profiles of settings (default: the platform's user config dir, e.g. ~/.config/svc)",
    ),
    (
        "$SVC_DATA_DIR/ledger.sqlite3",
        "the local ledger: request ids, payment proofs, task ids (default: the user data dir, e.g. ~/.local/share/svc)",
    ),
    (
        "$SVC_CONFIG_DIR/secrets.json",
        "secrets (mode 0600), only where no OS keyring is usable or SVC_KEYRING=file",
    ),
)

# (flag or case, what it does): the output flags and their one rule
OUTPUT: tuple[tuple[str, str], ...] = (
    ("--json", "the whole object, as the service returned it (NDJSON, a line each, on streams)"),
    ("--json=F1,F2", "only those top-level fields"),
    ("--jq EXPR", "a jq program run inside svc; strings print raw, like jq -r"),
    ("--template TPL", "a Jinja template (sandboxed): fields by name, `doc`, a list as `items`"),
    ("any of them", "work on every command with a JSON form, with or without --json"),
    (
        "a missing field",
        "null (empty in a template), never an error: one warning names it and the fields there are",
    ),
    ("a bad EXPR or TPL", "exit 2 before anything is sent or paid"),
    (
        "EXPR or TPL failing",
        "exit 2 on a free command; after a paid request, a warning naming the task, and the "
        "paid outcome's exit code stands (a closed stdout too): it never reads as 'nothing charged'",
    ),
    ("--no-pager", "no pager for long output on a terminal (SVC_PAGER= too; never into a pipe)"),
)

TOPICS: dict[str, str] = {
    "exit-codes": "What each exit code means and what to do about it.",
    "environment": "Environment variables svc reads.",
    "files": "Where svc keeps its config, ledger and secrets.",
    "output": "The output flags (--json, --jq, --template) and their rules.",
}


def render(topic: str) -> str:
    """The topic as plain text for a terminal (aligned columns, one entry a line)."""
    if topic == "exit-codes":
        lines = ["Exit codes of svc (every command):", ""]
        for code, name, meaning, todo in EXIT_CODES:
            lines.append(f"  {code:>3}  {name:<16}{meaning}")
            if todo:
                lines.append(f"  {'':>3}  {'':<16}-> {todo}")
        lines += [
            "",
            'With --json, a failure also prints {"error", "detail", "exit_code"} on stdout.',
            "2, 5 and 9 say nothing was charged: a run that paid never ends with one of them.",
        ]
        return "\n".join(lines) + "\n"
    rows = {"environment": ENVIRONMENT, "files": FILES, "output": OUTPUT}[topic]
    title = {
        "environment": "Environment variables (a flag wins over the environment, which wins over the config profile):",
        "files": "Files:",
        "output": "Output flags (global: before or after the command):",
    }[topic]
    width = max(len(name) for name, _ in rows) + 2
    return "\n".join([title, "", *(f"  {name:<{width}}{text}" for name, text in rows)]) + "\n"
