"""OAuthConnection end to end over real HTTP on 127.0.0.1: connect, use, refresh, decline,
disconnect; explicit endpoints and discovery; no token passthrough (S-33); S-32."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from starlette.requests import Request
from support.oauth_harness import (
    Browser,
    agenda_running,
    agenda_with,
    at_provider,
    auth,
    connect,
    connected_alice,
    consent,
    events,
    mcp_session,
    provider,
    serve,
    stored,
    token,
    url_required,
)

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.demo.provider import DemoProvider
from elicitkit.server._elicitation import Elicitation
from elicitkit.server._oauth import OAuthConfigError, OAuthConnection
from elicitkit.server._url_mode import UrlMode
from elicitkit.server._user import User
from elicitkit.server._vault import KeyRing
from elicitkit.server._web.identity import HookIdentity
from elicitkit.server._web.login import OAuthLogin
from elicitkit.server.store import MemoryStore

__all__ = ["auth", "provider"]
pytestmark = pytest.mark.timeout(90)


async def test_connect_then_the_tool_reads_alices_calendar(
    auth: DemoAuthServer, provider: DemoProvider
) -> None:
    async with agenda_running(auth, provider) as agenda:
        mcp_token = await token(auth, "alice")
        async with mcp_session(f"{agenda.base}/mcp", mcp_token) as alice:
            with pytest.raises(MCPError) as raised:
                await alice.client.call_tool("agenda", {})
            url = url_required(raised.value)
            assert url.startswith(f"{agenda.base}/elicit/") and "alice" not in url
            async with Browser(auth, "alice") as browser:
                authorize = await consent(browser, url)
                query = httpx.URL(authorize).params
                assert authorize.startswith(provider.authorization_endpoint + "?")
                assert query["redirect_uri"] == agenda.calendar.redirect_uri
                assert query["code_challenge_method"] == "S256" and len(query["code_challenge"]) == 43
                assert query["client_id"] == "agenda-server" and query["scope"] == "calendar.read"
                assert len(query["state"]) >= 43
                callback = await provider.sign_in(browser.http, authorize, "alice")
                done = await browser.http.get(callback)
                assert done.status_code == 200 and "account is connected" in done.text
                assert done.headers["x-frame-options"] == "DENY"
            await asyncio.wait_for(alice.notice_arrived.wait(), 15)
            result = events(await alice.client.call_tool("agenda", {}))
            assert result["owner"] == "alice" and result["events"][0]["title"] == "Dentist"

            tokens = await stored(agenda, "alice", auth.issuer)
            assert tokens is not None and tokens["refresh_token"]
            # S-33: no third-party token on the MCP wire, in either direction
            wire = alice.wire.everything()
            for secret in (tokens["access_token"], tokens["refresh_token"], provider.client_secret):
                assert secret.encode() not in wire
            # S-33: the provider never saw the MCP token, only its own
            assert provider.authorization_headers
            assert all(mcp_token not in header for header in provider.authorization_headers)
            assert f"Bearer {tokens['access_token']}" in provider.authorization_headers


async def test_live_waiting_style(auth: DemoAuthServer, provider: DemoProvider) -> None:
    async with agenda_with(auth, provider, wait="live") as (_, alice):
        call = asyncio.create_task(alice.client.call_tool("agenda", {}))
        asked = await asyncio.wait_for(alice.urls.get(), 30)
        async with Browser(auth, "alice") as browser:
            done = await connect(browser, provider, asked.url)
            assert done.status_code == 200, done.text
        result = events(await asyncio.wait_for(call, 30))
        assert result["owner"] == "alice"
        assert alice.notices == [asked.elicitation_id]


async def test_provider_configured_only_by_discovery(auth: DemoAuthServer, provider: DemoProvider) -> None:
    async with agenda_with(auth, provider, discovery=True) as (agenda, alice):
        await connected_alice(agenda, auth, provider, alice)
        assert events(await alice.client.call_tool("agenda", {}))["owner"] == "alice"
        metadata = await agenda.calendar.metadata()
        assert metadata.issuer == provider.issuer and metadata.iss_in_response
        assert metadata.revocation_endpoint == provider.revocation_endpoint


async def test_expired_token_is_refreshed_without_asking(
    auth: DemoAuthServer, provider: DemoProvider
) -> None:
    async with agenda_with(auth, provider) as (agenda, alice):
        await connected_alice(agenda, auth, provider, alice)
        first = await stored(agenda, "alice", auth.issuer)
        assert first is not None

        provider.expire_access_tokens()  # the provider ends it; we learn from a 401
        assert events(await alice.client.call_tool("agenda", {}))["owner"] == "alice"
        second = await stored(agenda, "alice", auth.issuer)
        assert second is not None and second["access_token"] != first["access_token"]
        assert second["refresh_token"] != first["refresh_token"]  # rotated

        provider.access_token_lifetime = 1  # now we know the expiry and refresh before use
        agenda.calendar.leeway = 0
        provider.expire_access_tokens()
        assert events(await alice.client.call_tool("agenda", {}))["owner"] == "alice"
        third = await stored(agenda, "alice", auth.issuer)
        assert third is not None and third["access_token"] != second["access_token"]
        await asyncio.sleep(1.2)
        seen = len(provider.authorization_headers)
        assert events(await alice.client.call_tool("agenda", {}))["owner"] == "alice"
        fourth = await stored(agenda, "alice", auth.issuer)
        assert fourth is not None and fourth["access_token"] != third["access_token"]
        api_calls = [h for h in provider.authorization_headers[seen:] if h.startswith("Bearer ")]
        assert api_calls == [f"Bearer {fourth['access_token']}"]  # no failed call first
        assert alice.urls.empty()  # never asked again


async def test_failed_refresh_starts_a_new_url_elicitation(
    auth: DemoAuthServer, provider: DemoProvider
) -> None:
    async with agenda_with(auth, provider) as (agenda, alice):
        await connected_alice(agenda, auth, provider, alice)
        provider.refuse_refresh = True
        provider.expire_access_tokens()
        with pytest.raises(MCPError) as raised:
            await alice.client.call_tool("agenda", {})
        url = url_required(raised.value)
        assert await stored(agenda, "alice", auth.issuer) is None
        provider.refuse_refresh = False
        async with Browser(auth, "alice") as browser:
            assert (await connect(browser, provider, url)).status_code == 200
        assert events(await alice.client.call_tool("agenda", {}))["owner"] == "alice"


async def test_decline_on_our_page_and_at_the_provider(auth: DemoAuthServer, provider: DemoProvider) -> None:
    async with agenda_with(auth, provider) as (agenda, alice):
        with pytest.raises(MCPError) as raised:
            await alice.client.call_tool("agenda", {})
        url = url_required(raised.value)
        async with Browser(auth, "alice") as browser:
            authorize = await consent(browser, url)
            callback = await provider.sign_in(browser.http, authorize, "alice", approve=False)
            assert httpx.URL(callback).params["error"] == "access_denied"
            page = await browser.http.get(callback)
            assert page.status_code == 200 and "did not connect Demo Calendar" in page.text
        record = await agenda.url_mode.store.get(url.rsplit("/", 1)[1])
        assert record is not None and record.state == "declined"
        assert await stored(agenda, "alice", auth.issuer) is None

        with pytest.raises(MCPError) as again:
            await alice.client.call_tool("agenda", {})
        second = url_required(again.value)
        async with Browser(auth, "alice") as browser:
            page = await browser.open(second)
            declined = await browser.submit(page, action="decline")
            assert declined.status_code == 200 and "declined" in declined.text
        record = await agenda.url_mode.store.get(second.rsplit("/", 1)[1])
        assert record is not None and record.state == "declined"


async def test_disconnect_revokes_and_deletes(auth: DemoAuthServer, provider: DemoProvider) -> None:
    async with agenda_with(auth, provider) as (agenda, alice):
        await connected_alice(agenda, auth, provider, alice)
        tokens = await stored(agenda, "alice", auth.issuer)
        assert tokens is not None
        result = await alice.client.call_tool("disconnect_calendar", {})
        assert result.content[0].text == "revoked"  # type: ignore[union-attr]
        assert await stored(agenda, "alice", auth.issuer) is None
        async with httpx.AsyncClient() as http:
            refused = await http.get(
                provider.api_url, headers={"Authorization": f"Bearer {tokens['access_token']}"}
            )
        assert refused.status_code == 401
        with pytest.raises(MCPError) as raised:  # the next use asks again
            await alice.client.call_tool("agenda", {})
        url_required(raised.value)


async def test_another_mcp_client_of_alice_needs_her_consent(
    auth: DemoAuthServer, provider: DemoProvider
) -> None:
    """Confused deputy: tokens alice connected through one app do not serve another app of hers.
    The consent page names that app as it registered itself, never by its client_id."""
    auth.register_client(
        client_id="other-app", public=True, redirect_uris=["http://127.0.0.1:9/cb"], client_name="Other App"
    )
    other_token = (await auth.token_for("alice", client_id="other-app")).access_token
    async with agenda_with(auth, provider) as (agenda, alice):
        await connected_alice(agenda, auth, provider, alice)
        async with mcp_session(f"{agenda.base}/mcp", other_token) as other:
            with pytest.raises(MCPError) as raised:
                await other.client.call_tool("agenda", {})
            url = url_required(raised.value)
            async with Browser(auth, "alice") as browser:
                page = await browser.open(url)
                assert "The application <strong>Other App</strong> asks" in page.text
                assert "other-app" not in page.text and "not allowed this application" in page.text
                assert "read your calendar" in page.text
            consents = await agenda.url_mode.vault.get(User(auth.issuer, "alice"), "oauth:calendar:consent")
            assert consents is not None and set(json.loads(consents)) == {"demo-test-client"}
            async with Browser(auth, "alice") as browser:
                assert (await connect(browser, provider, url)).status_code == 200
            assert events(await other.client.call_tool("agenda", {}))["owner"] == "alice"
            consents = await agenda.url_mode.vault.get(User(auth.issuer, "alice"), "oauth:calendar:consent")
            assert consents is not None and set(json.loads(consents)) == {"demo-test-client", "other-app"}
        async with mcp_session(f"{agenda.base}/mcp", await token(auth, "alice")) as alice:
            assert events(await alice.client.call_tool("agenda", {}))["owner"] == "alice"  # still allowed
            assert alice.urls.empty()


async def test_the_mcp_servers_own_authorization_server_is_refused(auth: DemoAuthServer) -> None:
    """S-32: URL mode never signs the user in to the MCP server itself."""
    server: MCPServer[Any] = MCPServer(
        "self-auth",
        token_verifier=auth.token_verifier(),
        auth=AuthSettings(issuer_url=auth.issuer, resource_server_url=None, required_scopes=["mcp"]),  # type: ignore[arg-type]
    )
    url_mode = UrlMode(
        browser=OAuthLogin(auth.issuer, scopes=["openid"]),
        public_url="http://127.0.0.1:9",
        keys=KeyRing.from_string(KeyRing.generate()),
        store=MemoryStore(),
        wait="error",
    )
    Elicitation(server, url_mode=url_mode)
    with pytest.raises(OAuthConfigError, match="S-32"):  # explicit endpoints: refused at once
        OAuthConnection(
            url_mode,
            "itself-too",
            service="Us",
            client_id="x",
            client_secret="y",
            authorization_endpoint=auth.authorization_endpoint,
            token_endpoint=auth.token_endpoint,
        )
    with pytest.raises(OAuthConfigError, match="S-32"):  # a token for the MCP server itself
        OAuthConnection(
            url_mode,
            "for-us",
            service="Elsewhere",
            client_id="x",
            client_secret="y",
            authorization_endpoint="http://127.0.0.1:8/authorize",
            token_endpoint="http://127.0.0.1:8/token",
            resource="http://127.0.0.1:9/mcp",
        )
    by_discovery = OAuthConnection(  # discovered: refused when first used
        url_mode, "itself", service="Us", client_id="x", client_secret="y", issuer=auth.issuer
    )

    @server.tool()
    async def use(ctx: Context) -> str:  # type: ignore[type-arg]
        return await by_discovery.token(ctx)

    async with (
        serve(lambda url: server.streamable_http_app()) as base,
        mcp_session(f"{base}/mcp", await token(auth, "alice")) as alice,
    ):
        result = await alice.client.call_tool("use", {})
        assert result.is_error
        text = result.content[0].text  # type: ignore[union-attr]
        assert "S-32" in text and "must not be used to sign users in" in text
        assert alice.urls.empty()


async def test_2026_rounds_same_tool_code(auth: DemoAuthServer, provider: DemoProvider) -> None:
    from mcp_types import ElicitResult, InputRequiredResult

    async with agenda_with(auth, provider, mode="2026-07-28") as (agenda, alice):
        first = await alice.client.session.call_tool("agenda", {}, allow_input_required=True)
        assert isinstance(first, InputRequiredResult), first
        ((key, request),) = first.input_requests.items()
        url = request.params.url  # type: ignore[union-attr]
        async with Browser(auth, "alice") as browser:
            assert (await connect(browser, provider, url)).status_code == 200
        done = await alice.client.session.call_tool(
            "agenda",
            {},
            input_responses={key: ElicitResult(action="accept")},
            request_state=first.request_state,
            allow_input_required=True,
        )
        assert not isinstance(done, InputRequiredResult)
        assert events(done)["owner"] == "alice"
        tokens = await stored(agenda, "alice", auth.issuer)
        assert tokens is not None and tokens["access_token"].encode() not in alice.wire.everything()


async def test_concurrent_calls_refresh_once(auth: DemoAuthServer, provider: DemoProvider) -> None:
    """Refresh tokens rotate and a reused one revokes the grant: refreshing twice would lose it."""
    async with agenda_with(auth, provider) as (agenda, alice):
        await connected_alice(agenda, auth, provider, alice)
        provider.expire_access_tokens()
        results = await asyncio.gather(*(alice.client.call_tool("agenda", {}) for _ in range(4)))
        assert all(events(result)["owner"] == "alice" for result in results)
        assert alice.urls.empty()
        tokens = await stored(agenda, "alice", auth.issuer)
        assert tokens is not None
        async with httpx.AsyncClient() as http:  # the grant survived: the kept token works
            answer = await http.get(
                provider.api_url, headers={"Authorization": f"Bearer {tokens['access_token']}"}
            )
        assert answer.status_code == 200


async def test_connect_with_the_applications_own_sign_in(
    auth: DemoAuthServer, provider: DemoProvider
) -> None:
    """Any `BrowserIdentity` will do, not only `OAuthLogin`: here the application's own sign-in
    (`HookIdentity`, reading the user a trusted proxy vouches for). The callback asks it who is
    in the browser now, so a session that changed hands since the consent is refused."""

    async def signed_in(request: Request) -> User | None:
        name = request.headers.get("x-app-user")
        return User(auth.issuer, name) if name else None

    async with agenda_with(auth, provider, browser=HookIdentity(signed_in)) as (agenda, alice):
        async with Browser(None, "alice") as browser:
            browser.http.headers["x-app-user"] = "alice"
            with pytest.raises(MCPError) as raised:
                await alice.client.call_tool("agenda", {})
            callback = await at_provider(
                browser, provider, await consent(browser, url_required(raised.value))
            )
            browser.http.headers["x-app-user"] = "bob"  # the same browser session, now someone else
            assert (await browser.http.get(callback)).status_code == 403
            assert await stored(agenda, "alice", auth.issuer) is None

            browser.http.headers["x-app-user"] = "alice"
            with pytest.raises(MCPError) as raised:
                await alice.client.call_tool("agenda", {})
            done = await connect(browser, provider, url_required(raised.value))
            assert done.status_code == 200 and "account is connected" in done.text
        await asyncio.wait_for(alice.notice_arrived.wait(), 15)
        assert events(await alice.client.call_tool("agenda", {}))["owner"] == "alice"
