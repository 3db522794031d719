"""What the bridge's browser tests share: Debian's Chromium, launched as every browser test here
launches it (tests/support/chromium.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser, async_playwright
from support.chromium import CHROMIUM, CHROMIUM_ARGS


@pytest.fixture
async def chromium() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            await browser.close()
