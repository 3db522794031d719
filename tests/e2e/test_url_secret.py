"""URL mode end to end over real HTTP on 127.0.0.1: the demo authorization server, the weather
MCP server with a `Secret`, plain `mcp.Client` sessions and a scripted browser.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from support.url_harness import (
    SECRET,
    Browser,
    Weather,
    build_weather,
    fingerprint,
    mcp_session,
    serve,
)

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.server._vault import KeyRing
from elicitkit.server.store._sqlite import SQLiteStore

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
async def auth() -> AsyncIterator[DemoAuthServer]:
    async with DemoAuthServer() as server:
        yield server


@asynccontextmanager
async def weather_running(
    auth: DemoAuthServer, tmp_path: Path, **options: Any
) -> AsyncIterator[tuple[Weather, str]]:
    store = SQLiteStore(tmp_path / "url-mode.sqlite3")
    keys = options.pop("keys", None) or KeyRing.from_string(KeyRing.generate("k1"))
    built: list[Weather] = []

    def build(url: str) -> Any:
        weather = build_weather(
            public_url=url,
            issuer=auth.issuer,
            verifier=auth.token_verifier(),
            keys=keys,
            store=store,
            **options,
        )
        built.append(weather)
        return weather.server.streamable_http_app()

    try:
        async with serve(build) as url:
            yield built[0], url
    finally:
        await store.close()


async def token(auth: DemoAuthServer, person: str) -> str:
    return (await auth.token_for(person)).access_token


async def test_live_style_scripted_browser(auth: DemoAuthServer, tmp_path: Path) -> None:
    async with (
        weather_running(auth, tmp_path) as (weather, base),
        mcp_session(f"{base}/mcp", await token(auth, "alice")) as alice,
    ):
        call = asyncio.create_task(alice.client.call_tool("forecast", {"city": "Paris"}))
        asked = await asyncio.wait_for(alice.urls.get(), 30)
        assert asked.url == f"{base}/elicit/{asked.elicitation_id}"
        assert "alice" not in asked.url
        async with Browser(auth, "alice") as browser:
            page = await browser.open(asked.url)
            assert page.status_code == 200, page.text
            assert "Weather API key" in page.text and "alice" in page.text and "weather" in page.text
            assert 'type="password"' in page.text
            done = await browser.submit(page, secret=SECRET, action="save")
            assert done.status_code == 200, done.text
            assert "Saved" in done.text
        result = await asyncio.wait_for(call, 30)
        assert not result.is_error, result
        assert fingerprint(SECRET) in result.content[0].text  # type: ignore[union-attr]
        assert alice.notices == [asked.elicitation_id]
        assert SECRET.encode() not in alice.wire.everything()
        record = await weather.url_mode.store.get(asked.elicitation_id or "")
        assert record is not None and record.state == "completed"


def url_required(error: BaseException) -> tuple[str, str]:
    """The (url, elicitationId) listed by a -32042 error."""
    from mcp.shared.exceptions import MCPError

    assert isinstance(error, MCPError), error
    assert error.code == -32042, error
    (listed,) = error.data["elicitations"]
    assert listed["mode"] == "url"
    return listed["url"], listed["elicitationId"]


async def complete_in_browser(auth: DemoAuthServer, url: str, person: str = "alice") -> None:
    async with Browser(auth, person) as browser:
        page = await browser.open(url)
        assert page.status_code == 200, page.text
        done = await browser.submit(page, secret=SECRET, action="save")
        assert done.status_code == 200 and "Saved" in done.text, done.text


async def test_error_style_lists_the_elicitation_then_retry_succeeds(
    auth: DemoAuthServer, tmp_path: Path
) -> None:
    from mcp.shared.exceptions import MCPError

    async with (
        weather_running(auth, tmp_path, wait="error") as (_weather, base),
        mcp_session(f"{base}/mcp", await token(auth, "alice")) as alice,
    ):
        with pytest.raises(MCPError) as raised:
            await alice.client.call_tool("forecast", {"city": "Oslo"})
        url, elicitation_id = url_required(raised.value)
        assert url == f"{base}/elicit/{elicitation_id}"
        assert alice.urls.empty()  # no live elicitation/create in this style
        await complete_in_browser(auth, url)
        await asyncio.wait_for(alice.notice_arrived.wait(), 15)  # on the session's own stream
        assert alice.notices == [elicitation_id]
        result = await alice.client.call_tool("forecast", {"city": "Oslo"})
        assert not result.is_error and fingerprint(SECRET) in result.content[0].text  # type: ignore[union-attr]
        assert SECRET.encode() not in alice.wire.everything()


async def test_2026_input_request_round_trip(auth: DemoAuthServer, tmp_path: Path) -> None:
    from mcp.shared.exceptions import MCPError
    from mcp_types import ElicitResult, InputRequiredResult

    async with weather_running(auth, tmp_path) as (weather, base):
        weather.url_mode.hold = 0.2  # a premature retry is held this long, then told "still waiting"
        alice_token, bob_token = await token(auth, "alice"), await token(auth, "bob")
        async with (
            mcp_session(f"{base}/mcp", alice_token, mode="2026-07-28") as alice,
            mcp_session(f"{base}/mcp", bob_token, mode="2026-07-28") as bob,
        ):
            first = await alice.client.session.call_tool(
                "forecast", {"city": "Rome"}, allow_input_required=True
            )
            assert isinstance(first, InputRequiredResult), first
            assert first.request_state and first.input_requests
            ((key, request),) = first.input_requests.items()
            assert request.params.mode == "url" and request.params.elicitation_id is None  # type: ignore[union-attr]
            url = request.params.url  # type: ignore[union-attr]
            assert url.startswith(f"{base}/elicit/")
            elicitation_id = url.rsplit("/", 1)[1]
            assert elicitation_id not in first.request_state  # sealed by the SDK, not readable
            accepted = {key: ElicitResult(action="accept")}

            # retry before the page is done: "still waiting" (state only), never the URL again
            again = await alice.client.session.call_tool(
                "forecast",
                {"city": "Rome"},
                input_responses=accepted,
                request_state=first.request_state,
                allow_input_required=True,
            )
            assert isinstance(again, InputRequiredResult)
            assert not again.input_requests and again.request_state

            # a tampered requestState is rejected
            tampered = first.request_state[:-4] + (
                "AAAA" if not first.request_state.endswith("AAAA") else "BBBB"
            )
            with pytest.raises(MCPError) as bad:
                await alice.client.session.call_tool(
                    "forecast", {"city": "Rome"}, input_responses=accepted, request_state=tampered
                )
            assert bad.value.code == -32602

            await complete_in_browser(auth, url)

            # alice's state replayed by bob is rejected, and gives bob nothing
            with pytest.raises(MCPError) as replayed:
                await bob.client.session.call_tool(
                    "forecast",
                    {"city": "Rome"},
                    input_responses=accepted,
                    request_state=again.request_state,
                    allow_input_required=True,
                )
            assert replayed.value.code == -32602
            assert SECRET.encode() not in bob.wire.everything()

            done = await alice.client.session.call_tool(
                "forecast",
                {"city": "Rome"},
                input_responses=accepted,
                request_state=again.request_state,
                allow_input_required=True,
            )
            assert not isinstance(done, InputRequiredResult)
            assert not done.is_error and fingerprint(SECRET) in done.content[0].text  # type: ignore[union-attr]
            assert alice.notices == []  # M-03: no completion notice on 2026-07-28
            assert SECRET.encode() not in alice.wire.everything()


async def test_notice_reaches_only_the_originating_session(auth: DemoAuthServer, tmp_path: Path) -> None:
    from mcp.shared.exceptions import MCPError

    async with weather_running(auth, tmp_path, wait="error") as (_weather, base):
        alice_token, bob_token = await token(auth, "alice"), await token(auth, "bob")
        async with (
            mcp_session(f"{base}/mcp", alice_token) as alice_1,
            mcp_session(f"{base}/mcp", alice_token) as alice_2,
            mcp_session(f"{base}/mcp", bob_token) as bob,
        ):
            for session in (alice_1, alice_2, bob):
                await session.client.list_tools()
            with pytest.raises(MCPError) as raised:
                await alice_1.client.call_tool("forecast", {"city": "Lima"})
            url, elicitation_id = url_required(raised.value)
            await complete_in_browser(auth, url)
            await asyncio.wait_for(alice_1.notice_arrived.wait(), 15)
            await asyncio.sleep(1.0)  # give a stray notice time to arrive anywhere else
            assert alice_1.notices == [elicitation_id]
            assert alice_2.notices == []
            assert bob.notices == []
            # alice's other session now finds the secret stored for alice (bound to the user)
            result = await alice_2.client.call_tool("forecast", {"city": "Lima"})
            assert not result.is_error


async def test_secret_bytes_appear_only_in_the_vault(
    auth: DemoAuthServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from elicitkit.server._errors import VaultDecryptError
    from elicitkit.server._user import User
    from elicitkit.server._vault import Vault

    caplog.set_level(logging.DEBUG)
    keys = KeyRing.from_string(KeyRing.generate("k1"))
    async with (
        weather_running(auth, tmp_path, keys=keys) as (weather, base),
        mcp_session(f"{base}/mcp", await token(auth, "alice")) as alice,
    ):
        call = asyncio.create_task(alice.client.call_tool("forecast", {"city": "Paris"}))
        asked = await asyncio.wait_for(alice.urls.get(), 30)
        await complete_in_browser(auth, asked.url)
        result = await asyncio.wait_for(call, 30)
        assert not result.is_error
        wire = alice.wire.everything()
        assert b"elicitation/create" in wire and b"notifications/elicitation/complete" in wire
        assert SECRET.encode() not in wire
        alice_user = User(auth.issuer, "alice")
        assert await weather.url_mode.vault.get(alice_user, "weather-api-key") == SECRET
    assert SECRET not in caplog.text
    assert any(r.name.startswith("mcp.") for r in caplog.records)  # the server logs were captured
    files = list(tmp_path.glob("url-mode.sqlite3*"))
    assert files
    for file in files:
        assert SECRET.encode() not in file.read_bytes()
    wrong = Vault(KeyRing.from_string(KeyRing.generate("k1")), SQLiteStore(tmp_path / "url-mode.sqlite3"))
    with pytest.raises(VaultDecryptError):
        await wrong.get(alice_user, "weather-api-key")
    await wrong.store.close()


async def test_client_declining_the_live_elicitation(auth: DemoAuthServer, tmp_path: Path) -> None:
    async with (
        weather_running(auth, tmp_path) as (weather, base),
        mcp_session(f"{base}/mcp", await token(auth, "alice"), answer="decline") as alice,
    ):
        result = await alice.client.call_tool("forecast", {"city": "Paris"})
        assert result.is_error and "declined" in result.content[0].text  # type: ignore[union-attr]
        asked = alice.urls.get_nowait()
        record = await weather.url_mode.store.get(asked.elicitation_id or "")
        assert record is not None and record.state == "declined"
        assert alice.notices == []
        async with Browser(auth, "alice") as browser:
            page = await browser.open(asked.url)
            assert page.status_code == 410


async def test_2026_store_check_refuses_another_users_state_even_without_sdk_binding(
    auth: DemoAuthServer, tmp_path: Path
) -> None:
    """The second line: with the SDK's principal binding switched off, the record check still refuses."""
    from mcp.server.request_state import RequestStateSecurity
    from mcp.shared.exceptions import MCPError
    from mcp_types import ElicitResult, InputRequiredResult

    unbound = RequestStateSecurity(keys=[b"k" * 32], bind_principal=None)
    async with weather_running(auth, tmp_path, request_state_security=unbound) as (_weather, base):
        alice_token, bob_token = await token(auth, "alice"), await token(auth, "bob")
        async with (
            mcp_session(f"{base}/mcp", alice_token, mode="2026-07-28") as alice,
            mcp_session(f"{base}/mcp", bob_token, mode="2026-07-28") as bob,
        ):
            first = await alice.client.session.call_tool(
                "forecast", {"city": "Rome"}, allow_input_required=True
            )
            assert isinstance(first, InputRequiredResult) and first.input_requests
            ((key, request),) = first.input_requests.items()
            await complete_in_browser(auth, request.params.url)  # type: ignore[union-attr]
            with pytest.raises(MCPError) as replayed:
                await bob.client.session.call_tool(
                    "forecast",
                    {"city": "Rome"},
                    input_responses={key: ElicitResult(action="accept")},
                    request_state=first.request_state,
                    allow_input_required=True,
                )
            assert replayed.value.code == -32602
            assert "not name a URL elicitation of this user" in replayed.value.message
            assert SECRET.encode() not in bob.wire.everything()


async def test_a_secret_chooses_its_own_waiting_style(auth: DemoAuthServer, tmp_path: Path) -> None:
    """`Secret(wait=...)` overrides the server's style for that secret only, either way."""
    from mcp.shared.exceptions import MCPError

    async with weather_running(auth, tmp_path, wait="live") as (weather, base):
        weather.api_key.wait = "error"
        async with mcp_session(f"{base}/mcp", await token(auth, "alice")) as alice:
            with pytest.raises(MCPError) as raised:
                await alice.client.call_tool("forecast", {"city": "Oslo"})
            url_required(raised.value)
            assert alice.urls.empty()  # no live elicitation/create was sent
    async with weather_running(auth, tmp_path / "second", wait="error") as (weather, base):
        weather.api_key.wait = "live"
        async with mcp_session(f"{base}/mcp", await token(auth, "alice")) as alice:
            call = asyncio.create_task(alice.client.call_tool("forecast", {"city": "Oslo"}))
            asked = await asyncio.wait_for(alice.urls.get(), 30)  # asked live, on the call's stream
            assert asked.url == f"{base}/elicit/{asked.elicitation_id}"
            call.cancel()
