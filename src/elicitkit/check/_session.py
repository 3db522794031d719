"""`CheckSession`: one client connection that declares chosen modes and answers on a plan.

The plan of a call is its strategy: `valid` (a valid form answer, or consent to a URL),
`decline`, `cancel`, or `invalid` (the prepared invalid content for the first form, valid
ones after it, so a server that asks again is seen asking again). A question in a mode this
connection did not declare is refused with -32602, as a conforming client would (C-02); one
that came on the standalone stream, outside any call, is declined.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.client import Client
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, ElicitRequestParams, ElicitResult, ErrorData, TextContent, Tool

from elicitkit.check._answers import valid_answer
from elicitkit.check._observed import Call, Connection, Observations
from elicitkit.check._target import Target
from elicitkit.check._wire import Wire

LEGACY = "2025-11-25"
MODERN = "2026-07-28"


class CheckSession:
    """`async with CheckSession(...) as s: await s.call(...)`; every call is recorded in `seen`."""

    def __init__(
        self, target: Target, connection: Connection, seen: Observations, *, timeout: float, mode: str
    ) -> None:
        self.connection = connection
        self.seen = seen
        self.timeout = timeout
        self.wire = Wire(connection, seen)
        self.client = Client(
            self.wire.transport(target.transport(self.wire)),
            mode=mode,
            elicitation_callback=self._answer,
            input_required_max_rounds=6,
            read_timeout_seconds=timeout * 2,
        )

    async def __aenter__(self) -> CheckSession:
        await self.client.__aenter__()
        self.connection.revision = self.client.protocol_version
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.client.__aexit__(None, None, None)

    async def tools(self) -> list[Tool]:
        found: list[Tool] = []
        cursor: str | None = None
        for _ in range(20):
            page = await self.client.list_tools(cursor=cursor)
            found.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return found

    async def call(
        self,
        tool: str,
        arguments: dict[str, Any],
        strategy: str = "valid",
        invalid: tuple[dict[str, Any], list[str]] | None = None,
        call: Call | None = None,
    ) -> Call:
        """Call `tool`, answering on the plan; `call`, when given, is the record to fill as it goes."""
        call = call or Call(self.connection, tool, strategy)
        if invalid is not None:
            call.invalid, call.problems = invalid
        self.seen.calls.append(call)
        self.wire.call = call
        try:
            with anyio.fail_after(self.timeout):
                result = await self.client.call_tool(tool, arguments)
            call.outcome = "result"
            call.is_error = bool(result.is_error)
            call.text = " ".join(c.text for c in result.content if isinstance(c, TextContent))
        except TimeoutError:
            call.outcome = "timeout"
        except MCPError as error:
            call.outcome = "error"
            call.error = error.error.model_dump(by_alias=True, mode="json", exclude_none=True)
        except Exception as error:  # a report, not a crash: the checker goes on with the next call
            call.outcome = "crash"
            call.text = f"{type(error).__name__}: {error}"
        finally:
            self.wire.call = None
        return call

    async def _answer(
        self, context: ClientRequestContext, params: ElicitRequestParams
    ) -> ElicitResult | ErrorData:
        # A question from the standalone stream belongs to no call (S-02): declined, and the
        # answer the open call planned (an invalid one, say) stays for the call's own question.
        call = None if self.wire.came_loose(context.request_id) else self.wire.call
        raw = params.model_dump(by_alias=True, mode="json", exclude_none=True)
        mode = raw.get("mode") or "form"
        if mode not in self.connection.declared:
            return ErrorData(code=INVALID_PARAMS, message=f"This client did not declare {mode} mode.")
        strategy = call.strategy if call is not None else "decline"
        action = strategy if strategy in ("decline", "cancel") else "accept"
        content: dict[str, Any] | None = None
        if action == "accept" and mode == "form":
            schema = raw.get("requestedSchema") or {}
            first_form = call is not None and not any(c is not None for _, c in call.answers)
            if strategy == "invalid" and call is not None and call.invalid is not None and first_form:
                content = call.invalid
            else:
                content = valid_answer(schema)
        if call is not None:
            call.answers.append((action, content))
        return ElicitResult(action=action, content=content)
