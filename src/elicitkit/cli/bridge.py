"""`elicitkit bridge`: put elicitkit between an MCP host and a server.

elicitkit bridge https://example.com/mcp                 # stdio toward the host
elicitkit bridge --listen 127.0.0.1:8787 https://example.com/mcp
elicitkit bridge -- python my_server.py                  # a stdio server upstream
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Coroutine
from typing import Annotated, Any

import httpx2
import typer
from mcp.client.stdio import StdioServerParameters

from elicitkit.bridge import ANSWERS, PROTOCOLS, Bridge, Upstream
from elicitkit.cli._target import Named, name_target
from elicitkit.client import RateLimit

__all__ = ["bridge"]


def bridge(
    ctx: typer.Context,
    target: Annotated[
        list[str],
        typer.Argument(
            help="The upstream server: its Streamable HTTP URL, or, after --, the command that starts it.",
            show_default=False,
        ),
    ],
    answer: Annotated[
        str,
        typer.Option(
            "--answer",
            help="Who answers the server's questions: host, browser, terminal, or auto (the host for "
            "the modes it declared, the bridge's browser page for the rest).",
        ),
    ] = "auto",
    listen: Annotated[
        str | None,
        typer.Option("--listen", help="Serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio."),
    ] = None,
    headers: Annotated[
        list[str] | None,
        typer.Option("--header", "-H", help="An HTTP header for the upstream, 'Name: value' (repeatable)."),
    ] = None,
    burst: Annotated[
        int, typer.Option("--burst", help="Questions the server may ask at once before the rate applies.")
    ] = RateLimit().burst,
    per_second: Annotated[
        float, typer.Option("--per-second", help="Questions per second the server may ask after its burst.")
    ] = RateLimit().per_second,
    upstream_protocol: Annotated[
        str,
        typer.Option(
            "--upstream-protocol",
            help="The revision to speak upstream: host (the host's), auto (the newest both speak), "
            "2025-11-25 or 2026-07-28.",
        ),
    ] = "host",
    wait: Annotated[
        float, typer.Option("--wait", help="Seconds a call held for a URL waits for its completion.")
    ] = 300.0,
) -> None:
    """Serve an MCP server to a host through elicitkit, answering elicitation the host cannot.

    In a host's configuration: {"command": "elicitkit", "args": ["bridge", "https://.../mcp"]}.
    """
    if answer not in ANSWERS:
        raise typer.BadParameter(
            f"choose one of {', '.join(ANSWERS)}, not {answer!r}.", param_hint="--answer"
        )
    if burst < 1 or per_second < 0 or wait <= 0:
        raise typer.BadParameter("give --burst of 1 or more, --per-second of 0 or more, --wait above 0.")
    if upstream_protocol not in PROTOCOLS:
        raise typer.BadParameter(
            f"choose one of {', '.join(PROTOCOLS)}, not {upstream_protocol!r}.",
            param_hint="--upstream-protocol",
        )
    upstream = _upstream(name_target(target, ctx), headers or [])
    made = Bridge(
        upstream,
        answer=answer,
        rate_limit=RateLimit(per_second=per_second, burst=burst),
        wait_timeout=wait,
        upstream_protocol=upstream_protocol,
    )
    if answer == "terminal" and (listen is None or not (sys.stdin.isatty() and sys.stdout.isatty())):
        raise typer.BadParameter(
            "the terminal UI needs a terminal of the bridge's own: over stdio the host owns this one, "
            "so use --listen in a terminal, or --answer browser.",
            param_hint="--answer",
        )
    _one_line_logs()
    try:
        if listen is None:
            _run(made.serve_stdio())
        else:
            host, port = _listen(listen)
            _run(made.serve_http(host, port))
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    except Exception as error:  # ExceptionGroup included: say what failed in one sentence
        print(f"elicitkit bridge: {_sentence(error, upstream)}", file=sys.stderr)
        raise typer.Exit(1) from None


def _run(main: Coroutine[Any, Any, None]) -> None:
    """Run `main` on uvloop where it is installed (the `bridge` extra brings it, Windows aside):
    a proxy's own work is mostly the event loop's, and uvloop does it in a fraction of the CPU."""
    try:
        import uvloop
    except ImportError:
        asyncio.run(main)
    else:
        uvloop.run(main)


def _upstream(target: Named, headers: list[str]) -> Upstream:
    values: dict[str, str] = {}
    for header in headers:
        name, sep, value = header.partition(":")
        if not sep or not name.strip():
            raise typer.BadParameter(
                f"write a header as 'Name: value', not {header!r}.", param_hint="--header"
            )
        values[name.strip()] = value.strip()
    if target.url is not None:
        return Upstream(url=target.url, headers=values)
    if values:
        raise typer.BadParameter(
            "--header is for an HTTP upstream, not a stdio command.", param_hint="--header"
        )
    command, *args = target.command
    # The server gets the bridge's environment: what a host configuration sets is for the server.
    return Upstream(stdio=StdioServerParameters(command=command, args=args, env=dict(os.environ)))


def _listen(listen: str) -> tuple[str, int]:
    host, sep, port = listen.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise typer.BadParameter(
            f"write HOST:PORT, e.g. 127.0.0.1:8787, not {listen!r}.", param_hint="--listen"
        )
    return host.strip("[]"), int(port)


class _OneLine(logging.Formatter):
    """A log record as one line: the message, never the traceback that came with it."""

    def formatException(self, ei: object) -> str:
        return ""

    def formatStack(self, stack_info: str) -> str:
        return ""


def _one_line_logs() -> None:
    """Warnings reach the person's stderr as one line each. The SDK's "OAuth flow error" (with
    its traceback) is left out: the sign-in's failure ends the bridge with its own sentence."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine("elicitkit bridge: %(message)s"))
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(logging.WARNING)
    logging.getLogger("mcp.client.auth").setLevel(logging.CRITICAL)


def _innermost(error: BaseException) -> BaseException:
    """The error inside exception groups (the SDK's task groups wrap what failed)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def _sentence(error: BaseException, upstream: Upstream) -> str:
    error = _innermost(error)
    text = str(error) or type(error).__name__
    if isinstance(error, httpx2.TransportError):
        where = _origin_of(error)
        if where is not None and upstream.url is not None and where != _origin(httpx2.URL(upstream.url)):
            return (
                f"could not reach {where}, where {upstream.url} sends you to sign in ({text}); "
                "check your network, or ask the server's operator."
            )
    if isinstance(error, OSError | TimeoutError | httpx2.TransportError) or "connect" in text.lower():
        return f"could not reach the upstream server ({text}); check that it runs and the address is right."
    return text


def _origin_of(error: httpx2.TransportError) -> str | None:
    try:
        return _origin(error.request.url)
    except RuntimeError:  # an error raised before any request was made
        return None


def _origin(url: httpx2.URL) -> str:
    return f"{url.scheme}://{url.netloc.decode()}"
