"""What every run of `svc` shares, without Typer: the app context and the error boundary.

The Typer app (`svc.cli.app`) runs every command through these functions: the settings with
their precedence, and every failure as one line, a JSON object and an exit code.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from typing import Any

from svc import paid_record, redact
from svc.cli.globals import json_flag_given, shaping_flag_given
from svc.errors import ExitCode, SvcError
from svc.next_words import cli as cli_words
from svc.sanitize import clean
from svc.ui import terminal
from svc.ui.face import FaceContext, face_context
from svc.ui.output import Output
from svc.ui.terminal import StdoutGone, error_line, silence_stdout, stdout_is_tty


def build_context(
    flags: dict[str, Any],
    *,
    creates_profile: bool = False,
    needs_config: bool = True,
    repairing: bool = False,
) -> FaceContext:
    """The app context from the global flags (flag > environment > profile > default).

    `creates_profile`: the command writes the profile (`config set`, `wallet create|import`),
    so it may not exist yet.
    `needs_config`: False for commands that help fix a broken file (`help`, `config path`).
    `repairing`: the command shows or fixes the settings (`config`, `doctor`, `help`): a
    refused value (a cleartext base URL) is kept for it to show or unset."""
    # Imported here, not at the top: this module is on every start (`svc --help` too), and a
    # context is built only once a command runs.
    from svc.settings import profile_name, resolve
    from svc.store.config import ConfigFile

    config = ConfigFile()
    profile = profile_name(flags.get("profile"))
    settings = resolve(
        base_url=flags.get("base_url"),
        auth_base=flags.get("auth_base"),
        profile=flags.get("profile"),  # as given: whether a person named one is a source
        # An output flag asks for the JSON form wherever a command has one (help topics and
        # `sandbox tags` print text unless asked): `--jq` alone must not be ignored (22.2).
        json_output=any(flags.get(k) for k in ("json_output", "json_fields", "jq", "template")),
        no_input=bool(flags.get("no_input")),
        verbose=bool(flags.get("verbose")),
        profile_values=_profile_values(config, profile, creates_profile, needs_config),
        repairing=repairing,
    )
    output = _output(flags, settings.json_output)
    return face_context(settings, output, config, next_words=cli_words.words)


def _output(flags: dict[str, Any], json_output: bool) -> Any:
    """The Output the global output flags ask for (`--json FIELDS`, `--jq`, `--template` are
    compiled here, before the command does anything: a typo costs nothing)."""
    from svc.ui.pager import pager_command

    pager = pager_command(bool(flags.get("no_pager")))
    if not (flags.get("json_fields") or flags.get("jq") or flags.get("template")):
        return Output(json_mode=json_output, pager=pager)
    from svc.ui.shape import Shape, parse_fields  # only with an output flag

    shape = Shape(
        parse_fields(flags.get("json_fields")),
        flags.get("jq"),
        flags.get("template"),
        warn=lambda message: error_line(f"warning: {message}"),
    )
    return Output(json_mode=json_output, shape=shape, pager=pager)  # a shape implies JSON


def _profile_values(
    config: Any, profile: str, creates_profile: bool, needs_config: bool
) -> dict[str, Any]:
    try:
        return dict(config.profile(profile, must_exist=not creates_profile))
    except SvcError:
        if needs_config:
            raise
        return {}


def report(error: SvcError, json_mode: bool) -> int:
    """One line on stderr (and a JSON error object on stdout in JSON mode); the exit code.

    After a charge, a code that reads as "nothing was charged" is never the answer (the
    process's paid record decides): the line says so and names what was paid."""
    cli_words.present(error)  # before settle, which adds what was paid to the hint
    record = paid_record.current()
    record.settle(error)  # after a charge, never a code that reads as "nothing charged"
    message, hint = redact.scrub(error.message), redact.scrub(error.hint)  # a server may echo
    terminal.error_line(f"svc: {clean(message, 1000, single_line=True)}", 1100)
    if hint:
        terminal.error_line(f"hint: {clean(hint, 500, single_line=True)}", 600)
    if json_mode and error.json_report:
        import json

        doc = redact.scrub(error.to_json())
        if record.requests():
            doc["paid"] = record.as_json()
        try:
            terminal.write_out(json.dumps(doc) + "\n")
        except BrokenPipeError:  # nobody reads stdout: the line on stderr and the code say it
            silence_stdout()
    return int(error.exit_code)


def settle(code: int) -> int:
    """The process's exit code from a command's own: never "nothing charged" after a charge
    (with the line that says why), and an interrupt as 128 + the signal that caused it."""
    if code == ExitCode.INTERRUPTED:
        return terminal.interrupt_exit_code()
    record = paid_record.current()
    final = record.final_code(code)
    if final != code:
        terminal.error_line(f"svc: {record.explain(code, final)}", 1100)
    return final


def json_requested(argv: list[str]) -> bool:
    """Whether a failure's JSON error object goes to stdout: in JSON mode (`--json`, a pipe),
    never with `--jq` or `--template`, whose stdout stays empty on a failure (the contract):
    the line on stderr and the exit code say it."""
    if shaping_flag_given(argv):
        return False
    return json_flag_given(argv) or not stdout_is_tty()


def run_guarded(body: Callable[[], int], args: list[str]) -> int:
    """Run a command body; every failure becomes one line and an exit code, never a traceback.
    This is the one exit path: what the process paid and which signal ended it decide last
    (a fresh record for each run, so `main(argv)` in-process is a process of its own)."""
    with paid_record.scoped():
        return settle(_guarded(body, args))


def _guarded(body: Callable[[], int], args: list[str]) -> int:
    try:
        return body()
    except SvcError as error:
        return report(error, json_requested(args))
    except KeyboardInterrupt:
        error_line(terminal.interrupted_line())
        return int(ExitCode.INTERRUPTED)
    except (BrokenPipeError, StdoutGone):
        silence_stdout()  # the reader went away (`svc tasks | head`): not worth a line
        return 0
    except OSError as error:
        if error.errno not in _FULL:
            return _internal(error)
        error_line(f"svc: cannot write: {error.strerror}")  # a full disk, /dev/full
        return int(ExitCode.ERROR)
    except Exception as error:  # the last line of defence: one line, never a traceback
        return _internal(error)


# A write the disk or the stream refused: no space, over quota, too large, a device error.
_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


def _internal(error: Exception) -> int:
    """An error svc did not expect, in one line (a Ctrl-C CPython wrapped is a Ctrl-C)."""
    if terminal.caused_by_interrupt(error):  # a Ctrl-C CPython wrapped (an import's class)
        error_line(terminal.interrupted_line())
        return int(ExitCode.INTERRUPTED)
    if os.environ.get("SVC_DEBUG"):
        raise error
    # An exception's text may quote server input (a pydantic error echoes the value).
    error_line(
        f"svc: internal error: {type(error).__name__}: "
        f"{clean(str(error), 300, single_line=True)} "
        "(set SVC_DEBUG=1 for a traceback, and please report it)"
    )
    return int(ExitCode.ERROR)
