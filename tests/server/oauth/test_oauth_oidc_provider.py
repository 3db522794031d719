"""`OAuthConnection` against a provider none of us wrote: panva's oidc-provider (OpenID
Certified), configured only through its discovery document. Authorization code + PKCE with
each client authentication method, refresh with rotation, revocation, a down-scoped grant,
offline access the OpenID Connect way, extra authorization parameters, and provider errors
as sentences without secrets."""

from __future__ import annotations

import base64
import html
import json
from typing import Any

import httpx
import pytest
from mcp.shared.exceptions import MCPError
from support.oauth_harness import Browser, auth, mcp_session, token, url_required
from support.oidc_harness import CAL, KEY, SECRET, connect, consent_here, introspect, running, stored, use

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.server._oauth import OAuthConfigError, OAuthConnection
from elicitkit.server._url_mode import UrlMode
from elicitkit.server._user import User
from elicitkit.server._vault import KeyRing
from elicitkit.server._web.login import OAuthLogin
from elicitkit.server.store import MemoryStore

__all__ = ["auth"]

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("name", ["basic", "post", "jwt", "public"])
async def test_each_client_auth_method_connects_refreshes_and_revokes(
    auth: DemoAuthServer, name: str
) -> None:
    async with running(auth) as run, mcp_session(f"{run.base}/mcp", await token(auth, "alice")) as alice:
        authorize, done = await connect(run, auth, alice, name)
        query = httpx.URL(authorize).params
        assert query["code_challenge_method"] == "S256" and query["resource"] == CAL
        assert query["prompt"] == "consent"  # offline_access, as OpenID Connect requires it
        assert done.status_code == 200 and "account is connected" in done.text, done.text
        assert "did not grant" not in done.text
        first = await stored(run, name)
        assert first["refresh_token"], "offline access granted a refresh token"
        active = await introspect(run.peer, (await use(alice, name))["token"])
        assert active["active"] is True and active["sub"] == "alice" and active["aud"] == CAL
        assert active["client_id"] == f"agenda-{name}"

        # refresh: the access token expired; the refresh token is rotated, the old one is spent
        await run.url_mode.vault.put(
            User(run.url_mode.users.issuer or "", "alice"),
            f"oauth:{name}:tokens",
            json.dumps(first | {"expires_at": 1}),
        )
        fresh = await use(alice, name)
        assert fresh["token"] != first["access_token"]
        assert run.connections[name].refreshing == 0  # per-user refresh locks go once unused
        second = await stored(run, name)
        assert second["refresh_token"] != first["refresh_token"]
        assert (await introspect(run.peer, first["refresh_token"]))["active"] is False
        assert (await introspect(run.peer, fresh["token"]))["active"] is True

        # revocation at the provider, then both copies gone here
        answer = await alice.client.call_tool("disconnect", {"name": name})
        assert answer.content[0].text == "revoked"  # type: ignore[union-attr]
        assert (await introspect(run.peer, fresh["token"]))["active"] is False
        assert (await introspect(run.peer, second["refresh_token"]))["active"] is False


async def test_down_scoped_grant_is_shown_kept_and_refreshed(auth: DemoAuthServer) -> None:
    async with running(auth) as run, mcp_session(f"{run.base}/mcp", await token(auth, "alice")) as alice:
        authorize, done = await connect(run, auth, alice, "wide")
        assert httpx.URL(authorize).params["ui_locales"] == "de"  # extra authorization parameters
        assert done.status_code == 200 and "account is connected" in done.text
        assert "not granted: change your calendar" in done.text
        answer = await use(alice, "wide")
        assert answer["granted"] == ["calendar.read", "offline_access"]
        tokens = await stored(run, "wide")
        await run.url_mode.vault.put(
            User(run.url_mode.users.issuer or "", "alice"),
            "oauth:wide:tokens",
            json.dumps(tokens | {"expires_at": 1}),
        )
        refreshed = await use(alice, "wide")  # asking again for calendar.write would be invalid_scope
        assert refreshed["token"] != answer["token"] and refreshed["granted"] == [
            "calendar.read",
            "offline_access",
        ]


async def test_provider_errors_are_sentences_without_secrets(auth: DemoAuthServer) -> None:
    async with running(auth) as run, mcp_session(f"{run.base}/mcp", await token(auth, "alice")) as alice:
        _, refused = await connect(run, auth, alice, "wrong")
        assert refused.status_code == 502, refused.text
        said = html.unescape(refused.text)
        assert "did not accept this server's client credentials" in said and "(invalid_client)" in said
        assert SECRET not in refused.text and "the-real-one" not in refused.text
        assert "code=" not in refused.text

        # the person cancels at the provider: a decline, said as such
        with pytest.raises(MCPError) as raised:
            await alice.client.call_tool("use", {"name": "basic"})
        async with Browser(auth, "alice") as browser:
            authorize = await consent_here(browser, url_required(raised.value))
            callback = await run.peer.sign_in(browser.http, authorize, "alice", abort=True)
            assert "error=access_denied" in callback
            page = await browser.http.get(callback)
        assert page.status_code == 200 and "You did not connect Peer Calendar" in page.text

        # a refresh the provider refuses: the tool's error is a sentence, with no secret or token in it
        _, done = await connect(run, auth, alice, "post")
        assert "account is connected" in done.text
        tokens = await stored(run, "post")
        await run.url_mode.vault.put(
            User(run.url_mode.users.issuer or "", "alice"),
            "oauth:post:tokens",
            json.dumps(tokens | {"expires_at": 1}),
        )
        run.connections["post"].client_secret = "not-the-secret"  # rotated at the provider, say
        failed = await alice.client.call_tool("use", {"name": "post"})
        assert failed.is_error
        said = failed.content[0].text  # type: ignore[union-attr]
        assert "Peer Calendar did not accept this server's client credentials" in said
        assert "(invalid_client)" in said and "Try again later" in said
        for secret in ("not-the-secret", SECRET, tokens["refresh_token"], tokens["access_token"]):
            assert secret not in said


def test_auth_method_configuration_is_checked_at_start_up() -> None:
    url_mode = UrlMode(
        browser=OAuthLogin("http://127.0.0.1:1"),
        public_url="http://127.0.0.1:2",
        keys=KeyRing.from_string(KeyRing.generate()),
        store=MemoryStore(),
    )
    common: dict[str, Any] = {"service": "X", "client_id": "c", "issuer": "http://127.0.0.1:3"}
    with pytest.raises(OAuthConfigError, match="private_key_jwt, which needs a private_key"):
        OAuthConnection(
            url_mode, "a", client_secret="s", token_endpoint_auth_method="private_key_jwt", **common
        )
    with pytest.raises(OAuthConfigError, match="may not set redirect_uri, state"):
        OAuthConnection(url_mode, "b", authorization_params={"state": "x", "redirect_uri": "y"}, **common)
    with pytest.raises(OAuthConfigError, match="private RSA, EC or Ed25519"):
        OAuthConnection(url_mode, "c", private_key="not a key", **common)
    OAuthConnection(url_mode, "d", private_key=KEY.as_dict(private=True), **common)


def test_basic_credentials_are_form_encoded() -> None:
    from elicitkit.server._tokens import basic_credentials

    assert (
        base64.b64decode(basic_credentials("agenda", SECRET)[6:]).decode() == "agenda:b%2Bs%2Fe%3Dc%25r%3Ae+t"
    )
