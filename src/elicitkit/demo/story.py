"""The demo story: alice uses the demo assistant, and it asks her for things in every way MCP can.

Eight steps, each a tool call from alice's client: a form with every kind of field, a form
declined, a form cancelled, an API key entered on a web page (URL mode), a message that needs
a token and is held with error -32042 until the page is done, a phishing attempt (bob opens
alice's link and is refused), a third-party OAuth connection (Demo Calendar), and the first
form again on a second connection at protocol revision 2026-07-28, where the server returns
its question in the tool result and the client calls again with the answer.

The first seven steps share one 2025-11-25 connection, where the server asks with
`elicitation/create` requests while the call is open.

Played unattended, a `ScriptedUI` answers for alice and a `ScriptedBrowser` is her browser
(and bob's); each step then checks what happened and the story stops at the first step that
did not behave, naming it. Played interactively, the person answers in the terminal (or web)
UI and completes the pages in their own browser; bob is still played by a script.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx2
from mcp.client import Transport
from mcp.client.client import ConnectMode
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, TextContent

from elicitkit.client import (
    ElicitationConfig,
    ElicitationUI,
    ElicitingClient,
    RateLimit,
    Reply,
    ScriptedUI,
    WatchedTransport,
    open_in_system_browser,
)
from elicitkit.demo._people import PERSON
from elicitkit.demo._wire import WireLog
from elicitkit.demo.browser import BrowserError, ScriptedBrowser
from elicitkit.demo.stage import Stage
from elicitkit.demo.steps import STEPS, Step, StepFailedError
from elicitkit.demo.transcript import NarratedUI, Transcript
from elicitkit.errors import ElicitationError
from elicitkit.i18n import gettext as _

__all__ = ["STEPS", "Step", "StepFailedError", "Story"]

_URL_TIMEOUT = 30.0
_CALL_TIMEOUT = 45.0


@dataclass
class Call:
    """A tool call in flight."""

    name: str
    task: asyncio.Task[CallToolResult]


@dataclass
class Story:
    """One playing of the story against a running `Stage`.

    `ui` is the person's UI when someone is there; without it the story plays unattended,
    answering from a script and checking every step.
    """

    stage: Stage
    transcript: Transcript
    ui: ElicitationUI | None = None
    scripted: ScriptedUI | None = field(default=None, init=False)
    config: ElicitationConfig | None = field(default=None, init=False)
    client: ElicitingClient | None = field(default=None, init=False)
    opened: asyncio.Queue[str] = field(default_factory=asyncio.Queue, init=False)
    browsers: dict[str, ScriptedBrowser] = field(default_factory=dict, init=False)
    held: Call | None = field(default=None, init=False)
    held_url: str = field(default="", init=False)
    mcp_token: str = field(default="", init=False)

    @property
    def unattended(self) -> bool:
        return self.ui is None

    # -- playing -------------------------------------------------------------------------

    async def play(self, steps: list[Step] | None = None) -> None:
        """Play every step in order; raises `StepFailedError` naming the first one that failed."""
        steps = STEPS if steps is None else steps
        token = await self.stage.auth.token_for(  # issued for this MCP server only (RFC 8707)
            PERSON, scopes=["mcp"], resource=self.stage.server.mcp_url
        )
        self.mcp_token = token.access_token
        said = _("signs in to %(service)s; her client gets an MCP access token.")
        self.transcript.say(PERSON, said % {"service": self.stage.auth.service_name})
        if self.ui is None:
            self.scripted = ScriptedUI()
            ui: ElicitationUI = NarratedUI(self.scripted, self.transcript, PERSON)
        else:
            ui = self.ui
        # The story plays every kind of question back to back (a consent and a waiting screen
        # per URL), faster than the default limit lets one server ask a real person.
        self.config = ElicitationConfig(
            ui=ui,
            modes=("form", "url"),
            open_url=self._open_url,
            wait_timeout=120,
            rate_limit=RateLimit(per_second=5.0, burst=20),
        )
        failure = ""
        stopped: SystemExit | None = None
        try:
            async with self.connect("legacy") as client:
                self.client = client
                tools = await client.list_tools()
                names = ", ".join(tool.name for tool in tools.tools)
                server = f"{client.elicitations.server_name()} (MCP {client.protocol_version})"
                said = _("connects to %(server)s: tools %(names)s.") % {"server": server, "names": names}
                self.transcript.say(_("%(person)s's client") % {"person": PERSON}, said)
                try:
                    failure = await self._play_steps(steps)
                except asyncio.CancelledError:  # Ctrl-C: the connection is torn down mid-request
                    logging.getLogger("mcp").setLevel(logging.CRITICAL)
                    raise
                except SystemExit as exit_:  # stdout went away (`| head`): stop, but close cleanly
                    stopped = exit_
        finally:
            if self.held is not None:
                self.held.task.cancel()
            for browser in self.browsers.values():
                await browser.aclose()
        if stopped is not None:  # raised out here, not through the client's task groups
            raise stopped
        if failure:
            raise StepFailedError(failure)

    async def _play_steps(self, steps: list[Step]) -> str:
        # Unattended, nobody reads a step while it plays: its lines wait for its duration.
        self.transcript.hold_steps = self.unattended
        for number, step in enumerate(steps, 1):
            self.transcript.step(number, len(steps), _(step.title), _(step.about))
            try:
                failure = await self._play_step(step)
            finally:
                self.transcript.end_step()
            if failure:
                said = _("Step %(number)d (%(title)s) failed: %(failure)s")
                return said % {"number": number, "title": _(step.title), "failure": failure}
        return ""

    async def _play_step(self, step: Step) -> str:
        """Play one step: the empty string when it behaved, else what went wrong."""
        try:
            await step.play(self)
        except StepFailedError as error:
            message = str(error)
        except (TimeoutError, ElicitationError, BrowserError, OSError, httpx2.HTTPError) as error:
            message = str(error) or type(error).__name__
        else:
            return ""
        self.transcript.fail(message)
        return message

    # -- what steps use ------------------------------------------------------------------

    @asynccontextmanager
    async def connect(
        self, mode: ConnectMode, *, wire: WireLog | None = None
    ) -> AsyncIterator[ElicitingClient]:
        """A connection from alice's client to the demo MCP server; `wire` sees its messages.

        An error in the body is raised once the connection is closed, as itself, not wrapped
        in an exception group by the client's task groups.
        """
        assert self.config is not None
        http = httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {self.mcp_token}"}, timeout=httpx2.Timeout(30, read=300)
        )
        transport: Transport = streamable_http_client(self.stage.server.mcp_url, http_client=http)
        if wire is not None:
            transport = WatchedTransport(transport, wire)
        raised: Exception | None = None
        async with http, ElicitingClient(transport, config=self.config, mode=mode) as client:
            try:
                yield client
            except Exception as error:  # raised again below, outside the task groups
                raised = error
        if raised is not None:
            raise raised

    def answer(self, *replies: Reply | Callable[[Any], Reply]) -> None:
        """Queue the scripted person's answers (unattended only)."""
        if self.scripted is not None:
            self.scripted.replies.extend(replies)

    def tell(self, text: str) -> None:
        """An instruction for the person at the keyboard (interactive only)."""
        if not self.unattended:
            self.transcript.say(_("you"), text, style="yellow")

    def start(self, name: str, arguments: dict[str, Any], *, via: ElicitingClient | None = None) -> Call:
        """Call a tool on the story's connection, or on `via`."""
        client = via or self.client
        assert client is not None
        shown = json.dumps(arguments, ensure_ascii=False)
        self.transcript.say(
            _("%(person)s's client") % {"person": PERSON},
            _("calls %(tool)s %(arguments)s") % {"tool": name, "arguments": shown},
        )
        task = asyncio.create_task(client.call_tool(name, arguments))
        task.add_done_callback(_retrieve)  # a call cut short by Ctrl-C is not an unhandled error
        return Call(name, task)

    async def finish(self, call: Call) -> str:
        """The call's result text, written into the transcript."""
        try:
            result = await asyncio.wait_for(call.task, None if not self.unattended else _CALL_TIMEOUT)
        except TimeoutError:
            said = _("%(tool)s did not return within %(seconds).0f s.")
            raise StepFailedError(said % {"tool": call.name, "seconds": _CALL_TIMEOUT}) from None
        except ElicitationError as error:
            self.transcript.say(_("result"), str(error), style="yellow")
            return str(error)
        text = " ".join(c.text for c in result.content if isinstance(c, TextContent))
        self.transcript.say(
            _("error") if result.is_error else _("result"), text, style="red" if result.is_error else ""
        )
        if result.is_error and self.unattended:
            raise StepFailedError(
                _("%(tool)s returned an error: %(text)s") % {"tool": call.name, "text": text}
            )
        return text

    async def call(self, name: str, arguments: dict[str, Any], *, via: ElicitingClient | None = None) -> str:
        return await self.finish(self.start(name, arguments, via=via))

    async def next_url(self, call: Call) -> str | None:
        """The next URL the person agreed to open, or None if the call ended without one."""
        getting = asyncio.ensure_future(self.opened.get())
        timeout = _URL_TIMEOUT if self.unattended else None
        done, _pending = await asyncio.wait(
            {getting, call.task}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if getting in done:
            return getting.result()
        getting.cancel()
        if not done:
            said = _("%(tool)s asked for no URL within %(seconds).0f s.")
            raise StepFailedError(said % {"tool": call.name, "seconds": _URL_TIMEOUT})
        return None

    def browser(self, person: str) -> ScriptedBrowser:
        """That person's (scripted) browser, kept for the whole story like a real one."""
        if person not in self.browsers:
            self.browsers[person] = ScriptedBrowser(person, on_page=self.transcript.page)
        return self.browsers[person]

    def expect(self, condition: bool, failure: str, success: str = "") -> None:
        """Check an outcome (unattended only): a sentence for either way."""
        if not self.unattended:
            return
        if not condition:
            raise StepFailedError(failure)
        if success:
            self.transcript.ok(success)

    def notices(self) -> list[str]:
        return list(self.scripted.notices) if self.scripted is not None else []

    def _open_url(self, url: str) -> bool:
        self.opened.put_nowait(url)
        return True if self.unattended else open_in_system_browser(url)


def _retrieve(task: asyncio.Task[CallToolResult]) -> None:
    if not task.cancelled():
        task.exception()
