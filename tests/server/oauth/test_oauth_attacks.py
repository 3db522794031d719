"""Attacks on the OAuth connection, each refused (S-35, S-34, open redirects, code replay)."""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx
import pytest
from mcp.shared.exceptions import MCPError
from support.oauth_harness import (
    Agenda,
    Browser,
    Session,
    agenda_with,
    at_provider,
    auth,
    consent,
    continue_url,
    mcp_session,
    provider,
    query_of,
    token,
    url_required,
)

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.demo.provider import DemoProvider
from elicitkit.server._user import User

__all__ = ["auth", "provider"]
pytestmark = pytest.mark.timeout(90)


async def new_url(session: Session) -> str:
    with pytest.raises(MCPError) as raised:
        await session.client.call_tool("agenda", {})
    return url_required(raised.value)


async def tokens_of(agenda: Agenda, issuer: str, person: str) -> dict[str, Any] | None:
    raw = await agenda.url_mode.vault.get(User(issuer, person), "oauth:calendar:tokens")
    return None if raw is None else dict(json.loads(raw))


async def state_of(agenda: Agenda, url: str) -> str:
    record = await agenda.url_mode.store.get(url.rsplit("/", 1)[1])
    assert record is not None
    return record.state


def with_query(address: str, **changes: str | None) -> str:
    query = {**query_of(address), **changes}
    parts = urlsplit(address)
    kept = {key: value for key, value in query.items() if value is not None}
    return f"{parts.scheme}://{parts.netloc}{parts.path}?{urlencode(kept)}"


def refused(page: httpx.Response, status: int) -> None:
    assert page.status_code == status, page.text
    assert "connected" not in page.text and "Traceback" not in page.text
    assert page.headers["x-frame-options"] == "DENY"
    assert not page.is_redirect


@pytest.mark.parametrize("sqlite", [False, True], ids=["memory-store", "sqlite-store"])
async def test_missing_altered_and_reused_state(
    auth: DemoAuthServer, provider: DemoProvider, sqlite: bool
) -> None:
    async with agenda_with(auth, provider, sqlite=sqlite) as (agenda, alice):
        url = await new_url(alice)
        async with Browser(auth, "alice") as browser:
            callback = await at_provider(browser, provider, await consent(browser, url))
            state = query_of(callback)["state"]

            refused(await browser.http.get(with_query(callback, state=None)), 400)  # missing
            refused(await browser.http.get(with_query(callback, state="")), 400)  # empty
            altered = state[:-1] + ("A" if state[-1] != "A" else "B")
            refused(await browser.http.get(with_query(callback, state=altered)), 400)  # altered
            refused(await browser.http.get(with_query(callback, state=state + "x")), 400)  # extended
            assert await tokens_of(agenda, auth.issuer, "alice") is None
            assert await state_of(agenda, url) == "opened"

            done = await browser.http.get(callback)  # the genuine answer still works
            assert done.status_code == 200 and "account is connected" in done.text
            first = await tokens_of(agenda, auth.issuer, "alice")
            assert first is not None

            refused(await browser.http.get(callback), 400)  # reused: single use
            assert await tokens_of(agenda, auth.issuer, "alice") == first


async def test_expired_state(auth: DemoAuthServer, provider: DemoProvider) -> None:
    async with agenda_with(auth, provider, state_ttl=1.0, sqlite=True) as (agenda, alice):
        url = await new_url(alice)
        async with Browser(auth, "alice") as browser:
            authorize = await consent(browser, url)
            await asyncio.sleep(1.3)
            callback = await at_provider(browser, provider, authorize)
            page = await browser.http.get(callback)
            refused(page, 400)
            assert "too old" in page.text
        assert await tokens_of(agenda, auth.issuer, "alice") is None
        assert await state_of(agenda, url) == "opened"  # still open: alice may try again


async def test_replayed_authorization_code(auth: DemoAuthServer, provider: DemoProvider) -> None:
    async with agenda_with(auth, provider) as (agenda, alice):
        url = await new_url(alice)
        async with Browser(auth, "alice") as browser:
            callback = await at_provider(browser, provider, await consent(browser, url))
            assert (await browser.http.get(callback)).status_code == 200
            disconnected = await alice.client.call_tool("disconnect_calendar", {})
            assert not disconnected.is_error

            # a new connection, with a new valid state, fed the old (spent) code
            second = await new_url(alice)
            authorize = await consent(browser, second)
            fresh_state = query_of(authorize)["state"]
            page = await browser.http.get(with_query(callback, state=fresh_state))
            refused(page, 502)
            assert "refused the sign-in" in page.text and "(invalid_grant)" in page.text
            assert await tokens_of(agenda, auth.issuer, "alice") is None
            assert await state_of(agenda, second) == "opened"


async def test_bobs_callback_in_alices_browser(auth: DemoAuthServer, provider: DemoProvider) -> None:
    bob_token = await token(auth, "bob")
    async with (
        agenda_with(auth, provider) as (agenda, alice),
        mcp_session(f"{agenda.base}/mcp", bob_token) as bob,
    ):
        bob_url = await new_url(bob)
        async with Browser(auth, "bob") as bob_browser:
            bob_callback = await at_provider(
                bob_browser, provider, await consent(bob_browser, bob_url), "bob"
            )
        # bob's answer (say, sent to alice in a link) arrives in alice's signed-in browser
        alice_url = await new_url(alice)
        async with Browser(auth, "alice") as alice_browser:
            await alice_browser.open(alice_url)  # alice is signed in on our site
            page = await alice_browser.http.get(bob_callback)
            refused(page, 403)
            assert "not for this browser" in page.text
        async with Browser(auth, "alice") as stranger:  # a browser with no session at all
            refused(await stranger.http.get(bob_callback), 400)  # the state is spent by now
        for person in ("alice", "bob"):
            assert await tokens_of(agenda, auth.issuer, person) is None
        assert await state_of(agenda, bob_url) == "opened"
        assert bob.notices == [] and alice.notices == []

        async with Browser(auth, "bob") as bob_browser:  # bob can still connect himself
            callback = await at_provider(bob_browser, provider, await consent(bob_browser, bob_url), "bob")
            assert (await bob_browser.http.get(callback)).status_code == 200
        bob_tokens = await tokens_of(agenda, auth.issuer, "bob")
        assert bob_tokens is not None
        result = await bob.client.call_tool("agenda", {})
        assert json.loads(result.content[0].text)["owner"] == "bob"  # type: ignore[union-attr]
        assert await tokens_of(agenda, auth.issuer, "alice") is None


async def test_redirect_uri_mismatch(auth: DemoAuthServer, provider: DemoProvider) -> None:
    async with agenda_with(auth, provider) as (agenda, alice):
        attacker = "http://127.0.0.1:9/steal"
        url = await new_url(alice)
        async with Browser(auth, "alice") as browser:
            authorize = await consent(browser, url)
            # 1. the authorize URL edited to send the code elsewhere: the provider refuses outright
            answer = await browser.http.get(with_query(authorize, redirect_uri=attacker))
            assert answer.status_code == 400 and not answer.is_redirect
            assert "not registered" in answer.text

            # 2. a code issued for another registered redirect URI, injected into our callback
            provider.set_redirect_uris([agenda.calendar.redirect_uri, attacker])
            elsewhere = await provider.sign_in(
                browser.http, with_query(authorize, redirect_uri=attacker), "alice"
            )
            assert elsewhere.startswith(attacker)
            injected = f"{agenda.calendar.redirect_uri}?{urlsplit(elsewhere).query}"
            page = await browser.http.get(injected)
            refused(page, 502)
            assert "Demo Calendar rejected the request" in page.text and "Nothing was stored" in page.text
            assert await tokens_of(agenda, auth.issuer, "alice") is None


async def test_no_open_redirect_through_any_return_address(
    auth: DemoAuthServer, provider: DemoProvider
) -> None:
    evil = "https://evil.example/phish"
    ours = {urlsplit(u).netloc for u in (auth.url, provider.url)}
    async with agenda_with(auth, provider) as (agenda, alice):
        url = await new_url(alice)
        ours.add(urlsplit(agenda.base).netloc)
        async with Browser(auth, "alice") as browser:
            for param in ("return_to", "next", "redirect_uri", "redirect", "url"):
                page = await browser.open(f"{url}?{param}={evil}")
                assert page.status_code == 200
            assert all(urlsplit(step).netloc in ours for step in browser.history), browser.history

            page = await browser.open(url)
            moving_on = await browser.submit(
                page, action="connect", return_to=evil, redirect_uri=evil, next=evil
            )
            authorize = httpx.URL(continue_url(moving_on.text))
            assert str(authorize).startswith(provider.authorization_endpoint + "?")
            assert authorize.params["redirect_uri"] == agenda.calendar.redirect_uri
            assert evil not in moving_on.text

            callback = await provider.sign_in(browser.http, str(authorize), "alice")
            for param in ("return_to", "next", "redirect_uri", "redirect", "url"):
                page = await browser.http.get(with_query(callback, **{param: evil}))
                assert not page.is_redirect and evil not in page.text
            bogus = await browser.http.get(f"{agenda.base}/elicit/callback/calendar?state=x&return_to={evil}")
            assert bogus.status_code == 400 and not bogus.is_redirect
            unknown = await browser.http.get(f"{agenda.base}/elicit/callback/nothing?next={evil}")
            assert unknown.status_code == 404 and not unknown.is_redirect


async def test_consent_needs_csrf(auth: DemoAuthServer, provider: DemoProvider) -> None:
    async with agenda_with(auth, provider) as (agenda, alice):
        url = await new_url(alice)
        async with Browser(auth, "alice") as browser:
            await browser.open(url)
            forged = await browser.http.post(url, data={"action": "connect"})
            assert forged.status_code == 403
            assert "evil" not in forged.text and "continue" not in forged.text
            assert await state_of(agenda, url) == "opened"
