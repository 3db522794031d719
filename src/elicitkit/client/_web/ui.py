"""A person answers elicitations in their own browser, on a page this client serves on 127.0.0.1.

The server starts with the first question, on a free port, inside the caller's asyncio loop,
and the page opens in the system browser. One tab serves every question, oldest first: an
open page moves on by itself when a question arrives or is withdrawn, and the browser is only
opened again when no page has been seen for a while (the person closed it).

The browser is handed the `file://` URL of a page only this user can read, which carries it
into the page with a one-time code (`elicitkit.client._web._door`): no secret is ever on a
command line, in a log or in a file another user can read, so nothing else on the machine can
answer for the person. See `elicitkit.client._web._pages` for the rest of the page's defences.
The UI shows and asks, nothing more: the handler decides what is valid to send and opens URLs
the person agreed to.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import secrets
import time
import webbrowser
from collections.abc import Callable
from types import TracebackType
from typing import Any, Literal

from starlette.types import ASGIApp

from elicitkit.asgi import EmbeddedServer
from elicitkit.client._fields import safe
from elicitkit.client._ui import FormQuestion, Notice, Reply, UrlQuestion, Waiting, said
from elicitkit.client._web._board import Board, Question
from elicitkit.client._web._door import Door
from elicitkit.client._web._pages import build_app, launch_page
from elicitkit.errors import LifecycleError
from elicitkit.i18n import Translator, from_environment, speaking, translator
from elicitkit.i18n import gettext as _

__all__ = ["PageOpener", "WebUI"]

logger = logging.getLogger(__name__)

#: Shows the page at the URL it is given (a `file://` URL); may be async. Returning `False`
#: means it could not.
PageOpener = Callable[[str], object]

_SEEN_WITHIN = 5.0  # a page seen this recently still has the tab open
_OPENING_GRACE = 15.0  # time a freshly opened browser gets to load the page


async def _system_browser(url: str) -> bool:
    return await asyncio.to_thread(webbrowser.open, url)


class WebUI:
    """The `ElicitationUI` in the system browser: forms with a review step, URL consent, waiting.

    Use it as an async context manager, or call `aclose()` when done; the page server starts
    by itself with the first question. `opener` shows the page (default: the system browser
    through `webbrowser`), given the `file://` URL that leads into it; tests pass a browser
    automation's `page.goto`. The page speaks
    `locale` ("zh_CN"), by default this computer's (LANGUAGE, LC_ALL, LANG).
    """

    def __init__(self, *, opener: PageOpener | None = None, locale: str | None = None) -> None:
        self.words: Translator = translator(locale or from_environment())
        self._opener = opener or _system_browser
        self._csrf = secrets.token_urlsafe(32)
        self._board = Board()
        self._server: EmbeddedServer | None = None
        self._door: Door | None = None
        self._url: str | None = None
        self._opened_at = -float("inf")
        self._openings: set[asyncio.Task[None]] = set()
        self._starting = asyncio.Lock()

    @property
    def url(self) -> str:
        """What to open to reach the page: the `file://` URL of a page only this user can read,
        which carries the browser in (it holds no secret a process list or a log could show)."""
        if self._url is None:
            raise LifecycleError(
                "The web UI is not running yet; call `await ui.start()` or ask a question first."
            )
        return self._url

    async def start(self) -> str:
        """Start serving the page (once) and return `url`. Nothing opens in a browser yet."""
        async with self._starting:
            if self._url is None:
                await self._serve()
        return self.url

    async def aclose(self) -> None:
        """Dismiss open questions (each gets Cancel), tell the page, and stop the server."""
        self._board.close()
        for task in list(self._openings):
            task.cancel()
        server, self._server, self._url = self._server, None, None
        if server is not None:
            await server.stop()
        if self._door is not None:
            self._door.close()

    async def __aenter__(self) -> WebUI:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()

    # -- ElicitationUI ---------------------------------------------------------------------

    async def ask_form(self, question: FormQuestion) -> Reply:
        """Show the form; the person fills it, reviews, and submits, declines or cancels."""
        reply: Reply = await self._ask(question)
        return reply

    async def ask_url_consent(self, question: UrlQuestion) -> Reply:
        """Show the full URL, its domain highlighted, both forms of the host, and every warning."""
        reply: Reply = await self._ask(question)
        return reply

    async def wait(self, waiting: Waiting) -> Literal["retry", "cancel"]:
        """Show what the call waits for, with a ticking clock, until the person retries or cancels."""
        choice: Literal["retry", "cancel"] = await self._ask(waiting)
        return choice

    def notice(self, text: str) -> None:
        """Show a notice on the open page (and on the next one drawn).

        The handler's word that the URL the person just agreed to open could not be opened
        (a `Notice` whose `url` is that URL) takes the place of the page's "you agreed": one
        sentence, and the URL as a link to open by hand.
        """
        url = text.params.get("url") if isinstance(text, Notice) else None
        if isinstance(url, str):
            with speaking(self.words):
                sentence = _("No browser could be opened; if you trust this page, open it yourself:")
            if self._board.unopened(url, sentence):
                return
        self._board.notice(safe(said(text, self.words.gettext)))

    # -- the machinery ---------------------------------------------------------------------

    async def _ask(self, question: Question) -> Any:
        await self.start()
        with speaking(self.words):  # a form's problems are worded as it is added
            entry = self._board.add(question)
        self._summon()
        try:
            return await entry.future
        finally:
            self._board.remove(entry)

    def _summon(self) -> None:
        """Open the page, unless a tab has it open already or is about to."""
        recently = time.monotonic() - self._opened_at < _OPENING_GRACE
        if self._board.watched(_SEEN_WITHIN) or self._openings or recently:
            return
        self._opened_at = time.monotonic()
        task = asyncio.create_task(self._open(self.url))
        self._openings.add(task)
        task.add_done_callback(self._openings.discard)

    async def _open(self, url: str) -> None:
        try:
            shown = self._opener(url)
            if inspect.isawaitable(shown):
                shown = await shown
        except Exception:
            logger.warning(
                "Could not open the answer page in a browser; open %s yourself.", url, exc_info=True
            )
            return
        if shown is False:
            logger.warning("No browser could be opened; open %s yourself to answer.", url)

    async def _serve(self) -> None:
        def build(url: str) -> ASGIApp:
            self._door = Door(f"{url}/", launch_page(self.words))
            return build_app(self._board, self._door, self._csrf, self.words)

        server = EmbeddedServer(build)
        try:
            await server.start()
        except BaseException:
            if self._door is not None:
                self._door.close()
            raise
        assert self._door is not None
        self._board.closed = False
        self._server = server
        self._url = self._door.url
