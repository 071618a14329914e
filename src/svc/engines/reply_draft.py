"""An agent's answer to a task's ask, completed with the person's secrets and sent.

An agent (a model behind `svc mcp`) answers what it may see; a secret (a 2FA code, a PIN, a
password) is the person's to give, never the model's. `send_draft` takes the agent's `Draft`,
asks the person for each secret it leaves out (through the face's `Person`), refuses a secret
value the agent gave unless the settings allow it, and sends the one reply. A secret is
handed to `Person.keep` before anything else sees it, so nothing shown later can carry it.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Protocol

from svc.api.answers import Task
from svc.api.models import TaskDetail
from svc.context import AppContext
from svc.engines.asks import Asked, read_ask
from svc.engines.reply import check_field_values, send
from svc.errors import HumanNeeded, UsageError
from svc.next_step import Next
from svc.replies import Answer, Approve, Decline, Fields, Message, Secret, Value


@dataclass
class Draft:
    """The agent's answer: a message, a field (with a value, or none for the person to give),
    a structured ask's values (a secret key left out, or "", for the person), a payment
    decision (True approve, False decline)."""

    message: str | None = None
    field: str | None = None
    value: str | None = None
    sensitive: bool = False
    sets: dict[str, str] = dataclass_field(default_factory=dict)
    payment_approved: bool | None = None

    def names(self) -> list[str]:
        """Every field the draft names: the keys it sets or leaves to the person, its field."""
        return [*self.sets, *([self.field] if self.field else [])]


class Person(Protocol):
    """The person behind the agent, as the face reaches them."""

    @property
    def reachable(self) -> bool:
        """Whether the face can ask the person at all."""

    def secret(self, asked: Asked, key: str) -> str | None:
        """The person's value for `key` (None: they gave none)."""

    def keep(self, value: str) -> None:
        """A secret this process now knows: keep it out of everything shown."""


def send_draft(
    app: AppContext, task: TaskDetail, draft: Draft, person: Person, *, agent_secrets: bool
) -> Task:
    """Complete the draft's secrets and send it; `agent_secrets`: the agent may give them.
    The ask is read once: every decision below is made on that reading."""
    asked = read_ask(task, named=draft.names())
    answer = completed(asked, draft, person, agent_secrets=agent_secrets)
    return send(app, asked, answer)


def completed(asked: Asked, draft: Draft, person: Person, *, agent_secrets: bool) -> Answer:
    """The draft as a neutral answer, each secret from the person (or refused from the agent)."""
    _agent_set_secrets(asked, draft, person, agent_secrets)
    if not asked.plain:
        _ask_for_secret_keys(asked, draft, person)
    elif _wants_secret(asked, draft):
        _plain_secret(asked, draft, person, agent_secrets)
    elif draft.field is not None and draft.value is None:
        raise UsageError(f"field {draft.field} needs a value")
    return _answer(draft)


def _agent_set_secrets(asked: Asked, draft: Draft, person: Person, allowed: bool) -> None:
    """Refuse a secret value the agent put in a structured answer (a key named with no value
    is a request to ask the person, not a value); keep one the settings allow."""
    given = [key for key, value in draft.sets.items() if key in asked.named_secrets and value]
    if given and not allowed:
        names = ", ".join(given)
        raise UsageError(
            f"refused: field_values carries a secret ({names}) from the model (nothing was sent)",
            code="secret_from_model",
            next=_way_for_person(asked, person, names, whole_ask=True, allowable=False),
        )
    for key in given:  # allowed from the agent, still a secret to every later answer
        person.keep(draft.sets[key])
        draft.sensitive = True


def _ask_for_secret_keys(asked: Asked, draft: Draft, person: Person) -> None:
    """Ask the person for each secret key the agent left out, once the rest is known to fit
    the ask: a wrong address must not cost the person a typed PIN that is then thrown away."""
    missing = [key for key in asked.secret_keys if not draft.sets.get(key)]
    if not missing or not asked.waiting or draft.field or draft.message:
        return  # nothing to ask, or the reply engine refuses the answer as it stands
    check_field_values(asked, {**draft.sets, **dict.fromkeys(missing, "asked")})
    if not person.reachable:
        raise HumanNeeded(
            f"{', '.join(missing)}: a secret, and this MCP client cannot ask the person for "
            "it; nothing was sent",
            code="human_needed",
            next=Next("answer_in_terminal", {"task_id": asked.task_id, "what": "the whole ask"}),
        )
    for key in missing:  # one after another: each may be a round of its own
        draft.sets[key] = _from_person(asked, key, person)
    draft.sensitive = True  # the reply's flag: the service keeps every value of it apart


def _wants_secret(asked: Asked, draft: Draft) -> bool:
    if draft.field is not None:
        named = draft.sensitive or draft.field in asked.named_secrets
        return named or asked.secret_field == draft.field
    return asked.secret_field is not None and draft.message is not None  # a code as a message


def _plain_secret(asked: Asked, draft: Draft, person: Person, allowed: bool) -> None:
    given = draft.value if draft.value is not None else draft.message
    if given is not None and not allowed:
        field = draft.field or asked.secret_field or "value"
        raise UsageError(
            f"refused: {field} is a secret and must come from the person, not from the model "
            "(nothing was sent)",
            code="secret_from_model",
            next=_way_for_person(asked, person, field, whole_ask=False, allowable=True),
        )
    if given is not None:
        person.keep(given)
    elif draft.field is not None:
        if not person.reachable:
            raise HumanNeeded(
                f"{draft.field} is a secret and this MCP client cannot ask the person for it",
                code="human_needed",
                next=Next("answer_in_terminal", {"task_id": asked.task_id, "field": draft.field}),
            )
        draft.value = _from_person(asked, draft.field, person)
    draft.sensitive = draft.field is not None


def _from_person(asked: Asked, key: str, person: Person) -> str:
    value = person.secret(asked, key)
    if value is None:
        raise HumanNeeded(f"the person gave no {key}; nothing was sent", code="human_needed")
    person.keep(value)
    return value


def _way_for_person(
    asked: Asked, person: Person, names: str, *, whole_ask: bool, allowable: bool
) -> Next:
    """The next step of a refused agent secret: leave it to the person, who is asked directly
    where the face can ask them, else answers in a terminal; `allowable`: the settings could
    let the agent give it."""
    allow = {"allow": "mcp_allow_model_secrets"} if allowable else {}
    if person.reachable:
        ask = "whole" if whole_ask else "one"
        return Next("leave_secret_to_person", {"names": names, "ask": ask, **allow})
    which = {"what": "it"} if whole_ask else {"field": names}
    return Next("answer_in_terminal", {"task_id": asked.task_id, **which, **allow})


def _answer(draft: Draft) -> Answer:
    """The completed draft as a neutral answer (one kind, as the face made sure)."""
    if draft.payment_approved is not None:
        decision = Approve if draft.payment_approved else Decline
        return decision(dict(draft.sets), sensitive=draft.sensitive)
    if draft.message is not None:
        return Message(draft.message)
    if draft.field is None:
        return Fields(dict(draft.sets), sensitive=draft.sensitive)
    # A plain ask's value was filled (or refused) above; a structured ask refuses a field
    # whatever its value, so an absent one is no value at all.
    value = draft.value if draft.value is not None else ""
    return Secret(value, draft.field) if draft.sensitive else Value(value, draft.field)
