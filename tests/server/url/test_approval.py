"""`Approval` over real HTTP on 127.0.0.1: the demo authorization server, an MCP server whose tool
needs an approval, alice's MCP session, and scripted browsers that sign in as a person would.
The page shows the server's words as text, only alice can answer it, once, from its own site."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from support.security_headers import assert_hardened
from support.url_harness import Browser, Session, mcp_session, read_form, serve

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.server import (
    Approval,
    Elicitation,
    KeyRing,
    OAuthLogin,
    SQLiteStore,
    UrlElicitationNotCompletedError,
    UrlMode,
)

pytestmark = pytest.mark.timeout(90)

HOSTILE_PAYEE = "<b>ACME</b> & <script>alert(1)</script>"


@dataclass
class Payments:
    base: str
    url_mode: UrlMode
    alice: Session
    paid: list[str]


@pytest.fixture
async def auth() -> AsyncIterator[DemoAuthServer]:
    async with DemoAuthServer() as server:
        yield server


@asynccontextmanager
async def payments(auth: DemoAuthServer, tmp_path: Path, **approval: Any) -> AsyncIterator[Payments]:
    """An MCP server whose `pay` tool pays only once the person approves; alice's MCP session to it."""
    store = SQLiteStore(tmp_path / "url-mode.sqlite3")
    paid: list[str] = []
    built: list[UrlMode] = []

    def build(url: str) -> Any:
        server: MCPServer[Any] = MCPServer(
            "payments",
            token_verifier=auth.token_verifier(),
            auth=AuthSettings(issuer_url=auth.issuer, resource_server_url=None, required_scopes=["mcp"]),  # type: ignore[arg-type]
        )
        url_mode = UrlMode(
            browser=OAuthLogin(auth.issuer, scopes=["openid"]),
            public_url=url,
            keys=KeyRing.from_string(KeyRing.generate()),
            store=store,
        )
        Elicitation(server, url_mode=url_mode)
        built.append(url_mode)
        payment = Approval(url_mode, "payment", title="Approve a payment", **approval)

        @server.tool()
        async def pay(payee: str, ctx: Context) -> str:  # type: ignore[type-arg]
            try:
                await payment.ask(
                    ctx, f"Pay 120.00 EUR to {payee}?", summary={"Payee": payee, "Amount": "120.00 EUR"}
                )
            except UrlElicitationNotCompletedError as ended:
                return f"Not paid: {ended.state}."
            paid.append(payee)
            return f"Paid {payee}."

        return server.streamable_http_app()

    try:
        async with serve(build) as base:
            token = (await auth.token_for("alice")).access_token
            async with mcp_session(f"{base}/mcp", token) as alice:
                yield Payments(base, built[0], alice, paid)
    finally:
        await store.close()


async def asked(app: Payments, payee: str) -> tuple[asyncio.Task[Any], str]:
    """alice's client calls `pay`; returns the call and the approval page's URL."""
    call = asyncio.create_task(app.alice.client.call_tool("pay", {"payee": payee}))
    params = await asyncio.wait_for(app.alice.urls.get(), 30)
    return call, params.url


async def test_alice_approves_on_a_page_that_shows_the_servers_words_as_text(
    auth: DemoAuthServer, tmp_path: Path
) -> None:
    async with payments(auth, tmp_path, approve_label="Pay 120.00 EUR") as app:
        call, url = await asked(app, HOSTILE_PAYEE)
        async with Browser(auth, "alice") as browser:
            page = await browser.open(url)
            assert page.status_code == 200
            assert_hardened(page.headers)
            assert "<h1>Approve a payment</h1>" in page.text
            assert "<script>" not in page.text and "<b>ACME" not in page.text
            assert "<dt>Payee</dt><dd>&lt;b&gt;ACME&lt;/b&gt; &amp; &lt;script&gt;" in page.text
            assert "<dt>Amount</dt><dd>120.00 EUR</dd>" in page.text
            assert ">Pay 120.00 EUR</button>" in page.text and ">Decline</button>" in page.text
            assert "stored encrypted" not in page.text and ">Save<" not in page.text
            approved = await browser.submit(page, action="approve")
            assert approved.status_code == 200
            assert "<h1>Approved</h1>" in approved.text and "You approved it." in approved.text
            assert "Saved" not in approved.text
        result = await asyncio.wait_for(call, 30)
    assert result.content[0].text == f"Paid {HOSTILE_PAYEE}."
    assert app.paid == [HOSTILE_PAYEE]


async def test_alice_declines_and_the_tool_is_told(auth: DemoAuthServer, tmp_path: Path) -> None:
    async with payments(auth, tmp_path) as app:
        call, url = await asked(app, "Globex")
        async with Browser(auth, "alice") as browser:
            page = await browser.open(url)
            declined = await browser.submit(page, action="decline")
            assert declined.status_code == 200
            assert "<h1>Declined</h1>" in declined.text and "it will not go ahead" in declined.text
            assert "Nothing was stored" not in declined.text
        result = await asyncio.wait_for(call, 30)
    assert result.content[0].text == "Not paid: declined."
    assert app.paid == []


async def test_bob_cannot_approve_alices_page(auth: DemoAuthServer, tmp_path: Path) -> None:
    async with payments(auth, tmp_path) as app:
        call, url = await asked(app, "ACME Corp")
        async with Browser(auth, "bob") as bob, Browser(auth, "alice") as alice:
            refused = await bob.open(url)
            assert refused.status_code == 403 and "not for you" in refused.text
            assert 'value="approve"' not in refused.text
            own = await alice.open(url)  # a form bob could copy: alice's page, bob's own session
            _, hidden = read_form(own.text)
            for action in ("approve", "decline"):
                forged = await bob.http.post(url, data={**hidden, "action": action})
                assert forged.status_code == 403
            record = await app.url_mode.store.get(url.rsplit("/", 1)[1])
            assert record is not None and record.state == "opened"
            assert not call.done() and app.paid == []
            approved = await alice.submit(own, action="approve")
            assert "<h1>Approved</h1>" in approved.text
        assert (await asyncio.wait_for(call, 30)).content[0].text == "Paid ACME Corp."


async def test_a_cross_site_or_replayed_post_is_refused_and_approving_twice_changes_nothing(
    auth: DemoAuthServer, tmp_path: Path
) -> None:
    async with payments(auth, tmp_path) as app:
        call, url = await asked(app, "ACME Corp")
        elicitation_id = url.rsplit("/", 1)[1]
        async with Browser(auth, "alice") as browser:
            page = await browser.open(url)
            _, hidden = read_form(page.text)
            for headers in ({"origin": "https://evil.example"}, {"sec-fetch-site": "cross-site"}):
                cross = await browser.http.post(url, data={**hidden, "action": "approve"}, headers=headers)
                assert cross.status_code == 403 and "from another site" in cross.text
            stale = await browser.http.post(url, data={"csrf": "x" + hidden["csrf"], "action": "approve"})
            assert stale.status_code == 403
            unsure = await browser.submit(page, action="save")  # neither button: asked again
            assert unsure.status_code == 400 and "one of the two buttons" in unsure.text
            record = await app.url_mode.store.get(elicitation_id)
            assert record is not None and record.state == "opened" and not call.done()

            first = await browser.submit(page, action="approve")
            assert "<h1>Approved</h1>" in first.text
            result = await asyncio.wait_for(call, 30)
            for action in ("approve", "decline"):  # the same form posted again, either button
                again = await browser.submit(page, action=action)
                assert again.status_code == 410 and "already completed" in again.text
            reopened = await browser.open(url)
            assert reopened.status_code == 410 and 'value="approve"' not in reopened.text
            record = await app.url_mode.store.get(elicitation_id)
            assert record is not None and record.state == "completed"
    assert result.content[0].text == "Paid ACME Corp."
    assert app.paid == ["ACME Corp"]  # paid once


async def test_the_page_speaks_chinese(auth: DemoAuthServer, tmp_path: Path) -> None:
    async with payments(auth, tmp_path) as app:
        call, url = await asked(app, "ACME Corp")
        async with Browser(auth, "alice") as browser:
            browser.http.headers["accept-language"] = "zh-CN,zh;q=0.9"
            page = await browser.open(url)
            assert ">批准</button>" in page.text and ">拒绝</button>" in page.text
            assert "Pay 120.00 EUR to ACME Corp?" in page.text  # the server's words as written
            approved = await browser.submit(page, action="approve")
            assert "<h1>已批准</h1>" in approved.text
        await asyncio.wait_for(call, 30)
