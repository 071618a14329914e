"""Every setting, written once: its key, environment variable, flag, kind, default,
help, and whether it may live in the config file or be the fleet's one value.

`svc.settings.resolve` (flag > environment > profile > default) reads each setting through the
parser of its kind (svc.settings.PARSERS: one per kind, amounts only through svc.money); the
config file's keys and their checks (svc.store.config.KEYS), `svc config list`, `svc help
environment`, the completion of `svc config get|set|unset KEY` and the settings table of
docs/guide/configuration.md (tools/settings_doc.py, `make docs`) are all derived from
SETTINGS, as gh's one `configOptions` list feeds both its validation and its help.

Adding a setting is one row here (and its typed field on svc.settings.Settings, with the same
default: tests/unit/test_settings_table.py checks both); a new kind needs its parser in
svc.settings.PARSERS.

Plain data, cheap to import (`svc --help` reads the settings module): named tuples (a
dataclass costs five times as much to define), no pydantic, no parsing.
"""

from __future__ import annotations

from typing import NamedTuple

from svc import rail_table


class Setting(NamedTuple):
    key: str  # the config key and the Settings field
    kind: str  # the parser: a key of svc.settings.PARSERS
    help: str  # one line: `svc config list --json`, `svc help environment`, the docs' table
    env: str | None = None  # the environment variable that sets it
    flag: str | None = None  # the flag that sets it (a global one or a command's), for people
    default: str | None = None  # as written in the config file; None: unset
    unset: str = ""  # what an unset value means, for people ("the host name")
    in_file: bool = True  # may be written in a config profile
    fleet: bool = False  # may be the fleet's one value (`svc config set KEY V --fleet`)
    choices: tuple[str, ...] = ()  # the only values it takes (completion offers them)

    @property
    def default_words(self) -> str:
        """The default as people read it: the value, else what unset means."""
        return self.default if self.default is not None else self.unset


BOOL = ("true", "false")

SETTINGS: tuple[Setting, ...] = (
    Setting(
        "base_url",
        "url",
        "service base address",
        env="SVC_BASE_URL",
        flag="--base-url",
        default="http://127.0.0.1:8402",  # the local sandbox: never a paid service by accident
    ),
    Setting(
        "auth_base",
        "url",
        "identity endpoints base address",
        env="SVC_AUTH_BASE",
        flag="--auth-base",
        unset="{base_url}/auth",
    ),
    Setting(
        "allow_insecure_http",
        "bool",
        "accept a plain http:// base URL or auth base on another machine, warning at each "
        "payment or credential; loopback needs no setting",
        env="SVC_ALLOW_INSECURE_HTTP",
        default="false",
        choices=BOOL,
    ),
    Setting(
        "profile",
        "profile",
        "the profile of the config file to read",
        env="SVC_PROFILE",
        flag="--profile",
        default="default",
        in_file=False,
    ),
    Setting("email", "text", "default end-user e-mail for submit", env="SVC_EMAIL", flag="--email"),
    Setting(
        "pay",
        "rail",
        "payment method",
        env="SVC_PAY",
        flag="--pay",
        default=rail_table.DEFAULT,
        choices=rail_table.NAMES,
    ),
    Setting(
        "max_price_usd",
        "usd",
        "most paid per call in USD without asking",
        env="SVC_MAX_PRICE",
        flag="--max-price",
        default="1.50",
    ),
    Setting(
        "allowed_networks",
        "list",
        "x402 networks allowed, comma separated; from a loopback base URL also Base Sepolia",
        default="eip155:8453",
    ),
    Setting(
        "allowed_assets",
        "list",
        "x402 asset contracts allowed, comma separated; from a loopback base URL also Base "
        "Sepolia's USDC",
        default="0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",  # Base USDC
    ),
    Setting(
        "poll_interval",
        "interval",
        "seconds between polls while watching",
        env="SVC_POLL_INTERVAL",
        flag="--interval",
        unset="1 on loopback, else 15",
    ),
    Setting(
        "notify",
        "bool",
        "watch and submit --wait tell the person when a task waits on them",
        env="SVC_NOTIFY",
        default="false",
        choices=BOOL,
    ),
    Setting(
        "allowed_rails",
        "rails",
        f"payment rails allowed, comma separated: {rail_table.in_words(last='and')}",
        default=",".join(rail_table.NAMES),
    ),
    Setting(
        "daily_cap_usd",
        "cap",
        "most paid or authorized per day in USD across all processes; none: no cap, on "
        "purpose; on a fleet the value set with `svc config set daily_cap_usd N --fleet` wins",
        env="SVC_DAILY_CAP",
        default="15.00",  # ten tasks at 1.50 USD: a runaway loop or batch stops there
        fleet=True,
    ),
    Setting("mpp_methods", "list", "MPP methods in order of preference", default="stripe"),
    Setting(
        "spt_file",
        "text",
        "file holding a shared payment token for MPP, mode 0600",
        env="SVC_SPT_FILE",
    ),
    Setting("spt_command", "text", "command printing a fresh shared payment token for MPP"),
    Setting(
        "max_validity_seconds",
        "validity",
        "longest validity in seconds signed into an x402 authorization",
        env="SVC_MAX_VALIDITY",
        default="300",
    ),
    Setting(
        "duplicate_window_seconds",
        "seconds_or_off",
        "seconds within which the same task and e-mail again asks (terminal) or is refused "
        "(script, library, svc mcp) unless allowed; 0 turns it off",
        env="SVC_DUPLICATE_WINDOW",
        default="600",
    ),
    Setting(
        "ledger_url",
        "ledger_url",
        "fleet mode: the shared ledger, postgresql://user@host/db, no password in the file",
        env="SVC_LEDGER_URL",
        unset="the local file",
    ),
    Setting(
        "runner",
        "runner",
        "this runner's name in a shared ledger",
        env="SVC_RUNNER",
        unset="the host name",
    ),
    Setting(
        "mcp_preapproved_usd",
        "usd",
        "svc mcp: paid calls up to this price in USD are paid without asking the person",
        env="SVC_MCP_PREAPPROVED_USD",
        unset="always confirm",
    ),
    Setting(
        "mcp_allow_model_secrets",
        "bool",
        "svc mcp: accept a secret typed by the model in reply_to_task",
        env="SVC_MCP_ALLOW_MODEL_SECRETS",
        default="false",
        choices=BOOL,
    ),
    Setting(
        "request_origins",
        "origins",
        "svc mcp: the origins (https://host[:port]) its paid_request tool may pay; none: no tool",
        env="SVC_REQUEST_ORIGINS",
        unset="none: svc mcp has no paid_request tool",
    ),
    # The wallet's signer, per profile (docs/signers.md): config file only.
    Setting(
        "signer",
        "signer",
        "what signs this profile's payments: store (its key in the secret store), env "
        "(SVC_WALLET_KEY), command:PATH [ARGS] or jsonrpc:URL",
        default="store",
    ),
    Setting(
        "signer_address",
        "address",
        "the address an external signer signs for",
        unset="a jsonrpc: signer's only account",
    ),
    Setting(
        "signer_timeout",
        "seconds",
        "seconds an external signer may take (a person may approve on a device)",
        default="60",
    ),
    # Budgets: `svc budget` sets the budgets themselves (in the ledger); these bound
    # how fast a runner pays and when it stops.
    Setting(
        "max_paid_per_hour",
        "count_or_off",
        "paid requests this runner may start in an hour (svc budget shows it); 0: no limit",
        env="SVC_MAX_PAID_PER_HOUR",
        unset="no limit",
    ),
    Setting(
        "breaker_after",
        "count",
        "failed or refunded paid requests in a row that stop this runner paying until svc "
        "budget reset-breaker or an hour after the oldest; 0: off",
        env="SVC_BREAKER_AFTER",
        default="5",
    ),
    Setting(
        "budget_warn_percent",
        "count",
        "how full a budget is when svc warns, once a window",
        env="SVC_BUDGET_WARN_PERCENT",
        default="80",
    ),
    Setting(
        "session_budget_usd",
        "usd",
        "svc mcp: the most each session may spend in USD",
        env="SVC_SESSION_BUDGET_USD",
        unset="no session budget",
    ),
)


def described(row: Setting) -> str:
    """Its help and its default, as `svc config list --json` and the help topic say them."""
    default = row.default_words
    return f"{row.help} (default {default})" if default else row.help


BY_KEY: dict[str, Setting] = {row.key: row for row in SETTINGS}
FILE_KEYS: tuple[str, ...] = tuple(row.key for row in SETTINGS if row.in_file)
FLEET_KEYS: tuple[str, ...] = tuple(row.key for row in SETTINGS if row.fleet)
