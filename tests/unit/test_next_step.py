"""An error's next step as data, and each face's words for it (issue 32.3): the CLI's exact
command text (the e2e tests pin it in context), the tool call for `svc mcp`, the method and
argument for the library; and no face but the CLI names a flag or a command."""

from __future__ import annotations

import pytest
from tests.unit.test_engines_name_no_flag import CLI_WORDS

from svc.errors import PolicyRefused, SvcError
from svc.next_step import NEUTRAL, Next, step
from svc.next_words import CLI_WORDS as CLI_TABLE
from svc.next_words import LIBRARY_WORDS, MCP_WORDS
from svc.next_words import cli as cli_words
from svc.next_words import library as client_words
from svc.next_words import mcp as mcp_words

FACTS = {
    "request_id": "req_1",
    "email": "a b@example.com",
    "task": "Book it #2fa",
    "rails": "x402,mpp",
    "base_url": "https://svc.test",
    "runner": "ci-7",
    "key": "mcp_allow_model_secrets",
    "names": "pin",
    "task_id": "task_1",
}
FACES = {"cli": CLI_TABLE, "mcp": MCP_WORDS, "client": LIBRARY_WORDS}
# (face, action) -> why its words name a command: addressed to the person, not the caller.
NAMES_THE_PERSONS_COMMAND = {
    ("mcp", "answer_in_terminal"): "a secret this client cannot ask for reaches the service "
    "only from the person's own terminal: the model tells the person what to type",
}


def resume() -> Next:
    return step("resume_submit", "reconcile without paying again: ", **FACTS)


def test_an_error_with_a_next_step_says_it_neutrally_until_a_face_presents_it() -> None:
    error = SvcError("lost", next=resume())
    assert error.hint == (
        "reconcile without paying again: a resume of request req_1 (the same request id and task)"
    )
    assert not CLI_WORDS.search(error.hint)


def test_the_cli_words_the_resume_as_the_exact_command() -> None:
    error = SvcError("lost", next=resume())
    cli_words.present(error)
    assert error.hint == (
        "reconcile without paying again: "
        "svc submit --request-id req_1 --email 'a b@example.com' 'Book it #2fa'"
    )
    long = step("resume_submit", request_id="req_1", email="a@x.io", task="x" * 201)
    assert cli_words.words(long).endswith("--file <the same task file>")


def test_mcp_words_it_as_the_tool_call_and_the_client_as_the_argument() -> None:
    error = SvcError("lost", next=resume())
    mcp_words.present(error)
    assert error.hint == (
        'reconcile without paying again: submit_task with request_id="req_1" and the same '
        "task and email"
    )
    error = SvcError("lost", next=resume())
    client_words.present(error)
    assert error.hint == (
        "reconcile without paying again: submit(task, email, request_id='req_1') with the same "
        "task and email"
    )


@pytest.mark.parametrize(
    ("face", "expected"),
    [
        ("cli", "pay with --pay x402 or --pay mpp"),
        ("mcp", 'pay with submit_task with pay="x402" or pay="mpp"'),
        ("client", 'pay with submit(..., pay="x402" or pay="mpp")'),
    ],
)
def test_each_face_words_a_rail_choice(face: str, expected: str) -> None:
    error = PolicyRefused(
        "too small for card", next=step("choose_rail", "pay with ", rails="x402,mpp")
    )
    {"cli": cli_words, "mcp": mcp_words, "client": client_words}[face].present(error)
    assert error.hint == expected


@pytest.mark.parametrize("face", ["mcp", "client"])
@pytest.mark.parametrize("action", sorted(NEUTRAL))
def test_no_face_but_the_cli_names_a_flag_or_a_command(face: str, action: str) -> None:
    renderer = FACES[face].get(action)
    words = renderer(Next(action, FACTS)) if renderer else NEUTRAL[action].format_map(FACTS)
    named = CLI_WORDS.search(words)
    assert bool(named) == ((face, action) in NAMES_THE_PERSONS_COMMAND), words


@pytest.mark.parametrize("action", sorted(NEUTRAL))
def test_the_cli_and_the_library_word_every_action(action: str) -> None:
    assert action in CLI_TABLE and action in LIBRARY_WORDS


def test_a_rewritten_hint_is_kept_and_presenting_twice_changes_nothing() -> None:
    error = SvcError("lost", next=resume())
    error.hint = f"{error.hint}; exit 1, not 5"  # what was paid, added by the paid record
    before = error.hint
    cli_words.present(error)
    assert error.hint == before
    fresh = SvcError("lost", next=resume())
    mcp_words.present(fresh)
    once = fresh.hint
    cli_words.present(fresh)  # already presented: not a neutral hint any more
    assert fresh.hint == once


def test_an_unknown_action_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown next step"):
        step("fly_away")


def test_the_vocabulary_lives_in_one_module() -> None:
    """Every face's words for a next step are svc/next_words.py's: no other module holds a
    table of them or presents an error's step itself."""
    from pathlib import Path

    src = Path(__file__).resolve().parents[2] / "src" / "svc"
    holders = [
        str(path.relative_to(src))
        for path in src.rglob("*.py")
        if path.name not in ("next_words.py", "next_step.py")
        and (
            "Mapping[str, Renderer]" in path.read_text() or "next_step.present(" in path.read_text()
        )
    ]
    assert holders == []
