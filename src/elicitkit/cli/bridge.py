"""`elicitkit bridge`: put elicitkit between an MCP host and a server.

elicitkit bridge https://example.com/mcp                 # stdio toward the host
elicitkit bridge --listen 127.0.0.1:8787 https://example.com/mcp
elicitkit bridge -- python my_server.py                  # a stdio server upstream

With --listen, hosts present the bridge's credential (made and shown once, then kept under the
user's state folder); --rotate-credential replaces it. Beyond loopback, --expose is required.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import stat
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Annotated, Any

import httpx2
import typer
from mcp.client.stdio import StdioServerParameters

from elicitkit.bridge import ANSWERS, PROTOCOLS, Bridge, Upstream
from elicitkit.cli._target import Named, name_target
from elicitkit.client import RateLimit
from elicitkit.errors import ElicitationError

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
    host_profile: Annotated[
        str | None,
        typer.Option(
            "--host-profile",
            metavar="NAME|REPORT.json",
            help="With --answer auto: what your host really answers, a profile's name (form-only, "
            "no-numbers-or-multiselect, ...) or the JSON report of `elicitkit check --host`; a form it "
            "cannot render opens in the bridge's page instead.",
        ),
    ] = None,
    listen: Annotated[
        str | None,
        typer.Option("--listen", help="Serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio."),
    ] = None,
    expose: Annotated[
        bool,
        typer.Option(
            "--expose",
            help="Let --listen use an address other machines reach (0.0.0.0, a LAN address); hosts "
            "must then present the bridge's credential.",
        ),
    ] = False,
    allow_hosts: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-host",
            metavar="NAME",
            help="With --listen: another name hosts reach the bridge by, NAME or NAME:PORT (repeatable).",
        ),
    ] = None,
    allow_origins: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-origin",
            metavar="ORIGIN",
            help="With --listen: a web page allowed to use the bridge, scheme://host[:port] (repeatable).",
        ),
    ] = None,
    no_credential: Annotated[
        bool,
        typer.Option(
            "--no-credential",
            help="With --listen on a loopback address only: ask hosts for no credential (every "
            "program and user of this machine can then use the bridge).",
        ),
    ] = False,
    rotate_credential: Annotated[
        bool,
        typer.Option(
            "--rotate-credential",
            help="Make a new credential for the bridge these arguments name (its server and --listen "
            "address), show it, and exit; a bridge running there takes it at once.",
        ),
    ] = False,
    headers: Annotated[
        list[str] | None,
        typer.Option(
            "--header",
            "-H",
            metavar="'NAME: VALUE'",
            help="An HTTP header for the upstream, 'Name: value' (repeatable); the value is in the command "
            "line, which other users may read: prefer --header-env or --header-file for a secret.",
        ),
    ] = None,
    header_envs: Annotated[
        list[str] | None,
        typer.Option(
            "--header-env",
            metavar="NAME=VARIABLE",
            help="An HTTP header for the upstream from an environment variable, 'Name=VARIABLE' "
            "(repeatable).",
        ),
    ] = None,
    header_files: Annotated[
        list[Path] | None,
        typer.Option(
            "--header-file",
            metavar="PATH",
            help="HTTP headers for the upstream from a file of 'Name: value' lines that only you may read "
            "(mode 0600; repeatable).",
        ),
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
            help="The revision to speak upstream: find (the host's when the server speaks it, else "
            "the other, found once), or a pin: host (the host's), auto (the newest both speak), "
            "2025-11-25 or 2026-07-28. The host keeps its own; the bridge translates.",
        ),
    ] = "find",
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
    if host_profile is not None and answer != "auto":
        raise typer.BadParameter(
            "it goes with --answer auto (with host, the host answers everything; with browser or "
            "terminal, the bridge does).",
            param_hint="--host-profile",
        )
    given = _headers(headers or [], header_envs or [], header_files or [])
    upstream = _upstream(name_target(target, ctx), given)
    address = _address(
        listen, expose, no_credential, allow_hosts or [], allow_origins or [], rotate_credential
    )
    try:
        made = Bridge(
            upstream,
            answer=answer,
            rate_limit=RateLimit(per_second=per_second, burst=burst),
            wait_timeout=wait,
            upstream_protocol=upstream_protocol,
            host_profile=host_profile,
        )
    except ElicitationError as error:  # a profile it does not know, a report it cannot read
        raise typer.BadParameter(str(error), param_hint="--host-profile") from None
    if answer == "terminal" and (listen is None or not (sys.stdin.isatty() and sys.stdout.isatty())):
        raise typer.BadParameter(
            "the terminal UI needs a terminal of the bridge's own: over stdio the host owns this one, "
            "so use --listen in a terminal, or --answer browser.",
            param_hint="--answer",
        )
    if address is not None and rotate_credential:
        made.rotate_credential(*address)
        return
    _one_line_logs()
    try:
        if address is None:
            _run(made.serve_stdio())
        else:
            _run(
                made.serve_http(
                    *address,
                    credential=None if no_credential else "stored",
                    allowed_hosts=allow_hosts or [],
                    allowed_origins=allow_origins or [],
                )
            )
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


def _headers(headers: list[str], from_env: list[str], from_files: list[Path]) -> dict[str, str]:
    """The upstream's headers: given whole, from environment variables, and from files only the
    person may read (a secret in the command line is readable by every user of the machine)."""
    values: dict[str, str] = {}
    for header in headers:
        values.update(_header_line(header, f"write a header as 'Name: value', not {header!r}.", "--header"))
    for item in from_env:
        name, sep, variable = item.partition("=")
        if not sep or not name.strip() or not variable.strip():
            raise typer.BadParameter(
                f"write 'Name=VARIABLE' (Authorization=MY_TOKEN), not {item!r}.", param_hint="--header-env"
            )
        value = os.environ.get(variable.strip(), "").strip()
        if not value:
            raise typer.BadParameter(
                f"the environment variable {variable.strip()} is not set, or empty.",
                param_hint="--header-env",
            )
        values[name.strip()] = value
    for path in from_files:
        values.update(_header_file(path))
    return values


def _header_file(path: Path) -> dict[str, str]:
    """'Name: value' lines (blank lines and '#' comments skipped) of a file only its owner may read."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise typer.BadParameter(
            f"cannot read {path} ({getattr(error, 'strerror', None) or error}).", param_hint="--header-file"
        ) from None
    if os.name == "posix" and mode & 0o077:
        raise typer.BadParameter(
            f"{path} can be read by other users (mode {mode:04o}); make it yours alone: chmod 600 {path}",
            param_hint="--header-file",
        )
    values: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        # the line itself is not shown: it may hold the secret
        values.update(
            _header_line(line, f"line {number} of {path} is not 'Name: value'.", "--header-file", empty=False)
        )
    return values


def _header_line(line: str, wrong: str, option: str, *, empty: bool = True) -> dict[str, str]:
    """One 'Name: value' header (an empty value only where `empty`); `wrong` says what is wrong."""
    name, sep, value = line.partition(":")
    if not sep or not name.strip() or (not empty and not value.strip()):
        raise typer.BadParameter(wrong, param_hint=option)
    return {name.strip(): value.strip()}


def _upstream(target: Named, values: dict[str, str]) -> Upstream:
    if target.url is not None:
        return Upstream(url=target.url, headers=values)
    if values:
        raise typer.BadParameter(
            "--header, --header-env and --header-file are for an HTTP upstream, not a stdio command.",
            param_hint="--header",
        )
    command, *args = target.command
    # The server gets the bridge's environment: what a host configuration sets is for the server.
    return Upstream(stdio=StdioServerParameters(command=command, args=args, env=dict(os.environ)))


def _address(
    listen: str | None, expose: bool, no_credential: bool, hosts: list[str], origins: list[str], rotate: bool
) -> tuple[str, int] | None:
    """Where to listen, once the options that go with it agree: beyond loopback only with
    --expose, and never without the credential there."""
    if listen is None:
        for flag, given in [
            ("--expose", expose),
            ("--no-credential", no_credential),
            ("--allow-host", hosts),
            ("--allow-origin", origins),
            ("--rotate-credential", rotate),
        ]:
            if given:
                raise typer.BadParameter(
                    f"{flag} goes with --listen (over stdio only the host talks to the bridge)."
                )
        return None
    host, port = _listen(listen)
    loopback = host.lower() == "localhost" or _is_loopback(host)
    if not loopback and not expose:
        raise typer.BadParameter(
            f"{host} is reachable from other machines; add --expose to listen there (hosts must then present "
            "the bridge's credential), or listen on 127.0.0.1.",
            param_hint="--listen",
        )
    if not loopback and no_credential:
        raise typer.BadParameter(
            "--no-credential is for a loopback address only: beyond this machine the credential is required.",
            param_hint="--no-credential",
        )
    if rotate and no_credential:
        raise typer.BadParameter("--rotate-credential and --no-credential do not go together.")
    return host, port


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _listen(listen: str) -> tuple[str, int]:
    host, sep, port = listen.rpartition(":")
    if not sep or not port.isdigit() or not host or not 0 < int(port) < 65536:
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
    if isinstance(error, ElicitationError):  # the library's own sentence (a wrong URL, a sign-in)
        return text
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
