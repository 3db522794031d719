"""`Secret`: an API key or password the user types into a page of ours, never into the chat.

`await secret.get(ctx)` returns the value the current user stored before, or runs a URL-mode
elicitation for it (S-11: secrets never go through form mode) and returns what they entered.
The value lives only in the vault, sealed to the user and the secret's name.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.datastructures import FormData

from elicitkit.i18n import gettext
from elicitkit.server._errors import UrlElicitationNotCompletedError
from elicitkit.server.store import Record

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context

    from elicitkit.server._url_mode import UrlMode, Wait

__all__ = ["Secret", "SecretValidator"]

SecretValidator = Callable[[str], "str | Awaitable[str | None] | None"]
"""Checks an entered value: returns a sentence for the person when it is not acceptable, else None."""

_MAX_LENGTH = 8192


class Secret:
    """A named secret per user, asked for in URL mode.

    `name` identifies it in the vault (and the page), `title` is what the page calls it,
    `message` says why the tool needs it, `validator` may refuse a value with a sentence
    shown to the person. `wait` is this secret's 2025-11-25 waiting style ("live" or
    "error", -32042), when it should differ from the server's.
    """

    template = "secret.html"

    def __init__(
        self,
        url_mode: UrlMode,
        name: str,
        *,
        title: str,
        message: str,
        description: str | None = None,
        validator: SecretValidator | None = None,
        wait: Wait | None = None,
    ) -> None:
        self.url_mode = url_mode
        self.name = name
        self.title = title
        self.message = message
        self.description = description
        self.validator = validator
        self.wait = wait
        self.context = url_mode.add(self)

    async def get(self, ctx: Context[Any, Any]) -> str:
        """The current user's value, asking for it in URL mode when there is none yet."""
        caller = self.context.users.caller()
        value = await self.context.vault.get(caller.user, self.name)
        if value is not None:
            return value
        details = {"description": self.description} if self.description else {}
        record = await self.context.ask(ctx, self, self.message, details, wait=self.wait)
        value = await self.context.vault.get(record.user, self.name)
        if value is None:  # completed, but the value did not reach the vault
            raise UrlElicitationNotCompletedError(
                "completed", "The secret was entered but could not be stored; ask the user to enter it again."
            )
        return value

    async def forget(self, ctx: Context[Any, Any]) -> None:
        """Delete the current user's value (for example after the service rejected it)."""
        caller = self.context.users.caller()
        await self.context.vault.delete(caller.user, self.name)

    # -- Flow ----------------------------------------------------------------------------

    async def check(self, record: Record, form: FormData) -> str | None:
        """A sentence for the person when the value is empty, too long or refused by the validator; else
        None."""
        value = form.get("secret")
        if not isinstance(value, str) or not value:
            return gettext("Enter the %(title)s.") % {"title": self.title}  # in the page's language
        if len(value) > _MAX_LENGTH:
            return gettext("That is too long for a %(title)s.") % {"title": self.title}
        if self.validator is None:
            return None
        verdict = self.validator(value)
        if inspect.isawaitable(verdict):
            verdict = await verdict
        return verdict if isinstance(verdict, str) else None

    async def finish(self, record: Record, form: FormData) -> None:
        """Seal the value in the vault as the record's user's, before the record completes."""
        value = form.get("secret")
        assert isinstance(value, str)
        await self.context.vault.put(record.user, self.name, value)
