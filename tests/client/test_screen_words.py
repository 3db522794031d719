"""Issue 12: the exact words a person reads about what a server asked (transcript and notices)."""

from __future__ import annotations

import io
import json
import re
import time

from client_http import record, serve
from hostile_servers import hostile_server
from rich.console import Console

from elicitkit.client import AcceptedElicitation, ElicitationConfig, FormQuestion, ScriptedUI, UrlQuestion
from elicitkit.demo.browser import ScriptedBrowser, read_page
from elicitkit.demo.transcript import NarratedUI, Transcript, describe_field
from elicitkit.urls import examine

SPOOF = "ex\u0430mple"  # a Cyrillic "a": two blocking warnings
LOOKALIKE = f"https://{SPOOF}.com/login"


def transcript() -> tuple[Transcript, io.StringIO]:
    out = io.StringIO()
    return Transcript(Console(file=out, width=200, highlight=False, emoji=False, soft_wrap=True)), out


async def test_a_blocked_url_is_never_narrated_as_opening() -> None:
    t, out = transcript()
    ui = NarratedUI(ScriptedUI(AcceptedElicitation()), t, "alice")
    await ui.ask_url_consent(UrlQuestion("Evil", "Sign in", examine(LOOKALIKE)))
    text = out.getvalue()
    assert "alice  agrees, but the URL is blocked: the page is not opened." in text
    assert "opens" not in text


async def test_the_blocked_notice_is_one_sentence_without_stray_stops() -> None:
    ui = ScriptedUI(AcceptedElicitation())
    opened: list[str] = []
    config = ElicitationConfig(ui, modes="url", open_url=record(opened))
    with serve(hostile_server().streamable_http_app()) as url:
        async with config.connect(url, mode="legacy") as client:
            result = await client.call_tool("ask_url", {"url": LOOKALIKE})
    assert json.loads(result.content[0].text)["action"] == "decline"  # type: ignore[union-attr]
    [notice] = [n for n in ui.notices if "blocked" in n]
    assert notice == (
        "Hostile Server asked to open a URL that was blocked and not opened: "
        f"The host part '{SPOOF}' mixes letters from different alphabets; "
        f"The host part '{SPOOF}' imitates 'example' with look-alike letters."
    )
    assert ".;" not in notice and opened == []


def test_legacy_enum_names_are_read_as_titles() -> None:
    field = {"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"], "default": "m"}
    assert describe_field(field, required=True) == 'one of: Small | Medium, default "m", required'


async def test_legacy_enum_names_title_the_answer_too() -> None:
    t, out = transcript()
    schema = {
        "type": "object",
        "properties": {"size": {"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"]}},
    }
    ui = NarratedUI(ScriptedUI(AcceptedElicitation({"size": "m"})), t, "alice")
    await ui.ask_form(FormQuestion("Shop", "Which size?", schema, {}, ()))
    assert "size  Medium" in out.getvalue()


def test_a_consent_line_ending_in_a_colon_is_followed_by_its_list() -> None:
    html = (
        "<h1>Sign in to Demo Calendar</h1><p><strong>Client</strong> asks you to sign in, so that it may:</p>"
        "<ul><li>read your events</li><li>mcp</li></ul><p>Afterwards your browser goes back.</p>"
    )
    t, out = transcript()
    browser = ScriptedBrowser.__new__(ScriptedBrowser)  # only its person is read; no HTTP client
    browser.person = "alice"
    t.page(browser, read_page("http://127.0.0.1:1/login", 200, html))
    lines = [line.strip() for line in out.getvalue().splitlines()]
    at = lines.index("Client asks you to sign in, so that it may:")
    assert lines[at + 1 : at + 3] == ["- read your events", "- mcp"]


def test_each_step_header_says_how_long_that_step_took() -> None:
    """Not the time since the start: a quick step after a slow one reads as quick."""
    out = io.StringIO()
    t = Transcript(Console(file=out, width=200, soft_wrap=True), hold_steps=True)
    t.step(1, 2, "Slow", "waits a while")
    t.line("slow step's line")
    time.sleep(0.4)
    t.step(2, 2, "Quick", "returns at once")
    t.line("quick step's line")
    t.end_step()
    lines = out.getvalue().splitlines()
    slow = next(line for line in lines if line.startswith("[1/2] Slow"))
    quick = next(line for line in lines if line.startswith("[2/2] Quick"))
    assert float(re.search(r"\((\d+\.\d) s\)", slow).group(1)) >= 0.4  # type: ignore[union-attr]
    assert quick.endswith("(0.0 s)"), quick
    assert lines.index(slow) < lines.index("slow step's line") < lines.index(quick)


def test_a_step_read_live_shows_its_header_first_and_its_duration_last() -> None:
    """When a person answers during the step, its header cannot wait for the step to end."""
    out = io.StringIO()
    t = Transcript(Console(file=out, width=200, soft_wrap=True))
    time.sleep(0.3)  # before the first step: not part of it
    t.step(1, 1, "Form", "a person answers")
    assert "[1/1] Form" in out.getvalue() and "s)" not in out.getvalue()
    t.line("the person's answer")
    t.end_step()
    assert out.getvalue().splitlines()[-1].strip() == "(this step took 0.0 s)"
