"""The consent and sign-in pages name each application by the name it registered (or the MCP
server's own name), never by an identifier such as a client_id."""

from __future__ import annotations

import httpx
import pytest
from mcp.shared.exceptions import MCPError
from support.oauth_harness import (
    Browser,
    agenda_running,
    agenda_with,
    auth,
    mcp_session,
    provider,
    url_required,
)

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.demo.provider import DemoProvider

__all__ = ["auth", "provider"]
pytestmark = pytest.mark.timeout(90)


async def test_the_sign_in_page_names_the_mcp_server_that_sends_the_person_there(
    auth: DemoAuthServer, provider: DemoProvider
) -> None:
    async with agenda_with(auth, provider) as (_agenda, alice):
        with pytest.raises(MCPError) as raised:
            await alice.client.call_tool("agenda", {})
        async with httpx.AsyncClient(follow_redirects=True, timeout=10) as http:
            page = await http.get(url_required(raised.value))
    assert page.url.host == httpx.URL(auth.issuer).host and "Sign in" in page.text, page.text
    assert "<strong>agenda</strong> asks you to sign in" in page.text, page.text  # MCPServer("agenda")
    assert "elicitkit browser sign-in" not in page.text


async def test_a_client_with_no_registered_name_is_not_named_by_its_id(
    auth: DemoAuthServer, provider: DemoProvider
) -> None:
    auth.register_client(client_id="test-client-7f3a", public=True, redirect_uris=["http://127.0.0.1:9/cb"])
    unnamed = (await auth.token_for("alice", client_id="test-client-7f3a")).access_token
    async with (
        agenda_running(auth, provider) as agenda,
        mcp_session(f"{agenda.base}/mcp", unnamed) as session,
    ):
        with pytest.raises(MCPError) as raised:
            await session.client.call_tool("agenda", {})
        async with Browser(auth, "alice") as browser:
            page = await browser.open(url_required(raised.value))
    assert page.status_code == 200, page.text
    assert "Your AI application asks agenda to use your" in " ".join(page.text.split()), page.text
    assert "test-client-7f3a" not in page.text


async def test_the_demo_story_names_alices_app_and_the_assistant_as_registered(
    auth: DemoAuthServer, provider: DemoProvider
) -> None:
    """The demo's own clients are registered under the names a person reads on those pages."""
    async with agenda_with(auth, provider) as (_agenda, alice):
        with pytest.raises(MCPError) as raised:
            await alice.client.call_tool("agenda", {})
        async with Browser(auth, "alice") as browser:
            page = await browser.open(url_required(raised.value))
    assert "The application <strong>Demo AI app</strong> asks agenda" in " ".join(page.text.split())
    assert "demo-test-client" not in page.text
