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
) -> None:
    """Run the demo: an MCP server that asks you for things, in every way elicitation allows.

    On a terminal you answer in the terminal UI (or, with --web, in your browser) and finish the
    web pages in your own browser, signed in as alice. Without a terminal, or with --script, the
    story plays by itself, prints everything a person would see, and exits 0 only if every step
    behaved.
    """
    if script and web:
        raise typer.BadParameter("--web needs a person to answer; leave it out to play unattended.")
    at_terminal = sys.stdin.isatty() and sys.stdout.isatty()
    unattended = script or not (web or at_terminal)
    console = Console(highlight=False, emoji=False, soft_wrap=True)
    try:
        failure = asyncio.run(_run(console, data_dir, unattended=unattended, web=web))
    except KeyboardInterrupt:
        console.print("\nStopped. Every demo server was shut down.")
        raise typer.Exit(130) from None
    if failure:
        Console(stderr=True, highlight=False, soft_wrap=True).print(f"\n{failure}", style="bold red")
        raise typer.Exit(1)


async def _run(console: Console, data_dir: Path | None, *, unattended: bool, web: bool) -> str:
    """Play the story; the empty string when it behaved, else a sentence naming the failed step."""
    transcript = Transcript(console)
    transcript.heading("elicitkit demo: MCP elicitation from start to finish, on this computer only")
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
        transcript.line(
            f"All {len(STEPS)} steps behaved as expected, in {elapsed:.1f} s.", style="bold green"
        )
    else:
        transcript.line(f"That was the whole story ({len(STEPS)} steps). Thank you!", style="bold green")
    return ""


@contextlib.asynccontextmanager
async def _person_ui(console: Console, web: bool, unattended: bool) -> AsyncIterator[ElicitationUI | None]:
    if unattended:
        yield None
    elif web:
        from elicitkit.client.web import WebUI

        async with WebUI() as page:
            address = await page.start()
            console.print(
                f"    The questions appear at {address} (it opens in your browser with the first one)."
            )
            yield page
    else:
        from elicitkit.client.terminal import TerminalUI

        yield TerminalUI()


def _introduce(transcript: Transcript, stage: Stage, *, unattended: bool, web: bool) -> None:
    transcript.rows(
        [
            (f"{stage.auth.service_name} (authorization server)", stage.auth.url),
            (f"{stage.calendar.service_name} (third-party service)", stage.calendar.url),
            ("Demo Assistant (MCP server)", stage.server.mcp_url),
            ("Data directory", str(stage.data_dir)),
        ]
    )
    transcript.line(f"    {stage.key_note}")
    if unattended:
        transcript.line(
            "    Playing unattended: a script answers for alice, and a scripted browser is hers (and bob's)."
        )
    else:
        where = "in your browser (the web UI)" if web else "here, in the terminal"
        transcript.line(f"    You are alice. Answer {where}; finish the web pages in your own browser.")
        transcript.line("    Press Ctrl-C outside a question to stop.")
