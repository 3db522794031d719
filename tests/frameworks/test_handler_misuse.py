"""A plain `ElicitationConfig` handed where a framework wants a callback (the first thing a user
tries) fails with elicitkit's sentence naming the adapter; the person is never asked and the
server never gets an accept."""

from __future__ import annotations

from typing import Any

import fastmcp
import pytest
from fastmcp_harness import fastmcp_example
from mcp import Client
from mcp.shared.exceptions import MCPError

from elicitkit.client import AcceptedElicitation, ElicitationConfig, ScriptedUI
from elicitkit.errors import ConfigurationError

pytestmark = pytest.mark.timeout(60)

ADVICE = "for_fastmcp(config).client_options()"


def test_calling_the_config_names_the_adapters() -> None:
    with pytest.raises(ConfigurationError, match=r"not the callback") as raised:
        ElicitationConfig(ScriptedUI())("message", None, None, None)
    assert ADVICE in str(raised.value) and "for_sdk_session(config)" in str(raised.value)


async def _outcome(call: Any) -> str:
    try:
        result = await call()
    except (MCPError, ConfigurationError) as exc:
        return f"error: {exc}"
    except ExceptionGroup as group:  # the SDK's own 2026-07-28 driver lets the callback's error out
        leaves = [e for e in _leaves(group) if isinstance(e, ConfigurationError)]
        return f"error: {leaves[0]}" if leaves else f"other: {group!r}"
    return f"error: {result.content[0].text}" if result.is_error else f"ok: {result.content[0].text}"


def _leaves(group: BaseExceptionGroup[Any]) -> list[BaseException]:
    return [
        leaf for e in group.exceptions for leaf in (_leaves(e) if isinstance(e, BaseExceptionGroup) else [e])
    ]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_fastmcp_client_given_the_config_itself(mode: Any) -> None:
    ui = ScriptedUI(otherwise=AcceptedElicitation())
    async with fastmcp_example() as served:
        config: Any = ElicitationConfig(ui)
        async with fastmcp.Client(served.mcp, mode=mode, elicitation_handler=config) as client:
            outcome = await _outcome(lambda: client.call_tool("book", {}, raise_on_error=False))
    assert outcome.startswith("error: ") and ADVICE in outcome, outcome
    assert ui.shown == []


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_sdk_client_given_the_config_itself(mode: Any) -> None:
    ui = ScriptedUI(otherwise=AcceptedElicitation())
    async with fastmcp_example() as served:
        config: Any = ElicitationConfig(ui)
        async with Client(served.mcp, mode=mode, elicitation_callback=config) as client:
            outcome = await _outcome(lambda: client.call_tool("book", {}))
    assert outcome.startswith("error: ") and ADVICE in outcome, outcome
    assert ui.shown == []
