"""The small factory every engine gets: settings, the engines' narrator and lazily built parts.

Nothing heavy is built until an engine asks for it: the HTTP client, the ledger and the secret
store (and through it keyring) are created on first use, so `svc --help` and `svc poll` stay fast.
It knows no face: what it says goes to a `svc.report.Reporter`, and what it would ask a person
(a changed payment recipient, a link on another host) is a callback the face passes in
(`FacePrompts`); without one the answer is no. There is one class and no subclass: each face
builds it with its own reporter and callbacks (svc.ui.face for the CLI and `svc mcp`, whose
Output is the reporter `output` hands back typed; svc.client._context for the library).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from svc.origin import TrustedURL, configured, is_loopback_url, origin_of
from svc.report import Reporter
from svc.settings import Settings, usd_amount

# Every command, `svc --help` included, builds one of these: what its
# members need (the ledger and sqlite3, the config file, the secret store, the payment policy,
# the link trust) is imported when a member is first built (tests/unit/test_imports.py exempts
# this module, and tests/e2e/test_lazy_imports.py keeps --help free of them).

if TYPE_CHECKING:
    from collections.abc import Callable

    from svc.api.http import Http
    from svc.api.tasks import TaskClient
    from svc.identity.bearer import BearerAuth
    from svc.identity.session import IdentitySession
    from svc.next_step import Next
    from svc.pay.daily_cap import DailyCap
    from svc.pay.journal import LinkHosts
    from svc.pay.policy import PaymentPolicy
    from svc.store.config import ConfigFile
    from svc.store.ledger import LedgerStore
    from svc.store.secrets import SecretStore


P = TypeVar("P")
# The face's reporter: engines see a Reporter, the CLI its Output (`AppContext[Output]`).
if TYPE_CHECKING:  # the default (a bare `AppContext` is one of a Reporter) is for checkers:
    # typing_extensions would cost every command's start, `svc --help` included
    from typing_extensions import TypeVar as DefaultedTypeVar

    R_co = DefaultedTypeVar("R_co", bound=Reporter, default=Reporter, covariant=True)
else:
    R_co = TypeVar("R_co", bound=Reporter, covariant=True)


@dataclass(frozen=True)
class FacePrompts:
    """What an engine may need to ask or show a person, as the face does it. None: this face
    cannot (a library without a person, a batch worker): the answer is no. With
    `--no-input` the context never asks, whatever the face passed."""

    # (pinned recipient, new recipient) -> pay the new one and pin it?
    confirm_recipient: Callable[[str, str], bool] | None = None
    # (host that sent the link, the link's host, what the link is) -> trust that host?
    confirm_link_host: Callable[[str, str, str], bool] | None = None
    # a card payment's hosted page, for a person to pay on (QR code, browser); `open_browser`
    # False: show it only
    show_card_page: Callable[[TrustedURL, bool], None] | None = None
    # a next step said outside an error (a warning's), in the face's words; None: neutral
    next_words: Callable[[Next], str] | None = None
    # a money warning (a budget nearly spent) for a person who asked to be told beyond the
    # terminal (the CLI's `notify` setting: a desktop notification); None: the report only
    notify_person: Callable[[str], None] | None = None
    # The callbacks are a program's decisions (the library's approve()), not questions to a
    # person: no_input does not silence them.
    by_program: bool = False


class AppContext(Generic[R_co]):
    def __init__(
        self,
        settings: Settings,
        report: R_co,
        config: ConfigFile | None = None,
        *,
        prompts: FacePrompts | None = None,
        trust_recipient: bool = False,
    ) -> None:
        self.settings = settings
        self.report: Reporter = report
        self._face_report = report
        self.prompts: FacePrompts = prompts or FacePrompts()
        self._config = config
        # Pay a recipient other than the one pinned for this origin without asking (the
        # library's `trust_recipient`); a call's own trust_recipient adds to it.
        self.trust_recipient = trust_recipient
        # Asked before any paid call is signed (PaymentPolicy.approve_payment); `svc mcp` sets it
        # to ask the human through the MCP client. None: the policy's limits alone decide.
        self.payment_approver: Callable[[str, int, str], bool] | None = None
        # Built on first use (see the properties); with_overrides() may hand in shared ones.
        self._http: Http | None = None
        self._tasks: TaskClient | None = None
        self._secrets: SecretStore | None = None
        self._ledger: LedgerStore | None = None
        # The fleet ledger failed a task-state cache write (engines/task_state): no more tries.
        self.task_states_lost = False
        self._told_unwritable = False  # a ledger opened to read only was said to be so
        # The daily cap in effect, resolved once per process (shared with with_overrides()
        # siblings: a batch's workers obey, and are told, one value).
        self._cap: list[DailyCap] = []
        self._cap_lock = threading.Lock()

    @property
    def output(self) -> R_co:
        """The face's own reporter, with its type: the CLI's and svc mcp's Output."""
        return self._face_report

    @property
    def config(self) -> ConfigFile:
        if self._config is None:
            from svc.store.config import ConfigFile

            self._config = ConfigFile()
        return self._config

    def with_overrides(
        self,
        *,
        report: Reporter | None = None,
        secrets: SecretStore | None = None,
        **settings: Any,
    ) -> AppContext:
        """A sibling context with `settings` fields replaced that shares this one's HTTP pool,
        task client, secret store (or `secrets`), prompts, trust and approver, but never its
        ledger: each context (each worker thread) opens its own SQLite link.
        """
        child = AppContext(
            replace(self.settings, **settings),
            report or self.report,
            self._config,
            prompts=self.prompts,
            trust_recipient=self.trust_recipient,
        )
        child.payment_approver = self.payment_approver
        child._http, child._tasks = self.http, self.tasks
        child._secrets = secrets if secrets is not None else self.secrets
        child._cap, child._cap_lock = self._cap, self._cap_lock
        return child

    @property
    def http(self) -> Http:
        if self._http is None:
            self._http = self._new_http(self.report.warn)
        return self._http

    def _new_http(self, warn: Callable[[str], None]) -> Http:
        from svc.api.http import Http, whole_seconds
        from svc.api.retry import RetryPolicy

        retries = self.settings.max_retries
        return Http(
            trace=self.report.trace if self.settings.verbose else None,
            warn=warn,
            cleartext_ok=self.settings.allow_insecure_http,
            timeout=self.settings.timeout,
            call_timeout=whole_seconds(self.settings.timeout),
            retry=RetryPolicy(attempts=retries + 1) if retries is not None else None,
            # A traced request tells its trace only to the service the person chose.
            propagate_to=frozenset({origin_of(self.settings.base_url)}),
        )

    def use_own_http(self, warn: Callable[[str], None] | None = None) -> None:
        """Give this context an HTTP client (and connection pool) of its own, which close()
        closes: a batch worker's. httpcore's pool checks each of its idle connections (a
        socket poll each) on every request, so one pool shared by a batch's eight threads made
        every request pay for eight connections, under one lock. `warn`: where its warnings
        go (None: this context's report)."""
        self._http, self._tasks = self._new_http(warn or self.report.warn), None

    @cached_property
    def base(self) -> TrustedURL:
        """The base URL the person chose, through the origin gate (anything built on it is
        on its origin)."""
        return configured(self.settings.base_url, "the base URL")

    @property
    def tasks(self) -> TaskClient:
        if self._tasks is None:
            from svc.api.tasks import TaskClient

            self._tasks = TaskClient(self.http, self.settings.base_url)
        return self._tasks

    @property
    def ledger(self) -> LedgerStore:
        if self._ledger is None:
            from svc.store.ledger import open_ledger

            self._ledger = open_ledger(self.settings.ledger_url, self.settings.runner)
        return self._ledger

    def ledger_is_open(self) -> bool:
        """True once this context opened its ledger (so close() must close it)."""
        return self._ledger is not None

    def has_ledger(self) -> bool:
        """True if the ledger is open or its file exists: a reader need not create one."""
        if self._ledger is not None:
            return True
        if self.settings.ledger_url:
            return True  # the fleet's ledger: every runner reads the shared rows
        # The ledger's path without importing the ledger package (about 20 modules): a poll
        # on a machine with no ledger opens none.
        from svc.store.paths import ledger_path

        return ledger_path().exists()

    def ledger_to_read(self) -> LedgerStore | None:
        """The ledger for a reader (`svc spend`, `svc tasks`, doctor), None if there is none
        yet. One on a full or read-only disk is read all the same, and the person is told
        once that it cannot be written."""
        if not self.has_ledger():
            return None
        ledger = self.ledger
        why = ledger.unwritable()
        if why is not None and not self._told_unwritable:
            self._told_unwritable = True
            self.report.warn(f"showing what the ledger holds; {why}")
        return ledger

    def daily_cap(self, *, tell: bool = True) -> DailyCap:
        """The daily cap this process obeys: on a fleet the value in the fleet's ledger, if it
        has one, else this runner's own. Read once per process; `tell` warns (once) a runner
        whose own value the fleet's overrules (doctor shows it as a finding instead)."""
        with self._cap_lock:
            if not self._cap:
                from svc.pay.daily_cap import resolve_cap

                fleet = self.ledger if self.settings.ledger_url else None
                self._cap.append(resolve_cap(self.settings, fleet))
                overruled = self._cap[0].overruled()
                if tell and overruled:
                    self.report.warn(overruled)
            return self._cap[0]

    @property
    def secrets(self) -> SecretStore:
        if self._secrets is None:
            from svc.store.secrets import SecretStore

            self._secrets = SecretStore(warn=self.report.warn)
        return self._secrets

    def policy(
        self, *, max_price_usd: object = None, trust_recipient: bool = False, origin: str = ""
    ) -> PaymentPolicy:
        """The payment policy for the service, or (`origin`) for another server a paid request
        goes to: its recipients pinned under its own origin, test money only from loopback."""

        from svc.pay.chains import TEST_TERMS
        from svc.pay.journal import RecipientPins
        from svc.pay.policy import PaymentPolicy

        ask = self._prompt(self.prompts.confirm_recipient)
        trusted = trust_recipient or self.trust_recipient

        def confirm(old: str, new: str) -> bool:
            return trusted or (ask is not None and ask(old, new))

        cap = (  # a cap the face parsed (flag, MCP argument) or a library caller's: one parser
            usd_amount("max_price_usd", max_price_usd)
            if max_price_usd is not None
            else self.settings.max_price_usd
        )
        return PaymentPolicy(
            max_price_usd=cap,
            allowed_networks=self.settings.allowed_networks,
            allowed_assets=self.settings.allowed_assets,
            # the ledger is opened only if a challenge is actually checked
            pins=RecipientPins(lambda: self.ledger, origin or self.settings.base_url),
            confirm_new_recipient=confirm,
            allowed_rails=self.settings.allowed_rails,
            max_validity_seconds=self.settings.max_validity_seconds,
            approve_payment=self.payment_approver,
            # the local sandbox asks for test money: from loopback only, with no setting
            test_terms=TEST_TERMS if is_loopback_url(origin or self.settings.base_url) else (),
        )

    @cached_property
    def identity(self) -> IdentitySession:
        """The agent credential of `auth_base` (loaded from the secret store on first use)."""
        from svc.api.identity import IdentityPlatform
        from svc.identity.session import IdentitySession
        from svc.identity.store import CredentialStore

        auth_base, resource = self.settings.auth_base, self.settings.base_url
        return IdentitySession(
            CredentialStore(self.secrets, auth_base),
            lambda endpoints: IdentityPlatform(self.http, auth_base, endpoints, resource=resource),
        )

    @cached_property
    def trusts_link_host(self) -> LinkHosts:
        """The origin gate's question for a link on another host (svc.origin.HostTrust),
        answered by the hosts pinned beside the recipients, or the face's prompt."""
        from svc.pay.journal import LinkHosts

        return LinkHosts(
            lambda: self.ledger, self.has_ledger, self._prompt(self.prompts.confirm_link_host)
        )

    def money_warning(self, text: str) -> None:
        """A warning about money (a budget nearly spent): the report, and the person's
        notification when the face has one."""
        self.report.warn(text)
        if self.prompts.notify_person is not None:
            self.prompts.notify_person(text)

    def words(self, nxt: Next) -> str:
        """A next step said outside an error (a warning's), in the face's words."""
        worded = self.prompts.next_words
        return nxt.neutral if worded is None else worded(nxt)

    def _prompt(self, ask: P | None) -> P | None:
        """The face's prompt, unless the person said `--no-input`: then nobody is asked (a
        program's own callback still answers)."""
        return None if self.settings.no_input and not self.prompts.by_program else ask

    @cached_property
    def bearer(self) -> BearerAuth | None:
        """The bearer step, or None at no cost (no keyring) when no credential is marked."""
        from svc.identity.store import has_credential

        if not has_credential(self.settings.auth_base):
            return None
        from svc.identity.bearer import BearerAuth

        return BearerAuth(self.identity)

    def close(self) -> None:
        if self._http is not None:
            self._http.close()
        if self._ledger is not None:
            self._ledger.close()
