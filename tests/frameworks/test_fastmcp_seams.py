"""What elicitkit.fastmcp relies on in FastMCP, pinned: the one private attribute, the -32042
FastMCP would flatten into an `isError` result, and clear errors for the wrong server type."""

from __future__ import annotations

import hashlib
from typing import Any

import fastmcp
import pytest
from fastmcp import Context, FastMCP
from fastmcp_harness import WEATHER_KEY, Person
from mcp import Client
from mcp.server.lowlevel.server import Server
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
from mcp_types import ElicitRequestURLParams, ElicitResult
from support.url_harness import serve

from elicitkit.client import AcceptedElicitation, ElicitationConfig, ScriptedUI
from elicitkit.errors import ConfigurationError
from elicitkit.fastmcp import Elicitation
from elicitkit.fastmcp._bridge import RequestBridge
from elicitkit.fastmcp._fastmcp import low_level_server
from elicitkit.server import Elicitation as SdkElicitation
from elicitkit.server import KeyRing, McpUsers, MemoryStore, NotInRequestError, UrlMode

pytestmark = pytest.mark.timeout(60)


def url_mode(public_url: str = "http://127.0.0.1:1") -> UrlMode:
    return UrlMode(
        public_url=public_url,
        keys=KeyRing.from_string(KeyRing.generate()),
        store=MemoryStore(),
        users=McpUsers.single_user_local(),
    )


def test_the_private_attribute_is_the_sdk_server_fastmcp_dispatches_through() -> None:
    server: FastMCP[Any] = FastMCP("pinned")
    low = low_level_server(server)
    assert isinstance(low, Server) and low.name == "pinned"
    Elicitation(server)
    Elicitation(server)  # twice: installed once
    assert sum(isinstance(m, RequestBridge) for m in low.middleware) == 1
    assert [type(m).__name__ for m in low.middleware][-3:] == [
        "RequestStateBoundary",  # FastMCP's; elicitkit's rounds run inside it, so their state is sealed
        "RequestBridge",
        "RoundsMiddleware",
    ]


def test_the_sdk_facade_refuses_a_fastmcp_server_at_once() -> None:
    with pytest.raises(ConfigurationError, match=r"elicitkit\.fastmcp\.Elicitation"):
        SdkElicitation(FastMCP("wrong"))  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match=r"elicitkit\.server\.Elicitation"):
        Elicitation(object())  # type: ignore[arg-type]


def test_the_flows_it_makes_are_typed_for_fastmcp_and_need_url_mode() -> None:
    """`secret()` and `oauth()` return the FastMCP-typed classes (a type checker sees FastMCP's
    `Context` accepted); without URL mode both say how to get it."""
    import elicitkit.fastmcp as on_fastmcp
    from elicitkit.server import UrlModeError

    elicit = Elicitation(FastMCP("flows"), url_mode=url_mode())
    secret = elicit.secret("k", title="Key", message="Your key.")
    connection = elicit.oauth("cal", service="Calendar", issuer="https://as.example", client_id="c")
    assert type(secret) is on_fastmcp.Secret and type(connection) is on_fastmcp.OAuthConnection
    bare = Elicitation(FastMCP("bare"))
    with pytest.raises(UrlModeError, match="url_mode=UrlMode"):
        bare.secret("k", title="Key", message="Your key.")
    with pytest.raises(UrlModeError, match="url_mode=UrlMode"):
        bare.oauth("cal", service="Calendar", issuer="https://as.example", client_id="c")


def test_oauth_login_without_its_verifier_is_refused_at_once() -> None:
    from elicitkit.server import OAuthLogin, UrlModeError

    pages = UrlMode(
        browser=OAuthLogin("https://as.example", scopes=["openid"]),
        public_url="http://127.0.0.1:1",
        keys=KeyRing.from_string(KeyRing.generate()),
        store=MemoryStore(),
    )
    with pytest.raises(UrlModeError, match="token_verifier="):
        Elicitation(FastMCP("secured"), url_mode=pages)


async def test_a_context_outside_an_elicitkit_server_is_a_clear_error() -> None:
    plain: FastMCP[Any] = FastMCP("plain")  # no elicitkit middleware on it
    elicit = Elicitation(FastMCP("other"))

    @plain.tool
    async def ask(ctx: Context) -> str:
        try:
            await elicit.form(ctx, "Name?", {"type": "object", "properties": {"n": {"type": "string"}}})
        except NotInRequestError as exc:
            return str(exc)
        return "asked"

    async with fastmcp.Client(plain) as client:
        result = await client.call_tool("ask", {})
    assert "create elicitkit.fastmcp.Elicitation(server) on the FastMCP server that runs" in result.data


def held_server(public_url: str, mask_error_details: bool = False) -> FastMCP[Any]:
    server: FastMCP[Any] = FastMCP("held", mask_error_details=mask_error_details)
    elicit = Elicitation(server, url_mode=url_mode(public_url))
    key = elicit.secret("weather-api-key", title="Weather API key", message="Needs your key.", wait="error")

    @server.tool
    async def forecast(ctx: Context) -> str:
        value = await key.get(ctx)
        return hashlib.sha256(value.encode()).hexdigest()[:8]

    return server


@pytest.mark.parametrize("masked", [False, True])
async def test_minus_32042_reaches_the_sdk_client_as_an_error_not_an_is_error_result(masked: bool) -> None:
    async def accept(context: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="accept")

    async with (
        serve(lambda url: held_server(url, mask_error_details=masked).http_app()) as base,
        Client(f"{base}/mcp", mode="legacy", elicitation_callback=accept, cache=None) as client,
    ):
        with pytest.raises(MCPError) as held:
            await client.call_tool("forecast", {})
    assert held.value.code == -32042
    [required] = held.value.error.data["elicitations"]  # type: ignore[index]
    assert required["mode"] == "url" and required["url"].startswith(f"{base}/elicit/")


async def test_elicitkit_client_completes_a_held_call_and_retries() -> None:
    person = Person()
    ui = ScriptedUI(AcceptedElicitation())
    config = ElicitationConfig(ui, modes=("url",), open_url=person.open, wait_timeout=30)
    async with serve(lambda url: held_server(url).http_app()) as base:
        async with config.connect(f"{base}/mcp", mode="legacy") as client:
            result = await client.call_tool("forecast", {})
        await person.finished()
    assert result.content[0].text == hashlib.sha256(WEATHER_KEY.encode()).hexdigest()[:8]  # type: ignore[union-attr]
    assert isinstance(ui.shown[0].report.url, str) and person.opened == [ui.shown[0].report.url]  # type: ignore[union-attr]


async def test_fastmcp_client_sees_the_held_call_as_an_error() -> None:
    """FastMCP's client raises on -32042 (it cannot retry by itself); elicitkit's adapter docs say so."""
    seen: list[Any] = []

    async def on_elicit(message: str, response_type: Any, params: Any, context: Any) -> Any:
        seen.append(params)
        return ElicitResult(action="accept")

    async with (
        serve(lambda url: held_server(url).http_app()) as base,
        fastmcp.Client(f"{base}/mcp", elicitation_handler=on_elicit, mode="legacy") as client,
    ):
        with pytest.raises(MCPError) as held:
            await client.call_tool("forecast", {})
    assert held.value.code == -32042 and seen == []


async def test_upstream_fastmcp_flattens_minus_32042_without_elicitkit() -> None:
    """The reproduction in docs/upstream.md: when this fails, FastMCP fixed it upstream."""
    plain: FastMCP[Any] = FastMCP("plain")

    @plain.tool
    async def connect() -> str:
        params = ElicitRequestURLParams(message="Connect.", url="https://example.com/c", elicitation_id="e1")
        raise UrlElicitationRequiredError([params])

    async with fastmcp.Client(plain) as client:
        result = await client.call_tool("connect", {}, raise_on_error=False)
    assert result.is_error and "URL elicitation" in result.content[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_mounted_server_asks_once_the_parent_has_elicitkit_too(mode: str) -> None:
    child: FastMCP[Any] = FastMCP("child")
    elicit = Elicitation(child)

    @child.tool
    async def name(ctx: Context) -> str:
        outcome = await elicit.form(ctx, "Name?", {"type": "object", "properties": {"n": {"type": "string"}}})
        return str(getattr(outcome, "data", outcome.action))

    parent: FastMCP[Any] = FastMCP("parent")
    parent.mount(child, namespace="child")
    ui = ScriptedUI(AcceptedElicitation({"n": "Ada"}))
    async with serve(lambda url: parent.http_app()) as base:
        async with ElicitationConfig(ui).connect(f"{base}/mcp", mode=mode) as client:
            unready = await client.call_tool("child_name", {})
        Elicitation(parent)  # the server that runs needs elicitkit's middleware
        async with ElicitationConfig(ui).connect(f"{base}/mcp", mode=mode) as client:
            ready = await client.call_tool("child_name", {})
    assert unready.is_error and "elicitkit.fastmcp.Elicitation(server)" in unready.content[0].text  # type: ignore[union-attr]
    assert ready.content[0].text == "{'n': 'Ada'}"  # type: ignore[union-attr]


def test_only_the_url_mode_mounted_on_fastmcp_reads_its_context() -> None:
    """The adapter tells the one `UrlMode` it mounts about FastMCP's `Context`; it changes no
    module-level state, so a `UrlMode` on an SDK server keeps what it is given."""
    ctx = Context(FastMCP("any"))
    plain = url_mode()
    Elicitation(FastMCP("adapted"), url_mode=(adapted := url_mode()))
    assert plain.sdk_context(ctx) is ctx
    with pytest.raises(NotInRequestError, match=r"create elicitkit\.fastmcp\.Elicitation"):
        adapted.sdk_context(ctx)  # outside a request there is no SDK context to stand for
