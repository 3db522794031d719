"""google-adk for real: examples/fastmcp/agent_google_adk.py (an ADK `LlmAgent` with a scripted
`BaseLlm`, its `McpToolset` given `for_sdk_session(config)` as `elicitation_callback`) against
the FastMCP example server on 127.0.0.1: a form accept, a URL consent completed in a browser, a
decline, and an undeclared mode refused as an error the server sees, never an accept.

google-adk pins opentelemetry-api <= 1.44 and FastMCP 4.2 needs >= 1.45.2, so the agent runs in
its own venv, `.venv-adk` (made by scripts/setup: google-adk and elicitkit from this tree), as
one subprocess (tests/frameworks/adk_driver.py); the server and the person stay in this process.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import pytest
from fastmcp_harness import Person, Served, fastmcp_example
from support.scripts import ROOT

pytestmark = pytest.mark.timeout(150)

ADK_PYTHON = ROOT / ".venv-adk" / "bin" / "python"
DRIVER = ROOT / "tests" / "frameworks" / "adk_driver.py"
SCENARIOS = ["decline", "form-only", "accept"]  # accept last: then the vault holds the key

if not ADK_PYTHON.exists():
    pytest.skip("google-adk's venv .venv-adk is missing; scripts/setup makes it", allow_module_level=True)


async def run_agent(served: Served, person: Person) -> dict[str, dict[str, Any]]:
    """The ADK agent (in .venv-adk) through each scenario; the URLs it opens go to `person`.

    Each scenario's result carries the states of the records the server made during it."""
    env = {**os.environ, "GOOGLE_API_USE_CLIENT_CERTIFICATE": "false"}  # no Google mTLS probe (network)
    process = await asyncio.create_subprocess_exec(
        *(str(ADK_PYTHON), str(DRIVER), served.mcp, *SCENARIOS),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env=env,
    )
    assert process.stdout is not None
    lines: list[str] = []
    results: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    try:
        async with asyncio.timeout(120):
            async for raw in process.stdout:
                line = raw.decode().rstrip("\n")
                lines.append(line)
                if line.startswith("OPEN "):
                    person.open(line.removeprefix("OPEN "))
                elif line.startswith("RESULT "):
                    _, scenario, payload = line.split(" ", 2)
                    await person.finished()
                    opened = list(person.opened)
                    records = {k: r for k, r in served.store.records.items() if k not in seen}
                    seen |= set(records)
                    results[scenario] = {
                        **json.loads(payload),
                        "states": {r.state for r in records.values()},
                        "opened": opened,
                    }
            await process.wait()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0 and list(results) == SCENARIOS, "\n".join(lines[-40:])
    return results


async def test_adk_agent_accepts_declines_and_refuses_an_undeclared_mode() -> None:
    person = Person()
    async with fastmcp_example() as served:
        results = await run_agent(served, person)

    # decline: the tool gets a decline, never an accept; nothing opened, nothing completed
    decline = results["decline"]
    booked, forecast = decline["final"].split(" / ")
    assert booked == "Nothing booked: the person chose decline."
    assert "ended as 'declined'" in forecast and "Sunny" not in forecast, forecast
    assert decline["shown"] == ["FormQuestion", "UrlQuestion"] and "completed" not in decline["states"]

    # a config for form only: ADK's session (the SDK's) declares url anyway; the URL
    # request is refused with -32602 before the person sees it, and the tool gets that error
    refused = results["form-only"]
    booked, forecast = refused["final"].split(" / ")
    assert booked == "Booked a table for 4 on 2026-12-24."
    assert "did not declare elicitation mode 'url'" in forecast and "Sunny" not in forecast, forecast
    assert refused["shown"] == ["FormQuestion"] and "completed" not in refused["states"]
    assert refused["opened"] == []  # nothing was opened before the accept scenario

    # form accept, then a URL consent the person completes in the browser: the Secret arrives
    accept = results["accept"]
    booked, forecast = accept["final"].split(" / ")
    assert booked == "Booked a table for 4 on 2026-12-24."
    assert forecast.startswith("Sunny in Oslo (key "), forecast
    assert accept["shown"] == ["FormQuestion", "UrlQuestion"] and accept["states"] == {"completed"}
    assert len(person.opened) == 1 and person.opened[0].startswith(f"{served.base}/elicit/")
