# ruff: noqa: RUF001 (Chinese is written with fullwidth punctuation)
"""When the provider answers a real code flow with an error, the page says what went wrong and
what to do next in the browser's language (Accept-Language), each sentence whole: at the token
endpoint (oidc-provider refuses the client's credentials, invalid_client) and at the
authorization endpoint (prompt=none with no session there, login_required). The error code is
shown as the provider sent it; its free-text description never is."""

from __future__ import annotations

import html
import re

import pytest
from mcp.shared.exceptions import MCPError
from support.oauth_harness import Browser, auth, mcp_session, token, url_required
from support.oidc_harness import SECRET, connect, running

from elicitkit.demo.auth_server import DemoAuthServer

__all__ = ["auth"]

pytestmark = pytest.mark.timeout(120)


def said(page_html: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page_html)))


async def test_a_provider_error_is_explained_in_chinese_and_in_english(auth: DemoAuthServer) -> None:
    async with running(auth) as run, mcp_session(f"{run.base}/mcp", await token(auth, "alice")) as alice:
        _, chinese = await connect(run, auth, alice, "wrong", languages="zh-CN,zh;q=0.9,en;q=0.5")
        assert chinese.status_code == 502 and '<html lang="zh-CN">' in chinese.text, chinese.text
        text = said(chinese.text)
        assert "Peer Calendar 未能连接" in text, text
        assert (
            "Peer Calendar 不接受此服务器的客户端凭据；服务器管理员需要检查在那里注册的客户端 ID 以及"
            "密钥或私钥（invalid_client）。 没有保存任何内容。请从你的应用程序重新打开链接再试一次。"
        ) in text, text
        assert not re.search(r"\b(did not|accept|Nothing|Open the link)\b", text), text
        assert SECRET not in chinese.text and "the-real-one" not in chinese.text

        _, english = await connect(run, auth, alice, "wrong", languages="en-GB")
        assert english.status_code == 502 and '<html lang="en">' in english.text
        assert (
            "Peer Calendar did not accept this server's client credentials; the server's administrator must "
            "check the client id and secret or key registered there (invalid_client). Nothing was stored. "
            "Open the link from your application again to retry."
        ) in said(english.text)

        _, silent = await connect(run, auth, alice, "silent", languages="zh-CN")
        assert silent.status_code == 502, silent.text
        text = said(silent.text)
        assert (
            "Peer Calendar 需要你先在那里登录（login_required）。 "
            "没有保存任何内容。请从你的应用程序重新打开链接再试一次。"
        ) in text, text
        assert "error_description" not in silent.text and "End-User" not in text  # the provider's own words
        _, silent_en = await connect(run, auth, alice, "silent")
        assert (
            "Peer Calendar needs you to sign in there first (login_required). Nothing was stored. "
            "Open the link from your application again to retry."
        ) in said(silent_en.text)


async def test_the_hand_off_page_is_titled_in_the_browsers_language(auth: DemoAuthServer) -> None:
    async with running(auth) as run, mcp_session(f"{run.base}/mcp", await token(auth, "alice")) as alice:
        with pytest.raises(MCPError) as raised:
            await alice.client.call_tool("use", {"name": "basic"})
        url = url_required(raised.value)
        for languages, heading, why in (
            ("zh-CN", "<h1>连接 Peer Calendar</h1>", "此工具需要访问你的 Peer Calendar 账户。"),
            ("en", "<h1>Connect Peer Calendar</h1>", "This tool needs access to your Peer Calendar account."),
        ):
            async with Browser(auth, "alice") as browser:
                browser.http.headers["Accept-Language"] = languages
                consent = await browser.open(url)
                # the consent page too: its heading and elicitkit's default message (no author's one)
                assert heading in consent.text and why in consent.text, consent.text
                moving_on = await browser.submit(consent, action="connect")
            assert moving_on.status_code == 200 and heading in moving_on.text, moving_on.text
