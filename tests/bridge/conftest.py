"""What the bridge's tests share: Debian's Chromium, launched as every browser test here launches
it (tests/support/chromium.py), and the reference "everything" server over HTTP with a bridge
(`--answer host`) in front of it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from bridge_harness import ROOT, bridge_http, environment, http_process
from playwright.async_api import Browser, async_playwright
from support.chromium import CHROMIUM, CHROMIUM_ARGS
from support.server_process import free_port

EVERYTHING_PEER = ROOT / "tests" / "peers" / "everything"


@pytest.fixture
async def chromium() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            await browser.close()


@pytest.fixture(scope="module")
def everything_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The reference "everything" server (TypeScript) over Streamable HTTP; its MCP URL."""
    port = free_port()
    log = tmp_path_factory.mktemp("everything") / "upstream.log"
    with http_process(
        ["node", str(EVERYTHING_PEER / "serve_http.mjs")], log, port=port, env=environment(PORT=str(port))
    ) as url:
        yield url


@pytest.fixture(scope="module")
def everything_bridged(everything_http: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`elicitkit bridge --listen` in front of it, `--answer host`; the bridge's MCP URL."""
    with bridge_http([everything_http], tmp_path_factory.mktemp("bridge") / "bridge.log", "host") as url:
        yield url
