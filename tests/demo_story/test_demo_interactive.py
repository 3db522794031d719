"""`elicitkit demo` on a real terminal: tmux runs it, the test types keys and reads the screen.

The person's browser is played by the scripted browser (the system browser is `true`, which
opens nothing), so the URL steps are completed the way a person would complete them.
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from support.tmux_pane import PATIENCE
from support.tmux_terminal import Terminal
from support.web_door import enter_now

from elicitkit.demo.browser import ScriptedBrowser

ELICITKIT = Path(sys.executable).with_name("elicitkit")
URL = re.compile(r"http://127\.0\.0\.1:\d+/elicit/[A-Za-z0-9_-]+")


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    command = [
        "env",
        "-u",
        "ELICITKIT_VAULT_KEYS",
        "BROWSER=true",
        str(ELICITKIT),
        "demo",
        "--data-dir",
        str(tmp_path),
    ]
    term = Terminal(command)
    try:
        yield term
    finally:
        term.close()


def complete_in_browser(url: str, **fields: str) -> tuple[str, str]:
    """Alice opens the page in her (scripted) browser and submits it; returns both headings."""

    async def visit() -> tuple[str, str]:
        async with ScriptedBrowser("alice") as browser:
            page = await browser.open(url)
            done = await browser.submit(page, **fields)
            return page.heading, done.heading

    return asyncio.run(visit())


def last_url(screen: str) -> str:
    found = URL.findall(screen)
    assert found, screen
    return str(found[-1])


@pytest.mark.timeout(150)
def test_interactive_demo_form_review_and_url_consent(terminal: Terminal) -> None:
    t = terminal
    t.wait_for("Date ✱")
    # the form, one field at a time
    t.type("2026-12-24")
    t.keys("Enter")
    t.wait_for("Party size ✱")
    t.type("40")
    t.keys("Enter")
    t.wait_for("Must be at most 12.")
    t.keys("BSpace", "BSpace")
    t.type("4")
    t.keys("Enter")
    t.wait_for("Seating ✱")
    t.keys("2", "Enter")
    t.wait_for("Dietary needs")
    t.keys("Space", "Down", "Down", "Space", "Enter")
    t.wait_for("Note for the restaurant")
    t.keys("Enter")  # keep the default
    t.wait_for("Email ✱")
    t.type("alice@example.com")
    t.keys("Enter")
    t.wait_for("High chair needed?")
    t.keys("y")
    # the review screen
    screen = t.wait_for("Review your answers")
    review = screen[screen.rindex("Review your answers") :]
    for row in [
        "2026-12-24",
        "On the terrace",
        "vegetarian, gluten-free",
        "No special requests",
        "alice@example.com",
    ]:
        assert row in review, review
    assert "Submit answers" in review and "Decline" in review and "Cancel" in review
    t.keys("s")
    t.wait_for("result  Booked Chez Elicit on 2026-12-24 for 4, on the terrace; vegetarian, gluten-free;")
    # decline, then cancel
    # each key waits for the question it answers (the same form is in the scroll-back already)
    t.wait_for("Date ✱", after="Book a table at Le Refus")
    t.keys("C-d")
    t.wait_for("result  No table booked: you declined")
    t.wait_for("Date ✱", after="Book a table at Chez Annul")
    t.keys("C-c")
    t.wait_for("result  No table booked: the question was dismissed.")
    # the URL consent screen: the full URL, the domain, the choice
    screen = t.wait_for("Open this page?")
    consent = screen[screen.rindex("asks you to open a web page") :]
    assert "Demo Weather API key" in consent
    assert re.search(r"URL\s+http://127\.0\.0\.1:\d+/elicit/", consent), consent
    assert re.search(r"Domain\s+127\.0\.0\.1", consent), consent
    t.keys("o")
    t.wait_for("You agreed")
    url = last_url(t.screen())
    assert complete_in_browser(url, secret="demo-weather-123") == ("Demo Weather API key", "Done")
    t.wait_for("result  Sunny and 21 °C in Lisbon")
    # -32042: consent, the waiting screen, then the call retries by itself once the page is done
    t.wait_for("Open this page?", after="Sending messages needs your Demo Messenger token")
    t.keys("o")
    t.wait_for("retry")
    url = last_url(t.screen())
    assert complete_in_browser(url, secret="demo-messenger-456") == ("Demo Messenger token", "Done")
    t.wait_for("result  Message to bob sent")
    # decline the calendar: nothing opens, and step 7 is skipped
    t.wait_for("Open this page?", after="list_events needs to read your Demo Calendar")
    t.keys("d")
    # the same form on a 2026-07-28 connection: the question comes in the tool result
    t.wait_for("[8/10] The same tool on a 2026-07-28 connection")
    for prompt, typed, keys in [
        ("Date ✱", "2026-12-31", ["Enter"]),
        ("Party size ✱", "2", ["Enter"]),
        ("Seating ✱", "", ["1", "Enter"]),
        ("Dietary needs", "", ["Enter"]),
        ("Note for the restaurant", "", ["Enter"]),
        ("Email ✱", "alice@example.com", ["Enter"]),
        ("High chair needed?", "", ["n"]),
        ("Review your answers", "", ["s"]),
    ]:
        t.wait_for(prompt, after="[8/10]")
        if typed:
            t.type(typed)
        t.keys(*keys)
    screen = t.wait_for("result  Booked Chez Elicit on 2026-12-31 for 2, indoors, by the window;")
    last = screen[screen.rindex("[8/10]") :]
    for seen in [
        "MCP 2026-07-28.",
        "returns its question inside the tool result",
        "calls book_table again, with alice's answers (inputResponses) and the requestState",
    ]:
        assert seen in last, last
    # the URL flows on 2026-07-28: alice declines both links this time; nothing opens
    for number, asking in [(9, "The weather tool needs your"), (10, "list_events needs to read")]:
        t.wait_for(asking, after=f"[{number}/10]")
        t.wait_for("Open this page?", after=asking)
        t.keys("d")
    screen = t.wait_for("EXIT=")
    assert "That was the whole story" in screen
    assert "EXIT=0" in screen


@pytest.mark.timeout(90)
def test_web_flag_asks_in_the_web_ui(tmp_path: Path) -> None:
    term = Terminal(["env", "BROWSER=true", str(ELICITKIT), "demo", "--web", "--data-dir", str(tmp_path)])
    try:
        screen = term.wait_for("The questions appear at")
        found = re.search(r"The questions appear at (file://\S+\.html)", screen)
        assert found, screen
        term.wait_for('calls book_table {"restaurant": "Chez Elicit"}')
        deadline = time.monotonic() + PATIENCE
        with httpx.Client(timeout=5) as browser:
            address = enter_now(browser, found.group(1))
            while "Book a table at Chez Elicit" not in (page := browser.get(address).text):
                assert time.monotonic() < deadline, page
                time.sleep(0.2)
        assert "<form" in page
        term.keys("C-c")
        screen = term.wait_for("EXIT=")
        assert "Stopped. Every demo server was shut down." in screen and "EXIT=130" in screen
    finally:
        term.close()
