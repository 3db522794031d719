"""Host profiles (`--host-profile`): the bridge asks a host only what it can answer.

Real processes: the host is `mcp.Client` with an elicitation callback, the bridge is `elicitkit
bridge` over stdio, the servers are the reference "everything" server (its form has integer,
number and multi-select fields) and tests/bridge/upstream_profiles.py; Chromium plays the
person in the bridge's page. A profile that cannot render numbers or multi-select sends such a
form to the page, offers an integer with no bounds to the host as a string it reads back, and
leaves every other question to the host; the same comes of a profile read from the report of
`elicitkit check --host` on a host that approves, empty, every form it cannot draw.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from bridge_harness import HERE, PY, ROOT, BrowserRecord, bridge_stdio, environment, text_of
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult
from playwright.async_api import Browser

from elicitkit.check import HostEndpoint, audit_host
from elicitkit.check._host import policy_answer
from elicitkit.schema import fields, validate

pytestmark = [pytest.mark.timeout(300), pytest.mark.filterwarnings("ignore::DeprecationWarning")]

EVERYTHING = [
    "node",
    str(ROOT / "tests/peers/everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
    "stdio",
]
UPSTREAM = [PY, str(HERE / "upstream_profiles.py"), "stdio"]
ORDER = {
    "type": "object",
    "properties": {
        "guests": {"type": "integer", "title": "Guests", "minimum": 1, "maximum": 10},
        "budget": {"type": "number", "title": "Budget", "default": 12.5},
        "toppings": {
            "type": "array",
            "title": "Toppings",
            "items": {"type": "string", "enum": ["cheese", "olives", "basil"]},
            "default": ["basil"],
        },
    },
    "required": ["guests"],
}
UNDRAWN = ("integer", "number", "multi-select")


class Host:
    """A host's elicitation callback: the name "Ada", the count typed as text, "7"."""

    def __init__(self) -> None:
        self.asked: list[Any] = []

    async def __call__(self, context: Any, params: Any) -> ElicitResult:
        self.asked.append(params)
        properties = params.requested_schema["properties"]
        if "count" in properties:
            return ElicitResult(action="accept", content={"count": "7", "note": "two"})
        return ElicitResult(action="accept", content={"name": "Ada"})


async def person(record: BrowserRecord, chromium: Browser, label: str, value: str) -> None:
    """The person, in the bridge's page: fills `label` with `value`, keeps every default, submits."""
    page = await chromium.new_page()
    await page.goto(await asyncio.to_thread(record.next_url, 0))
    await page.get_by_label(label).first.fill(value)
    await page.get_by_role("button", name="Review answers").click()
    await page.get_by_role("button", name="Submit answers").click()


def answer(result: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(text_of(result))
    return data


async def test_the_everything_servers_form_with_numbers_is_answered_in_the_bridges_page(
    tmp_path: Path, chromium: Browser
) -> None:
    record = BrowserRecord(tmp_path)
    host = Host()
    server = bridge_stdio(
        EVERYTHING, "auto", "--host-profile", "no-numbers-or-multiselect", env=environment(**record.env)
    )
    async with Client(server, elicitation_callback=host, mode="legacy") as client:
        form, _ = await asyncio.gather(
            client.call_tool("trigger-elicitation-request", {}),
            person(record, chromium, "String", "Grace Hopper"),  # "String *": the name, required
        )
    said = text_of(form)
    assert "User provided the requested information" in said, said
    assert "- Name: Grace Hopper" in said and "- Favorite Integer: 42" in said, said  # a default, kept
    assert host.asked == []  # the host, which cannot draw the integer, was never asked


async def test_each_question_goes_to_whoever_can_answer_it(tmp_path: Path, chromium: Browser) -> None:
    record = BrowserRecord(tmp_path)
    host = Host()
    server = bridge_stdio(
        UPSTREAM, "auto", "--host-profile", "no-numbers-or-multiselect", env=environment(**record.env)
    )
    async with Client(server, elicitation_callback=host, mode="legacy") as client:
        name = answer(await client.call_tool("ask_name", {}))
        count = answer(await client.call_tool("ask_count", {}))
        order, _ = await asyncio.gather(
            client.call_tool("ask_order", {}), person(record, chromium, "Guests", "4")
        )
    assert name == {"revision": "2025-11-25", "action": "accept", "content": {"name": "Ada"}}
    # The integer was offered as text the host renders, and reached the server as the integer.
    assert count["content"] == {"count": 7, "note": "two"}
    offered = host.asked[1].requested_schema["properties"]["count"]
    assert (offered["type"], offered["default"]) == ("string", "3") and offered["pattern"]
    # The bounded integer, the number and the multi-select: answered in the page, valid upstream.
    content = answer(order)["content"]
    assert content == {"guests": 4, "budget": 12.5, "toppings": ["basil"]}
    assert validate(ORDER, content) == []
    assert len(host.asked) == 2 and len(record.opened()) == 1


async def test_a_host_answer_that_does_not_read_back_goes_to_the_page(
    tmp_path: Path, chromium: Browser
) -> None:
    """A host that ignores the pattern and sends "seven": the person answers the count in the page."""
    record = BrowserRecord(tmp_path)

    async def careless(context: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content={"count": "seven"})

    server = bridge_stdio(
        UPSTREAM, "auto", "--host-profile", "no-numbers-or-multiselect", env=environment(**record.env)
    )
    async with Client(server, elicitation_callback=careless, mode="legacy") as client:
        count, _ = await asyncio.gather(
            client.call_tool("ask_count", {}), person(record, chromium, "Count", "5")
        )
    assert answer(count)["content"] == {"count": 5}


async def test_a_2026_host_is_passed_whole_only_the_rounds_it_renders(
    tmp_path: Path, chromium: Browser
) -> None:
    """Both sides on 2026-07-28: the name's round reaches the host as the server sent it; the
    order's round never does (the bridge's client asks it, in the page)."""
    record = BrowserRecord(tmp_path)
    host = Host()
    options = ("--host-profile", "no-numbers-or-multiselect", "--upstream-protocol", "2026-07-28")
    server = bridge_stdio(UPSTREAM, "auto", *options, env=environment(**record.env))
    async with Client(server, elicitation_callback=host) as client:
        assert client.protocol_version == "2026-07-28"
        name = answer(await client.call_tool("ask_name", {}))
        order, _ = await asyncio.gather(
            client.call_tool("ask_order", {}), person(record, chromium, "Guests", "3")
        )
    assert name == {"revision": "2026-07-28", "action": "accept", "content": {"name": "Ada"}}
    assert answer(order) == {
        "revision": "2026-07-28",
        "action": "accept",
        "content": {"guests": 3, "budget": 12.5, "toppings": ["basil"]},
    }
    assert [list(params.requested_schema["properties"]) for params in host.asked] == [["name"]]


class ApprovesWhatItCannotDraw:
    """A host that draws strings, booleans and single-selects, and approves any other form with
    empty content (as public reports say one desktop host does)."""

    name = "a host that approves what it cannot draw"

    async def __call__(self, endpoint: HostEndpoint) -> None:
        async def callback(context: Any, params: Any) -> ElicitResult:
            if isinstance(params, ElicitRequestURLParams):
                return ElicitResult(action="accept")
            assert isinstance(params, ElicitRequestFormParams)
            action, content = policy_answer(params.message, params.requested_schema)
            if action == "accept" and any(f.kind in UNDRAWN for f in fields(params.requested_schema)):
                return ElicitResult(action="accept", content={})
            return ElicitResult(action=action, content=content)

        async with Client(endpoint.url, mode="legacy", elicitation_callback=callback) as client:
            for tool in endpoint.tools:
                with contextlib.suppress(MCPError):  # a tool it cannot call (one run only as a task)
                    await client.call_tool(tool, {})


async def test_a_profile_read_from_a_host_audit_report(tmp_path: Path, chromium: Browser) -> None:
    report = await audit_host(ApprovesWhatItCannotDraw(), deadline=90)
    path = tmp_path / "host-report.json"
    path.write_text(report.to_json())
    record = BrowserRecord(tmp_path)
    host = Host()
    server = bridge_stdio(UPSTREAM, "auto", "--host-profile", str(path), env=environment(**record.env))
    async with Client(server, elicitation_callback=host, mode="legacy") as client:
        name = answer(await client.call_tool("ask_name", {}))
        count = answer(await client.call_tool("ask_count", {}))
        order, _ = await asyncio.gather(
            client.call_tool("ask_order", {}), person(record, chromium, "Guests", "2")
        )
    assert name["content"] == {"name": "Ada"} and count["content"] == {"count": 7, "note": "two"}
    assert answer(order)["content"] == {"guests": 2, "budget": 12.5, "toppings": ["basil"]}
    assert len(host.asked) == 2 and len(record.opened()) == 1


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (
            "form-only --answer host",
            "Invalid value for --host-profile: it goes with --answer auto",
        ),
        (
            "nosuch",
            "There is no host profile 'nosuch'; give one of form-only, empty-form-object, "
            "declines-unseen, no-numbers-or-multiselect,",
        ),
        ("missing.json", "Cannot read the host audit report missing.json"),
    ],
)
def test_a_profile_it_does_not_know_is_one_sentence(given: str, said: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [PY, "-m", "elicitkit", "bridge", "--host-profile", *given.split(), "--", *UPSTREAM],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environment(COLUMNS="400"),
        timeout=60,
    )
    assert done.returncode == 2
    assert said in " ".join(done.stderr.split()), done.stderr
    assert "Traceback" not in done.stderr
