"""What a URL-mode flow is, as the pages see it: `Flow` (a form on the landing page, checked and
kept on submit) and `HandOffFlow` (a form that sends the person elsewhere and completes at a
callback), and `ClosingFlow` (one that words its own last page). `Secret`, `Approval` and
`OAuthConnection` are flows; a flow of your own registers with `UrlMode.add`."""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

from elicitkit.server._web.sessions import BrowserSession
from elicitkit.server.store import Record

__all__ = ["ClosingFlow", "Flow", "HandOffFlow"]


class Flow(Protocol):
    """What a URL-mode elicitation asks for, as its page shows and stores it."""

    name: str
    """Unique per server; records name their flow."""

    @property
    def title(self) -> str:
        """What is asked, in a few words ("Weather API key")."""
        ...

    template: str
    """The Jinja2 template of the landing page's form."""

    async def check(self, record: Record, form: FormData) -> str | None:
        """Validate what the person entered: a sentence to show them, or None when it is fine."""
        ...

    async def finish(self, record: Record, form: FormData) -> None:
        """Keep what the person entered; called once, under the record's lock, just before the
        record is marked completed (which wakes the waiting tool)."""
        ...


@runtime_checkable
class HandOffFlow(Protocol):
    """A flow whose form sends the person elsewhere (an OAuth provider) and completes later, when
    they come back to `<public url>/elicit/callback/<flow name>`. Its POST answers with
    `proceed` instead of completing the record; `callback` then completes it itself."""

    async def proceed(self, request: Request, record: Record, session: BrowserSession) -> Response:
        """The person submitted the form: send them on (to the provider), keeping what the callback needs."""
        ...

    async def callback(self, request: Request) -> Response:
        """The person came back: finish, complete the record, and answer with a page."""
        ...


@runtime_checkable
class ClosingFlow(Protocol):
    """A flow that says what its last page says (an approval's "Approved"), where any other
    flow's says "Done" and "Saved." once finished, "Declined" and "Nothing was stored." once declined."""

    def closing(self, state: Literal["completed", "declined"]) -> tuple[str, str]:
        """The title and sentence of the page the person ends on, in the page's language
        (`elicitkit.i18n.gettext`)."""
        ...
