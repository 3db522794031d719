"""A stock TypeScript SDK server (tests/peers/ts-sdk/elicit_server.mjs, `@modelcontextprotocol/sdk`
1.32.2 from npm) that asks with `server.server.elicitInput(...)` inside its tools: the SDK's
common idiom, which names no related request, so each question travels on the standalone GET
stream while the tool call is open. `elicitkit client` at its defaults answers a form and a URL
elicitation there; the strict setting refuses them (C-03).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from elicitkit.client import AcceptedElicitation, ElicitationConfig, ScriptedUI, UrlQuestion

PEER = Path(__file__).parents[1] / "peers" / "ts-sdk"
ELICITKIT = Path(sys.executable).with_name("elicitkit")

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(scope="module")
def ts_server() -> Iterator[str]:
    node = shutil.which("node")
    assert node is not None, "these tests need node (scripts/setup installs it)"
    process = subprocess.Popen(
        [node, "elicit_server.mjs"], cwd=PEER, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert process.stdout is not None
    try:
        line = process.stdout.readline()
        assert line, "the TypeScript SDK server did not start (npm ci in tests/peers/ts-sdk?)"
        yield str(json.loads(line)["url"])
    finally:
        process.terminate()
        process.wait(10)


def elicitkit_client(
    url: str, tool: str, answers: list[Any], tmp_path: Path
) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(answers))
    command = [str(ELICITKIT), "client", url, "--call", tool, "--answers", str(path)]
    return subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)


def test_elicitkit_client_answers_a_form_asked_with_elicit_input(ts_server: str, tmp_path: Path) -> None:
    done = elicitkit_client(ts_server, "order", [{"action": "accept", "content": {"sugar": 2}}], tmp_path)
    assert done.returncode == 0, done.stderr
    # What the TypeScript server got back, default filled in: the answer reached the tool.
    assert json.loads(done.stdout) == {"action": "accept", "content": {"size": "small", "sugar": 2}}
    assert "How do you like your coffee?" in done.stderr


def test_elicitkit_client_answers_a_url_asked_with_elicit_input(ts_server: str, tmp_path: Path) -> None:
    done = elicitkit_client(ts_server, "connect", [{"action": "accept"}], tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"action": "accept"}
    assert "https://bank.example/connect" in done.stderr


async def test_the_library_at_its_defaults_answers_at_once(ts_server: str) -> None:
    """No pause after connecting: the question is not lost before the GET stream is open."""
    ui = ScriptedUI(AcceptedElicitation({"size": "large", "sugar": 0}), AcceptedElicitation())
    config = ElicitationConfig(ui, modes=("form", "url"), open_url=lambda url: True)
    async with config.connect(ts_server) as client:
        order = await client.call_tool("order", {})
        connect = await client.call_tool("connect", {})
    assert json.loads(order.content[0].text) == {  # type: ignore[union-attr]
        "action": "accept",
        "content": {"size": "large", "sugar": 0},
    }
    assert json.loads(connect.content[0].text) == {"action": "accept"}  # type: ignore[union-attr]
    assert isinstance(ui.shown[1], UrlQuestion) and ui.shown[1].server == "TypeScript Coffee"


async def test_the_strict_setting_refuses_the_same_questions(ts_server: str) -> None:
    ui = ScriptedUI(otherwise=AcceptedElicitation())
    config = ElicitationConfig(ui, modes=("form", "url"), standalone_stream="refuse")
    async with config.connect(ts_server) as client:
        order = await client.call_tool("order", {})
    assert order.is_error
    assert "not associated with a client request" in order.content[0].text  # type: ignore[union-attr]
    assert ui.shown == []
