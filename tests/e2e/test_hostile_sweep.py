"""Every command on a real terminal against a server that attacks it in every string (issue 13).

The server (`tests/hostile_text.py`, stdlib only, not the sandbox) puts OSC 0/8/52, CSI, DCS,
APC, C1 controls, bidi overrides, BEL/BS/NUL/DEL and rich markup into every string field of
every answer, and C1 controls and markup into header values (HTTP lets nothing else through).

How the screen is judged: the terminal is TERM=dumb with NO_COLOR=1, where svc itself writes
no escape sequence at all (rich emits no styles for a dumb terminal, and the progress line is
drawn with carriage returns and spaces only). So any ESC, BEL, BS, NUL, DEL, C1 control, bidi
control, format character or line separator on the screen came from the server: the test allows none. Each
command must also have shown some server text (an `HX-` marker), so a command that printed
nothing cannot pass by accident. `test_hostile_sweep_with_colour` runs a few commands with
colour on a normal TERM and allows only SGR sequences (ours), never one right before a marker.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pexpect
import pytest
from tests.conftest import SVC, TEST_KEY, Cli, _base_env
from tests.hostile_text import HostileTextServer

pytestmark = pytest.mark.e2e

# Anything a terminal may act on, except tab, newline and carriage return (the pty adds CRs).
# Invisible format characters (Unicode category Cf: zero-width space, word joiner, BOM, tags)
# too, since issue 30.16: `shop\u200b.example` looked like `shop.example`.
FORBIDDEN = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e"
    "\u2060-\u206f\ufeff\U000e0000-\U000e007f]"
)
SGR = re.compile(r"\x1b\[[0-9;]*m")
Step = tuple[str, str]  # (pattern to wait for, line to send)


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileTextServer]:
    with HostileTextServer() as server:
        yield server


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, hostile: HostileTextServer) -> Cli:
    root = tmp_path_factory.mktemp("sweep")
    env = {**_base_env(root), "SVC_BASE_URL": hostile.url, "SVC_SPT": "spt_test_sweep"}
    env.pop("CI")  # a person's terminal: prompts, QR code, browser
    # The sweep submits one task again and again on a pty: the duplicate-submission question
    # (its own test: tests/e2e/test_money_safety.py) would wait for an answer here.
    env.update(TERM="dumb", BROWSER="true", SVC_DUPLICATE_WINDOW="0")
    runner = Cli(root, env)
    runner.ok("wallet", "import", input=TEST_KEY + "\n", env={"CI": "1"})
    return runner


def on_terminal(
    cli: Cli, args: list[str], steps: Sequence[Step] = (), env: dict[str, str] | None = None
) -> tuple[str, int]:
    """Run svc on a pty; answer prompts; return everything the terminal received and the exit."""
    child = pexpect.spawn(
        SVC,
        args,
        env={**cli.env, **(env or {})},
        encoding="utf-8",
        codec_errors="strict",  # bytes that are not UTF-8 would be a finding too
        timeout=30,
        dimensions=(50, 160),
    )
    screen = ""
    for pattern, answer in steps:
        child.expect(pattern)
        screen += (child.before or "") + (child.after or "")
        child.sendline(answer)
    child.expect(pexpect.EOF)
    screen += child.before or ""
    child.close()
    assert "Traceback" not in screen, screen[-3000:]
    return screen, int(child.exitstatus if child.exitstatus is not None else -1)


def flat(screen: str) -> str:
    """The screen without its whitespace: a long line is broken to fit the terminal, inside a
    word by rich or at a space by svc's own fitting (issue 30.9), so text is compared without
    the spaces and breaks either way may add or take."""
    return "".join(screen.split())


def judge(screen: str, what: str, *, shows_server_text: bool = True) -> None:
    bad = sorted({repr(c) for c in FORBIDDEN.findall(screen)})
    assert not bad, f"{what}: {bad} reached the terminal:\n{screen[-2000:]!r}"
    if shows_server_text:
        assert "HX-" in screen, f"{what}: no server text was shown:\n{screen[-2000:]}"


# The dry run shows only our numbers (the manifest's price is read as a Decimal or not at all).
NO_SERVER_TEXT = {"submit --dry-run", "spend (ledger)"}  # spend's summary: our sums, no ids
REPLY_FORM: list[Step] = [
    (r"seat: ", "aisle"),
    (r"veg\): ", "veg"),
    (r"Send this answer\? \(Y: send, e: edit, n: cancel\): ", ""),  # the review (issue 15.3)
]
COMMANDS: list[tuple[str, list[str], list[Step], tuple[int, ...]]] = [
    # (name, argv, prompt answers, allowed exit codes)
    ("submit x402 (payTo in the paying note)", ["submit", "t", "--email", "a@b.co"], [], (5,)),
    (
        "submit mpp (realm, billing headers)",
        ["submit", "t", "--email", "a@b.co", "--pay", "mpp"],
        [],
        (0,),
    ),
    (
        "submit card (checkout link, QR, wait)",
        ["submit", "t", "--email", "a@b.co", "--pay", "card"],
        [],
        (0,),
    ),
    (
        "submit --probe (network column)",
        ["submit", "t", "--email", "a@b.co", "--probe"],
        [],
        (0, 5),
    ),
    ("submit --dry-run", ["submit", "t", "--email", "a@b.co", "--dry-run"], [], (0, 1, 5, 8)),
    ("poll completed", ["poll", "tsk_done"], [], (0,)),
    ("poll failed", ["poll", "tsk_fail"], [], (0, 3)),
    ("poll blocked", ["poll", "tsk_ask"], [], (0, 6)),
    ("poll error detail", ["poll", "tsk_err"], [], (8,)),
    ("poll --json on a terminal", ["poll", "tsk_done", "--json"], [], (0,)),
    ("watch to the end", ["watch", "tsk_done", "--interval", "1"], [], (0,)),
    ("watch an ask, no input", ["watch", "tsk_ask", "--no-input", "--interval", "1"], [], (6,)),
    ("reply form (prompts, new state)", ["reply", "tsk_ask"], REPLY_FORM, (0, 1)),
    ("tasks (ledger)", ["tasks"], [], (0,)),
    ("spend (ledger)", ["spend"], [], (0,)),
    ("spend --tasks (ledger)", ["spend", "--tasks"], [], (0,)),
    ("quote", ["quote", "a goal"], [], (0,)),
    ("guide", ["guide", "a goal"], [], (0,)),
    ("api search", ["api", "search", "--all"], [], (0,)),
    ("api get", ["api", "get", "/svc/tasks"], [], (0,)),
    ("services", ["services"], [], (0,)),
    ("services show", ["services", "show", "tasks"], [], (0,)),
    ("manifest", ["manifest"], [], (0,)),
    ("llms", ["llms"], [], (0,)),
    ("llms --full", ["llms", "--full"], [], (0,)),
    ("-v poll (header values)", ["-v", "poll", "tsk_done"], [], (0,)),
    ("-v services (header values)", ["-v", "services"], [], (0,)),
]


def test_hostile_sweep_every_command_is_inert(home: Cli) -> None:
    started = time.monotonic()
    failures: list[str] = []
    for name, args, steps, codes in COMMANDS:
        screen, code = on_terminal(home, args, steps)
        try:
            judge(screen, name, shows_server_text=name not in NO_SERVER_TEXT)
            assert code in codes, f"{name}: exit {code}, expected {codes}:\n{screen[-1500:]}"
        except AssertionError as exc:
            failures.append(str(exc))
    assert not failures, "\n\n".join(failures)
    assert time.monotonic() - started < 120


def test_hostile_sweep_pay_card_resumes_inert(home: Cli) -> None:
    """`svc pay card` resumes a card payment saved without a person; its page link is hostile."""
    saved = home("submit", "t", "--email", "a@b.co", "--pay", "card", env={"CI": "1"})
    assert saved.returncode == 6, saved.stderr
    screen, code = on_terminal(home, ["pay", "card"])
    judge(screen, "pay card")
    assert code == 0, screen[-1500:]


def test_hostile_sweep_places_named_in_the_issue(home: Cli) -> None:
    """The places issue 13 found, each checked for its own marker on the screen."""
    submit = ["submit", "t", "--email", "a@b.co"]
    screens = {
        "x402 payTo": (submit, "paying 0.01 USD with x402 to 0xHX-START"),
        "MPP realm": ([*submit, "--pay", "mpp"], "with MPP (stripe) to HX-H"),
        "card link": ([*submit, "--pay", "card"], "on this page: http://127.0.0.1"),
        "probe network": ([*submit, "--probe"], "eip155:8453"),
        "-v header": (["-v", "poll", "tsk_done"], "x-hostile: HX-H"),
        "reply state": (["reply", "tsk_ask"], "answer sent; task tsk_ask is now HX-START"),
        "spend ledger": (["spend", "--tasks"], "tsk_HX-SUBMITTED"),  # the id a 202 stored
    }
    for what, (args, expected) in screens.items():
        screen, _ = on_terminal(home, args, REPLY_FORM if args[0] == "reply" else ())
        judge(screen, what)
        assert flat(expected) in flat(screen), f"{what}: {expected!r} not in:\n{screen[-2000:]}"
    probe, _ = on_terminal(home, [*submit, "--probe"])
    table = flat(probe).split(flat("402 challenges"), 1)[1]
    assert table.count("HX-START") >= 2  # the hostile payTo and the hostile network, inert
    paid = next(r for r in home.ok("tasks", "--json").json() if r["task_id"] and r["method"])
    receipt, code = on_terminal(home, ["receipt", paid["request_id"]])
    judge(receipt, "receipt")  # the task id, payTo and receipt the server sent, inert
    assert code == 0 and flat("tsk_HX-SUBMITTED") in flat(receipt), receipt[-2000:]


def test_hostile_sweep_with_colour(home: Cli) -> None:
    """With colour on a normal terminal only our own SGR styles appear, never on server text."""
    for args in (
        ["poll", "tsk_done"],
        ["tasks"],
        ["spend", "--tasks"],
        ["watch", "tsk_done", "--interval", "1"],
    ):
        screen, _ = on_terminal(home, args, env={"TERM": "xterm-256color", "NO_COLOR": ""})
        assert SGR.search(screen), f"{args}: colour was expected on this terminal"
        # Our styles end right before a field (`\x1b[0mHX-START...`); a server's own colour
        # would sit right before one of the markers inside the payload.
        assert not re.search(r"\x1b\[[0-9;]*mHX-(?!START)", screen), args
        judge(SGR.sub("", screen), " ".join(args))


def test_the_judge_catches_what_the_server_sends() -> None:
    """The judge itself: the raw payload fails it; the cleaned one passes."""
    from tests.hostile_text import HEADER_HOSTILE, HOSTILE

    from svc.sanitize import clean

    for raw in (HOSTILE, HEADER_HOSTILE):
        with pytest.raises(AssertionError):
            judge(raw, "raw")
        judge(clean(raw), "cleaned")


def test_sweep_server_is_not_the_sandbox() -> None:
    source = (Path(__file__).parents[1] / "hostile_text.py").read_text(encoding="utf-8")
    assert "svc_sandbox" not in source and "import svc" not in source
