"""`elicitkit url inspect`."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Annotated, Any

import typer
import typer.core
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from elicitkit.cli._help import MARKUP, Command
from elicitkit.cli._language import LocaleOption, words
from elicitkit.i18n import gettext as _
from elicitkit.i18n import noop, speaking
from elicitkit.urls import PartRole, UrlReport, examine, reveal


class _Group(typer.core.TyperGroup):
    """`elicitkit url`: a usage error exits with `USAGE_ERROR`, not click's 2, which is "block"."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        with _usage_exit():
            return super().parse_args(ctx, args)

    def invoke(self, ctx: Any) -> Any:
        with _usage_exit():
            return super().invoke(ctx)


@contextlib.contextmanager
def _usage_exit() -> Iterator[None]:
    try:
        yield
    except typer.TyperException as error:  # click's UsageError is the one with exit_code 2
        if getattr(error, "exit_code", None) == 2:
            error.exit_code = USAGE_ERROR
        raise


app = typer.Typer(
    cls=_Group,
    help="Inspect a URL as a client would before asking to open it.",
    no_args_is_help=True,
    rich_markup_mode=MARKUP,
)

EXIT_CODES = {"ok": 0, "warn": 1, "block": 2}
USAGE_ERROR = 64
"""The exit status of a mistyped command line (sysexits' EX_USAGE), told apart from "block"."""

_PART_STYLES: dict[PartRole, str] = {
    "scheme": "dim",
    "userinfo": "bold red",
    "subdomain": "dim",
    "domain": "bold black on yellow",
    "port": "bold",
    "path": "dim",
    "query": "dim",
    "fragment": "dim",
}
_VERDICT_STYLES = {"ok": "bold green", "warn": "bold yellow", "block": "bold red"}
_VERDICTS = {"ok": noop("OK"), "warn": noop("WARN"), "block": noop("BLOCK")}
"""The verdict in words, for a person; the exit status and `--json` say it for scripts."""


@app.command("inspect", cls=Command)
def inspect_command(
    url: Annotated[str, typer.Argument(help="The URL to inspect. It is never fetched.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    allow_http: Annotated[
        bool, typer.Option("--allow-http", help="Accept plain http beyond this computer (with a warning).")
    ] = False,
    locale: LocaleOption = None,
) -> None:
    """Show a URL's registrable domain, its parts and every warning, without fetching it.

    Exit status: 0 ok, 1 warn, 2 block, 64 a usage error (a mistyped option or argument). The
    report for people is in the terminal's language (or --locale's); --json is the same in every
    language.
    """
    report = examine(url, allow_http=allow_http)
    if as_json:
        typer.echo(report.to_json(indent=2))
    else:
        with speaking(words(locale)):
            Console(highlight=False, soft_wrap=True).print(render(report))
    raise typer.Exit(EXIT_CODES[report.verdict])


def render(report: UrlReport) -> Text:
    """The report for a terminal, in the current language: the URL drawn in parts with the domain
    highlighted. Hidden characters are shown as escapes, so the terminal draws what is really there.
    """
    site, host, verdict, none = _("Site"), _("Host"), _("Verdict"), _("(none)")
    width = max(cell_len(site), cell_len(host), cell_len(verdict)) + 2

    def label(word: str) -> str:
        return word + " " * (width - cell_len(word))

    text = Text()
    if report.parts:
        for part in report.parts:
            text.append(reveal(part.text), style=_PART_STYLES[part.role])
    else:
        text.append(reveal(report.url), style="dim")
    text.append("\n\n")
    text.append(label(site))
    text.append(reveal(report.domain_unicode or none), style="bold")
    if report.domain and report.domain != report.domain_unicode:
        text.append(f"  ({reveal(report.domain)})")
    text.append("\n" + label(host))
    text.append(reveal(report.host_unicode or none))
    if report.host and report.host != report.host_unicode:
        text.append(f"  ({reveal(report.host)})")
    text.append("\n" + label(verdict))
    text.append(_(_VERDICTS[report.verdict]), style=_VERDICT_STYLES[report.verdict])
    for warning in report.warnings:
        style = "red" if warning.severity == "block" else "yellow"
        text.append("\n  ")
        text.append(f"{warning.code}", style=style)
        text.append(": " + warning.say(_))
    return text
