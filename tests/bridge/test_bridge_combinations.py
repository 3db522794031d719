"""Every combination of host revision, what the host declared, server revision and `--answer`.

The table under "Every combination" in docs/bridge.md is read here and each of its rows is run
for every combination it stands for, so the page and the test cannot part: the SDK's
`mcp.Client` as the host (2025-11-25 or 2026-07-28, declaring no elicitation, form only, or
form and URL), `elicitkit.bridge.Bridge` served by uvicorn on 127.0.0.1 with the row's
`--answer` and the server's revision pinned, and an elicitkit server over HTTP
(tests/bridge/upstream_matrix.py) with a form tool and a URL-mode tool. Form accept, decline and
cancel and URL mode complete (a secret typed on the server's own page, fetched over HTTP as a
browser would) come back as the server's tool result says, from whoever the row names; a
"cannot" is checked as its sentence states (nobody is asked, and the server says it was told).

Stand-in: in the table's rows, where the bridge answers itself, its own UI is elicitkit's
`ScriptedUI` (given as `Bridge(ui=...)`), with `open_url` handing the URL to the scripted
browser. The real page is driven in Chromium by tests/bridge/test_bridge_browser.py,
test_bridge_revisions.py, test_bridge_reverse.py and test_bridge_stock_hosts.py; the real
terminal is driven here (the command with `--answer terminal --listen` in tmux, for the two
revision pairs that cross), and the command's refusal where it has no terminal of its own too.
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import pytest
import pytest_asyncio
from anyio.abc import TaskGroup
from bridge_harness import HERE, PY, ROOT, SDK, BrowserRecord, environment, http_process, text_of
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult
from support.declaring import declaring
from support.server_process import free_port
from support.tmux_pane import PATIENCE
from support.tmux_terminal import Terminal
from support.url_harness import Browser, serve

from elicitkit.bridge import Bridge
from elicitkit.client import FormQuestion, ScriptedUI, UrlQuestion
from elicitkit.results import AcceptedElicitation, CancelledElicitation, DeclinedElicitation

pytestmark = pytest.mark.timeout(300)

REVISIONS = ("2025-11-25", "2026-07-28")
DECLARED: dict[str, dict[str, Any] | None] = {
    "no elicitation": None,
    "form only": {"form": {}},
    "form and URL": {"form": {}, "url": {}},
}
ANSWERS = ("host", "browser", "terminal", "auto")
ELICITKIT = Path(PY).with_name("elicitkit")
WHO = ("the host", "the bridge's page", "the bridge's terminal", "cannot")


# -- the table, as docs/bridge.md states it


@dataclass(frozen=True)
class Cell:
    host: str
    declared: str
    server: str
    answer: str
    form: str
    url: str

    @property
    def id(self) -> str:
        declared = self.declared.replace(" ", "-").lower()
        return f"host-{self.host}-{declared}-server-{self.server}-{self.answer}"


def who(cell: str) -> str:
    for name in WHO:
        if cell.startswith(name):
            return name
    raise AssertionError(f"a cell of the table names no one who answers: {cell!r}")


def table() -> list[Cell]:
    """Every combination the table in docs/bridge.md stands for, one `Cell` each."""
    text = (ROOT / "docs" / "bridge.md").read_text()
    section = text.split("\n## Every combination\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    cells: list[Cell] = []
    for row in rows[1:]:  # the header is the first
        hosts, declared, servers, answer, form, url = (part.strip() for part in row.strip("|").split(" | "))
        for host, what, server in itertools.product(
            hosts.split(", "), list(DECLARED) if declared == "any" else [declared], servers.split(", ")
        ):
            cells.append(Cell(host, what, server, answer.strip("`"), who(form), who(url)))
    return cells


CELLS = table()


def test_the_table_holds_every_combination_once() -> None:
    wanted = set(itertools.product(REVISIONS, DECLARED, REVISIONS, ANSWERS))
    stated = [(c.host, c.declared, c.server, c.answer) for c in CELLS]
    assert sorted(stated) == sorted(wanted)


# -- the pieces: one upstream, one bridge per setting and server revision, a person


FORMS = {
    "accept": ElicitResult(action="accept", content={"guest": "Ada", "nights": 3}),
    "decline": ElicitResult(action="decline"),
    "cancel": ElicitResult(action="cancel"),
}
SAID = {
    "accept": "reserved 3 nights for Ada",
    "decline": "DeclinedElicitation",
    "cancel": "CancelledElicitation",
}
KEY = "k-typed-on-the-servers-page"


@dataclass
class Person:
    """Whoever answers: at the host (its elicitation callback) or at the bridge (its UI), with
    the form answer of the moment; a URL is agreed to, then completed on the server's page."""

    form: ElicitResult = field(default_factory=lambda: FORMS["accept"])
    tasks: TaskGroup | None = None
    asked: list[tuple[str, str]] = field(default_factory=list)
    completed: list[str] = field(default_factory=list)

    async def at_host(self, context: Any, params: Any) -> ElicitResult:
        if isinstance(params, ElicitRequestURLParams):
            self.asked.append(("the host", "url"))
            self.complete_later(params.url)  # the host's person opens what they agreed to
            return ElicitResult(action="accept")
        assert isinstance(params, ElicitRequestFormParams)
        self.asked.append(("the host", "form"))
        return self.form

    def at_bridge(self, question: FormQuestion | UrlQuestion) -> Any:
        if isinstance(question, UrlQuestion):
            self.asked.append(("the bridge", "url"))
            return AcceptedElicitation()
        self.asked.append(("the bridge", "form"))
        if self.form.action == "accept":
            return AcceptedElicitation(dict(self.form.content or {}))
        return DeclinedElicitation() if self.form.action == "decline" else CancelledElicitation()

    def open_url(self, url: str) -> bool:
        """The bridge's `open_url`: called once the person agreed in the bridge's UI."""
        self.complete_later(url)
        return True

    def complete_later(self, url: str) -> None:
        assert self.tasks is not None
        self.tasks.start_soon(self._complete, url)

    async def _complete(self, url: str) -> None:
        async with Browser(None, "local-user") as browser:
            page = await browser.open(url)
            done = await browser.submit(page, secret=KEY, action="save")
        assert done.status_code == 200, done.text
        self.completed.append(url)


PERSON = Person()


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("matrix") / "upstream.log"
    with http_process([PY, str(HERE / "upstream_matrix.py"), "PORT"], log) as url:
        yield url


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bridges(upstream: str) -> AsyncIterator[dict[tuple[str, str], str]]:
    """`Bridge(answer=..., upstream_protocol=...)` for each setting and server revision."""
    served: dict[tuple[str, str], str] = {}
    ui = ScriptedUI(otherwise=PERSON.at_bridge)  # the stand-in for the bridge's page or terminal
    async with AsyncExitStack() as stack:
        for answer, server in itertools.product(ANSWERS, REVISIONS):
            bridge = Bridge(
                upstream,
                answer=answer,
                ui=ui,
                open_url=PERSON.open_url,
                upstream_protocol=server,  # type: ignore[arg-type]
            )
            base = await stack.enter_async_context(
                serve(lambda url, bridge=bridge: bridge.asgi_app(credential=None))
            )
            served[answer, server] = f"{base}/mcp"
        yield served


# -- every row


def expected(cell: Cell, mode: str, action: str) -> tuple[list[tuple[str, str]], str]:
    """Who is asked for `mode`, and what the server's tool says after `action`."""
    by = cell.form if mode == "form" else cell.url
    if by == "cannot":
        return [], f"{cell.server}: not asked, {mode} mode not declared"
    asker = "the host" if by == "the host" else "the bridge"
    said = SAID[action] if mode == "form" else "url completed, key "
    return [(asker, mode)], f"{cell.server}: {said}"


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("cell", CELLS, ids=[cell.id for cell in CELLS])
async def test_every_combination_answers_as_the_table_says(
    cell: Cell, bridges: dict[tuple[str, str], str]
) -> None:
    target = bridges[cell.answer, cell.server]
    mode = "legacy" if cell.host == "2025-11-25" else "auto"
    for action, tool in [*((a, "reserve") for a in FORMS), ("complete", "connect")]:
        PERSON.asked.clear()
        PERSON.completed.clear()
        PERSON.form = FORMS.get(action, FORMS["accept"])
        asked, said = expected(cell, "form" if tool == "reserve" else "url", action)
        async with anyio.create_task_group() as tasks:
            PERSON.tasks = tasks
            with anyio.fail_after(120):
                client = declaring(
                    DECLARED[cell.declared], target, elicitation_callback=PERSON.at_host, mode=mode
                )
                async with client:
                    assert client.protocol_version == cell.host
                    # told the server's own name and capabilities, whichever revision is pinned
                    assert client.server_info is not None and client.server_info.name == "Every combination"
                    assert client.server_capabilities.tools is not None
                    result = await client.call_tool(tool, {})
        text = text_of(result)
        assert not result.is_error, text
        assert text.startswith(said), (action, text)
        assert PERSON.asked == asked, (action, PERSON.asked)
        if tool == "connect" and asked:
            assert len(PERSON.completed) == 1  # the URL was completed on the server's page, once


# -- the terminal: the command's own, in a real terminal; and where it has none


def seen(terminal: Terminal, text: str, times: int) -> None:
    """Wait until `text` has shown `times` times (a new question's screen, not an old one's)."""
    deadline = time.monotonic() + PATIENCE
    while terminal.screen().count(text) < times:
        assert time.monotonic() < deadline, f"{text!r} did not show {times} times:\n{terminal.screen()}"
        time.sleep(0.1)


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize(("host", "server"), [("2025-11-25", "2026-07-28"), ("2026-07-28", "2025-11-25")])
async def test_the_bridges_own_terminal_answers_in_a_real_terminal(
    host: str, server: str, upstream: str, tmp_path: Path
) -> None:
    """`elicitkit bridge --answer terminal --listen` in a terminal of its own (tmux): the person
    accepts, declines (Ctrl-D) and cancels (Ctrl-C) the form there, and agrees to the URL, which
    opens through $BROWSER and is completed on the server's page; the host declared nothing."""
    record = BrowserRecord(tmp_path)
    port = free_port()
    command = [
        "bridge",
        "--answer",
        "terminal",
        "--listen",
        f"127.0.0.1:{port}",
        "--no-credential",
        "--upstream-protocol",
        server,
    ]
    terminal = Terminal(["env", f"BROWSER={record.env['BROWSER']}", str(ELICITKIT), *command, upstream])
    said: list[str] = []

    async def person(*steps: tuple[str, int, list[str]]) -> None:
        for text, times, keys in steps:
            await anyio.to_thread.run_sync(seen, terminal, text, times)
            for key in keys:
                terminal.type(key[1:]) if key.startswith("=") else terminal.keys(key)

    async def complete() -> None:
        await person(("Open this page?", 1, ["o"]))
        async with Browser(None, "local-user") as browser:
            page = await browser.open(await anyio.to_thread.run_sync(record.next_url, 0))
            await browser.submit(page, secret=KEY, action="save")

    try:
        await anyio.to_thread.run_sync(seen, terminal, "serving MCP at", 1)
        mode = "legacy" if host == "2025-11-25" else "auto"
        async with declaring(None, f"http://127.0.0.1:{port}/mcp", mode=mode) as client:
            assert client.protocol_version == host
            answers = [
                partial(
                    person,
                    ("guest ✱  (1/2)", 1, ["=Ada", "Enter"]),
                    ("nights  (2/2)", 1, ["C-u", "=3", "Enter"]),
                    ("Review", 1, ["s"]),
                ),
                partial(person, ("Who is staying", 2, ["C-d"])),
                partial(person, ("Who is staying", 3, ["C-c"])),
                complete,
            ]
            for answer, tool in zip(answers, ["reserve", "reserve", "reserve", "connect"], strict=True):
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(answer)
                    with anyio.fail_after(PATIENCE * 2):
                        said.append(text_of(await client.call_tool(tool, {})))
        screen = terminal.screen()
    finally:
        terminal.close()
    assert said[:3] == [f"{server}: {SAID[action]}" for action in FORMS]
    assert screen.count("The server “Every combination” asks you") == 4  # who asks, named each time
    assert said[3].startswith(f"{server}: url completed, key ")


# -- "cannot", with a server that asks anyway


@pytest.fixture(scope="module")
def sdk_upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The SDK's own server (tests/bridge/upstream_sdk.py): it asks whatever the client declared."""
    with http_process([*SDK, "http", "PORT"], tmp_path_factory.mktemp("sdk") / "upstream.log") as url:
        yield url


ANYWAY = [
    pytest.param("2025-11-25", "no elicitation", "ask_name", id="server-2025-11-25-no-elicitation-form"),
    pytest.param("2025-11-25", "no elicitation", "ask_url", id="server-2025-11-25-no-elicitation-url"),
    pytest.param("2025-11-25", "form only", "ask_url", id="server-2025-11-25-form-only-url"),
    pytest.param("2026-07-28", "no elicitation", "visit", id="server-2026-07-28-no-elicitation-url"),
    pytest.param("2026-07-28", "form only", "visit", id="server-2026-07-28-form-only-url"),
]


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("host", REVISIONS)
@pytest.mark.parametrize(("server", "declared", "tool"), ANYWAY)
async def test_a_server_that_asks_what_it_was_told_is_not_supported_is_refused(
    host: str, server: str, declared: str, tool: str, sdk_upstream: str
) -> None:
    """`--answer host`: the host is never asked. A 2025-11-25 server's request gets an error
    (its tool reports it); a 2026-07-28 server's round ends the host's call with an error."""
    if server == "2025-11-25":
        bridge = Bridge(sdk_upstream, answer="host", upstream_protocol="2025-11-25")
    else:  # a server that puts a URL in a round whatever the client declared
        rounds = StdioServerParameters(command=PY, args=[str(HERE / "upstream_rounds.py"), "stdio"])
        bridge = Bridge(rounds, answer="host", upstream_protocol="2026-07-28")
    PERSON.asked.clear()
    mode = "legacy" if host == "2025-11-25" else "auto"
    arguments = {"url": "https://example.com/connect"} if tool == "visit" else {}
    async with (
        serve(lambda url: bridge.asgi_app(credential=None)) as base,
        declaring(
            DECLARED[declared], f"{base}/mcp", elicitation_callback=PERSON.at_host, mode=mode
        ) as client,
    ):
        assert client.protocol_version == host
        if server == "2025-11-25":
            got = json.loads(text_of(await client.call_tool(tool, {})))
            assert got["error"] == (-32602 if declared == "form only" else -32600), got
        else:
            with pytest.raises(MCPError) as stopped:
                await client.call_tool(tool, arguments)
            assert "declare" in stopped.value.message, stopped.value.message
    assert PERSON.asked == []


# -- where the bridge has no terminal of its own


def refused(*options: str) -> str:
    done = subprocess.run(
        [PY, "-m", "elicitkit", "bridge", "--answer", "terminal", *options, "http://127.0.0.1:9/mcp"],
        capture_output=True,
        text=True,
        timeout=120,
        env=environment(),
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    return re.sub(r"\s+", " ", done.stderr)


def test_the_terminal_is_refused_where_the_bridge_has_no_terminal_of_its_own() -> None:
    """Over stdio the host owns it; with `--listen` but no terminal (here: none), it has none."""
    for options in [(), ("--listen", f"127.0.0.1:{free_port()}")]:
        assert "the terminal UI needs a terminal of the bridge's own" in refused(*options)
