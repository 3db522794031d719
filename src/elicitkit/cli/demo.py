"""`elicitkit demo`: the whole of MCP elicitation, played on this computer in under a minute."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from elicitkit.client import ElicitationUI
from elicitkit.demo.stage import Stage, running_stage
from elicitkit.demo.story import STEPS, StepFailedError, Story
from elicitkit.demo.transcript import Transcript
from elicitkit.i18n import UnsupportedLocaleError, current, from_environment, speaking, translator
from elicitkit.i18n import gettext as _

__all__ = ["demo"]


def demo(
    script: Annotated[
        bool, typer.Option("--script", help="Play unattended: scripted answers and a scripted browser.")
    ] = False,
    web: Annotated[bool, typer.Option("--web", help="Answer in the web UI instead of the terminal.")] = False,
    data_dir: Annotated[
        Path | None,
        typer.Option(
            "--data-dir", help="Where the store and the vault key live (default: per-user data dir)."
        ),
    ] = None,
    locale: Annotated[
        str | None,
        typer.Option("--locale", help="The language to tell the story in (en, zh_CN); default: LANG."),
    ] = None,
) -> None:
    """Run the demo: an MCP server that asks you for things, in every way elicitation allows.

    On a terminal you answer in the terminal UI (or, with --web, in your browser) and finish the
    web pages in your own browser, signed in as alice. Without a terminal, or with --script, the
    story plays by itself, prints everything a person would see, and exits 0 only if every step
    behaved.
    """
    if script and web:
        raise typer.BadParameter("--web needs a person to answer; leave it out to play unattended.")
    if data_dir is not None:
        try:
            data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise typer.BadParameter(
                f"cannot use {data_dir}: {error.strerror}.", param_hint="--data-dir"
            ) from None
    at_terminal = sys.stdin.isatty() and sys.stdout.isatty()
    unattended = script or not (web or at_terminal)
    console = Console(highlight=False, emoji=False, soft_wrap=True)
    try:
        words = translator(locale or from_environment())
    except UnsupportedLocaleError as error:
        raise typer.BadParameter(str(error)) from None
    try:
        with speaking(words):
            failure = asyncio.run(_run(console, data_dir, unattended=unattended, web=web))
    except KeyboardInterrupt:
        console.print("\n" + words.gettext("Stopped. Every demo server was shut down."))
        raise typer.Exit(130) from None
    except OSError as error:  # a port, a file or a folder the system refused: a sentence, not a traceback
        failure = (
            f"The demo could not run: {error.strerror or error} ({error.filename or type(error).__name__})."
        )
    if failure:
        Console(stderr=True, highlight=False, soft_wrap=True).print(f"\n{failure}", style="bold red")
        raise typer.Exit(1)


async def _run(console: Console, data_dir: Path | None, *, unattended: bool, web: bool) -> str:
    """Play the story; the empty string when it behaved, else a sentence naming the failed step."""
    transcript = Transcript(console)
    transcript.heading(_("elicitkit demo: MCP elicitation from start to finish, on this computer only"))
    try:
        async with running_stage(data_dir) as stage:
            _introduce(transcript, stage, unattended=unattended, web=web)
            async with _person_ui(console, web, unattended) as ui:
                started = time.monotonic()
                await Story(stage, transcript, ui=ui).play()
    except StepFailedError as error:
        return str(error)
    elapsed = time.monotonic() - started
    console.print()
    if unattended:
        done = _("All %(count)d steps behaved as expected, in %(seconds)s s.")
        transcript.line(done % {"count": len(STEPS), "seconds": f"{elapsed:.1f}"}, style="bold green")
    else:
        done = _("That was the whole story (%(count)d steps). Thank you!")
        transcript.line(done % {"count": len(STEPS)}, style="bold green")
    return ""


@contextlib.asynccontextmanager
async def _person_ui(console: Console, web: bool, unattended: bool) -> AsyncIterator[ElicitationUI | None]:
    if unattended:
        yield None
    elif web:
        from elicitkit.client import WebUI

        async with WebUI(locale=current().locale) as page:
            address = await page.start()
            where = _("The questions appear at %(address)s (it opens in your browser with the first one).")
            console.print("    " + where % {"address": address})
            yield page
    else:
        from elicitkit.client import TerminalUI

        yield TerminalUI(locale=current().locale)


def _introduce(transcript: Transcript, stage: Stage, *, unattended: bool, web: bool) -> None:
    transcript.rows(
        [
            (_("%(name)s (authorization server)") % {"name": stage.auth.service_name}, stage.auth.url),
            (_("%(name)s (third-party service)") % {"name": stage.calendar.service_name}, stage.calendar.url),
            (_("%(name)s (MCP server)") % {"name": "Demo Assistant"}, stage.server.mcp_url),
            (_("Data directory"), str(stage.data_dir)),
        ]
    )
    transcript.line(f"    {stage.key_note}")
    if unattended:
        transcript.line(
            "    "
            + _("Playing unattended: a script answers for alice, and a scripted browser is hers (and bob's).")
        )
    else:
        if web:
            you = _(
                "You are alice. Answer in your browser (the web UI); "
                "finish the web pages in your own browser."
            )
        else:
            you = _("You are alice. Answer here, in the terminal; finish the web pages in your own browser.")
        transcript.line("    " + you)
        transcript.line("    " + _("Press Ctrl-C outside a question to stop."))
