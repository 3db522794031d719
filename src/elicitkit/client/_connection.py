"""`ServerElicitations`: the one owner of a connection's elicitation state.

It answers one server's requests under an `ElicitationConfig`'s rules: it checks the mode
(C-02, C-04) and the tie to a client request (C-03), applies the rate limit (C-31), fills
defaults and validates answers (C-10..C-12), inspects URLs and opens them only after consent
(C-22), names the server asking (C-30), and records completion notices (C-20). The -32042
retry (`elicitkit.client._retry`) and the 2026-07-28 rounds (`elicitkit.client._rounds`)
receive it; they never reach the configuration another way.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal

import anyio
import anyio.lowlevel
from mcp.client import ClientRequestContext
from mcp.client.session import IncomingMessage
from mcp_types import (
    INVALID_PARAMS,
    ElicitCompleteNotification,
    ElicitRequestFormParams,
    ElicitRequestParams,
    ElicitRequestURLParams,
    ElicitResult,
    ErrorData,
    Implementation,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from elicitkit import schema, urls
from elicitkit.client._association import RequestWatch, related_task
from elicitkit.client._completions import UrlCompletions
from elicitkit.client._errors import ElicitationRateLimitedError
from elicitkit.client._limits import PromptGate, Sizes, cut
from elicitkit.client._ui import (
    AcceptedElicitation,
    CancelledElicitation,
    FormQuestion,
    Notice,
    Reply,
    UrlQuestion,
    Waiting,
)
from elicitkit.i18n import noop

if TYPE_CHECKING:
    from elicitkit.client._config import ElicitationConfig

__all__ = ["MAX_REFUSED_ANSWERS", "Action", "ServerElicitations"]

logger = logging.getLogger("elicitkit.client")

Action = Literal["accept", "decline", "cancel"]

_CANCEL = CancelledElicitation()
_LOG_EVERY = 30.0
_UNNAMED = Notice(noop("An MCP server"))
"""A server that gave no name: English where a str is read, said in a UI's language (`said`)."""


def _cancelled_from_outside() -> bool:
    """After a CancelledError out of the UI: was this task cancelled (the call or the connection
    ending, Ctrl-C), rather than something inside the UI (its own task, a page it awaited)?"""
    if anyio.current_effective_deadline() == -math.inf:  # an anyio cancel scope, on any backend
        return True
    try:
        task = asyncio.current_task()
    except RuntimeError:  # not on asyncio: only cancel scopes cancel a task there
        return False
    return task is not None and task.cancelling() > 0


MAX_REFUSED_ANSWERS = 5
"""Answers in a row that may fail validation before the form is cancelled: a UI that keeps
sending the same bad answer (a script, a broken widget) must not spin forever."""


class ServerElicitations:
    """Answers one server's elicitation requests and completion notices, under `config`'s rules."""

    def __init__(self, config: ElicitationConfig, watch: RequestWatch | None = None) -> None:
        self.config = config
        self.completions = UrlCompletions()
        self._watch = watch
        self._server_name = config.server_name
        self._connected_to: Callable[[], Implementation | None] | None = None
        self._last_refusal_log = -_LOG_EVERY
        self.gate = PromptGate(config.rate_limit, self.server_name, self.notice)
        """Every prompt of this server passes here, whatever path it comes by (C-31)."""
        self.tasks_called: dict[str, str] = {}
        """Each task this client awaits as a tool call's requestor (2025-11-25), and its tool."""

    @property
    def sizes(self) -> Sizes:
        """The config's `sizes`: the most this server may put in front of the person."""
        return self.config.sizes

    @property
    def waiting(self) -> int:
        """Prompts from this server shown or queued right now (at most `rate_limit.max_waiting`)."""
        return self.gate.waiting

    # -- who is asking (C-30)

    def server_name(self, context: ClientRequestContext | None = None) -> str:
        """Who is asking, as the person is told (C-30).

        The config's `server_name` when given, else the name the server gave (its title, else its
        name, cut to `sizes.title`), else "An MCP server". `context`, the request being answered,
        lets it read the session's `serverInfo` when nothing was learned yet.
        """
        if self._server_name is None and context is not None:
            self._learn_from(context.session.server_info)
        if self._server_name is None and self._connected_to is not None:
            self._learn_from(self._connected_to())
        return self._server_name or _UNNAMED

    def asker(self, context: ClientRequestContext | None, params: ElicitRequestParams) -> str:
        """Who asks `params`, as the person is told: the server (C-30), with the tool it runs as
        a task when the request names one this client called (T-24)."""
        server = self.server_name(context)
        tool = self.tasks_called.get(related_task(params.meta) or "")
        if tool is None:
            return server
        template = noop("%(server)s, in its task %(tool)s")
        return Notice(template, server=server, tool=cut(tool, self.sizes.title))

    def learn_server_name(self, name: str | None) -> None:
        """Take `name` (cut to `sizes.title`) as the server's name, unless one is known already.

        `ElicitingClient` gives it the server's `serverInfo`; a host whose connection never hears
        one (a pinned 2026-07-28 connection skips discovery) can give a name of its own.
        """
        if self._server_name is None and name:
            self._server_name = cut(name, self.sizes.title)

    def learn_server_name_from(self, server_info: Callable[[], Implementation | None]) -> None:
        """Where the connection's `serverInfo` can be read once it is connected (a framework's
        client, say): the name is taken from there the first time a screen needs it."""
        self._connected_to = server_info

    def _learn_from(self, info: Implementation | None) -> None:
        if info is not None:
            self.learn_server_name(info.title or info.name)

    # -- the elicitation callback

    async def __call__(
        self, context: ClientRequestContext, params: ElicitRequestParams
    ) -> ElicitResult | ErrorData:
        refusal = self._refusal(context, params)
        if refusal is not None:
            # A flood of bad requests must not become a flood of log lines: one warning per 30 s.
            now = time.monotonic()
            loud = now - self._last_refusal_log >= _LOG_EVERY
            self._last_refusal_log = now if loud else self._last_refusal_log
            level = logging.WARNING if loud else logging.DEBUG
            logger.log(level, "refused elicitation/create from %s: %s", self.server_name(context), refusal)
            return ErrorData(code=INVALID_PARAMS, message=refusal)
        return await self.answer(self.asker(context, params), params)

    async def answer(
        self, server: str, params: ElicitRequestParams, asking: Callable[[], None] | None = None
    ) -> ElicitResult:
        """Ask the person a request `refusal` admitted, as `server` (who the person is told asks),
        through the rate limit (C-31) and the UI's turn; `asking` is called as the question reaches
        the UI. A request beyond the rate limit is answered "cancel" without reaching it."""
        try:
            with self.gate.prompt():
                async with self.config.ui_turn():
                    if asking is not None:
                        asking()
                    if isinstance(params, ElicitRequestFormParams):
                        return await self._ask_form(server, params)
                    return await self._ask_url(server, params)
        except ElicitationRateLimitedError:
            return ElicitResult(action="cancel")

    def refusal(self, context: ClientRequestContext, params: ElicitRequestParams) -> str | None:
        """Why this client would refuse `params` (-32602), or None: what a proxy checks before
        it passes a question on to a person's own client instead of asking it here."""
        return self._refusal(context, params)

    def _refusal(self, context: ClientRequestContext, params: ElicitRequestParams) -> str | None:
        """Why this request gets -32602 (C-02, C-03, C-04), or None when it may reach the person."""
        # C-04: a request without `mode` is a form request, even if it carries a `url`.
        if isinstance(params, ElicitRequestURLParams) and "mode" not in params.model_fields_set:
            return "A request without 'mode' is a form request and needs 'requestedSchema'."
        if params.mode not in self.config.modes:
            return f"This client did not declare elicitation mode {params.mode!r}."
        if isinstance(params, ElicitRequestFormParams):
            too_big = self.sizes.schema_problem(params.requested_schema)
            if too_big is not None:
                return too_big
            broken = [p for p in schema.validate(params.requested_schema, {}) if p.code == "invalid-schema"]
            if broken:
                return f"requestedSchema is outside the form-mode subset: {broken[0].message}"
        elif len(params.url) > self.sizes.url:
            return (
                f"The URL is {len(params.url)} characters long; this client opens at most {self.sizes.url}."
            )
        on_wire = self._watch.arrived_on_wire(context.request_id) if self._watch is not None else None
        modern = context.session.protocol_version in MODERN_PROTOCOL_VERSIONS
        if on_wire is None and not modern and self._watch is not None:
            return "elicitation/create is not associated with a client request in flight."
        if on_wire is not None and (modern or not on_wire):
            return "elicitation/create is not associated with a client request in flight."
        if isinstance(params, ElicitRequestURLParams) and not modern and not params.elicitation_id:
            return "A URL-mode request needs an 'elicitationId'."
        return None

    async def _ask_form(self, server: str, params: ElicitRequestFormParams) -> ElicitResult:
        """C-10..C-12: start from the defaults, and never send an answer that fails validation."""
        requested = params.requested_schema
        message, shown = cut(params.message, self.sizes.message), self.sizes.shown_schema(requested)
        initial: dict[str, Any] = schema.defaults(requested)
        problems: list[schema.ValidationProblem] = []
        for _ in range(MAX_REFUSED_ANSWERS + 1):
            question = FormQuestion(server, message, shown, initial, tuple(problems))
            reply = await self._ask(self.config.ui.ask_form, question)
            if not isinstance(reply, AcceptedElicitation):
                return ElicitResult(action=reply.action)
            content = dict(reply.data or {})
            problems = schema.validate(requested, content)
            if not problems:
                return ElicitResult(action="accept", content=content)
            initial = content
            await anyio.lowlevel.checkpoint()
        self.notice(
            Notice(
                noop(
                    "%(server)s's form was cancelled: %(count)s answers in a row did not fit its rules, "
                    "so nothing was sent."
                ),
                server=server,
                count=MAX_REFUSED_ANSWERS + 1,
            )
        )
        return ElicitResult(action="cancel")

    async def _ask_url(self, server: str, params: ElicitRequestURLParams) -> ElicitResult:
        """C-22: inspect, ask, and open in the system browser only after Accept; never for a blocked URL."""
        action = await self._consent_and_open(server, params.message, params.url)
        if action != "accept":
            return ElicitResult(action=action)
        if params.elicitation_id:
            self.completions.expect(params.elicitation_id, params.message)
        return ElicitResult(action="accept")

    async def consent_and_open(self, message: str, url: str) -> Action:
        """Ask consent to open `url` (through the gate, then the UI's turn) and open it on "accept".

        Raises `ElicitationRateLimitedError` when the gate refuses: this prompt is the client's
        own initiative (a -32042 list), so the call it serves ends rather than being answered.
        """
        with self.gate.prompt():
            async with self.config.ui_turn():
                return await self._consent_and_open(self.server_name(), message, url)

    async def _consent_and_open(self, server: str, message: str, url: str) -> Action:
        report = urls.examine(url, allow_http=self.config.allow_http)
        question = UrlQuestion(server, cut(message, self.sizes.message), report)
        reply = await self._ask(self.config.ui.ask_url_consent, question)
        if report.verdict == "block":
            # The person sees why (a phishing attempt should be visible), but nothing opens it.
            reasons = tuple(w for w in report.warnings if w.severity == "block")
            template = noop("%(server)s asked to open a URL that was blocked and not opened: %(reasons)s.")
            self.notice(Notice(template, server=server, reasons=reasons))
            return "cancel" if isinstance(reply, CancelledElicitation) else "decline"
        if not isinstance(reply, AcceptedElicitation):
            return reply.action
        try:
            opened = self.config.open_url(url)
        except Exception:
            logger.exception("opening the URL failed")
            opened = False
        if not opened:
            self.notice(
                Notice(
                    noop("No browser could be opened; open this URL yourself if you trust it: %(url)s"),
                    url=url,
                )
            )
        return "accept"

    async def _ask(self, ask: Callable[[Any], Any], question: Any) -> Reply:
        """Call the UI; a UI that fails, or is cancelled from inside, counts as the person
        dismissing the question: "cancel", sent once (the connection and the call go on)."""
        try:
            reply: Reply = await ask(question)
        except anyio.get_cancelled_exc_class():
            if _cancelled_from_outside():
                raise
            logger.warning("the elicitation UI was cancelled; answering 'cancel'")
            return _CANCEL
        except Exception:
            logger.exception("the elicitation UI failed; answering 'cancel'")
            return _CANCEL
        return reply

    async def wait(self, waiting: Waiting) -> Literal["retry", "cancel"]:
        """Show the waiting screen (`ElicitationUI.wait`); a UI that fails, or is cancelled from
        inside, counts as the person choosing "cancel"."""
        try:
            return await self.config.ui.wait(waiting)
        except anyio.get_cancelled_exc_class():
            if _cancelled_from_outside():
                raise
            logger.warning("the elicitation UI was cancelled while waiting; answering 'cancel'")
            return "cancel"
        except Exception:
            logger.exception("the elicitation UI failed while waiting; answering 'cancel'")
            return "cancel"

    def explain_no_questions(self, version: str, said: Iterable[str]) -> bool:
        """When the server's own error says it cannot ask on this `version` (a stock FastMCP
        server's `ctx.elicit` on 2026-07-28), tell the person the cure in one sentence.

        Not a fallback by itself: the call may already have done part of its work, so making it
        again on a second connection is the person's choice. True when the notice was shown.
        """
        if version not in MODERN_PROTOCOL_VERSIONS:
            return False
        if not any(version in text and "elicit" in text.lower() for text in said):
            return False
        template = noop(
            "%(server)s cannot ask its questions on a %(version)s connection, as its error says; "
            'connect at 2025-11-25 instead (elicitkit client --protocol 2025-11-25, or mode="legacy").'
        )
        self.notice(Notice(template, server=self.server_name(), version=version))
        return True

    def notice(self, text: str) -> None:
        """Show `text` on the UI (a notice, nothing to answer); a failing UI is logged, never raised."""
        try:
            self.config.ui.notice(text)
        except Exception:
            logger.exception("the elicitation UI failed to show a notice")

    # -- the message handler (C-20)

    async def on_message(self, message: IncomingMessage) -> None:
        """Record completion notices for pending ids; ignore unknown and repeated ones (C-20)."""
        if isinstance(message, ElicitCompleteNotification):
            elicitation_id = message.params.elicitation_id
            if self.completions.complete(elicitation_id):
                self.notice(Notice(noop("%(server)s: an elicitation completed."), server=self.server_name()))
            else:
                logger.info("ignored completion notice for unknown or completed id %r", elicitation_id)
