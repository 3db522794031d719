"""`elicitkit check`: audit an MCP server's elicitation against the spec (docs/check.md)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Annotated, Any

import anyio
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from elicitkit.asgi import EmbeddedServer
from elicitkit.check import HostAudit, HostReport, Options, Report, Target, TargetError, Verdict, run
from elicitkit.cli._target import USAGE, Named, name_target
from elicitkit.errors import LifecycleError


def check(
    ctx: typer.Context,
    target: Annotated[
        list[str] | None,
        typer.Argument(
            help="The server: its http(s):// URL, or after -- (or as stdio:COMMAND) the command that "
            "starts it over stdio.",
            show_default=False,
        ),
    ] = None,
    tool: Annotated[
        list[str] | None,
        typer.Option(
            "--tool", metavar="NAME", help="Call only this tool (repeatable); default: every listed tool."
        ),
    ] = None,
    args: Annotated[
        list[str] | None,
        typer.Option(
            "--args",
            metavar="JSON",
            help="JSON arguments for the --tool at the same position (default: built from its schema).",
        ),
    ] = None,
    json_file: Annotated[
        Path | None,
        typer.Option(
            "--json",
            metavar="FILE",
            help="Also write the findings as JSON to this file ('-' for standard output).",
        ),
    ] = None,
    user_token: Annotated[
        str | None,
        typer.Option(
            "--user-token", metavar="TOKEN", help="Bearer token of the user the checker connects as (HTTP)."
        ),
    ] = None,
    other_token: Annotated[
        str | None,
        typer.Option("--other-token", metavar="TOKEN", help="A second user's bearer token (S-34, T-06)."),
    ] = None,
    browser: Annotated[
        bool,
        typer.Option("--browser", help="Open the URLs the server gives in headless Chromium (S-34, S-35)."),
    ] = False,
    timeout: Annotated[
        float, typer.Option("--timeout", metavar="SECONDS", help="Seconds to wait for one tool call.")
    ] = 10.0,
    host: Annotated[
        bool,
        typer.Option("--host", help="Audit a host instead: serve the audit's MCP server (docs/hosts.md)."),
    ] = False,
    http: Annotated[
        bool, typer.Option("--http", help="With --host: serve Streamable HTTP on 127.0.0.1, not stdio.")
    ] = False,
    port: Annotated[
        int, typer.Option("--port", metavar="PORT", help="With --host --http: the port on 127.0.0.1.")
    ] = 8765,
    deadline: Annotated[
        float,
        typer.Option("--deadline", metavar="SECONDS", help="With --host: how long the whole audit may take."),
    ] = 600.0,
    html_file: Annotated[
        Path | None,
        typer.Option("--html", metavar="FILE", help="With --host: also write the report as one HTML page."),
    ] = None,
) -> None:
    """Connect as a client several ways, call the tools, answer every way, and judge the server.

    Exit status: 0 no fail (warnings are for a person to read), 1 a MUST broken with evidence,
    2 the target could not be reached or the command line is wrong. See docs/check.md.
    """
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    if host:
        if target:
            raise typer.BadParameter(
                "--host audits a host, so it takes no server: leave out the URL or command.",
                param_hint="--host",
            )
        _audit_host(err, http=http, port=port, deadline=deadline, json_file=json_file, html_file=html_file)
    if not target:
        raise typer.BadParameter(USAGE, param_hint="TARGET")
    if timeout <= 0:
        raise typer.BadParameter("give a number of seconds above 0.", param_hint="--timeout")
    if json_file is not None and str(json_file) != "-" and not json_file.parent.is_dir():
        raise typer.BadParameter(f"{json_file.parent} is not a folder.", param_hint="--json")
    # the SDK logs a target's garbage with tracebacks; the findings already say what went wrong
    logging.getLogger("mcp").setLevel(logging.CRITICAL + 1)
    try:
        chosen = _tools(tool or [], args or [])
        the_target = _target(name_target(target, ctx), user_token)
    except TargetError as error:
        err.print(f"[red]{error}[/red]")
        raise typer.Exit(2) from None
    options = Options(tools=chosen, timeout=timeout, other_token=other_token, browser=browser)

    def progress(line: str) -> None:
        err.print(f"[dim]... {line}[/dim]")

    try:
        report = anyio.run(lambda: run(the_target, options, progress=progress))
    except TargetError as error:
        err.print(f"[red]{error}[/red]")
        raise typer.Exit(2) from None
    if json_file is not None and str(json_file) == "-":
        typer.echo(_to_json(report))
    else:
        _show(report, Console(highlight=False))
        if json_file is not None:
            try:
                json_file.write_text(_to_json(report) + "\n")
            except OSError as error:
                err.print(f"Cannot write the report to {json_file}: {error.strerror or error}.", markup=False)
                raise typer.Exit(2) from None
    raise typer.Exit(1 if report.findings.failed() else 0)


def _audit_host(
    err: Console, *, http: bool, port: int, deadline: float, json_file: Path | None, html_file: Path | None
) -> None:
    """Serve the host audit until its deadline, the host hangs up (stdio) or Ctrl-C; then report."""
    if deadline <= 0:
        raise typer.BadParameter("give a number of seconds above 0.", param_hint="--deadline")
    for option, file in (("--json", json_file), ("--html", html_file)):
        if file is not None and str(file) != "-" and not file.parent.is_dir():
            raise typer.BadParameter(f"{file.parent} is not a folder.", param_hint=option)
    logging.getLogger("mcp").setLevel(logging.CRITICAL + 1)
    # stdio: stdout is the MCP wire, so a person reads the report on stderr and in the files
    out = Console(highlight=False) if http else err

    def write(audit: HostAudit) -> None:
        report = HostReport.of(audit)
        for file, text in ((json_file, report.to_json()), (html_file, report.to_html())):
            if file is not None and str(file) != "-":
                try:
                    file.write_text(text + "\n", encoding="utf-8")
                except OSError as error:
                    err.print(f"Cannot write the report to {file}: {error.strerror or error}.", markup=False)

    audit = HostAudit(deadline=deadline, on_report=write)

    async def serve() -> None:
        with anyio.move_on_after(deadline):
            if not http:
                await audit.server.run_stdio_async()
                return
            async with EmbeddedServer(
                lambda url: audit.server.streamable_http_app(), port=port, lifespan="on"
            ):
                err.print(f"Add this MCP server to your host: http://127.0.0.1:{port}/mcp (Streamable HTTP)")
                err.print("Then call its audit_ tools in order, then audit_report; Ctrl-C ends the audit.")
                await anyio.sleep_forever()

    try:
        anyio.run(serve)
    except KeyboardInterrupt:
        pass
    except LifecycleError as error:
        err.print(str(error), markup=False)
        raise typer.Exit(2) from None
    write(audit)
    report = HostReport.of(audit)
    if json_file is not None and str(json_file) == "-":
        typer.echo(report.to_json())
    else:
        out.print(_host_table(report))
    raise typer.Exit(1 if report.findings.failed() else 0)


def _target(named: Named, token: str | None) -> Target:
    if named.url is not None:
        return Target(url=named.url, token=token)
    if token:
        raise TargetError("--user-token is sent as an HTTP header; a stdio server takes no token.")
    return Target(command=named.command)


def _tools(names: list[str], args: list[str]) -> dict[str, dict[str, Any] | None]:
    if len(args) > len(names):
        raise TargetError(
            "Each --args goes with the --tool at the same position; there are more --args than --tool."
        )
    chosen: dict[str, dict[str, Any] | None] = {}
    for index, name in enumerate(names):
        given: dict[str, Any] | None = None
        if index < len(args):
            try:
                given = json.loads(args[index])
            except ValueError as error:
                raise TargetError(f"--args for {name!r} is not JSON: {error}.") from None
            if not isinstance(given, dict):
                raise TargetError(f"--args for {name!r} must be a JSON object.")
        chosen[name] = given
    return chosen


# -- the report: a rich table for a person, grouped by area, and the --json object

_STYLE: dict[Verdict, str] = {"pass": "green", "fail": "bold red", "warn": "yellow", "not-observed": "dim"}


def _table(report: Report) -> Table:
    """One row per requirement ID, areas as sections, each with its evidence."""
    title = f"elicitkit check {report.target} ({', '.join(report.protocol_versions)})"
    grid = Table(title=title, show_lines=False, expand=True)
    grid.add_column("ID", no_wrap=True)
    grid.add_column("Rule", ratio=1, min_width=24)
    grid.add_column("Verdict", no_wrap=True)
    grid.add_column("Evidence", ratio=3, overflow="fold")
    area = ""
    for finding in report.findings.all():
        if finding.area != area:
            area = finding.area
            grid.add_section()
            grid.add_row("", Text(area, style="bold"), "", "")
        grid.add_row(
            finding.id, finding.rule, Text(finding.verdict, style=_STYLE[finding.verdict]), finding.evidence
        )
    return grid


def _host_table(report: HostReport) -> Table:
    """One row per client rule, with its evidence, as `elicitkit check` shows a server's."""
    grid = Table(title=f"elicitkit check --host: {report.summary()}", expand=True)
    grid.add_column("ID", no_wrap=True)
    grid.add_column("Rule", ratio=1, min_width=24)
    grid.add_column("Verdict", no_wrap=True)
    grid.add_column("Evidence", ratio=3, overflow="fold")
    for finding in report.findings.all():
        grid.add_row(
            finding.id, finding.rule, Text(finding.verdict, style=_STYLE[finding.verdict]), finding.evidence
        )
    return grid


def _show(report: Report, console: Console) -> None:
    console.print(_table(report))
    counts = {v: sum(1 for f in report.findings.all() if f.verdict == v) for v in _STYLE}
    for note in report.seen.notes:
        console.print(f"[yellow]Note:[/yellow] {note}")
    console.print(", ".join(f"{n} {v}" for v, n in counts.items()))


def _to_json(report: Report) -> str:
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=True)
