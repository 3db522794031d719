"""One call from an `ElicitationConfig` to what each agent framework's MCP client takes.

    answers = for_fastmcp(config)           # fastmcp.Client, pydantic-ai's MCPToolset, langchain.mcp
    client = answers.client(url)            # a fastmcp.Client answering under the config
    MCPToolset(answers.client(url), process_tool_call=answers.process_tool_call)
    MCPAdapter(answers.client(url))

    callback = for_sdk_session(config)      # the SDK's ClientSession, google-adk's McpToolset
    ClientSession(read, write, elicitation_callback=callback, message_handler=callback.on_message)
    McpToolset(connection_params=..., elicitation_callback=callback)

The person sees the same safe forms and URL consents as with `ElicitingClient`, under the same
rules (modes, validation, rate limit, URL inspection, open only after consent), and each screen
names the server from the moment `answers.client(...)` connects (with only
`client_options()`, the name is learned from the server's first question). What a
framework cannot carry is said in docs/frameworks.md; the one that matters most: these
frameworks (through the SDK) declare both form and url whenever a callback is set, so a mode
you did not configure is refused with an error when it is asked, never answered.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from mcp.client import ClientRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import URL_ELICITATION_REQUIRED, ElicitRequestParams, ElicitResult, ErrorData

from elicitkit.client._config import ElicitationConfig
from elicitkit.client._connection import ServerElicitations
from elicitkit.client._errors import ElicitationRefusedError
from elicitkit.client._retry import until_urls_complete
from elicitkit.errors import ConfigurationError
from elicitkit.extras import needs

if TYPE_CHECKING:
    import fastmcp

__all__ = ["ElicitationRefusedError", "FastMCPAnswers", "for_fastmcp", "for_sdk_session"]

T = TypeVar("T")


def for_sdk_session(config: ElicitationConfig) -> ServerElicitations:
    """The SDK `elicitation_callback` for one server; pass `.on_message` as `message_handler` too.

    It answers a refusal with -32602 itself, so it is safe wherever the SDK's callback is taken
    as is (the SDK's `ClientSession` and `Client`, google-adk's `McpToolset`).
    """
    return ServerElicitations(config)


@dataclass
class FastMCPAnswers:
    """A config's answers in the shapes `fastmcp.Client` takes (and so pydantic-ai and langchain.mcp)."""

    answers: ServerElicitations

    async def elicitation_handler(
        self, message: str, response_type: Any, params: ElicitRequestParams, context: ClientRequestContext
    ) -> ElicitResult:
        """FastMCP's `elicitation_handler`: an `ElicitResult` always, or `ElicitationRefusedError`."""
        result = await self.answers(context, params)
        if isinstance(result, ErrorData):
            raise ElicitationRefusedError(result.message)
        return result

    async def message_handler(self, message: Any) -> None:
        """FastMCP's `message_handler`: records completion notices (C-20)."""
        await self.answers.on_message(message)

    def client_options(self) -> dict[str, Any]:
        """`elicitation_handler=` and `message_handler=`, to splat into `fastmcp.Client(...)`."""
        return {"elicitation_handler": self.elicitation_handler, "message_handler": self.message_handler}

    def client(self, target: Any, **options: Any) -> fastmcp.Client[Any]:
        """A `fastmcp.Client` for `target` answering with these answers; `options` are its own.

        Its screens name the server as soon as it is connected, a -32042 consent before any
        question included. Give it to pydantic-ai's `MCPToolset(...)` or LangChain's
        `MCPAdapter(...)` as is. A `message_handler` of yours is called after the answers' own.
        """
        with needs("fastmcp"):
            import fastmcp

        if "elicitation_handler" in options:
            raise ConfigurationError(
                "answers.client(...) answers elicitation itself; omit elicitation_handler."
            )
        yours = options.pop("message_handler", None)

        async def message_handler(message: Any) -> None:
            await self.message_handler(message)
            if yours is not None:
                await yours(message)

        made: fastmcp.Client[Any] = fastmcp.Client(
            target, elicitation_handler=self.elicitation_handler, message_handler=message_handler, **options
        )
        self.answers.learn_server_name_from(lambda: made.server_info)
        return made

    async def until_urls_complete(self, call: Callable[[], Awaitable[T]]) -> T:
        """Run `call` (a FastMCP client call); on -32042, get consent, wait for completion, retry."""
        return await until_urls_complete(self.answers, lambda: _unwrapped(call))

    async def process_tool_call(
        self, ctx: Any, call_tool: Callable[..., Awaitable[T]], name: str, args: dict[str, Any]
    ) -> T:
        """pydantic-ai's `process_tool_call`: a tool call held by -32042 is completed and retried
        instead of reaching the model as a retry prompt."""
        return await self.until_urls_complete(lambda: call_tool(name, args))


def for_fastmcp(config: ElicitationConfig) -> FastMCPAnswers:
    """What `fastmcp.Client(elicitation_handler=..., message_handler=...)` takes, for one server."""
    return FastMCPAnswers(ServerElicitations(config))


async def _unwrapped(call: Callable[[], Awaitable[T]]) -> T:
    """Frameworks wrap a -32042 (pydantic-ai in `ModelRetry`); bring the error itself back out."""
    try:
        return await call()
    except MCPError:
        raise
    except Exception as exc:
        cause = exc.__cause__
        if isinstance(cause, MCPError) and cause.code == URL_ELICITATION_REQUIRED:
            raise cause from None
        raise
