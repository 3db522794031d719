"""URL mode's pages speak the browser's language (Accept-Language), unless the server chose one
(`UrlMode(locale=...)`); the author's words stay as written, and escaping is unchanged. Real
HTTP: the MCP server's app served by uvicorn on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import uvicorn
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ElicitResult

from elicitkit.server import Elicitation
from elicitkit.server._url_mode import UrlMode
from elicitkit.server._user import McpUsers
from elicitkit.server._vault import KeyRing
from elicitkit.server.store import MemoryStore

ZH = {"accept-language": "zh-CN,zh;q=0.9,en;q=0.8"}
EN = {"accept-language": "en-US,en;q=0.9"}
AUTHOR = "The <b>weather</b> tool needs your key"
"""The author's message: shown as written (and escaped), never translated."""


@dataclass
class Served:
    url: str
    """The landing page of one pending elicitation."""
    http: httpx.AsyncClient
    call: asyncio.Task[object]


@contextlib.asynccontextmanager
async def serving(*, locale: str | None = None, name: str = "Weather <Co>") -> AsyncIterator[Served]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    public = f"http://127.0.0.1:{listener.getsockname()[1]}"
    server = MCPServer(name)
    url_mode = UrlMode(
        public_url=public,
        keys=KeyRing.from_string(KeyRing.generate()),
        store=MemoryStore(),
        users=McpUsers.single_user_local(),
        locale=locale,
    )
    elicit = Elicitation(server, url_mode=url_mode)
    key = elicit.secret("key", title="Weather API key", message=AUTHOR)

    @server.tool()
    async def weather(ctx: Context) -> str:  # type: ignore[type-arg]
        return f"got {len(await key.get(ctx))} characters"

    urls: asyncio.Queue[str] = asyncio.Queue()

    async def on_elicit(context: object, params: object) -> ElicitResult:
        urls.put_nowait(params.url)  # type: ignore[attr-defined]
        return ElicitResult(action="accept")

    web = uvicorn.Server(
        uvicorn.Config(server.streamable_http_app(), log_config=None, access_log=False, lifespan="off")
    )
    task = asyncio.create_task(web.serve(sockets=[listener]))
    try:
        while not web.started:
            await asyncio.sleep(0.01)
        async with (
            Client(server, mode="legacy", elicitation_callback=on_elicit, cache=None) as client,
            httpx.AsyncClient(timeout=10) as http,
        ):
            call = asyncio.create_task(client.call_tool("weather", {}))
            url = await asyncio.wait_for(urls.get(), 10)
            yield Served(url, http, call)  # type: ignore[arg-type]
            call.cancel()
            with contextlib.suppress(BaseException):
                await call
    finally:
        web.should_exit = True
        await task
        listener.close()


async def test_a_chinese_browser_gets_the_page_in_chinese_with_the_authors_words_as_written() -> None:
    async with serving() as s:
        page = await s.http.get(s.url, headers=ZH)
        assert page.status_code == 200
        html = page.text
        assert '<html lang="zh-CN">' in html
        for chinese in ("正在请求", "已登录为", "加密保存", ">保存</button>", ">拒绝</button>"):
            assert chinese in html, chinese
        for english in ("is asking", "Signed in as", ">Save<", ">Decline<"):
            assert english not in html, english
        assert "Weather API key" in html  # the author's title and message, as given
        assert "The &lt;b&gt;weather&lt;/b&gt; tool needs your key" in html
        # the server's name inside a translated sentence is escaped like any value
        assert "<strong>Weather &lt;Co&gt;</strong> 正在请求" in html and "<Co>" not in html


async def test_an_english_browser_and_one_without_a_preference_get_english() -> None:
    async with serving() as s:
        for headers in (EN, {}, {"accept-language": "fr-FR,de;q=0.5"}):
            html = (await s.http.get(s.url, headers=headers)).text
            assert '<html lang="en">' in html
            assert "<strong>Weather &lt;Co&gt;</strong> is asking" in html and ">Save</button>" in html
            assert "保存" not in html


async def test_the_servers_locale_wins_over_the_browsers() -> None:
    async with serving(locale="en") as s:
        html = (await s.http.get(s.url, headers=ZH)).text
        assert '<html lang="en">' in html and ">Save</button>" in html and "保存" not in html
    async with serving(locale="zh-CN") as s:
        html = (await s.http.get(s.url, headers=EN)).text
        assert '<html lang="zh-CN">' in html and ">保存</button>" in html


async def test_refusals_and_the_last_page_are_translated_too() -> None:
    async with serving() as s:
        base = s.url.rsplit("/", 1)[0]
        unknown = await s.http.get(f"{base}/{'x' * 40}", headers=ZH)
        assert unknown.status_code == 404
        assert "链接无效" in unknown.text and "此链接没有指向我们已知的请求" in unknown.text
        page = await s.http.get(s.url, headers=ZH)
        csrf = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        # the session cookie is __Host- and Secure: sent back by hand over plain http to 127.0.0.1
        browser = {**ZH, "cookie": page.headers["set-cookie"].split(";", 1)[0]}
        stale = await s.http.post(s.url, data={"csrf": "stale", "action": "save"}, headers=browser)
        assert stale.status_code == 403 and "请求被拒绝" in stale.text
        declined = await s.http.post(s.url, data={"csrf": csrf, "action": "decline"}, headers=browser)
        assert declined.status_code == 200
        assert "你已拒绝。没有保存任何内容。" in declined.text and "You declined" not in declined.text


async def test_a_secrets_own_check_speaks_the_page_language() -> None:
    """What the flow itself says about the entry ("Enter the ...") is elicitkit's, so translated;
    the title inside it is the author's, as given."""
    async with serving() as s:
        for headers, expected in ((ZH, "请输入Weather API key。"), (EN, "Enter the Weather API key.")):
            page = await s.http.get(s.url, headers=headers)
            csrf = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
            browser = {**headers, "cookie": page.headers["set-cookie"].split(";", 1)[0]}
            empty = await s.http.post(
                s.url, data={"csrf": csrf, "action": "save", "secret": ""}, headers=browser
            )
            assert empty.status_code == 400 and expected in empty.text, empty.text
            long = {"csrf": csrf, "action": "save", "secret": "x" * 9000}
            too_long = await s.http.post(s.url, data=long, headers=browser)
            assert too_long.status_code == 400
            assert (
                "这个Weather API key太长了。" if headers is ZH else "That is too long for a Weather API key."
            ) in (too_long.text)
