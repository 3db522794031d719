"""Ask the client one question on this request, on either protocol revision.

This is the one seam every elicitation flow goes through (form questions here, URL-mode flows
beside them): it ties the question to the client request being handled (S-02), refuses a mode
the client did not declare before anything is sent (S-01, M-04), and then

- on 2025-11-25 sends a live `elicitation/create` with `related_request_id`, so it travels on
  the stream of the request it belongs to, and waits for the answer;
- on 2026-07-28 takes the answer from the retry, or ends the round with the question in an
  `InputRequiredResult` (see `_rounds`);
- inside a task's run (2025-11-25 `tools/call` with `task`), hands it to the task, which the
  requestor answers through `tasks/result` (see `_tasks`).

It returns the client's raw `ElicitResult`; what an answer means is the caller's business.
"""

from __future__ import annotations

import contextlib
from typing import Any

import anyio
import pydantic
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.shared.message import ServerMessageMetadata
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult

from elicitkit.schema import ValidationProblem
from elicitkit.server import _rounds
from elicitkit.server._capabilities import require_mode
from elicitkit.server._errors import ElicitationTimeoutError, InvalidAnswerError, NotInRequestError
from elicitkit.server._tasks import current_run

ASKING_METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})
"""The client requests a question may belong to (S-02)."""


def request_in_flight(ctx: Context[Any, Any]) -> ServerRequestContext[Any, Any]:
    """The client request `ctx` is handling, or a `NotInRequestError` saying why there is none."""
    try:
        request = ctx.request_context
    except ValueError:
        request = None
    if request is None or request.request_id is None:
        raise NotInRequestError(
            "Elicitation needs a client request to belong to, and this Context has none; "
            "ask from inside a tool, prompt or resource while it handles a request."
        )
    if request.method not in ASKING_METHODS:
        raise NotInRequestError(
            f"Elicitation may only be asked while handling tools/call, prompts/get or resources/read, "
            f"not {request.method}; move the question into a tool, prompt or resource."
        )
    return request


async def ask(
    ctx: Context[Any, Any],
    params: ElicitRequestFormParams | ElicitRequestURLParams,
    *,
    key: str | None = None,
    timeout: float | None = None,  # noqa: ASYNC109 - also bounds a 2026-07-28 answer, which no scope can
) -> ElicitResult:
    """Ask `params` of the client behind `ctx` and return its answer.

    `key` names the question in `inputRequests` on 2026-07-28 (default: its place in the run);
    `timeout` bounds the wait on 2025-11-25 and the time from question to answer on 2026-07-28.
    """
    request = request_in_flight(ctx)
    require_mode(ctx, params.mode)
    question = ElicitRequest(params=params)
    current = _rounds.current_round(ctx)
    name = current.claim(key)  # on both revisions, so a tool that works on one works on the other
    run = current_run()
    if run is not None:  # a task's run, on any wire: the requestor answers through the task
        return await run.ask(name, question, timeout)
    if _rounds.uses_rounds(request.protocol_version):
        answer = current.take(name, question, timeout)
        if answer is None:
            current.ask(name, question)
        return answer
    try:
        # No cancel scope without a timeout: a live URL elicitation's call would keep it while it waits.
        with anyio.fail_after(timeout) if timeout is not None else contextlib.nullcontext():
            return await request.session.send_request(
                question,
                ElicitResult,
                metadata=ServerMessageMetadata(related_request_id=request.request_id),
            )
    except TimeoutError:
        if timeout is None:
            raise
        raise ElicitationTimeoutError(timeout) from None
    except pydantic.ValidationError as exc:
        # The SDK checks the result's shape first; an answer it cannot even read is still a bad answer.
        raise InvalidAnswerError([_problem(error) for error in exc.errors()]) from None


def _problem(error: Any) -> ValidationProblem:
    loc = tuple(error.get("loc", ()))
    field = str(loc[1]) if len(loc) > 1 and loc[0] == "content" else None
    where = f"{field!r}" if field is not None else "the result"
    return ValidationProblem(
        field=field, code="wrong-type", message=f"{where}: {error.get('msg', 'invalid')}"
    )
