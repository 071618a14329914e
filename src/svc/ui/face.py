"""The context of the CLI and of `svc mcp`: AppContext with an Output as its reporter.

The engines see `AppContext`: settings, lazily built parts, a `Reporter` for what they say and
`FacePrompts` for what they would ask a person. These faces show documents, tables and JSON
through their `Output` (`app.output`, typed), which is also the engines' Reporter, and their
prompts are the terminal's (`svc.ui.prompts`, the QR code and the browser).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from svc.context import AppContext, FacePrompts
from svc.origin import TrustedURL
from svc.ui.output import Output

if TYPE_CHECKING:
    from collections.abc import Callable

    from svc.next_step import Next
    from svc.settings import Settings
    from svc.store.config import ConfigFile


FaceContext = AppContext[Output]


def face_context(
    settings: Settings,
    output: Output,
    config: ConfigFile | None = None,
    *,
    next_words: Callable[[Next], str] | None = None,
) -> FaceContext:
    """The context of a command or a tool call: `output` draws and reports, the terminal's
    prompts ask, `next_words` says a next step in this face's words."""
    notify = _notifier() if settings.notify else None
    prompts = replace(terminal_prompts(output), next_words=next_words, notify_person=notify)
    return AppContext(settings, output, config, prompts=prompts)


def terminal_prompts(output: Output) -> FacePrompts:
    """The questions and pages of a person at a terminal, drawn through `output`."""

    # Every start builds one (`svc --help` too): the prompts and the QR drawing are imported
    # when first asked (tests/unit/test_imports.py counts this module with the context).
    def confirm_recipient(old: str, new: str) -> bool:
        from svc.ui import prompts

        return prompts.confirm_new_recipient(output, old, new)

    def confirm_link_host(served_by: str, host: str, what: str) -> bool:
        from svc.ui import prompts

        return prompts.confirm_link_host(output, served_by, host, what)

    def show_card_page(link: TrustedURL, open_browser: bool) -> None:
        from svc.ui import views

        views.show_qr(output, link)
        if open_browser and not views.open_browser(link):
            output.info(f"({views.NO_BROWSER}, or scan the code)")

    return FacePrompts(confirm_recipient, confirm_link_host, show_card_page)


def _notifier() -> Callable[[str], None]:
    """The person's `notify` setting: a money warning is a desktop notification too (the
    notifier is looked up only when one is sent)."""

    def notify(text: str) -> None:
        from svc.ui.notify import Notifier

        Notifier().notify(f"svc: {text}")

    return notify
