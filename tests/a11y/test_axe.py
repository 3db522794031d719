"""Every page the server and the web client can show passes axe-core's WCAG 2.1 A and AA rules
with no violation, in English and in Chinese, at a desktop and a mobile size, reflows at 200%
and 400% zoom, and says its language (see a11y_audit and a11y_tour)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from a11y_audit import Findings, audit, axe_source
from a11y_tour import TOURS, chromium
from playwright.async_api import Browser, Page

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.timeout(300)]

LOCALES = ("en", "zh_CN")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def browser() -> AsyncIterator[Browser]:
    async with chromium() as launched:
        yield launched


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("tour", list(TOURS))
async def test_every_page_passes_axe(browser: Browser, tour: str, locale: str) -> None:
    findings = Findings()
    source = axe_source()

    async def visit(name: str, page: Page) -> None:
        await audit(page, name, findings, source, lang=locale)

    await TOURS[tour](browser, locale, visit)
    assert findings.pages, "the tour visited no page"
    assert not findings.problems, findings.report()
