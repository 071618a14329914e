"""Test-only crash points: `SVC_TEST_CRASH_AT=<step>` kills the process at that named step,
and `SVC_TEST_DISK_FULL_AT=<step>` fills its disk there.

The crash-safety tests (tests/e2e/test_crash_safety.py) SIGKILL a paid submit at every step
and prove that resuming it reaches one task and one charge. A real SIGKILL from outside cannot
hit a step reliably, so the process kills itself, exactly where the name says, the same way
(`SIGKILL`: no `finally`, no atexit, no flushing, no SQLite rollback).

Next to no cost when unset: the two variables are read once per process (a forked child reads
its own: the fork server's children set theirs after the fork), then each named point is one
comparison, and nothing is imported. A batch passes five points a task; reading the
environment at each was two failed look-ups, each an exception raised and caught.

Steps of a paid submit, in order:

* ``ledger_written``: the submission's row is committed, nothing was sent;
* ``challenge_received``: the 402 arrived, nothing was signed;
* ``proof_journaled``: the proof is signed and committed to the ledger, not yet sent;
* ``proof_sent``: the paid request was sent and answered (the service charged), unread;
* ``response_recorded``: the answer is recorded in the ledger, nothing was printed.

`SVC_TEST_CRASH_SIGNAL=TERM` (or `HUP`, `INT`) sends that signal instead, at the same step:
the signal tests (tests/e2e/test_signals.py) prove each one takes Ctrl-C's path.

The disk fills by the kernel's own rule, not a mock: from that step on, the file size limit
(RLIMIT_FSIZE) is 0 and SIGXFSZ ignored, so every later write to a file fails with EFBIG exactly
as on a full disk (SQLite: `disk I/O error`), for root too and without privileges (CI).

Steps of the agent identity (right after the platform's answer was written to the secret
store, before the metadata file): ``register_persisted``, ``refresh_persisted``,
``claim_persisted``.
"""

from __future__ import annotations

import os

ENV = "SVC_TEST_CRASH_AT"
SIGNAL_ENV = "SVC_TEST_CRASH_SIGNAL"
DISK_FULL_ENV = "SVC_TEST_DISK_FULL_AT"
SUBMIT_STEPS = (
    "ledger_written",
    "challenge_received",
    "proof_journaled",
    "proof_sent",
    "response_recorded",
)
IDENTITY_STEPS = ("register_persisted", "refresh_persisted", "claim_persisted")
STEPS = SUBMIT_STEPS + IDENTITY_STEPS


class _Asked:
    """The steps this process was asked to crash and to fill its disk at (None: not read yet)."""

    steps: tuple[str | None, str | None] | None = None


def _forget_asked() -> None:
    _Asked.steps = None


os.register_at_fork(after_in_child=_forget_asked)


def crash_point(step: str) -> None:
    """Die by SIGKILL here if the test asked for this step (or get the signal it named)."""
    if _Asked.steps is None:
        _Asked.steps = (os.environ.get(ENV), os.environ.get(DISK_FULL_ENV))
    crash_at, fill_at = _Asked.steps
    if step not in (crash_at, fill_at):
        return
    if crash_at == step:
        import signal

        chosen = os.environ.get(SIGNAL_ENV)
        os.kill(os.getpid(), getattr(signal, f"SIG{chosen}") if chosen else signal.SIGKILL)
        if chosen:
            return  # Python runs the handler before the next instruction (in the main thread)
        os._exit(137)  # pragma: no cover - not reached where SIGKILL exists
    if fill_at == step:
        fill_disk()


def fill_disk() -> None:
    """From now on no write to a file succeeds (pipes and terminals still work)."""
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of death
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
