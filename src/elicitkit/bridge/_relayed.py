"""Sampling and roots: a server's requests a 2025-11-25 host answers itself, passed to it as they are.

The bridge declares upstream exactly the `sampling` and `roots` the host declared (sub-fields
and all), so the server asks only what the host would be asked directly. Each request goes to
the host the way a question does (`HostSession.call_for`: the host call whose upstream call it
came within, else the only or newest one open) on that call's own stream, or on the host's
standalone stream when no call is open; the host's result goes back up unchanged, and its
error with its code and data. A host that declared neither gets the upstream client's refusal.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import anyio
from mcp.client import ClientRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import (
    INTERNAL_ERROR,
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    CreateMessageResultWithTools,
    ErrorData,
    ListRootsRequest,
    ListRootsResult,
)

from elicitkit.bridge._calls import AsSent
from elicitkit.bridge._host import HostSession

logger = logging.getLogger("elicitkit.bridge")

__all__ = ["Relay"]


@dataclass
class Relay:
    """The upstream client's sampling and roots callbacks for one host session."""

    host: HostSession
    timeout: float = 600.0
    """How long the host has to answer (a person may be reviewing a sampling request)."""

    async def sample(
        self, context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult | CreateMessageResultWithTools | ErrorData:
        result = await self._ask(CreateMessageRequest(params=params), context)
        if isinstance(result, ErrorData):
            return result
        content = result.get("content")
        if isinstance(content, list) or result.get("stopReason") == "toolUse":
            return CreateMessageResultWithTools.model_validate(result, by_name=False)
        return CreateMessageResult.model_validate(result, by_name=False)

    async def list_roots(self, context: ClientRequestContext) -> ListRootsResult | ErrorData:
        result = await self._ask(ListRootsRequest(), context)
        if isinstance(result, ErrorData):
            return result
        return ListRootsResult.model_validate(result, by_name=False)

    async def _ask(
        self, request: CreateMessageRequest | ListRootsRequest, context: ClientRequestContext
    ) -> dict[str, Any] | ErrorData:
        try:
            with anyio.fail_after(self.timeout):
                await self.host.reached.wait()  # a stdio host between `initialize` and `initialized`
                call = self.host.call_for(context.request_id)
                session = call.session if call is not None else self.host.channel
                assert session is not None
                related = (
                    ServerMessageMetadata(related_request_id=call.request_id) if call is not None else None
                )
                sent = await session.send_request(request, AsSent, metadata=related)
        except MCPError as error:  # the host's own error, code and data kept
            return error.error
        except Exception as error:  # a timeout, a host gone, a result that is not one
            logger.warning("the host did not answer %s: %s", request.method, error)
            return ErrorData(
                code=INTERNAL_ERROR,
                message=f"The host did not answer {request.method} ({str(error) or type(error).__name__}).",
            )
        return sent.root
