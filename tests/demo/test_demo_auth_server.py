"""The demo authorization server: a real code flow over HTTP, and every way it must say no."""

import time

import httpx
import pytest
from demo_oauth_helpers import CALLBACK, authorize_url, open_login, query_of

from elicitkit.demo._scripted import pkce_pair
from elicitkit.demo.auth_server import DemoAuthServer, IntrospectionTokenVerifier, SignInError


async def register(auth: DemoAuthServer, **metadata: object) -> dict[str, str]:
    """Dynamic client registration over HTTP, as an MCP client does it."""
    body = {"redirect_uris": [CALLBACK], "token_endpoint_auth_method": "none", **metadata}
    async with httpx.AsyncClient() as http:
        response = await http.post(f"{auth.url}/register", json=body)
    assert response.status_code == 201, response.text
    return response.json()


async def code_for(auth: DemoAuthServer, browser: httpx.AsyncClient, client_id: str, user: str, **extra: str):
    verifier, challenge = pkce_pair()
    location = await auth.sign_in(browser, authorize_url(auth.url, client_id, challenge, **extra), user)
    return query_of(location)["code"], verifier


async def exchange(
    auth: DemoAuthServer, client_id: str, code: str, verifier: str, **extra: str
) -> httpx.Response:
    form = {
        "grant_type": "authorization_code",
        "client_id": client_id,
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": CALLBACK,
        **extra,
    }
    async with httpx.AsyncClient() as http:
        return await http.post(f"{auth.url}/token", data=form)


async def introspect(auth: DemoAuthServer, token: str) -> dict[str, object]:
    resource_server = auth.register_client(client_name="resource server")
    async with httpx.AsyncClient() as http:
        response = await http.post(
            f"{auth.url}/introspect",
            data={"token": token},
            auth=(resource_server.client_id, resource_server.client_secret or ""),
        )
    assert response.status_code == 200, response.text
    return response.json()


async def test_discovery_document_lists_every_endpoint(auth: DemoAuthServer) -> None:
    async with httpx.AsyncClient() as http:
        document = (await http.get(f"{auth.url}/.well-known/oauth-authorization-server")).json()
    assert document["issuer"] == auth.issuer == auth.url
    assert not auth.issuer.endswith("/")
    assert document["authorization_endpoint"] == f"{auth.url}/authorize"
    assert document["token_endpoint"] == f"{auth.url}/token"
    assert document["registration_endpoint"] == f"{auth.url}/register"
    assert document["revocation_endpoint"] == f"{auth.url}/revoke"
    assert document["introspection_endpoint"] == f"{auth.url}/introspect"
    assert document["userinfo_endpoint"] == f"{auth.url}/userinfo"
    assert document["code_challenge_methods_supported"] == ["S256"]
    assert document["response_types_supported"] == ["code"]
    assert set(document["grant_types_supported"]) == {"authorization_code", "refresh_token"}
    assert set(document["scopes_supported"]) == {"mcp", "openid"}
    assert document["authorization_response_iss_parameter_supported"] is True


async def test_listens_on_loopback_only(auth: DemoAuthServer) -> None:
    assert auth.url.startswith("http://127.0.0.1:")


async def test_code_flow_with_dynamic_registration_gives_alice_a_token(
    auth: DemoAuthServer, browser: httpx.AsyncClient
) -> None:
    client = await register(auth, scope="mcp openid", client_name="Some MCP client")
    verifier, challenge = pkce_pair()
    url = authorize_url(
        auth.url, client["client_id"], challenge, scope="mcp openid", resource="http://127.0.0.1:1/mcp"
    )
    page, hidden = await open_login(browser, url)
    assert page.status_code == 200
    assert "Some MCP client" in page.text
    response = await browser.post(
        f"{auth.url}/login",
        data={**hidden, "username": "alice", "password": "alice-demo-password", "decision": "allow"},
    )
    assert response.status_code == 303
    location = response.headers["location"]
    assert location.startswith(CALLBACK + "?")
    answer = query_of(location)
    assert answer["state"] == "state-123"
    assert answer["iss"] == auth.issuer

    token = await exchange(
        auth, client["client_id"], answer["code"], verifier, resource="http://127.0.0.1:1/mcp"
    )
    assert token.status_code == 200, token.text
    assert token.headers["cache-control"] == "no-store"
    tokens = token.json()
    assert tokens["token_type"] == "Bearer"
    assert tokens["refresh_token"]

    info = await introspect(auth, tokens["access_token"])
    assert info["active"] is True
    assert info["sub"] == "alice"
    assert info["iss"] == auth.issuer
    assert info["client_id"] == client["client_id"]
    assert info["aud"] == "http://127.0.0.1:1/mcp"
    assert set(str(info["scope"]).split()) == {"mcp", "openid"}
    assert int(str(info["exp"])) > time.time()

    async with httpx.AsyncClient() as http:
        me = await http.get(
            f"{auth.url}/userinfo", headers={"Authorization": f"Bearer {tokens['access_token']}"}
        )
    assert me.json() == {"sub": "alice", "iss": auth.issuer}


async def test_token_for_drives_the_real_flow_for_each_person(auth: DemoAuthServer) -> None:
    alice = await auth.token_for("alice")
    bob = await auth.token_for("bob", scopes=["mcp"], resource="http://127.0.0.1:1/mcp")
    assert alice.access_token != bob.access_token
    assert bob.scope == "mcp"
    verified = await auth.token_verifier().verify_token(bob.access_token)
    assert verified is not None
    assert verified.subject == "bob"
    assert verified.resource == "http://127.0.0.1:1/mcp"
    assert (verified.claims or {})["iss"] == auth.issuer
    assert (await introspect(auth, alice.access_token))["sub"] == "alice"


async def test_token_for_an_unknown_person_fails_with_a_sentence(auth: DemoAuthServer) -> None:
    with pytest.raises(SignInError, match="did not accept the sign-in as 'mallory'"):
        await auth.token_for("mallory")


async def test_wrong_password_shows_the_form_again_and_issues_nothing(
    auth: DemoAuthServer, browser: httpx.AsyncClient
) -> None:
    client = await register(auth)
    _, challenge = pkce_pair()
    _, hidden = await open_login(browser, authorize_url(auth.url, client["client_id"], challenge))
    wrong = await browser.post(
        f"{auth.url}/login", data={**hidden, "username": "alice", "password": "bob-demo-password"}
    )
    assert wrong.status_code == 401
    assert "do not match" in wrong.text
    assert "location" not in wrong.headers
    right = await browser.post(
        f"{auth.url}/login", data={**hidden, "username": "alice", "password": "alice-demo-password"}
    )
    assert right.status_code == 303
    assert "code" in query_of(right.headers["location"])


async def test_sign_in_page_cannot_be_framed_or_cached(
    auth: DemoAuthServer, browser: httpx.AsyncClient
) -> None:
    client = await register(auth)
    _, challenge = pkce_pair()
    page, _ = await open_login(browser, authorize_url(auth.url, client["client_id"], challenge))
    assert page.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["cache-control"] == "no-store"
    assert page.headers["referrer-policy"] == "no-referrer"
    cookie = page.headers["set-cookie"].lower()
    assert "httponly" in cookie
    assert "samesite=strict" in cookie


async def test_page_text_is_autoescaped(auth: DemoAuthServer, browser: httpx.AsyncClient) -> None:
    client = await register(auth, client_name="<script>alert(1)</script>")
    _, challenge = pkce_pair()
    page, _ = await open_login(browser, authorize_url(auth.url, client["client_id"], challenge))
    assert "<script>alert(1)</script>" not in page.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text


@pytest.mark.parametrize("tamper", ["missing", "wrong", "other browser", "other request"])
async def test_post_without_this_browsers_csrf_token_is_403(
    auth: DemoAuthServer, browser: httpx.AsyncClient, tamper: str
) -> None:
    client = await register(auth)
    _, challenge = pkce_pair()
    _, hidden = await open_login(browser, authorize_url(auth.url, client["client_id"], challenge))
    form = {**hidden, "username": "alice", "password": "alice-demo-password"}
    if tamper == "missing":
        del form["csrf_token"]
    elif tamper == "wrong":
        form["csrf_token"] = "0" * 64
    elif tamper == "other request":
        _, other = await open_login(browser, authorize_url(auth.url, client["client_id"], challenge))
        form["request"] = other["request"]
    if tamper == "other browser":  # no cookie: what a cross-site POST looks like
        async with httpx.AsyncClient() as elsewhere:
            response = await elsewhere.post(f"{auth.url}/login", data=form)
    else:
        response = await browser.post(f"{auth.url}/login", data=form)
    assert response.status_code == 403
    assert "location" not in response.headers
    assert response.headers["x-frame-options"] == "DENY"


async def test_cancel_tells_the_client_access_denied(
    auth: DemoAuthServer, browser: httpx.AsyncClient
) -> None:
    client = await register(auth)
    _, challenge = pkce_pair()
    location = await auth.sign_in(
        browser, authorize_url(auth.url, client["client_id"], challenge), "alice", approve=False
    )
    answer = query_of(location)
    assert answer["error"] == "access_denied"
    assert answer["state"] == "state-123"
    assert "code" not in answer


async def test_sign_in_request_is_single_use(auth: DemoAuthServer, browser: httpx.AsyncClient) -> None:
    client = await register(auth)
    _, challenge = pkce_pair()
    _, hidden = await open_login(browser, authorize_url(auth.url, client["client_id"], challenge))
    form = {**hidden, "username": "alice", "password": "alice-demo-password"}
    assert (await browser.post(f"{auth.url}/login", data=form)).status_code == 303
    again = await browser.post(f"{auth.url}/login", data=form)
    assert again.status_code == 400
    assert "no longer valid" in again.text
    unknown = await browser.get(f"{auth.url}/login", params={"request": "nope"})
    assert unknown.status_code == 400


async def test_pkce_is_required_and_must_be_s256(auth: DemoAuthServer, browser: httpx.AsyncClient) -> None:
    client = await register(auth)
    missing = await browser.get(authorize_url(auth.url, client["client_id"], ""))
    assert query_of(missing.headers["location"])["error"] == "invalid_request"
    plain = await browser.get(
        authorize_url(auth.url, client["client_id"], "abc", code_challenge_method="plain")
    )
    assert query_of(plain.headers["location"])["error"] == "invalid_request"


async def test_wrong_code_verifier_is_refused(auth: DemoAuthServer, browser: httpx.AsyncClient) -> None:
    client = await register(auth)
    code, _ = await code_for(auth, browser, client["client_id"], "alice")
    other_verifier, _ = pkce_pair()
    response = await exchange(auth, client["client_id"], code, other_verifier)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"


async def test_reused_code_is_refused_and_revokes_what_it_gave(
    auth: DemoAuthServer, browser: httpx.AsyncClient
) -> None:
    client = await register(auth)
    code, verifier = await code_for(auth, browser, client["client_id"], "alice")
    first = await exchange(auth, client["client_id"], code, verifier)
    assert first.status_code == 200
    second = await exchange(auth, client["client_id"], code, verifier)
    assert second.status_code == 400
    assert second.json()["error"] == "invalid_grant"
    assert (await introspect(auth, first.json()["access_token"])) == {"active": False}


async def test_expired_code_is_refused(auth: DemoAuthServer, browser: httpx.AsyncClient) -> None:
    auth.authority.code_lifetime = 0
    client = await register(auth)
    code, verifier = await code_for(auth, browser, client["client_id"], "alice")
    response = await exchange(auth, client["client_id"], code, verifier)
    assert response.json() == {
        "error": "invalid_grant",
        "error_description": "authorization code has expired",
    }


async def test_code_of_another_client_is_refused(auth: DemoAuthServer, browser: httpx.AsyncClient) -> None:
    alice_client, other = await register(auth), await register(auth)
    code, verifier = await code_for(auth, browser, alice_client["client_id"], "alice")
    response = await exchange(auth, other["client_id"], code, verifier)
    assert response.json()["error"] == "invalid_grant"


async def test_unregistered_redirect_uri_is_refused_without_redirecting(
    auth: DemoAuthServer, browser: httpx.AsyncClient
) -> None:
    client = await register(auth)
    _, challenge = pkce_pair()
    url = authorize_url(auth.url, client["client_id"], challenge).replace(
        "9%2Fcallback", "9%2Fcallback%2Fevil"
    )
    response = await browser.get(url)
    assert response.status_code == 400
    assert "location" not in response.headers
    assert response.json()["error"] == "invalid_request"


async def test_redirect_uri_must_match_exactly_at_the_token_endpoint(
    auth: DemoAuthServer, browser: httpx.AsyncClient
) -> None:
    client = await register(auth, redirect_uris=[CALLBACK, "http://127.0.0.1:9/other"])
    code, verifier = await code_for(auth, browser, client["client_id"], "alice")
    response = await exchange(
        auth, client["client_id"], code, verifier, redirect_uri="http://127.0.0.1:9/other"
    )
    assert response.status_code == 400
    assert "redirect_uri did not match" in response.json()["error_description"]


async def test_refresh_rotates_and_a_replayed_refresh_token_revokes_the_grant(auth: DemoAuthServer) -> None:
    tokens = await auth.token_for("alice")
    client_id = "demo-test-client"
    async with httpx.AsyncClient() as http:
        refresh = {
            "grant_type": "refresh_token",
            "client_id": client_id,
            "refresh_token": tokens.refresh_token,
        }
        rotated = await http.post(f"{auth.url}/token", data=refresh)
        assert rotated.status_code == 200, rotated.text
        new = rotated.json()
        assert new["refresh_token"] != tokens.refresh_token
        assert (await introspect(auth, new["access_token"]))["sub"] == "alice"
        replay = await http.post(f"{auth.url}/token", data=refresh)
        assert replay.json()["error"] == "invalid_grant"
    assert (await introspect(auth, new["access_token"])) == {"active": False}


async def test_revoking_an_access_token_ends_its_refresh_token_too(auth: DemoAuthServer) -> None:
    tokens = await auth.token_for("bob")
    async with httpx.AsyncClient() as http:
        revoked = await http.post(
            f"{auth.url}/revoke",
            data={"token": tokens.access_token, "client_id": "demo-test-client", "client_secret": ""},
        )
        assert revoked.status_code == 200
        refresh = {
            "grant_type": "refresh_token",
            "client_id": "demo-test-client",
            "refresh_token": tokens.refresh_token,
        }
        assert (await http.post(f"{auth.url}/token", data=refresh)).json()["error"] == "invalid_grant"
    assert await auth.token_verifier().verify_token(tokens.access_token) is None


async def test_introspection_needs_a_confidential_client(auth: DemoAuthServer) -> None:
    tokens = await auth.token_for("alice")
    async with httpx.AsyncClient() as http:
        anonymous = await http.post(f"{auth.url}/introspect", data={"token": tokens.access_token})
        public = await http.post(
            f"{auth.url}/introspect", data={"token": tokens.access_token, "client_id": "demo-test-client"}
        )
        resource_server = auth.register_client()
        wrong_secret = await http.post(
            f"{auth.url}/introspect",
            data={"token": tokens.access_token},
            auth=(resource_server.client_id, "nope"),
        )
    assert anonymous.status_code == 401
    assert public.status_code == 401
    assert public.json()["error_description"] == "Only a confidential client may introspect tokens."
    assert wrong_secret.status_code == 401
    assert (await introspect(auth, "not-a-token")) == {"active": False}


async def test_introspection_verifier_checks_tokens_over_http(auth: DemoAuthServer) -> None:
    verifier = auth.introspection_verifier()
    tokens = await auth.token_for("bob", resource="http://127.0.0.1:1/mcp")
    verified = await verifier.verify_token(tokens.access_token)
    assert verified is not None
    assert (verified.subject, verified.client_id, verified.resource) == (
        "bob",
        "demo-test-client",
        "http://127.0.0.1:1/mcp",
    )
    # the client's registered name comes too (RFC 7662 allows more members): pages show it
    assert verified.claims == {"iss": auth.issuer, "sub": "bob", "client_name": "Demo AI app"}
    assert set(verified.scopes) == {"mcp", "openid"}
    assert await verifier.verify_token("forged") is None
    auth.authority.expire_access_tokens()
    assert await verifier.verify_token(tokens.access_token) is None


async def test_introspection_verifier_refuses_another_issuers_answer(auth: DemoAuthServer) -> None:
    genuine = auth.introspection_verifier()
    tokens = await auth.token_for("alice")
    resource_server = auth.register_client()
    expecting_another_issuer = IntrospectionTokenVerifier(
        f"{auth.url}/introspect",
        client_id=resource_server.client_id,
        client_secret=resource_server.client_secret or "",
        issuer="http://127.0.0.1:1",
    )
    assert await expecting_another_issuer.verify_token(tokens.access_token) is None
    assert await genuine.verify_token(tokens.access_token) is not None
    async with DemoAuthServer() as other:
        foreign = await other.token_for("alice")
    assert await genuine.verify_token(foreign.access_token) is None


async def test_introspection_verifier_says_no_when_the_server_is_gone() -> None:
    async with DemoAuthServer() as auth:
        verifier = auth.introspection_verifier()
        tokens = await auth.token_for("alice")
    assert await verifier.verify_token(tokens.access_token) is None


async def test_userinfo_needs_a_token_with_openid(auth: DemoAuthServer) -> None:
    mcp_only = await auth.token_for("alice", scopes=["mcp"])
    async with httpx.AsyncClient() as http:
        none = await http.get(f"{auth.url}/userinfo")
        narrow = await http.get(
            f"{auth.url}/userinfo", headers={"Authorization": f"Bearer {mcp_only.access_token}"}
        )
    assert none.status_code == 401
    assert narrow.status_code == 403
    assert "openid" in narrow.json()["error_description"]


async def test_start_and_stop(browser: httpx.AsyncClient) -> None:
    server = DemoAuthServer()
    with pytest.raises(RuntimeError, match="call start"):
        _ = server.url
    await server.start()
    url = server.url
    assert (await browser.get(f"{url}/.well-known/oauth-authorization-server")).status_code == 200
    await server.stop()
    await server.stop()
    with pytest.raises(httpx.ConnectError):
        await browser.get(f"{url}/.well-known/oauth-authorization-server")


async def test_a_taken_port_is_a_clear_error(auth: DemoAuthServer) -> None:
    port = int(auth.url.rsplit(":", 1)[1])
    with pytest.raises(RuntimeError, match=f"Cannot listen on 127.0.0.1:{port}.*choose another port"):
        await DemoAuthServer(port=port).start()
