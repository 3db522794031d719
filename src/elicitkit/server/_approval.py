"""`Approval`: a yes or no the person gives on a page of ours, not through the client.

For what a tool must not do on the client's word alone (a payment, a deletion): the page shows
what is asked, from the server and as text, beside an Approve and a Decline button, and only
the signed-in MCP user can press them. The client and its model see the link, never the answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from starlette.datastructures import FormData

from elicitkit.i18n import gettext
from elicitkit.server.store import Record

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context

    from elicitkit.server._url_mode import UrlMode, Wait

__all__ = ["Approval"]


class Approval:
    """An approval asked for in URL mode: `await approval.ask(ctx, message, summary={...})`.

    `name` is the flow's name (unique per server), `title` what the page is headed with
    ("Approve a payment"), `approve_label` the approve button's words (default "Approve", in
    the page's language). `wait` is this approval's 2025-11-25 waiting style, when it should
    differ from the server's.
    """

    template = "approval.html"

    def __init__(
        self,
        url_mode: UrlMode,
        name: str,
        *,
        title: str,
        approve_label: str | None = None,
        wait: Wait | None = None,
    ) -> None:
        self.name = name
        self.title = title
        self.approve_label = approve_label
        self.wait = wait
        self.context = url_mode.add(self)

    async def ask(
        self, ctx: Context[Any, Any], message: str, *, summary: Mapping[str, str] | None = None
    ) -> None:
        """Return once the person approved on the page. `message` is what the client shows and the
        page repeats; `summary` (label: value, in order) is shown on the page only.

        Raises:
            UrlElicitationNotCompletedError: the person declined (`.state` "declined"), cancelled,
                or let the link expire; whatever needed the approval must not happen.
        """
        details: dict[str, Any] = {"summary": [[label, value] for label, value in (summary or {}).items()]}
        if self.approve_label:
            details["approve"] = self.approve_label
        await self.context.ask(ctx, self, message, details, wait=self.wait)

    # -- Flow ----------------------------------------------------------------------------

    async def check(self, record: Record, form: FormData) -> str | None:
        """None for the approve button; a sentence for anything else (a decline never gets here)."""
        if form.get("action") == "approve":
            return None
        return gettext("Approve or decline with one of the two buttons.")

    async def finish(self, record: Record, form: FormData) -> None:
        """Nothing to keep: the completed record is the approval."""

    def closing(self, state: Literal["completed", "declined"]) -> tuple[str, str]:
        """The last page's title and sentence, in the page's language."""
        if state == "completed":
            return gettext("Approved"), gettext(
                "You approved it. You can close this tab and return to your application."
            )
        return gettext("Declined"), gettext(
            "You declined, so it will not go ahead. You can close this tab and return to your application."
        )
