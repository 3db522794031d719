"""Who answers an upstream question: the host, or the bridge's own UI, per mode.

`RoutedUI` is the `ElicitationUI` of one bridged session. The upstream `ElicitingClient` has
already applied every client rule (declared modes, C-03, the schema subset, the rate limit,
the URL inspection) before a question reaches it, and validates the host's answer after, so
the host is never asked what a compliant client would refuse and a bad answer never goes up.
"""

from __future__ import annotations

import contextvars
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import anyio
from mcp.client import ClientRequestContext
from mcp.client.session import ElicitationFnT
from mcp.shared.message import ServerMessageMetadata
from mcp_types import (
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestParams,
    ElicitRequestURLParams,
    ElicitResult,
    ErrorData,
    RequestId,
)

from elicitkit.bridge._host import HostSession
from elicitkit.bridge._profiles import adapt
from elicitkit.client import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    ElicitationUI,
    FormQuestion,
    Reply,
    UrlQuestion,
    Waiting,
)

logger = logging.getLogger("elicitkit.bridge")

_RELATED_TASK = "io.modelcontextprotocol/related-task"

__all__ = ["Answer", "RoutedUI", "capture_params", "host_opened"]

Answer = Literal["host", "browser", "terminal", "auto"]

_CANCEL = CancelledElicitation()
_asked: contextvars.ContextVar[ElicitRequestParams | None] = contextvars.ContextVar(
    "elicitkit_bridge_asked", default=None
)
_asked_id: contextvars.ContextVar[RequestId | None] = contextvars.ContextVar(
    "elicitkit_bridge_asked_id", default=None
)
_host_opened: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "elicitkit_bridge_host_opened", default=False
)


def capture_params(callback: ElicitationFnT, ui: RoutedUI | None = None) -> ElicitationFnT:
    """Wrap the client's elicitation callback so the UI can read the request it answers
    (its id, the URL's `elicitationId`, the schema as sent) while the callback runs.

    With `ui`, a question for a call a 2026-07-28 host holds is counted from the moment it
    arrives (the client puts one question to the person at a time, so others queue): past
    the cap of held calls it is answered cancel at once, and the host told why."""

    async def captured(
        context: ClientRequestContext, params: ElicitRequestParams
    ) -> ElicitResult | ErrorData:
        call = ui.host.call_for(context.request_id, keep=True) if ui is not None else None
        held = call.held if call is not None else None
        if held is not None and not held.admit():
            return ElicitResult(action="cancel")
        token, id_token = _asked.set(params), _asked_id.set(context.request_id)
        try:
            return await callback(context, params)
        finally:
            _asked.reset(token)
            _asked_id.reset(id_token)
            if held is not None:
                held.asking = False

    return captured


def host_opened() -> bool:
    """True while the URL being answered was handed to the host, which opens it itself."""
    return _host_opened.get()


@dataclass
class RoutedUI:
    """The host for the modes it answers, `local` (the bridge's own UI) for the rest."""

    host: HostSession
    answer: Answer
    local: Callable[[], ElicitationUI] | None
    """The bridge's own UI, made on first use; None when `answer` is "host"."""
    question_timeout: float = 600.0

    def to_host(self, mode: str) -> bool:
        if self.answer == "host":
            return True
        return self.answer == "auto" and self.host.asks_host(mode)

    # -- ElicitationUI

    async def ask_form(self, question: FormQuestion) -> Reply:
        if not self.to_host("form"):
            return await self._local().ask_form(question)
        asked = _asked.get()
        schema: Any = (
            asked.requested_schema if isinstance(asked, ElicitRequestFormParams) else question.schema
        )
        adapted = None
        profile = self.host.profile
        if self.answer == "auto" and profile is not None and not profile.renders(schema):
            adapted = adapt(schema, profile)  # offered in kinds the host renders, if exactly
            if adapted is None:
                return await self._local().ask_form(question)
            schema = adapted.schema
        message = question.message
        if question.problems:
            message += "\n\n" + " ".join(problem.message for problem in question.problems)
        params = ElicitRequestFormParams(message=message, requested_schema=schema, meta=_related(asked))
        result = await self._ask_host(params)
        if result is None or result.action == "cancel":
            return _CANCEL
        if result.action == "decline":
            return DeclinedElicitation()
        content = dict(result.content or {})
        if adapted is not None:
            restored = adapted.restore(content)
            if restored is None:  # not a valid answer once read back: the person answers in the page
                logger.info("the host's answer to an adapted form did not read back; asking in the page")
                return await self._local().ask_form(question)
            content = restored
        return AcceptedElicitation(content)

    async def ask_url_consent(self, question: UrlQuestion) -> Reply:
        if not self.to_host("url"):
            return await self._local().ask_url_consent(question)
        if question.report.verdict == "block":
            return DeclinedElicitation()  # the client notes why; a blocked URL never reaches the host
        asked = _asked.get()
        given = asked.elicitation_id if isinstance(asked, ElicitRequestURLParams) else None
        elicitation_id = given or f"bridge-{secrets.token_urlsafe(12)}"
        message = question.message
        if question.report.warnings:  # the host shows the URL; the person reads why to be careful
            message += "\n\nCaution: " + " ".join(w.message for w in question.report.warnings)
        params = ElicitRequestURLParams(
            message=message, url=question.report.url, elicitation_id=elicitation_id, meta=_related(asked)
        )
        result = await self._ask_host(params)
        if result is None or result.action == "cancel":
            return _CANCEL
        if result.action == "decline":
            return DeclinedElicitation()
        _host_opened.set(True)  # read by the client's `open_url` right after: the host opened it
        return AcceptedElicitation()

    async def wait(self, waiting: Waiting) -> Literal["retry", "cancel"]:
        if not self.to_host("url"):
            return await self._local().wait(waiting)
        if waiting.timed_out:
            return "cancel"  # the host cannot be asked to keep waiting: the wait is bounded
        await anyio.sleep_forever()
        raise AssertionError("unreachable")  # pragma: no cover

    def notice(self, text: str) -> None:
        if self.answer != "host" and self.local is not None:
            self._local().notice(text)
        else:
            logger.info("%s", text)

    # -- helpers

    def _local(self) -> ElicitationUI:
        if self.local is None:  # only for answer="host", where `to_host` is always true
            raise AssertionError("unreachable")
        return self.local()

    async def _ask_host(self, params: ElicitRequestParams) -> ElicitResult | None:
        """Send `params` to the host, related to the call it serves; None when it cannot answer."""
        call = self.host.call_for(_asked_id.get())
        if call is None:
            return None
        if call.held is not None:  # a 2026-07-28 host: the question goes back as a round
            return await call.held.ask(params)
        if self.host.modern:
            return None  # that revision has no live questions, and this call is not held
        request = ElicitRequest(params=params)
        try:
            with anyio.fail_after(self.question_timeout):
                return await call.session.send_request(
                    request, ElicitResult, metadata=ServerMessageMetadata(related_request_id=call.request_id)
                )
        except Exception as error:  # an error, a timeout, a host with no back-channel: no answer
            logger.warning("the host did not answer the question: %s", error)
            return None


def _related(asked: ElicitRequestParams | None) -> dict[str, Any] | None:
    """The task a question belongs to, as its `_meta` names it: a question a task asks reaches the
    host with the same related-task metadata, so the host ties it to its `tasks/result` (T-24)."""
    meta: Any = asked.meta if asked is not None else None
    task = meta.get(_RELATED_TASK) if isinstance(meta, dict) else None
    return {_RELATED_TASK: task} if task is not None else None
