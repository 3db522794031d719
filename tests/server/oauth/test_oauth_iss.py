"""RFC 9207: a connection's callback takes an authorization answer only when its `iss` names
the provider the person was sent to, and requires `iss` when the provider promised it (the
demo provider does); a mix-up (another server's answer) is refused and stores nothing."""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

import pytest
from mcp.shared.exceptions import MCPError
from support.oauth_harness import (
    Browser,
    agenda_with,
    at_provider,
    auth,
    consent,
    provider,
    query_of,
    url_required,
)

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.demo.provider import DemoProvider
from elicitkit.server._user import User

__all__ = ["auth", "provider"]
pytestmark = pytest.mark.timeout(90)


def with_query(address: str, **changes: str | None) -> str:
    query = {**query_of(address), **changes}
    parts = urlsplit(address)
    kept = {key: value for key, value in query.items() if value is not None}
    return f"{parts.scheme}://{parts.netloc}{parts.path}?{urlencode(kept)}"


@pytest.mark.parametrize(
    "iss",
    ["https://attacker.example", "{provider}/", None],
    ids=["another-server", "not-exactly-the-issuer", "missing-though-promised"],
)
async def test_an_answer_not_named_by_the_provider_is_refused(
    auth: DemoAuthServer, provider: DemoProvider, iss: str | None
) -> None:
    async with agenda_with(auth, provider, discovery=True) as (agenda, alice):  # the issuer is known
        with pytest.raises(MCPError) as raised:
            await alice.client.call_tool("agenda", {})
        url = url_required(raised.value)
        async with Browser(auth, "alice") as browser:
            callback = await at_provider(browser, provider, await consent(browser, url))
            assert query_of(callback)["iss"] == provider.issuer  # the provider names itself
            changed = None if iss is None else iss.format(provider=provider.issuer)
            page = await browser.http.get(with_query(callback, iss=changed))
            assert page.status_code == 400 and "did not come from Demo Calendar" in page.text
            assert (
                await agenda.url_mode.vault.get(User(auth.issuer, "alice"), "oauth:calendar:tokens") is None
            )
