"""`Elicitation` for a FastMCP server: the same facade, installed through FastMCP's extension points.

    server = FastMCP("bookings")
    elicit = Elicitation(server, url_mode=UrlMode(...))

    @server.tool
    async def book(city: str, ctx: Context) -> str:
        match await elicit.form(ctx, f"When do you want to go to {city}?", Trip):
            ...

With `tasks=Tasks({...})` the tools it names also run as 2025-11-25 tasks (elicitkit's, not
FastMCP's own background tasks), asking through `tasks/result` as on an `MCPServer`.

Tools, prompts and resources take FastMCP's own `Context`; `elicit.form`, `Secret.get`,
`OAuthConnection.token` and custom flows accept it as they accept the SDK's. On 2025-11-25 a
question is a live `elicitation/create`; on 2026-07-28 it is returned as an input request
and the tool runs again with the answer, like on an `MCPServer`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Literal, TypeVar, overload

from fastmcp import FastMCP
from fastmcp.server.providers import Provider
from mcp.server.mcpserver import Context as SdkContext

from elicitkit.errors import ConfigurationError
from elicitkit.fastmcp import _bridge
from elicitkit.fastmcp._flows import AnyContext, OAuthConnection, Secret
from elicitkit.server import Elicitation as _SdkElicitation
from elicitkit.server import (
    ElicitationResult,
    OAuthLogin,
    SecretValidator,
    Tasks,
    UrlMode,
    UrlModeError,
    Wait,
)

T = TypeVar("T")


class Elicitation(_SdkElicitation):
    """Asks questions on behalf of the tools, prompts and resources of one FastMCP server.

    Creating it adds elicitkit's middleware to `server` and, with `url_mode=`, mounts the
    URL-mode pages on the server's own HTTP app (`server.http_app()`), so links share its origin,
    and runs its expiry sweep in the background while the server's lifespan runs.
    """

    def __init__(
        self,
        server: FastMCP[Any],
        *,
        timeout: float | None = None,
        url_mode: UrlMode | None = None,
        tasks: Tasks | None = None,
    ) -> None:
        if not isinstance(server, FastMCP):
            raise ConfigurationError(
                f"elicitkit.fastmcp.Elicitation takes a FastMCP server, not {type(server).__name__}; "
                "for the SDK's MCPServer use elicitkit.server.Elicitation."
            )
        # Not super().__init__: it installs on an MCPServer; the same state is set up here instead.
        self.server = server  # type: ignore[assignment]  # a FastMCP server, not an MCPServer
        self.timeout = timeout
        self.url_mode = url_mode
        self.tasks = tasks
        if url_mode is not None:  # first: its rounds count timeouts by its clock
            install_url_mode(url_mode, server)
        _bridge.install(server)
        if tasks is not None:
            _bridge.install_tasks(server, self.task_middleware())
            server.add_provider(_Running(tasks.running))

    def sdk_context(self, ctx: Any) -> SdkContext[Any, Any]:
        """FastMCP's `Context` as the SDK's, which the bridge keeps for the request it runs in."""
        return _bridge.from_fastmcp(ctx) or super().sdk_context(ctx)

    def supports(self, ctx: AnyContext, mode: Literal["form", "url"] = "form") -> bool:
        """Whether the client behind `ctx` declared `mode` for this request (`{}` means form only)."""
        sdk: Any = ctx  # FastMCP's is turned into the SDK's by the bridge
        return super().supports(sdk, mode)

    @overload
    async def form(
        self,
        ctx: AnyContext,
        message: str,
        schema: type[T],
        *,
        key: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - see elicitkit.server.Elicitation.form
        allow_sensitive: Mapping[str, str] | None = None,
    ) -> ElicitationResult[T]: ...

    @overload
    async def form(
        self,
        ctx: AnyContext,
        message: str,
        schema: Mapping[str, Any],
        *,
        key: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - see elicitkit.server.Elicitation.form
        allow_sensitive: Mapping[str, str] | None = None,
    ) -> ElicitationResult[dict[str, Any]]: ...

    async def form(
        self,
        ctx: AnyContext,
        message: str,
        schema: type[Any] | Mapping[str, Any],
        *,
        key: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - see elicitkit.server.Elicitation.form
        allow_sensitive: Mapping[str, str] | None = None,
    ) -> ElicitationResult[Any]:
        """`elicitkit.server.Elicitation.form`, taking FastMCP's `Context` too: same outcomes, same errors."""
        sdk: Any = ctx  # FastMCP's is turned into the SDK's by the bridge
        spec: Any = schema
        outcome: ElicitationResult[Any] = await super().form(
            sdk, message, spec, key=key, timeout=timeout, allow_sensitive=allow_sensitive
        )
        return outcome

    secret_class = Secret
    oauth_class = OAuthConnection

    def secret(
        self,
        name: str,
        *,
        title: str,
        message: str,
        description: str | None = None,
        validator: SecretValidator | None = None,
        wait: Wait | None = None,
    ) -> Secret:
        """A URL-mode `Secret` for this server's tools: `await secret.get(ctx)` with FastMCP's `ctx`.

        Raises:
            UrlModeError: this `Elicitation` was created without `url_mode=`.
        """
        made = super().secret(
            name, title=title, message=message, description=description, validator=validator, wait=wait
        )
        assert isinstance(made, Secret)  # secret_class
        return made

    def oauth(self, name: str, **options: Any) -> OAuthConnection:
        """A URL-mode `OAuthConnection` for this server's tools: `await conn.token(ctx)` with
        FastMCP's `ctx`. `options` are `elicitkit.server.OAuthConnection`'s.

        Raises:
            UrlModeError: this `Elicitation` was created without `url_mode=`.
        """
        made = super().oauth(name, **options)
        assert isinstance(made, OAuthConnection)  # oauth_class
        return made


class _Running(Provider):
    """Offers no tools: its lifespan, which FastMCP enters with the server's, runs `around()`
    (URL mode's sweep, the tasks' runs).

    It runs in a task of its own: FastMCP exits the lifespan inside a shielded cancel scope it
    opens at shutdown, which a task group entered at startup cannot be closed in.
    """

    def __init__(self, around: Callable[[], AbstractAsyncContextManager[None]], owner: object = None) -> None:
        super().__init__()
        self.around = around
        self.owner = owner

    @asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        stop = asyncio.Event()
        task = asyncio.create_task(self._run_until(stop))
        try:
            yield
        finally:
            stop.set()
            await task

    async def _run_until(self, stop: asyncio.Event) -> None:
        async with self.around():
            await stop.wait()


def install_url_mode(url_mode: UrlMode, server: FastMCP[Any]) -> None:
    """Mount `url_mode`'s pages on `server`'s HTTP app, let its tools ask in URL mode, and sweep
    its store in the background while the server runs (`UrlMode.running`)."""
    if isinstance(url_mode.browser, OAuthLogin) and url_mode.browser.token_verifier is None:
        raise UrlModeError(
            "On a FastMCP server, OAuthLogin needs its token_verifier= (FastMCP's auth provider "
            "is not an SDK TokenVerifier elicitkit can borrow)."
        )
    _bridge.install(server, url_mode.clock)
    url_mode.adapt_contexts(_bridge.from_fastmcp)  # so that its flows take FastMCP's Context
    url_mode.mount_pages(server)
    if not any(isinstance(p, _Running) and p.owner is url_mode for p in server.providers):
        server.add_provider(_Running(url_mode.running, url_mode))
