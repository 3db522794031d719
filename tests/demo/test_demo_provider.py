"""The demo third-party provider: its own OAuth server, consent, one API, and its records."""

import asyncio
import base64

import httpx
import pytest
from authlib.integrations.httpx_client import AsyncOAuth2Client
from demo_oauth_helpers import CALLBACK, authorize_url, open_login, query_of

from elicitkit.demo._scripted import pkce_pair
from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.demo.provider import CALENDAR_SCOPE, DEMO_EVENTS, DemoProvider

BASIC = "Basic " + base64.b64encode(b"mcp-server:s3cret").decode()


async def code_for(calendar: DemoProvider, browser: httpx.AsyncClient, user: str) -> tuple[str, str]:
    verifier, challenge = pkce_pair()
    location = await calendar.sign_in(browser, authorize_url(calendar.url, "mcp-server", challenge), user)
    return query_of(location)["code"], verifier


async def exchange_basic(calendar: DemoProvider, code: str, verifier: str) -> httpx.Response:
    """The exchange as authlib makes it: credentials only in the Basic header."""
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": CALLBACK,
    }
    async with httpx.AsyncClient() as http:
        return await http.post(f"{calendar.url}/token", data=form, headers={"Authorization": BASIC})


async def get_calendar(calendar: DemoProvider, token: str) -> httpx.Response:
    async with httpx.AsyncClient() as http:
        return await http.get(calendar.api_url, headers={"Authorization": f"Bearer {token}"})


async def refresh(calendar: DemoProvider, refresh_token: str) -> httpx.Response:
    async with httpx.AsyncClient() as http:
        return await http.post(
            f"{calendar.url}/token",
            data={"grant_type": "refresh_token", "refresh_token": refresh_token},
            headers={"Authorization": BASIC},
        )


async def test_discovery_document(calendar: DemoProvider) -> None:
    async with httpx.AsyncClient() as http:
        document = (await http.get(calendar.metadata_url)).json()
    assert calendar.metadata_url == f"{calendar.url}/.well-known/oauth-authorization-server"
    assert document["issuer"] == calendar.issuer == calendar.url
    assert (
        document["authorization_endpoint"] == calendar.authorization_endpoint == f"{calendar.url}/authorize"
    )
    assert document["token_endpoint"] == calendar.token_endpoint == f"{calendar.url}/token"
    assert document["revocation_endpoint"] == calendar.revocation_endpoint == f"{calendar.url}/revoke"
    assert "registration_endpoint" not in document
    assert document["scopes_supported"] == [CALENDAR_SCOPE]
    assert document["code_challenge_methods_supported"] == ["S256"]
    assert set(document["grant_types_supported"]) == {"authorization_code", "refresh_token"}
    assert "client_secret_basic" in document["token_endpoint_auth_methods_supported"]


async def test_no_dynamic_registration(calendar: DemoProvider) -> None:
    async with httpx.AsyncClient() as http:
        response = await http.post(f"{calendar.url}/register", json={"redirect_uris": [CALLBACK]})
    assert response.status_code in (404, 405)


async def test_consent_page_names_the_client_and_what_it_may_do(
    calendar: DemoProvider, browser: httpx.AsyncClient
) -> None:
    _, challenge = pkce_pair()
    page, hidden = await open_login(browser, authorize_url(calendar.url, "mcp-server", challenge))
    assert page.status_code == 200
    assert "Demo Calendar" in page.text
    assert "<strong>Demo Assistant</strong> asks you to sign in" in page.text  # the name it registered
    assert "read your calendar" in page.text
    assert "Sign in and allow" in page.text
    assert page.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert set(hidden) == {"request", "csrf_token"}


async def test_code_flow_then_the_api_returns_the_persons_events(
    calendar: DemoProvider, browser: httpx.AsyncClient
) -> None:
    code, verifier = await code_for(calendar, browser, "alice")
    response = await exchange_basic(calendar, code, verifier)
    assert response.status_code == 200, response.text
    tokens = response.json()
    assert tokens["scope"] == CALENDAR_SCOPE
    assert tokens["refresh_token"]
    api = await get_calendar(calendar, tokens["access_token"])
    assert api.status_code == 200
    assert api.json() == {"owner": "alice", "events": DEMO_EVENTS["alice"]}
    bob = await calendar.token_for("bob")
    assert (await get_calendar(calendar, bob.access_token)).json()["owner"] == "bob"


async def test_client_secret_post_works_too(calendar: DemoProvider, browser: httpx.AsyncClient) -> None:
    code, verifier = await code_for(calendar, browser, "bob")
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": CALLBACK,
        "client_id": "mcp-server",
        "client_secret": "s3cret",
    }
    async with httpx.AsyncClient() as http:
        response = await http.post(f"{calendar.url}/token", data=form)
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("secret", ["wrong", ""])
async def test_wrong_client_secret_is_refused(
    calendar: DemoProvider, browser: httpx.AsyncClient, secret: str
) -> None:
    code, verifier = await code_for(calendar, browser, "alice")
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": CALLBACK,
    }
    async with httpx.AsyncClient() as http:
        response = await http.post(f"{calendar.url}/token", data=form, auth=("mcp-server", secret))
    assert response.status_code == 401
    assert response.json()["error"] == "invalid_client"


async def test_api_refuses_missing_foreign_and_unknown_tokens(
    calendar: DemoProvider, auth: DemoAuthServer
) -> None:
    mcp_token = await auth.token_for("alice")
    async with httpx.AsyncClient() as http:
        missing = await http.get(calendar.api_url)
    foreign = await get_calendar(calendar, mcp_token.access_token)
    unknown = await get_calendar(calendar, "made-up")
    for response in (missing, foreign, unknown):
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("Bearer ")


async def test_every_authorization_header_is_recorded(
    calendar: DemoProvider, browser: httpx.AsyncClient
) -> None:
    assert calendar.authorization_headers == []
    code, verifier = await code_for(calendar, browser, "alice")
    tokens = (await exchange_basic(calendar, code, verifier)).json()
    await get_calendar(calendar, tokens["access_token"])
    await get_calendar(calendar, "some-other-token")
    assert calendar.authorization_headers == [
        BASIC,
        f"Bearer {tokens['access_token']}",
        "Bearer some-other-token",
    ]


async def test_expired_access_token_is_refused_and_refresh_rotates(
    calendar: DemoProvider, browser: httpx.AsyncClient
) -> None:
    code, verifier = await code_for(calendar, browser, "alice")
    tokens = (await exchange_basic(calendar, code, verifier)).json()
    calendar.expire_access_tokens()
    assert (await get_calendar(calendar, tokens["access_token"])).status_code == 401
    renewed = await refresh(calendar, tokens["refresh_token"])
    assert renewed.status_code == 200, renewed.text
    new = renewed.json()
    assert new["refresh_token"] != tokens["refresh_token"]
    assert (await get_calendar(calendar, new["access_token"])).json()["owner"] == "alice"
    stale = await refresh(calendar, tokens["refresh_token"])
    assert stale.json()["error"] == "invalid_grant"


async def test_short_access_token_lifetime(calendar: DemoProvider) -> None:
    calendar.access_token_lifetime = 3  # long enough for the first use on a busy CI machine
    tokens = await calendar.token_for("alice")
    assert tokens.expires_in == 3
    assert (await get_calendar(calendar, tokens.access_token)).status_code == 200
    await asyncio.sleep(3.1)
    assert (await get_calendar(calendar, tokens.access_token)).status_code == 401


async def test_refresh_can_be_refused(calendar: DemoProvider) -> None:
    tokens = await calendar.token_for("alice")
    assert tokens.refresh_token is not None
    calendar.refuse_refresh = True
    refused = await refresh(calendar, tokens.refresh_token)
    assert refused.status_code == 400
    assert refused.json()["error"] == "invalid_grant"
    calendar.refuse_refresh = False
    again = await refresh(calendar, tokens.refresh_token)
    assert again.status_code == 200, again.text


async def test_revocation_ends_access_and_refresh(calendar: DemoProvider) -> None:
    tokens = await calendar.token_for("bob")
    assert tokens.refresh_token is not None
    async with httpx.AsyncClient() as http:
        revoked = await http.post(
            f"{calendar.url}/revoke", data={"token": tokens.refresh_token}, headers={"Authorization": BASIC}
        )
    assert revoked.status_code == 200
    assert (await get_calendar(calendar, tokens.access_token)).status_code == 401
    assert (await refresh(calendar, tokens.refresh_token)).json()["error"] == "invalid_grant"


async def test_decline_at_consent(calendar: DemoProvider, browser: httpx.AsyncClient) -> None:
    _, challenge = pkce_pair()
    location = await calendar.sign_in(
        browser, authorize_url(calendar.url, "mcp-server", challenge), "alice", approve=False
    )
    assert query_of(location)["error"] == "access_denied"


async def test_redirect_uri_is_exact_and_can_be_reconfigured(
    calendar: DemoProvider, browser: httpx.AsyncClient
) -> None:
    _, challenge = pkce_pair()
    later = "http://127.0.0.1:8/oauth/callback"
    refused = await browser.get(authorize_url(calendar.url, "mcp-server", challenge, redirect_uri=later))
    assert refused.status_code == 400
    calendar.set_redirect_uris([later])
    allowed = await browser.get(authorize_url(calendar.url, "mcp-server", challenge, redirect_uri=later))
    assert allowed.status_code == 302
    old = await browser.get(authorize_url(calendar.url, "mcp-server", challenge))
    assert old.status_code == 400


async def test_reused_code_and_wrong_verifier_are_refused(
    calendar: DemoProvider, browser: httpx.AsyncClient
) -> None:
    code, verifier = await code_for(calendar, browser, "alice")
    assert (await exchange_basic(calendar, code, pkce_pair()[0])).json()["error"] == "invalid_grant"
    assert (await exchange_basic(calendar, code, verifier)).status_code == 200
    assert (await exchange_basic(calendar, code, verifier)).json()["error"] == "invalid_grant"


async def test_missing_csrf_is_403(calendar: DemoProvider, browser: httpx.AsyncClient) -> None:
    _, challenge = pkce_pair()
    _, hidden = await open_login(browser, authorize_url(calendar.url, "mcp-server", challenge))
    form = {"request": hidden["request"], "username": "alice", "password": "alice-demo-password"}
    assert (await browser.post(f"{calendar.url}/login", data=form)).status_code == 403


async def test_works_with_authlib_as_the_client(calendar: DemoProvider, browser: httpx.AsyncClient) -> None:
    """What an OAuthConnection does: authlib's client, configured from discovery, Basic auth."""
    async with httpx.AsyncClient() as http:
        document = (await http.get(f"{calendar.url}/.well-known/oauth-authorization-server")).json()
    verifier, _ = pkce_pair()
    async with AsyncOAuth2Client(
        "mcp-server",
        "s3cret",
        scope=CALENDAR_SCOPE,
        redirect_uri=CALLBACK,
        code_challenge_method="S256",
    ) as oauth:
        url, state = oauth.create_authorization_url(
            document["authorization_endpoint"], code_verifier=verifier
        )
        callback = await calendar.sign_in(browser, url, "alice")
        token = await oauth.fetch_token(
            document["token_endpoint"], authorization_response=callback, code_verifier=verifier, state=state
        )
        api = await oauth.get(calendar.api_url)
        assert api.json()["owner"] == "alice"
        calendar.expire_access_tokens()
        refreshed = await oauth.refresh_token(document["token_endpoint"])
        assert refreshed["access_token"] != token["access_token"]
        assert (await oauth.get(calendar.api_url)).status_code == 200
        revoked = await oauth.revoke_token(document["revocation_endpoint"], token=refreshed["refresh_token"])
        assert revoked.status_code == 200
    assert (await get_calendar(calendar, refreshed["access_token"])).status_code == 401


async def test_basic_credentials_of_one_client_do_not_authenticate_another(
    calendar: DemoProvider, browser: httpx.AsyncClient
) -> None:
    other = calendar.register_client(client_id="other", redirect_uris=[CALLBACK])
    code, verifier = await code_for(calendar, browser, "alice")
    form = {
        "grant_type": "authorization_code",
        "client_id": other.client_id,
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": CALLBACK,
    }
    async with httpx.AsyncClient() as http:
        response = await http.post(f"{calendar.url}/token", data=form, headers={"Authorization": BASIC})
    assert response.status_code == 401
    assert response.json()["error"] == "invalid_client"


async def test_token_for_needs_a_redirect_uri() -> None:
    async with DemoProvider() as unconfigured:
        with pytest.raises(ValueError, match="has no redirect URI yet: call set_redirect_uris"):
            await unconfigured.token_for("alice")
        unconfigured.set_redirect_uris([CALLBACK])
        tokens = await unconfigured.token_for("alice")
        assert (await get_calendar(unconfigured, tokens.access_token)).json()["owner"] == "alice"
        assert unconfigured.client_id == "elicitkit-demo"
        assert len(unconfigured.client_secret) >= 32
