"""The root command: global options, lazily loaded subcommands, and one error boundary.

Subcommand modules are imported only when that subcommand runs, so `svc --help` and tab
completion never import payment, keyring or sandbox code. Global options are accepted before
the subcommand (`svc --json poll ID`) and after it (`svc poll ID --json`).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, MutableMapping
from contextlib import AbstractContextManager
from typing import Any, ClassVar, TypeVar, cast

import typer
from typer import Abort
from typer import _click as click
from typer._click.exceptions import NoArgsIsHelpError
from typer._click.exceptions import UsageError as ClickUsageError
from typer._click.globals import get_current_context
from typer.core import TyperGroup

from svc import __version__
from svc.cli.declared_index import SUMMARIES
from svc.cli.globals import GLOBALS, KEYS, lone_json_field, split_json_fields
from svc.cli.runtime import build_context, run_guarded
from svc.context import AppContext
from svc.errors import ExitCode, SvcError
from svc.errors import UsageError as SvcUsageError
from svc.suggest import did_you_mean
from svc.ui.face import FaceContext
from svc.ui.terminal import StdoutGone, error_line, interrupt_exit_code, interrupted_line

T = TypeVar("T")

DECLARED = "svc.cli.declared"  # a command built from its operation's declaration
# name -> (module, one-line summary). The summary is shown by `svc --help` without importing.
COMMANDS: dict[str, tuple[str, str]] = {
    "submit": ("svc.commands.submit", "Submit a task for an end user and pay for it."),
    "poll": ("svc.commands.poll", "Fetch a task once and print its detail with events."),
    "request": (
        "svc.commands.request",
        "Send an HTTP request to any origin and pay its 402 (curl-like).",
    ),
    "watch": (
        "svc.commands.watch",
        "Follow tasks until they are final, answering asks on the way.",
    ),
    "reply": (
        "svc.commands.reply",
        "Answer a task's ask: a code, missing fields, a payment approval.",
    ),
    "tasks": (
        "svc.commands.tasks",
        "List the tasks submitted from here (a shared ledger: the fleet's).",
    ),
    "spend": (
        "svc.commands.spend",
        "Show or export what the ledger says was paid: by day, rail, runner and task.",
    ),
    "budget": (
        "svc.commands.budget",
        "Show and set spending budgets per window; reset the breaker.",
    ),
    "receipt": (DECLARED, SUMMARIES["receipt"]),
    "pay": ("svc.commands.pay", "Complete a card payment that waits for a person (svc pay card)."),
    "wallet": (
        "svc.commands.wallet",
        "Manage each profile's x402 signing key (create, import, address, list).",
    ),
    "identity": (
        "svc.commands.identity",
        "Register, claim, refresh or forget the agent credential.",
    ),
    "entitlements": ("svc.commands.entitlements", "Show active plans with remaining credit."),
    "quote": ("svc.commands.quote", "Ask the free advisor what a goal costs and how to do it."),
    "guide": ("svc.commands.guide", "Show the advisor's wallet-free guide for a goal."),
    "api": ("svc.commands.api", "Search the service's OpenAPI description (search, get)."),
    "services": ("svc.commands.services", "List the services, or show one service's operations."),
    "manifest": ("svc.commands.manifest", "Show the catalog: services, meters, plans, prices."),
    "llms": ("svc.commands.llms", "Print the service's agent guide (llms.txt)."),
    "config": ("svc.commands.config", "Read and write the config file's profiles."),
    "doctor": ("svc.commands.doctor", "Check the set-up (config, wallet, service, clock, caps)."),
    "mcp": (
        "svc.commands.mcp",
        "Serve tasks, wallet and policy to an AI agent host (MCP: stdio, or HTTP on loopback).",
    ),
    "sandbox": ("svc.commands.sandbox", "Run the local emulator of the whole service."),
    "completion": (
        "svc.commands.completion",
        "Print or install tab completion for bash, zsh, fish.",
    ),
    "help": ("svc.commands.help", "Reference topics: exit codes, environment, files."),
}
# A declared command not placed above comes last.
COMMANDS.update(
    {name: (DECLARED, text) for name, text in SUMMARIES.items() if name not in COMMANDS}
)


def _global_parameters(ignored: frozenset[str] = frozenset()) -> list[Any]:
    """The global options as keyword parameters, from the one declaration in cli/globals.py;
    those in `ignored` (a command refuses or ignores them) are accepted but not listed."""
    import inspect

    params = []
    for option in GLOBALS:
        hidden = option.hidden or option.key in ignored
        if option.takes_value:
            default = typer.Option(
                None, *option.flags, metavar=option.metavar, help=option.help, hidden=hidden
            )
            annotation: Any = str | None
        else:
            default = typer.Option(False, *option.flags, help=option.help, hidden=hidden)
            annotation = bool
        params.append(
            inspect.Parameter(
                option.key, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
            )
        )
    return params


def with_globals(func: Callable[..., Any]) -> Callable[..., Any]:
    """Give a command the global options too, and build the app context before it runs.

    The command's signature is extended (Typer reads `__signature__`), and the wrapper takes
    the global values off before calling the command, merging them over the ones given
    before the subcommand name.
    """
    import functools
    import inspect
    from typing import get_type_hints

    hints = get_type_hints(func)
    signature = inspect.signature(func)
    params = [
        p.replace(annotation=hints.get(p.name, p.annotation)) for p in signature.parameters.values()
    ]
    globals_ = _global_parameters(IGNORED_GLOBALS.get(_command_path(func), frozenset()))
    params += globals_

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        late = {key: kwargs.pop(key, None) for key in KEYS}
        ctx = get_current_context()
        root = ctx.find_root()
        flags: dict[str, Any] = dict(root.obj or {})
        flags.update({k: v for k, v in late.items() if v})
        root.obj = flags
        path = ctx.command_path.split()[1:3]
        _refuse_output_flags(path, flags)
        # They help fix the file: `help`, `config path`, and `doctor` (which names the line).
        lenient = path[:1] in (["help"], ["doctor"]) or path == ["config", "path"]
        with _traced(path) as span:
            ctx.obj = build_context(
                flags,
                creates_profile=path in _CREATES_PROFILE,
                needs_config=not lenient,
                repairing=path[:1] in (["help"], ["doctor"], ["config"]),
            )
            result = func(*args, **kwargs)
            span.set({"process.exit.code": result if isinstance(result, int) else 0})
            return result

    wrapper.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {**hints, **{p.name: p.annotation for p in globals_}}
    return wrapper


# Servers: their calls are their spans (svc.telemetry), not children of one as long as their life.
_SERVERS = (["mcp"], ["sandbox", "serve"])


def _traced(path: list[str]) -> AbstractContextManager[Any]:
    """The command's span, when the person's OpenTelemetry variables ask for traces (tracing
    starts here, before the context: a failing config read is traced too)."""
    from svc import telemetry

    warning = telemetry.start()
    if warning:
        error_line(f"svc: warning: {warning}")
    return telemetry.command(path, server=path in _SERVERS)


def _flush_traces() -> None:
    """The spans not yet sent, before the process ends (bounded: svc.telemetry)."""
    telemetry = sys.modules.get("svc.telemetry")  # never imported: nothing was traced
    try:
        warning = telemetry.finish() if telemetry is not None else None
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM while the last spans go: the code stands
        warning = "traces were not sent: interrupted"
    if warning:
        error_line(f"svc: warning: {warning}")


# Commands that write the profile they are named (a key, or a profile's secret): they create
# it (and say so). Every other command refuses a profile the file lacks: a typo in --profile
# must never drop that profile's money limits.
_CREATES_PROFILE = (["config", "set"], ["wallet", "create"], ["wallet", "import"])
OUTPUT_FLAGS = ("json_output", "json_fields", "jq", "template")
_NOT_A_CLIENT = frozenset(OUTPUT_FLAGS) | {
    "base_url",
    "auth_base",
    "profile",
    "no_pager",
    "no_input",
    "verbose",
}
# Global options a command refuses (the output flags) or ignores (a server calls no service):
# accepted, so a shared alias or environment still works, but never listed in its help.
# `svc mcp` calls the service: its base URLs, profile and trace apply.
IGNORED_GLOBALS: dict[tuple[str, ...], frozenset[str]] = {
    ("mcp",): frozenset(OUTPUT_FLAGS) | {"no_pager"},
    ("sandbox", "serve"): _NOT_A_CLIENT,
    ("completion", "show"): _NOT_A_CLIENT,
}
# Commands with no JSON form: a server, a protocol channel, a shell script. An output flag
# there is refused, never silently ignored.
NO_JSON_FORM = [list(path) for path in IGNORED_GLOBALS]


def _command_path(func: Callable[..., Any]) -> tuple[str, ...]:
    """`svc sandbox serve` from its module, svc.commands.sandbox.serve (one module a command)."""
    module = func.__module__.removeprefix("svc.commands.")
    return tuple(part.replace("_", "-") for part in module.split("."))


def _refuse_output_flags(path: list[str], flags: dict[str, Any]) -> None:
    given = [key for key in OUTPUT_FLAGS if flags.get(key)]
    if given and path in NO_JSON_FORM:
        flag = {"json_output": "--json", "json_fields": "--json", "jq": "--jq"}.get(
            given[-1], "--template"
        )
        raise SvcUsageError(
            f"svc {' '.join(path)} has no JSON form: {flag} does not apply to it",
            hint="svc help output lists the output flags and where they work",
        )


def _wrap_commands(typer_app: typer.Typer) -> typer.Typer:
    typer_app._add_completion = False  # completion is `svc completion`, not per command
    for info in typer_app.registered_commands:
        if info.callback is not None and not getattr(info.callback, "_svc_globals", False):
            info.callback = with_globals(info.callback)
            info.callback._svc_globals = True  # type: ignore[attr-defined]
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _wrap_commands(group.typer_instance)
    return typer_app


def current() -> FaceContext:
    """The app context of the running command (the CLI's: with its Output)."""
    obj = get_current_context().obj
    if not isinstance(obj, AppContext):  # pragma: no cover - a wiring bug
        raise RuntimeError("command ran without an app context")
    return cast("FaceContext", obj)


class LazyGroup(TyperGroup):
    """A group whose members are imported only when one runs: `svc --help` (and `svc identity
    --help`) list them from `members`, a name -> (module, one-line summary) table."""

    members: ClassVar[dict[str, tuple[str, str]]] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.members)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = self.members.get(cmd_name)
        if entry is None:
            return None
        if entry[0] == DECLARED:
            from svc.cli.declared import app_for

            built = app_for(cmd_name)
        else:
            built = importlib.import_module(entry[0]).app
        command = typer.main.get_command(_wrap_commands(built))
        command.name = cmd_name
        return command

    def _main_shell_completion(
        self, ctx_args: MutableMapping[str, Any], prog_name: str, complete_var: str | None = None
    ) -> None:
        """Nothing: svc completes through `svc __complete` (svc.completion). Click's own
        protocol reads `_SVC_COMPLETE` before parsing, and with it set every command answered
        "Shell complete not supported" instead of running."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """A mistyped command gets a did-you-mean, as `--state` and `--profile` values do."""
        name = args[0] if args else ""
        if name and not name.startswith("-") and name not in self.members:
            ctx.fail(f"No such command {name!r}{did_you_mean(name, tuple(self.members))}")
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, summary) for name, (_, summary) in self.members.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def lazy_group(members: dict[str, tuple[str, str]]) -> type[LazyGroup]:
    """The group class of a command group (`svc identity`, ...): its members load lazily."""
    return type("LazyGroup", (LazyGroup,), {"members": members})


def command_group(members: dict[str, tuple[str, str]], help_text: str) -> typer.Typer:
    """A command group (`svc identity`, ...): its members, named in `members`, load lazily,
    and `svc GROUP` alone shows the group's help."""
    group = typer.Typer(
        cls=lazy_group(members), rich_markup_mode=None, no_args_is_help=True, help=help_text
    )
    group.callback()(_group)  # Typer makes a group only of an app with a callback
    return group


def _group() -> None:
    """The group's own callback: its members are its commands."""


def _version(value: bool) -> None:
    if value:
        from svc.ui.terminal import write_out

        write_out(f"svc {__version__}\n")
        raise typer.Exit()


app: typer.Typer = typer.Typer(
    cls=lazy_group(COMMANDS),
    name="svc",
    help="Submit, pay for, follow and answer tasks of the paid task-execution service.\n\n"
    "Every command takes the global options below, before or after its name. Reference: "
    "svc help exit-codes, svc help environment, svc help files. Try it without money against "
    "the local sandbox:\n\n"
    "\b\nExamples:\n"
    "  svc sandbox serve &\n"
    "  svc wallet create\n"
    "  svc submit 'Book a table for two at 7pm #2fa' --email me@example.com --wait",
    epilog="Exit codes: 0 ok, 1 error, 2 usage, 3 task failed, 4 auth, 5 payment, "
    "6 human needed, 7 not found, 8 conflict/expired, 9 unavailable, 10 outcome unknown, "
    "130 interrupted.",
    rich_markup_mode=None,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def root(ctx: typer.Context, **values: Any) -> None:
    """The root callback: the global options given before the subcommand's name."""
    values.pop("version", None)
    ctx.obj = {key: values.get(key) or None for key in KEYS}


def _root_signature() -> Any:
    import inspect

    version = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    )
    keyword = inspect.Parameter.KEYWORD_ONLY
    params = [
        inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context),
        *_global_parameters(),
        inspect.Parameter("version", keyword, default=version, annotation=bool),
    ]
    return inspect.Signature(params)


root.__signature__ = _root_signature()  # type: ignore[attr-defined]
root.__annotations__ = {p.name: p.annotation for p in root.__signature__.parameters.values()}  # type: ignore[attr-defined]
app.callback()(root)


def usage_error(error: click.ClickException, args: list[str]) -> SvcError:
    """Click's four-line usage message as one line, a hint, and the contract's exit code."""
    message = error.format_message().replace("Value error, ", "")
    command = "svc"
    if isinstance(error, ClickUsageError) and error.ctx is not None:
        command = error.ctx.command_path
    if command == "svc":  # some errors carry the root context: name the command typed
        command = " ".join(["svc", *[a for a in args if a in COMMANDS][:1]])
    usage = isinstance(error, ClickUsageError)  # else a file Click could not open, say
    hint = f"see '{command} --help'" if usage else None
    field = _lone_field(message, args, command)
    if field is not None:
        hint = f"one field needs '=': --json={field} ({hint})"
    return SvcError(
        " ".join(message.split()),
        code="usage_error" if usage else "error",
        hint=hint,
        exit_code=ExitCode.USAGE if usage else ExitCode.ERROR,
    )


# Click's words when an argument is missing or one too many: what `--json state` causes when
# `state` was meant as the field list (it was taken as the argument, or as one more).
_ARGUMENT_ERRORS = ("Missing argument", "Got unexpected extra argument", "No such command")


def _lone_field(message: str, args: list[str], command: str) -> str | None:
    if not message.startswith(_ARGUMENT_ERRORS):
        return None
    return lone_json_field(args, command.removeprefix("svc ").split(" ")[0])


def _pipe_guarded(step: Callable[..., T]) -> Callable[..., T]:
    """A step of the root command's run (parsing, which prints `--help`, and the invoke) with
    a broken stdout pipe passed on as StdoutGone: Click would catch the OSError itself and
    exit 1, and svc's exit path is the one that decides."""

    def guarded(*args: Any, **kwargs: Any) -> T:
        try:
            return step(*args, **kwargs)
        except BrokenPipeError:
            raise StdoutGone from None

    return guarded


def main(argv: list[str] | None = None) -> int:
    args = split_json_fields(list(sys.argv[1:] if argv is None else argv), frozenset(COMMANDS))

    def body() -> int:
        from svc.cli.help_format import install

        install()
        command = typer.main.get_command(app)
        command.make_context = _pipe_guarded(command.make_context)  # type: ignore[method-assign]
        command.invoke = _pipe_guarded(command.invoke)  # type: ignore[method-assign]
        try:
            result = command.main(args=args, prog_name="svc", standalone_mode=False)
        except NoArgsIsHelpError as error:  # `svc group` alone: its help, as Click shows it
            error.show()
            return int(error.exit_code)
        except click.ClickException as error:
            from svc.cli.runtime import json_requested, report

            return report(usage_error(error, args), json_requested(args))
        except Abort:  # Click's own Ctrl-C (or end of input at a prompt)
            error_line(interrupted_line() if interrupt_exit_code() != 130 else "svc: aborted")
            return int(ExitCode.INTERRUPTED)
        code = int(result) if isinstance(result, int) else 0
        if code == ExitCode.INTERRUPTED:  # Typer turns Ctrl-C into a bare exit code
            error_line(interrupted_line())
        return code

    try:
        return run_guarded(body, args)
    finally:
        _flush_traces()
