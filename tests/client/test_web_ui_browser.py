"""WebUI in a real browser: Chromium, driven by Playwright, answers forms, a URL consent and a wait.

The page is opened by the UI itself (the opener is Playwright's `page.goto`), and later
questions reach the already open tab by themselves, as they would in the system browser.
The screenshots in docs/images/ are taken here (ELICITKIT_SCREENSHOTS=docs/images to refresh them).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
import pytest_asyncio
from client_http import record, serve
from client_servers import State, elicit_server
from playwright.async_api import Browser, Page, async_playwright, expect
from support.chromium import CHROMIUM_ARGS
from support.web_door import command_lines, usable_secrets, way_in

from elicitkit.client import ElicitationConfig
from elicitkit.client._ui import AcceptedElicitation, DeclinedElicitation, FormQuestion, UrlQuestion, Waiting
from elicitkit.client._web import WebUI
from elicitkit.schema import defaults
from elicitkit.urls import examine

pytestmark = pytest.mark.asyncio(loop_scope="module")

HERE = Path(__file__).resolve().parent
PROGRAM = HERE / "web_ui_program.py"
STAND_IN = HERE.parent / "support" / "browser_stand_in.py"
IDLE = "Nothing to answer right now; a server's next question appears here by itself."
STOPPED = "The program that serves this page has stopped; you can close this tab."


# A table booking with every widget kind the form-mode subset has.
BOOKING: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name on the booking", "minLength": 2, "maxLength": 40},
        "code": {
            "type": "string",
            "title": "Voucher code",
            "description": "Three capital letters, from your voucher.",
            "pattern": "^[A-Z]{3}$",
        },
        "email": {"type": "string", "title": "Email for the confirmation", "format": "email"},
        "day": {"type": "string", "title": "Day", "format": "date"},
        "arrival": {"type": "string", "title": "Arrival", "format": "date-time"},
        "party": {"type": "integer", "title": "Party size", "minimum": 1, "maximum": 12},
        "budget": {"type": "number", "title": "Budget per person (EUR)", "minimum": 0, "maximum": 500},
        "seating": {
            "type": "string",
            "title": "Seating",
            "oneOf": [
                {"const": "inside", "title": "Inside, by the window"},
                {"const": "terrace", "title": "On the terrace"},
            ],
        },
        "course": {"type": "string", "title": "Menu", "enum": ["set", "carte"]},
        "occasion": {
            "type": "string",
            "title": "Occasion",
            "oneOf": [
                {"const": key, "title": key.replace("-", " ").capitalize()}
                for key in ("none", "birthday", "anniversary", "business", "date-night", "farewell", "other")
            ],
        },
        "wine": {
            "type": "string",
            "title": "Wine pairing",
            "enum": ["none", "half", "full"],
            "enumNames": ["No wine", "Half pairing", "Full pairing"],
        },
        "diet": {
            "type": "array",
            "title": "Dietary needs",
            "items": {
                "type": "string",
                "anyOf": [
                    {"const": "vegetarian", "title": "Vegetarian"},
                    {"const": "vegan", "title": "Vegan"},
                    {"const": "gluten-free", "title": "Gluten-free"},
                    {"const": "nut-free", "title": "Nut-free"},
                ],
            },
            "maxItems": 2,
        },
        "extras": {
            "type": "array",
            "title": "Extras",
            "items": {"type": "string", "enum": ["cake", "flowers", "highchair"]},
            "minItems": 1,
        },
        "reminder": {"type": "boolean", "title": "Send me a reminder", "default": True},
        "website": {"type": "string", "title": "Your website", "format": "uri"},
        "note": {"type": "string", "title": "Note for the kitchen", "default": "No coriander, please."},
    },
    "required": ["name", "code", "email", "day", "arrival", "party", "seating", "reminder"],
}


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield chromium
        await chromium.close()


@pytest_asyncio.fixture(loop_scope="module")
async def page(browser: Browser) -> AsyncIterator[Page]:
    context = await browser.new_context(viewport={"width": 900, "height": 900}, locale="en-GB")
    tab = await context.new_page()
    yield tab
    await context.close()


async def snapshot(page: Page, path: Path) -> None:
    """The whole page at its own height, so the sticky button bar sits where it belongs."""
    height = await page.evaluate(
        "Math.ceil(document.querySelector('main').getBoundingClientRect().bottom) + 24"
    )
    await page.set_viewport_size({"width": 900, "height": height})
    await page.screenshot(path=path)
    await page.set_viewport_size({"width": 900, "height": 900})


async def settled(task: asyncio.Task[Any], seconds: float = 10.0) -> Any:
    return await asyncio.wait_for(asyncio.shield(task), seconds)


async def test_form_filled_corrected_reviewed_submitted_then_declined_then_url_consent(
    page: Page, screenshots: Path
) -> None:
    async with WebUI(opener=page.goto) as ui:
        question = FormQuestion(
            "Bistro Lumière",
            "To book your table for Saturday, tell us who is coming and what you would like.",
            BOOKING,
            defaults(BOOKING),
        )
        asked = asyncio.create_task(ui.ask_form(question))

        # Who asks and why, required marks, defaults pre-filled.
        await expect(page.locator(".asker .server")).to_have_text("Bistro Lumière")
        await expect(page.locator(".message")).to_contain_text("book your table for Saturday")
        await expect(page.get_by_label("Note for the kitchen")).to_have_value("No coriander, please.")
        await expect(page.get_by_role("radio", name="Yes")).to_be_checked()
        await expect(
            page.locator("[data-field=party] legend, [data-field=party] label").first
        ).to_contain_text("*")
        for always in ("Decline", "Cancel"):  # on screen even before scrolling down the long form
            await expect(page.get_by_role("button", name=always)).to_be_in_viewport()
        assert await page.locator("a").count() == 0

        await page.get_by_label("Name on the booking").fill("Ada Lovelace")
        await page.get_by_label("Voucher code").fill("ab1")  # breaks the pattern: only the server can tell
        await page.get_by_label("Email for the confirmation").fill("ada@example.com")
        await page.get_by_label("Day").fill("2026-03-14")
        await page.get_by_label("Arrival").fill("2026-03-14T19:30")
        await page.get_by_label("Party size").fill("40")  # above the maximum: the browser refuses it
        await page.get_by_label("Budget per person (EUR)").fill("62.5")
        await page.get_by_label("On the terrace").check()
        await page.get_by_label("carte").check()
        await page.get_by_label("Half pairing").check()
        await page.get_by_label("Occasion").select_option(label="Anniversary")
        await page.get_by_label("Vegetarian").check()
        await page.get_by_label("Gluten-free").check()
        await page.get_by_label("flowers").check()
        await page.get_by_role("radio", name="No", exact=True).check()
        await page.get_by_label("Your website").fill("https://ada.example.org/")

        # The browser's own constraint check keeps the form on the page.
        await page.get_by_role("button", name="Review answers").click()
        party = page.get_by_label("Party size")
        assert await party.evaluate("input => input.validationMessage") != ""
        assert await page.locator("table.review").count() == 0
        await party.fill("4")

        # The server-side check (elicitkit.schema.validate) shows its problem next to the field.
        await page.get_by_role("button", name="Review answers").click()
        problem = page.locator("[data-field=code] .problem")
        await expect(problem).to_contain_text("pattern")
        assert not asked.done()
        await expect(page.get_by_label("Name on the booking")).to_have_value("Ada Lovelace")
        await expect(page.get_by_label("Gluten-free")).to_be_checked()
        await snapshot(page, screenshots / "web-form.png")
        await page.get_by_label("Voucher code").fill("SUN")

        # Review, change one answer, review again, submit.
        await page.get_by_role("button", name="Review answers").click()
        await expect(page.locator("h2")).to_have_text("Review your answers")
        await expect(page.locator("table.review")).to_contain_text("On the terrace")
        await page.get_by_role("button", name="Change Party size").click()
        await expect(page.get_by_label("Party size")).to_be_focused()
        await page.get_by_label("Party size").fill("5")
        await page.get_by_role("button", name="Review answers").click()
        await expect(page.locator("table.review")).to_contain_text("Vegetarian, Gluten-free")
        assert not asked.done()
        await page.get_by_role("button", name="Submit answers").click()

        reply = await settled(asked)
        arrival = datetime(2026, 3, 14, 19, 30).astimezone().isoformat(timespec="seconds")
        assert reply == AcceptedElicitation(
            {
                "name": "Ada Lovelace",
                "code": "SUN",
                "email": "ada@example.com",
                "day": "2026-03-14",
                "arrival": arrival,
                "party": 5,
                "budget": 62.5,
                "seating": "terrace",
                "course": "carte",
                "occasion": "anniversary",
                "wine": "half",
                "diet": ["vegetarian", "gluten-free"],
                "extras": ["flowers"],
                "reminder": False,
                "website": "https://ada.example.org/",
                "note": "No coriander, please.",
            }
        )
        await expect(page.locator(".flash")).to_contain_text("sent to “Bistro Lumière”")

        # The next question reaches the open tab by itself; this one is declined.
        survey = {"type": "object", "properties": {"stars": {"type": "integer", "minimum": 1, "maximum": 5}}}
        asked = asyncio.create_task(
            ui.ask_form(FormQuestion("Bistro Lumière", "Rate your last visit?", survey, {}))
        )
        await expect(page.locator(".message")).to_have_text("Rate your last visit?")
        await page.get_by_role("button", name="Decline").click()
        assert await settled(asked) == DeclinedElicitation()
        await expect(page.locator(".flash")).to_contain_text("declined")

        # URL consent: the full URL, the domain highlighted, never a link; Open accepts.
        report = examine("https://accounts.lumiere-bistro.example.com/elicit/7Jq2xKp9?step=calendar")
        consent = UrlQuestion("Bistro Lumière", "Connect your calendar so we can add the booking.", report)
        asked = asyncio.create_task(ui.ask_url_consent(consent))
        await expect(page.locator("#url mark.domain")).to_have_text(report.domain or "")
        await expect(page.locator("#url")).to_have_text(report.url)
        assert await page.locator("a").count() == 0
        await expect(page.locator(".facts")).to_contain_text("accounts.lumiere-bistro.example.com")
        await snapshot(page, screenshots / "web-consent.png")
        await page.get_by_role("button", name="Open in my browser").click()
        assert await settled(asked) == AcceptedElicitation()
        await expect(page.locator(".idle h1")).to_have_text(
            "✓ You agreed: the page opens in your system browser."
        )


async def test_punycode_host_shows_both_forms_and_every_warning(page: Page) -> None:
    async with WebUI(opener=page.goto) as ui:
        report = examine("https://xn--pypal-4ve.com/login")
        assert report.warnings
        asked = asyncio.create_task(ui.ask_url_consent(UrlQuestion("Shop", "Sign in", report)))
        facts = page.locator(".facts")
        await expect(facts).to_contain_text(report.host_unicode)
        await expect(facts).to_contain_text(report.host)
        for warning in report.warnings:
            await expect(page.locator(".warnings")).to_contain_text(warning.code)
        if report.verdict == "block":
            await expect(page.get_by_role("button", name="Open in my browser")).to_have_count(0)
        await page.get_by_role("button", name="Decline").click()
        assert await settled(asked) == DeclinedElicitation()


async def test_waiting_page_ticks_shows_notices_live_and_retries(page: Page) -> None:
    async with WebUI(opener=page.goto) as ui:
        waiting = Waiting("Bistro Lumière", [("el-1", "Connect your calendar")], time.monotonic() - 65, True)
        asked = asyncio.create_task(ui.wait(waiting))
        clock = page.locator("#elapsed")
        await expect(clock).to_have_text("01:05")
        await expect(clock).not_to_have_text("01:05", timeout=3000)  # the clock ticks in the page
        await expect(page.locator(".pending")).to_contain_text("Connect your calendar")
        await expect(page.get_by_role("alert")).to_contain_text("No completion came in time")

        ui.notice("Bistro Lumière: an elicitation completed.")
        await expect(page.locator("#notices li")).to_have_text("Bistro Lumière: an elicitation completed.")

        await page.get_by_role("button", name="Retry now").click()
        assert await settled(asked) == "retry"


async def test_a_withdrawn_question_leaves_the_page_by_itself(page: Page) -> None:
    async with WebUI(opener=page.goto) as ui:
        schema = {"type": "object", "properties": {"name": {"type": "string"}}}
        asked = asyncio.create_task(ui.ask_form(FormQuestion("Bistro", "Your name?", schema, {})))
        await expect(page.locator(".message")).to_have_text("Your name?")
        asked.cancel()
        await expect(page.locator(".idle h1")).to_have_text(IDLE)
    await expect(page.locator("#offline")).to_be_visible()


async def test_an_mcp_server_gets_what_the_person_submits_in_the_browser(page: Page) -> None:
    """The client in front, the web page behind it: a real server over streamable HTTP."""
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name", "default": "Ada"},
            "guests": {"type": "integer", "title": "Guests", "minimum": 1, "maximum": 8},
        },
        "required": ["name", "guests"],
    }
    opened: list[str] = []
    async with WebUI(opener=page.goto) as ui:
        config = ElicitationConfig(ui, modes=("form", "url"), open_url=record(opened))
        with serve(elicit_server(State()).streamable_http_app()) as url:
            async with config.connect(url, mode="legacy") as client:
                call = asyncio.create_task(client.call_tool("ask_form", {"schema": json.dumps(schema)}))
                await expect(page.locator(".asker .server")).to_have_text("Test Elicitor")
                await expect(page.get_by_label("Name")).to_have_value("Ada")
                await page.get_by_label("Guests").fill("3")
                await page.get_by_role("button", name="Review answers").click()
                await page.get_by_role("button", name="Submit answers").click()
                result = await settled(call)
                assert json.loads(result.content[0].text) == {
                    "action": "accept",
                    "content": {"name": "Ada", "guests": 3},
                }

                target = "https://calendar.example.com/connect?session=1"
                call = asyncio.create_task(client.call_tool("ask_url", {"url": target}))
                await expect(page.locator("#url")).to_have_text(target)
                assert opened == []  # nothing opens before the person agrees
                await page.get_by_role("button", name="Open in my browser").click()
                result = await settled(call)
                assert json.loads(result.content[0].text)["action"] == "accept"
                assert opened == [target]


# -- the way in, and what the page says ------------------------------------------------------


def opened_by_the_stand_in(record: Path, within: float = 60.0) -> tuple[int, str]:
    """The stand-in browser's PID and the URL it was handed, once it has started."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        started = record.read_text(encoding="utf-8").split() if record.exists() else []
        if len(started) >= 2:
            return int(started[0]), started[1]
        time.sleep(0.05)
    raise AssertionError("no browser was started")


async def test_no_process_argument_or_log_line_lets_another_user_in(browser: Browser, tmp_path: Path) -> None:
    """`WebUI()`'s own opener (the system browser through `webbrowser`; here $BROWSER is a
    stand-in that keeps its URL in its arguments while it lives, as a browser does). Every
    argument of every process, and everything the program logged, is tried on the page as
    another local user would try it: nothing gets in. What the browser was handed gets the
    person in, once; a second tab of theirs shows the same question."""
    record, log = tmp_path / "opened.txt", tmp_path / "program.log"
    env = {**os.environ, "BROWSER": f"{sys.executable} {STAND_IN} {record} %s"}
    with log.open("wb") as sink:
        program = await asyncio.create_subprocess_exec(
            sys.executable, str(PROGRAM), env=env, stdout=asyncio.subprocess.PIPE, stderr=sink
        )
    stand_in = None
    try:
        stand_in, url = await asyncio.to_thread(opened_by_the_stand_in, record)
        parts = urlsplit(url)
        address = way_in(url)[0] if parts.scheme == "file" else f"{parts.scheme}://{parts.netloc}/"
        arguments = await asyncio.to_thread(command_lines)
        assert url in arguments  # what the browser was handed is in its arguments, for anyone to read
        seen = [*arguments, log.read_text(encoding="utf-8")]
        assert await asyncio.to_thread(usable_secrets, address, seen, "Who is booking?") == []

        # Handed a file that only this user can read, in a folder only this user can open.
        file = Path(unquote(parts.path))
        assert (file.stat().st_mode & 0o777, file.parent.stat().st_mode & 0o777) == (0o600, 0o700)
        spent = way_in(url)[1]

        # The person's browser opens what it was handed: in, once.
        person = await browser.new_context()
        page = await person.new_page()
        await page.goto(url)
        await expect(page.locator(".message")).to_have_text("Who is booking?")
        assert urlsplit(page.url).path == "/"  # the address bar holds no secret either
        assert await asyncio.to_thread(usable_secrets, address, [spent], "Who is booking?") == []

        # A second tab of the same browser shows the same question; answering there moves both on.
        second = await person.new_page()
        await second.goto(address)
        await second.get_by_label("Your name").fill("Ada")
        await second.get_by_role("button", name="Review answers").click()
        await second.get_by_role("button", name="Submit answers").click()
        out, _ = await asyncio.wait_for(program.communicate(), 30)
        assert json.loads(out) == {"action": "accept", "content": {"name": "Ada"}}
        await expect(page.locator("#offline")).to_be_visible()  # the first tab saw it end
        await person.close()
    finally:
        if program.returncode is None:
            program.kill()
            await program.wait()
        if stand_in is not None:
            os.kill(stand_in, signal.SIGTERM)


async def test_a_second_browser_gets_only_the_door(browser: Browser, page: Page) -> None:
    """Another browser (another profile, or another user's) at the page's address, without the
    file: the door's page, which shows nothing of the question, and no cookie."""
    async with WebUI(opener=page.goto) as ui:
        schema = {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}}}
        asked = asyncio.create_task(ui.ask_form(FormQuestion("Bistro", "Your name?", schema, {})))
        await expect(page.locator(".message")).to_have_text("Your name?")
        other = await browser.new_context()
        stranger = await other.new_page()
        response = await stranger.goto(way_in(ui.url)[0])
        assert response is not None and response.status == 403
        await expect(stranger.locator("h1")).to_contain_text("open it in this browser")
        await expect(stranger.locator(".address")).to_have_text(ui.url)
        assert "Your name?" not in await stranger.content()
        assert await other.cookies() == []
        await other.close()
        await page.get_by_role("button", name="Decline").click()
        assert await settled(asked) == DeclinedElicitation()


async def main_text(page: Page) -> str:
    """What the page says, as a person reads it (hidden parts left out)."""
    return " ".join((await page.locator("main").inner_text()).split())


async def test_each_state_says_one_sentence_and_a_stopped_page_only_that(page: Page) -> None:
    async with WebUI(opener=page.goto) as ui:
        await page.goto(await ui.start())
        await expect(page.locator(".idle h1")).to_have_text(IDLE)
        assert await main_text(page) == IDLE

        schema = {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}}}
        asked = asyncio.create_task(ui.ask_form(FormQuestion("Bistro", "Your name?", schema, {})))
        await page.get_by_role("button", name="Decline").click()
        assert await settled(asked) == DeclinedElicitation()
        declined = "You declined the form; “Bistro” is told you said no."
        await expect(page.locator(".idle h1")).to_have_text(declined)
        assert await main_text(page) == declined

        report = examine("https://calendar.example.com/connect")
        asked = asyncio.create_task(ui.ask_url_consent(UrlQuestion("Bistro", "Connect.", report)))
        await page.get_by_role("button", name="Open in my browser").click()
        assert await settled(asked) == AcceptedElicitation()
        agreed = "✓ You agreed: the page opens in your system browser."
        await expect(page.locator(".idle h1")).to_have_text(agreed)
        assert await main_text(page) == agreed
    await expect(page.locator("#offline")).to_be_visible()
    assert await main_text(page) == STOPPED
    assert "keep this tab open" not in await page.content()


async def test_a_url_no_browser_could_open_is_a_link_with_its_warnings(page: Page) -> None:
    """The handler could not open the URL the person agreed to: the page says so in one sentence
    and gives the full URL as a link, with what the inspection found; no id of the elicitation."""
    target = "https://login.example.com:8443/connect?session=1"
    report = examine(target)
    assert report.verdict == "warn" and report.warnings
    await page.context.route(
        "https://login.example.com:8443/**", lambda route: route.fulfill(body="signed in")
    )
    async with WebUI(opener=page.goto) as ui:
        handler = ElicitationConfig(ui, modes=("form", "url"), open_url=lambda url: False)
        with serve(elicit_server(State()).streamable_http_app()) as url:
            async with handler.connect(url, mode="legacy") as client:
                call = asyncio.create_task(
                    client.call_tool("ask_url", {"url": target, "elicitation_id": "el-7Jq2xKp9"})
                )
                await expect(page.locator("#url")).to_have_text(target)
                await page.get_by_role("button", name="Open in my browser").click()
                assert json.loads((await settled(call)).content[0].text)["action"] == "accept"
                link = page.get_by_role("link")
                await expect(link).to_have_text(target)
                await expect(link).to_have_attribute("href", target)
                said = "No browser could be opened; if you trust this page, open it yourself:"
                await expect(page.locator(".idle h1")).to_have_text(said)
                text = await main_text(page)
                assert text.startswith(f"{said} {target} ") and text.count(".") >= len(report.warnings)
                for warning in report.warnings:
                    assert warning.code in text
                assert "You agreed" not in text and "el-7Jq2xKp9" not in await page.content()
                async with page.context.expect_page() as opened:
                    await link.click()
                assert (await opened.value).url == target


async def test_the_waiting_page_shows_no_elicitation_id(page: Page) -> None:
    async with WebUI(opener=page.goto) as ui:
        waiting = Waiting("Bistro", [("el-7Jq2xKp9", "Connect your calendar")], time.monotonic(), False)
        asked = asyncio.create_task(ui.wait(waiting))
        await expect(page.locator(".pending")).to_have_text("Connect your calendar")
        assert "el-7Jq2xKp9" not in await main_text(page)
        await page.get_by_role("button", name="Cancel").click()
        assert await settled(asked) == "cancel"
