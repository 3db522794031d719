"""The page a URL-mode link opens, attacked: phishing (S-34), bad ids, replays, CSRF, framing, cookies."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError
from support.url_harness import SECRET, Browser, fingerprint, mcp_session, read_form
from test_url_secret import auth, complete_in_browser, token, url_required, weather_running

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.server._user import User
from elicitkit.server._web.site import COOKIE

__all__ = ["auth"]
pytestmark = pytest.mark.timeout(90)


async def test_bob_cannot_use_alices_link_and_alice_still_can(auth: DemoAuthServer, tmp_path: Path) -> None:
    async with (
        weather_running(auth, tmp_path, wait="error") as (weather, base),
        mcp_session(f"{base}/mcp", await token(auth, "alice")) as alice,
    ):
        with pytest.raises(MCPError) as raised:
            await alice.client.call_tool("forecast", {"city": "Paris"})
        url, elicitation_id = url_required(raised.value)
        store, vault = weather.url_mode.store, weather.url_mode.vault
        before = await store.get(elicitation_id)
        assert before is not None and before.state == "pending"

        async with Browser(auth, "bob") as bob:
            refused = await bob.open(url)
            assert refused.status_code == 403
            assert "not for you" in refused.text and 'type="password"' not in refused.text
            assert await store.get(elicitation_id) == before  # nothing changed, not even "opened"
            # bob forges a POST with his own valid session and CSRF token: still refused
            csrf = _session_csrf(weather, bob)
            forged = await bob.http.post(url, data={"csrf": csrf, "secret": "wk-bobs-trap", "action": "save"})
            assert forged.status_code == 403 and "not for you" in forged.text
            declined = await bob.http.post(url, data={"csrf": csrf, "action": "decline"})
            assert declined.status_code == 403
        assert await store.get(elicitation_id) == before
        for person in ("alice", "bob"):
            assert await vault.get(User(auth.issuer, person), "weather-api-key") is None
        assert alice.notices == []

        await complete_in_browser(auth, url)  # alice, afterwards, completes it
        result = await alice.client.call_tool("forecast", {"city": "Paris"})
        assert not result.is_error and fingerprint(SECRET) in result.content[0].text  # type: ignore[union-attr]
        assert await vault.get(User(auth.issuer, "bob"), "weather-api-key") is None


def _session_csrf(weather: object, browser: Browser) -> str:
    """Bob's own CSRF token, read from his own sealed session cookie (as his browser could)."""
    import httpx

    cookie = next(c for c in browser.cookies.cookies() if c.name == COOKIE)
    request = httpx.Request("GET", "http://127.0.0.1/", headers={"cookie": f"{COOKIE}={cookie.value}"})
    from starlette.requests import Request

    scope = {"type": "http", "headers": [(b"cookie", request.headers["cookie"].encode())]}
    session = weather.url_mode.site.load_session(Request(scope))  # type: ignore[attr-defined]
    assert session is not None and session.user is not None and session.user.subject == "bob"
    return session.csrf


async def test_bad_ids_get_refusal_pages(auth: DemoAuthServer, tmp_path: Path) -> None:
    async with (
        weather_running(auth, tmp_path, wait="error", ttl=2.0) as (weather, base),
        mcp_session(f"{base}/mcp", await token(auth, "alice")) as alice,
    ):
        with pytest.raises(MCPError) as raised:
            await alice.client.call_tool("forecast", {"city": "Paris"})
        url, elicitation_id = url_required(raised.value)
        async with Browser(auth, "alice") as browser:
            edited = url[:-1] + ("A" if url[-1] != "A" else "B")
            for bad in (edited, url[:-5], f"{base}/elicit/{'x' * 43}"):
                page = await browser.open(bad)
                assert page.status_code == 404, bad
                assert "Link not valid" in page.text
                assert 'type="password"' not in page.text
            await asyncio.sleep(2.2)
            expired = await browser.open(url)
            assert expired.status_code == 410 and "expired" in expired.text
            record = await weather.url_mode.store.get(elicitation_id)
            assert record is not None and record.state == "expired"


async def test_second_completion_is_refused(auth: DemoAuthServer, tmp_path: Path) -> None:
    async with (
        weather_running(auth, tmp_path, wait="error") as (weather, base),
        mcp_session(f"{base}/mcp", await token(auth, "alice")) as alice,
    ):
        with pytest.raises(MCPError) as raised:
            await alice.client.call_tool("forecast", {"city": "Paris"})
        url, _elicitation_id = url_required(raised.value)
        async with Browser(auth, "alice") as browser:
            page = await browser.open(url)
            first = await browser.submit(page, secret=SECRET, action="save")
            assert first.status_code == 200
            again = await browser.submit(page, secret="wk-overwrite-attempt", action="save")
            assert again.status_code in (409, 410) and "Saved" not in again.text
            reopened = await browser.open(url)
            assert reopened.status_code == 410 and "already completed" in reopened.text
        user = User(auth.issuer, "alice")
        assert await weather.url_mode.vault.get(user, "weather-api-key") == SECRET


async def test_csrf_headers_cookies_and_validator(auth: DemoAuthServer, tmp_path: Path) -> None:
    async with (
        weather_running(auth, tmp_path, wait="error") as (weather, base),
        mcp_session(f"{base}/mcp", await token(auth, "alice")) as alice,
    ):
        with pytest.raises(MCPError) as raised:
            await alice.client.call_tool("forecast", {"city": "Paris"})
        url, elicitation_id = url_required(raised.value)
        async with Browser(auth, "alice") as browser:
            page = await browser.open(url)
            assert page.status_code == 200
            for response in (page,):
                assert response.headers["x-frame-options"] == "DENY"
                assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
                assert response.headers["cache-control"] == "no-store"
                assert response.headers["referrer-policy"] == "no-referrer"
            (cookie,) = [c for c in browser.cookies.cookies() if c.name == COOKIE]
            assert cookie.name.startswith("__Host-") and cookie.secure and cookie.path == "/"
            assert not cookie.domain_specified
            assert cookie.has_nonstandard_attr("HttpOnly")
            assert cookie.get_nonstandard_attr("SameSite", "").lower() == "lax"
            set_cookie = [h for h in browser.set_cookie_headers if h.startswith(COOKIE)]
            assert set_cookie and all(
                "Secure" in h
                and "HttpOnly" in h
                and "SameSite=lax" in h
                and "Path=/" in h
                and "Domain" not in h
                for h in set_cookie
            )

            _, hidden = read_form(page.text)
            missing = await browser.http.post(url, data={"secret": SECRET, "action": "save"})
            assert missing.status_code == 403
            wrong = await browser.http.post(url, data={"csrf": "x" + hidden["csrf"], "secret": SECRET})
            assert wrong.status_code == 403
            assert missing.headers["x-frame-options"] == "DENY"
            record = await weather.url_mode.store.get(elicitation_id)
            assert record is not None and record.state == "opened"

            refused = await browser.submit(page, secret="not-a-weather-key", action="save")
            assert refused.status_code == 400 and "starts with wk-" in refused.text
            assert "not-a-weather-key" not in refused.text  # never echoed back

            css = await browser.http.get(f"{base}/elicit/static/style.css")
            assert css.status_code == 200 and css.headers["x-frame-options"] == "DENY"

            declined = await browser.submit(page, action="decline")
            assert declined.status_code == 200 and "declined" in declined.text.lower()
        record = await weather.url_mode.store.get(elicitation_id)
        assert record is not None and record.state == "declined"
        assert await weather.url_mode.vault.get(User(auth.issuer, "alice"), "weather-api-key") is None
        await asyncio.wait_for(alice.notice_arrived.wait(), 15)
        with pytest.raises(MCPError) as again:  # a fresh elicitation is listed again
            await alice.client.call_tool("forecast", {"city": "Paris"})
        assert url_required(again.value)[1] != elicitation_id


async def test_login_state_is_random_single_use_and_bound_to_the_browser(
    auth: DemoAuthServer, tmp_path: Path
) -> None:
    from urllib.parse import parse_qs, urlsplit

    async with (
        weather_running(auth, tmp_path, wait="error") as (_weather, base),
        mcp_session(f"{base}/mcp", await token(auth, "alice")) as alice,
    ):
        with pytest.raises(MCPError) as raised:
            await alice.client.call_tool("forecast", {"city": "Paris"})
        url, _ = url_required(raised.value)
        async with Browser(auth, "alice") as browser, Browser(auth, "bob") as stranger:
            first = await browser.http.get(url)
            assert first.status_code == 303
            authorize = first.headers["location"]
            assert authorize.startswith(f"{auth.url}/authorize?")
            query = parse_qs(urlsplit(authorize).query)
            assert query["code_challenge_method"] == ["S256"] and query["code_challenge"]
            assert len(query["state"][0]) >= 32
            assert query["redirect_uri"] == [f"{base}/elicit/login/callback"]
            with sqlite3.connect(tmp_path / "url-mode.sqlite3") as db:  # what waits for the callback
                (pending,) = db.execute("SELECT data FROM once WHERE key LIKE 'login:%'").fetchone()
            assert b"verifier" not in pending and urlsplit(url).path.encode() not in pending  # sealed
            callback = await auth.sign_in(browser.http, authorize, "alice")
            assert callback.startswith(f"{base}/elicit/login/callback?")

            tampered = callback.replace("state=", "state=x")
            assert (await browser.http.get(tampered)).status_code == 400

            stolen = await stranger.http.get(callback)  # alice's code and state, another browser
            assert stolen.status_code == 400
            replay = await browser.http.get(callback)  # the state was used up by that attempt
            assert replay.status_code == 400

            page = await browser.open(url)  # a fresh sign-in still works
            assert page.status_code == 200 and "alice" in page.text


async def test_registered_confidential_login_client(auth: DemoAuthServer, tmp_path: Path) -> None:
    """OAuthLogin with a client the operator registered (client_secret_post), not dynamic registration."""
    from elicitkit.server._web.login import OAuthLogin

    login = OAuthLogin(
        auth.issuer, client_id="weather-browser-login", client_secret="s" * 40, scopes=["openid"]
    )
    async with weather_running(auth, tmp_path, wait="error", browser=login) as (_weather, base):
        auth.register_client(
            client_id="weather-browser-login",
            client_secret="s" * 40,
            redirect_uris=[f"{base}/elicit/login/callback"],
            scopes=["openid"],
        )
        async with mcp_session(f"{base}/mcp", await token(auth, "alice")) as alice:
            with pytest.raises(MCPError) as raised:
                await alice.client.call_tool("forecast", {"city": "Paris"})
            url, _ = url_required(raised.value)
            await complete_in_browser(auth, url)
            result = await alice.client.call_tool("forecast", {"city": "Paris"})
            assert not result.is_error and fingerprint(SECRET) in result.content[0].text  # type: ignore[union-attr]
