"""`elicitkit client`: try any MCP server's elicitations from a terminal.

    elicitkit client http://127.0.0.1:8765/mcp            # streamable HTTP, interactive
    elicitkit client -- python my_server.py --flag        # stdio, interactive
    elicitkit client URL --call book --args '{"city": "Oslo"}' --answers answers.json

Interactive, it lists the tools and calls the ones you name, and you answer their questions
in the terminal UI (or, with --web, in your browser). At the prompt Ctrl-C clears the line and
Ctrl-D ends the session; while a call runs, Ctrl-C cancels it (the server is told) and other
keys are ignored, until a question's screen takes them; SIGTERM or SIGHUP (`kill`, a closed
terminal) ends the session as Ctrl-C would, with exit status 143 or 129 (128 + the signal). The
session ends with exit status 1 once the server closes the connection. With --call it makes that one call,
answers from --answers (a JSON list, one entry per question, in order: `{"action": "accept",
"content": {...}}`, `{"action": "decline"}`, `{"action": "cancel"}`; a form's content is
merged over its defaults; URL consent is `{"action": "accept"}`; `{"wait": "retry"}` or
`{"wait": "cancel"}` says what to do when a held call's --wait runs out), prints the result on
stdout and what was asked on stderr, and exits 0, 1 when the tool reported an error or the
call failed or the server could not be reached, 2 for a usage error or when --answers is wrong
(an answer the form refuses, a question it has no answer for: a sentence says which), or 130
on Ctrl-C.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import AsyncExitStack, ExitStack, contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

import httpx2
import typer
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, CallToolResult, TextContent, Tool
from rich.console import Console
from rich.text import Text

from elicitkit.cli._language import LocaleOption, words
from elicitkit.cli._script import AnswersError, Script, read_answers, read_waits
from elicitkit.cli._target import Named, name_target
from elicitkit.client import (
    ElicitationConfig,
    ElicitationError,
    ElicitationUI,
    ElicitingClient,
    NarratedUI,
    Notice,
    Reply,
    ScriptedUI,
    Transcript,
    open_in_system_browser,
)
from elicitkit.i18n import current, noop, speaking
from elicitkit.i18n import gettext as _

if TYPE_CHECKING:
    from prompt_toolkit.input import Input

__all__ = ["client", "read_answers"]

T = TypeVar("T")

_PROTOCOLS = {"auto": "auto", "2025-11-25": "legacy", "2026-07-28": "2026-07-28"}
_HELP = noop("Commands: tools | call NAME [JSON arguments] | help | quit")
_STOPPED = noop("Cancelled (Ctrl-C); the server was told to stop.")
_IGNORED = noop("Ignored what you typed while waiting for the server; Ctrl-C cancels.")
_ENDING = (signal.SIGTERM, signal.SIGHUP)
"""What ends an interactive session as Ctrl-C would: `kill PID`, the terminal closed."""
_NO_TERMINAL = noop(
    "elicitkit client asks its questions in a terminal, and this is not one. Answer them in "
    "your browser with --web, or make one call answered from a file with --call TOOL --answers FILE."
)


def client(
    ctx: typer.Context,
    target: Annotated[
        list[str],
        typer.Argument(
            help="The server: its http(s):// URL (streamable HTTP), or after -- (or as stdio:COMMAND) "
            "the command that starts it over stdio.",
            show_default=False,
        ),
    ],
    call: Annotated[
        str | None, typer.Option("--call", metavar="TOOL", help="Call this tool once and exit.")
    ] = None,
    args: Annotated[
        str, typer.Option("--args", metavar="JSON", help="The tool's arguments, a JSON object.")
    ] = "{}",
    answers: Annotated[
        str | None,
        typer.Option(
            "--answers",
            metavar="FILE",
            help="With --call: a JSON file of replies, one per question ('-': stdin).",
        ),
    ] = None,
    web: Annotated[bool, typer.Option("--web", help="Answer in the web UI instead of the terminal.")] = False,
    headers: Annotated[
        list[str] | None,
        typer.Option(
            "--header",
            "-H",
            metavar="NAME: VALUE",
            help="An HTTP header for the server, 'Name: value' (repeatable).",
        ),
    ] = None,
    token: Annotated[str | None, typer.Option("--token", help="A bearer token for the server.")] = None,
    protocol: Annotated[
        str, typer.Option("--protocol", metavar="VERSION", help="auto, 2025-11-25 or 2026-07-28.")
    ] = "auto",
    modes: Annotated[
        str,
        typer.Option("--modes", metavar="MODES", help="Elicitation modes to declare: form, url or form,url."),
    ] = "form,url",
    wait: Annotated[
        float,
        typer.Option(
            "--wait",
            metavar="SECONDS",
            help="With --call: seconds a call held by -32042 waits for the completion notice before "
            'taking the next {"wait": "retry" | "cancel"} entry of --answers (cancel when none is left).',
        ),
    ] = 300.0,
    locale: LocaleOption = None,
) -> None:
    """Connect to an MCP server, call its tools, and answer their elicitations.

    Interactive: `elicitkit client http://127.0.0.1:8765/mcp`, or `elicitkit client -- python
    server.py` for a stdio server. One call, answered from a file, for scripts and tests:
    `elicitkit client URL --call TOOL --args '{"city": "Oslo"}' --answers answers.json`, where
    the file lists one reply per question: `[{"action": "accept", "content": {...}},
    {"action": "decline"}]`. The result goes to stdout, what was asked to stderr.

    Exit status: 0 done, 1 the tool reported an error or the call failed or the server could
    not be reached (or closed the connection), 2 a usage error or a wrong --answers file (a
    sentence says which answer and why), 130 Ctrl-C, 143 SIGTERM and 129 SIGHUP (interactive).
    """
    if protocol not in _PROTOCOLS:
        raise typer.BadParameter(
            f"choose one of {', '.join(_PROTOCOLS)}, not {protocol!r}.", param_hint="--protocol"
        )
    declared = tuple(m.strip() for m in modes.split(",") if m.strip())
    if not declared or set(declared) - {"form", "url"}:
        raise typer.BadParameter("declare form, url or both, e.g. --modes form,url.", param_hint="--modes")
    try:
        arguments = json.loads(args)
    except json.JSONDecodeError as error:
        raise typer.BadParameter(f"not JSON: {error}.", param_hint="--args") from None
    if not isinstance(arguments, dict):
        raise typer.BadParameter(
            'give the arguments as a JSON object, e.g. \'{"city": "Oslo"}\'.', param_hint="--args"
        )
    if answers is not None and call is None:
        raise typer.BadParameter("--answers answers a --call; add --call TOOL.", param_hint="--answers")
    if wait <= 0:
        raise typer.BadParameter("give a number of seconds above 0.", param_hint="--wait")
    replies: list[Reply | Callable[[Any], Reply]] = []
    waits: list[Literal["retry", "cancel"]] = []
    if answers is not None:
        try:
            text = sys.stdin.read() if answers == "-" else Path(answers).read_text()
            replies, waits = read_answers(json.loads(text)), read_waits(json.loads(text))
        except (OSError, json.JSONDecodeError, AnswersError) as error:
            raise typer.BadParameter(str(error), param_hint="--answers") from None
    server = _server(name_target(target, ctx), _headers(headers or [], token))
    # the SDK logs a server's garbage with tracebacks; the sentence below says what went wrong
    logging.getLogger("mcp").setLevel(logging.CRITICAL + 1)
    with speaking(words(locale)):  # what this command says, and its terminal and web UIs
        if call is None and not web and not (sys.stdin.isatty() and sys.stdout.isatty()):
            _say_error(_(_NO_TERMINAL))
            raise typer.Exit(2)
        session = _Session(server, _PROTOCOLS[protocol], declared, wait)
        raise typer.Exit(_run(session, call, arguments, web, replies, waits))


def _run(
    session: _Session,
    call: str | None,
    arguments: dict[str, Any],
    web: bool,
    replies: list[Reply | Callable[[Any], Reply]],
    waits: list[Literal["retry", "cancel"]],
) -> int:
    """Run the session; its exit code, with one sentence (never a traceback) when it fails."""
    server = session.server
    try:
        if call is not None:
            code = asyncio.run(session.call_once(call, arguments, replies, waits))
        else:
            code = asyncio.run(session.interact(web))
    except KeyboardInterrupt:
        code = _interrupted()
    except asyncio.CancelledError:
        if session.signalled is None:
            raise
        code = _signalled(session.signalled)
    except Exception as error:  # ExceptionGroup included: the SDK's task groups wrap what fails inside
        if _innermost(error).__class__.__name__ == "NotATerminalError":
            _say_error(_(_NO_TERMINAL))
            return 2
        reason = _connection_failure(error, server, session.refused, session.status)
        _say_error(reason or _ended(error, server))
        code = 1
    except BaseExceptionGroup as group:
        # The SDK's task groups wrap a Ctrl-C that lands inside them.
        if group.subgroup((KeyboardInterrupt, asyncio.CancelledError)) is None:
            raise
        code = _interrupted() if session.signalled is None else _signalled(session.signalled)
    return code


def _say_error(sentence: str) -> None:
    Console(stderr=True, highlight=False, soft_wrap=True).print(sentence, style="red", markup=False)


def _innermost(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def _gone(server: Server) -> str:
    """The server hung up in the middle of the session: say so, and what to do."""
    if isinstance(server, StdioServerParameters):
        where = {"server": server.command}
        return (
            _(
                "The server (%(server)s) closed the connection; check what it printed above for why, "
                "then start elicitkit client again."
            )
            % where
        )
    where = {"server": server[0]}
    return (
        _("%(server)s closed the connection; check the server's log for why, start it again, then reconnect.")
        % where
    )


def _ended(error: BaseException, server: Server) -> str:
    """Any other failure, in one sentence: what broke, never a traceback."""
    inner = _innermost(error)
    where = server.command if isinstance(server, StdioServerParameters) else server[0]
    values = {"server": where, "error": f"{type(inner).__name__}: {inner}".rstrip(": ")}
    return _("The session with %(server)s ended: %(error)s. Is it an MCP server?") % values


def _interrupted() -> int:
    """Ctrl-C, at any point: one sentence, exit code 130 (128 + SIGINT), no traceback."""
    Console(stderr=True, highlight=False, soft_wrap=True).print(
        _("Cancelled (Ctrl-C); nothing more was sent."), markup=False
    )
    return 130


def _signalled(number: int) -> int:
    """SIGTERM or SIGHUP: one sentence (where a stderr is left), exit code 128 + the signal."""
    with suppress(OSError):  # the terminal is gone (SIGHUP): no one is left to read it
        Console(stderr=True, highlight=False, soft_wrap=True).print(
            _("Ended by %(signal)s; nothing more was sent.") % {"signal": signal.Signals(number).name},
            markup=False,
        )
    return 128 + number


def _closed(error: BaseException) -> bool:
    """Whether `error` says the connection to the server is gone (the server exited or hung up)."""
    return isinstance(error, MCPError) and error.code == CONNECTION_CLOSED


Server = tuple[str, dict[str, str]] | StdioServerParameters
"""Where the server is: (URL, HTTP headers) or the stdio command."""


def _server(named: Named, headers: dict[str, str]) -> Server:
    if named.url is not None:
        return named.url, headers
    if headers:
        raise typer.BadParameter("--header and --token are for HTTP servers, not stdio commands.")
    return StdioServerParameters(command=named.command[0], args=list(named.command[1:]))


def _connection_failure(
    error: BaseException, server: Server, refused: int | None, status: int | None = None
) -> str | None:
    """A sentence for a failure to reach or start the server, or None for anything else.

    `refused` is an HTTP 401/403 the server answered, `status` any other HTTP error status;
    the SDK reports both only as a generic JSON-RPC error."""
    if isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        return _connection_failure(error.exceptions[0], server, refused, status)
    if isinstance(server, StdioServerParameters):
        if isinstance(error, FileNotFoundError | PermissionError):
            values = {"command": repr(server.command), "reason": error.strerror}
            return _("Cannot start %(command)s: %(reason)s. Check the command after --.") % values
        return None
    url = server[0]
    if refused is not None:
        answer = _("%(url)s answered HTTP %(status)s: it needs authorization; pass --token or --header.")
        return answer % {"url": url, "status": refused}
    if isinstance(error, httpx2.HTTPStatusError):
        status = error.response.status_code
    if status is not None:
        answer = _(
            "%(url)s answered HTTP %(status)s; is it an MCP endpoint (streamable HTTP)? "
            "Check the URL's path (often /mcp)."
        )
        return answer % {"url": url, "status": status}
    if isinstance(error, httpx2.TransportError):
        answer = _("Cannot reach %(url)s (%(error)s); is the server running there?")
        return answer % {"url": url, "error": type(error).__name__}
    return None


def _headers(raw: list[str], token: str | None) -> dict[str, str]:
    headers: dict[str, str] = {}
    for header in raw:
        name, colon, value = header.partition(":")
        if not colon or not name.strip():
            raise typer.BadParameter(f"{header!r} is not 'Name: value'.", param_hint="--header")
        headers[name.strip()] = value.strip()
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return headers


class _Session:
    """One connection to the server named on the command line."""

    def __init__(self, server: Server, mode: str, modes: tuple[str, ...], wait: float = 300.0) -> None:
        self.server = server
        self.wait = wait
        self.mode = mode
        self.modes = modes
        self.refused: int | None = None
        """The last HTTP 401 or 403 the server answered."""
        self.status: int | None = None
        """The last other HTTP error status (404, 500, ...) the server answered."""
        self.signalled: int | None = None
        """The signal (SIGTERM, SIGHUP) that ended an interactive session."""
        self.out = Console(highlight=False, emoji=False, soft_wrap=True)
        self.err = Console(stderr=True, highlight=False, emoji=False, soft_wrap=True)

    async def _connect(
        self, stack: AsyncExitStack, ui: ElicitationUI, open_url: Callable[[str], bool]
    ) -> ElicitingClient:
        config = ElicitationConfig(ui=ui, modes=self.modes, open_url=open_url, wait_timeout=self.wait)
        transport: Any
        http: httpx2.AsyncClient | None = None
        if isinstance(self.server, StdioServerParameters):
            transport, name = self.server, ([self.server.command, *self.server.args])[-1]
        else:
            url, headers = self.server
            timeout = httpx2.Timeout(30, read=600)
            hooks = {"response": [self._note_refusal]}
            http = await stack.enter_async_context(
                httpx2.AsyncClient(headers=headers, timeout=timeout, event_hooks=hooks)
            )
            transport, name = url, url
        connected = await stack.enter_async_context(
            ElicitingClient(transport, config=config, mode=self.mode, http_client=http)
        )
        # A pinned 2026-07-28 connection skips discovery, so the server never said its name.
        connected.elicitations.learn_server_name(name)
        return connected

    async def _note_refusal(self, response: httpx2.Response) -> None:
        if response.status_code in (401, 403):
            self.refused = response.status_code
        elif response.status_code >= 400:
            self.status = response.status_code

    async def call_once(
        self,
        name: str,
        arguments: dict[str, Any],
        replies: list[Reply | Callable[[Any], Reply]],
        waits: list[Literal["retry", "cancel"]] | None = None,
    ) -> int:
        """Make one call, answering from `replies` (and `waits` for held calls); print the result.

        A call held by -32042 goes through the library's own retry loop (`ElicitingClient`): the
        same gate, the same bound on rounds, completion notices retried at once."""
        script = Script(replies)
        scripted = ScriptedUI(otherwise=script, waits=waits or ())
        ui = NarratedUI(scripted, Transcript(self.err), _("the script"), client="elicitkit client")

        def show_url(url: str) -> bool:
            self.err.print(Text("  " + _("(not opened: %(url)s)") % {"url": url}, style="dim"))
            return True

        async with AsyncExitStack() as stack:
            connected = await self._connect(stack, ui, show_url)
            self.err.print(Text(_connected(connected), style="dim"))
            calling = {"tool": name, "arguments": json.dumps(arguments, ensure_ascii=False)}
            self.err.print(Text(_("Calling %(tool)s %(arguments)s") % calling, style="dim"))
            try:
                result = await connected.call_tool(name, arguments)
            except (MCPError, ElicitationError) as error:
                if script.problem is not None:
                    self.err.print(Text(script.problem, style="red"))
                    return 2
                self.err.print(Text(_("The call failed: %(error)s") % {"error": error}, style="red"))
                return 1
        if script.problem is not None:
            self.err.print(Text(script.problem, style="red"))
            return 2
        self.out.print(_result_text(result), markup=False)
        return 1 if result.is_error else 0

    async def interact(self, web: bool) -> int:
        """List tools and call them until the person quits; `_Keys` says what each key does."""
        with self._ended_by_signals():
            return await self._interact(web)

    @contextmanager
    def _ended_by_signals(self) -> Iterator[None]:
        """SIGTERM and SIGHUP cancel the session, as Ctrl-C does, so that it unwinds and restores
        the terminal (the running call is cancelled, the server told); by default they kill
        the process and leave the terminal raw. `_run` turns the cancellation into 128 + signal.
        A second signal while the session unwinds has its default effect."""
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()

        def end(number: int) -> None:
            if self.signalled is not None:  # asked again while it unwinds: end now, as by default
                loop.remove_signal_handler(number)
                signal.raise_signal(number)
            elif task is not None:
                self.signalled = number
                task.cancel()

        for number in _ENDING:
            loop.add_signal_handler(number, end, number)
        try:
            yield
        finally:
            for number in _ENDING:
                loop.remove_signal_handler(number)

    async def _interact(self, web: bool) -> int:
        async with AsyncExitStack() as stack:
            ui: ElicitationUI
            if web:
                from elicitkit.client import WebUI

                page = await stack.enter_async_context(WebUI(locale=current().locale))
                address = await page.start()
                appear = _("Questions appear at %(address)s (it opens in your browser).")
                self.out.print(Text(appear % {"address": address}, style="dim"))
                ui = page
            else:
                from elicitkit.client import TerminalUI

                ui = TerminalUI(locale=current().locale)
            with _Keys(self.out) as keys:
                # Before the first prompt, Ctrl-C means what it means in a cooked terminal: stop.
                with keys.busy(lambda: signal.raise_signal(signal.SIGINT)):
                    connected = await self._connect(stack, ui, open_in_system_browser)
                    self.out.print(Text(_connected(connected), style="bold"))
                    tools = {tool.name: tool for tool in (await connected.list_tools()).tools}
                _print_tools(self.out, tools)
                self.out.print(Text(_(_HELP), style="dim"))
                try:
                    return await self._loop(connected, tools, keys)
                except MCPError as error:
                    if not _closed(error):
                        raise
                    self.err.print(Text(_gone(self.server), style="red"))
                    return 1

    async def _loop(self, connected: ElicitingClient, tools: dict[str, Tool], keys: _Keys) -> int:
        from prompt_toolkit import PromptSession

        prompt: PromptSession[str] = PromptSession(input=keys.input)
        while True:
            try:
                line = (await prompt.prompt_async("elicitkit> ")).strip()
            except EOFError:
                return 0
            except KeyboardInterrupt:
                continue
            command, _space, rest = line.partition(" ")
            if command in ("quit", "exit", "q"):
                return 0
            if command in ("tools", "list"):
                listed = await keys.interruptible(connected.list_tools())
                if listed is None:
                    self.out.print(Text(_(_STOPPED), style="yellow"))
                    continue
                tools = {tool.name: tool for tool in listed.tools}
                _print_tools(self.out, tools)
            elif command == "call":
                await self._call(connected, tools, rest.strip(), keys)
            elif command == "help":
                self.out.print(Text(_(_HELP), style="dim"))
            elif command:
                unknown = _("Unknown command %(command)s.") % {"command": repr(command)}
                self.out.print(Text(unknown, style="red").append(" " + _(_HELP), style="dim"))

    async def _call(
        self, connected: ElicitingClient, tools: Mapping[str, Tool], text: str, keys: _Keys
    ) -> None:
        name, _space, raw = text.partition(" ")
        if name not in tools:
            known = {"name": repr(name), "tools": ", ".join(tools) or _("(none)")}
            self.out.print(Text(_("No tool %(name)s; the tools are: %(tools)s.") % known, style="red"))
            return
        try:
            arguments = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as error:
            not_json = _('The arguments are not JSON (%(error)s); give an object, e.g. {"a": 1}.')
            self.out.print(Text(not_json % {"error": error}, style="red"))
            return
        if not isinstance(arguments, dict):
            self.out.print(Text(_("Give the arguments as a JSON object."), style="red"))
            return

        async def answered() -> CallToolResult:
            result = await connected.call_tool(name, arguments)
            await connected.tasks_answered()  # a question the call asked as a task keeps its screen
            return result

        try:
            result = await keys.interruptible(answered())
        except (MCPError, ElicitationError) as error:
            if _closed(error):
                raise  # the session ends: no later call can reach the server
            self.out.print(Text(_("The call failed: %(error)s") % {"error": error}, style="red"))
            return
        if result is None:
            self.out.print(Text(_(_STOPPED), style="yellow"))
            return
        style = "red" if result.is_error else "green"
        line = Text(_("error: ") if result.is_error else _("result: "), style=style)
        self.out.print(line.append(_result_text(result)))


class _Keys:
    """What a key typed at any point of an interactive session means, and one terminal state.

    A cooked terminal acts on keys that no one reads: it echoes them into the next prompt, turns
    Ctrl-D into an end of file (read later as a NUL) and Ctrl-C into a SIGINT wherever the program
    is. So the terminal stays in raw mode (prompt_toolkit's, as its screens use it) from the
    connection to the end of the session, and every key goes to whoever reads it: the prompt (Ctrl-C
    clears the line, Ctrl-D ends the session), a question's screens (which hold the terminal from
    its header to its last screen), or, while the server works with neither up, `busy`: Ctrl-C
    interrupts, any other key is dropped, with a word the first time. The `with` restores the
    terminal on every way out. Lines piped in rather than typed are left to the prompt.
    """

    def __init__(self, out: Console) -> None:
        from prompt_toolkit.application.current import get_app_session

        self.input: Input = get_app_session().input
        self.out = out
        try:
            self._person = os.isatty(self.input.fileno())
        except (NotImplementedError, OSError, ValueError):  # no file behind stdin: nobody types
            self._person = False
        self._raw = ExitStack()

    def __enter__(self) -> _Keys:
        if self._person:
            self._raw.enter_context(self.input.raw_mode())
        return self

    def __exit__(self, *exc: object) -> None:
        self._raw.close()

    @contextmanager
    def busy(self, interrupt: Callable[[], None], hint: str | None = None) -> Iterator[None]:
        """While the server works with no screen up: Ctrl-C calls `interrupt`, other keys are dropped."""
        if not self._person:
            yield
            return
        from prompt_toolkit.keys import Keys

        told = hint is None

        def read() -> None:
            nonlocal told
            pressed = self.input.read_keys()
            if self.input.closed or any(key.key == Keys.ControlC for key in pressed):
                interrupt()
            elif pressed and not told:
                told = True
                self.out.print(Text(hint or "", style="dim"))

        try:
            with self.input.attach(read):
                yield
        finally:
            self.input.flush_keys()  # half an escape sequence is dropped too, not left to the prompt

    async def interruptible(self, work: Awaitable[T]) -> T | None:
        """`work`'s result, or None when Ctrl-C cancelled it (the SDK tells the server)."""
        task = asyncio.ensure_future(work)
        pressed: list[bool] = []

        def interrupt() -> None:
            pressed.append(True)
            task.cancel()

        with self.busy(interrupt, _(_IGNORED)):
            try:
                return await task
            except asyncio.CancelledError:
                here = asyncio.current_task()
                if not pressed or (here is not None and here.cancelling()):
                    raise
                return None


def _print_tools(console: Console, tools: Mapping[str, Tool]) -> None:
    console.print(Text(_("%(count)d tool(s):") % {"count": len(tools)}, style="bold"))
    for tool in tools.values():
        params = ", ".join(tool.input_schema.get("properties", {}))
        line = Text(f"  {tool.name}({params})", style="bold")
        if tool.description:
            line.append(f"  {tool.description.strip().splitlines()[0]}", style="dim")
        console.print(line)


def _connected(connected: ElicitingClient) -> str:
    name = connected.elicitations.server_name()
    server = name.say(_) if isinstance(name, Notice) else name
    return _("Connected to %(server)s (%(version)s).") % {
        "server": server,
        "version": connected.protocol_version,
    }


def _result_text(result: CallToolResult) -> str:
    parts = [c.text if isinstance(c, TextContent) else f"[{c.type} content]" for c in result.content]
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    return "\n".join(parts)
