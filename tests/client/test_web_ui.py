"""WebUI over plain HTTP: the page's defences, and what it does with what is posted to it.

The browser tests (test_web_ui_browser.py) show a person using the page; these talk to the
same live server the way another program on the machine, or a hostile page, could.
"""

from __future__ import annotations

import asyncio
import os
import re
import stat
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx
import pytest
from support.web_door import enter, way_in

from elicitkit.client import ElicitationUI
from elicitkit.client._ui import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    FormQuestion,
    UrlQuestion,
    Waiting,
)
from elicitkit.client._web import WebUI
from elicitkit.schema import ValidationProblem
from elicitkit.urls import examine

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "maxLength": 5},
        "size": {"type": "integer", "title": "Party size", "minimum": 1, "maximum": 12},
        "seat": {"type": "string", "title": "Seat", "enum": ["in", "out"]},
    },
    "required": ["name"],
}


class Visitor:
    """A program talking to the page: reads it, and posts what its forms would post."""

    def __init__(self, ui: WebUI, client: httpx.AsyncClient, address: str) -> None:
        self.ui = ui
        self.client = client
        self.address = address
        self.origin = address.rstrip("/")

    async def page(self) -> str:
        response = await self.client.get(self.address)
        assert response.status_code == 200
        return response.text

    async def post(self, fields: dict[str, Any], *, csrf: bool = True, **options: Any) -> httpx.Response:
        html = await self.page()
        action = re.search(r'<form method="post" action="([^"]+)"', html)
        assert action is not None, html
        if csrf:
            token = re.search(r'name="csrf" value="([^"]+)"', html)
            assert token is not None
            fields = {"csrf": token.group(1), **fields}
        return await self.client.post(self.origin + action.group(1), data=fields, **options)


@pytest.fixture
def opened() -> list[str]:
    """The URLs the UI asked to open in a browser."""
    return []


@pytest.fixture
async def ui(opened: list[str]) -> AsyncIterator[WebUI]:
    async with WebUI(opener=opened.append) as web:
        yield web


@pytest.fixture
async def visitor(ui: WebUI) -> AsyncIterator[Visitor]:
    async with httpx.AsyncClient(timeout=10) as client:
        yield Visitor(ui, client, await enter(client, await ui.start()))


async def asking(ui: WebUI, question: FormQuestion | UrlQuestion) -> asyncio.Task[Any]:
    if isinstance(question, FormQuestion):
        task = asyncio.create_task(ui.ask_form(question))
    else:
        task = asyncio.create_task(ui.ask_url_consent(question))
    for _ in range(500):
        await asyncio.sleep(0.01)
        try:
            ui.url  # noqa: B018 - the server is up once the URL is known
        except RuntimeError:
            continue
        await asyncio.sleep(0.01)  # the question is on the board a moment after
        return task
    raise AssertionError("the UI never started its page")


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


# -- where the page lives ------------------------------------------------------------------------


async def test_the_browser_is_handed_a_file_only_this_user_can_read(ui: WebUI, opened: list[str]) -> None:
    task = await asking(ui, FormQuestion("Bistro", "Name?", SCHEMA, {}))
    assert opened == [ui.url] and ui.url.startswith("file:///")
    file = Path(unquote(urlsplit(ui.url).path))
    assert stat.S_IMODE(file.stat().st_mode) == 0o600 and file.stat().st_uid == os.getuid()
    assert stat.S_IMODE(file.parent.stat().st_mode) == 0o700 and file.parent.stat().st_uid == os.getuid()
    address, code = way_in(ui.url)
    parts = urlsplit(address)
    assert parts.hostname == "127.0.0.1" and parts.port and parts.path == "/"  # no secret in the address
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", code)  # secrets.token_urlsafe(32)
    async with WebUI(opener=opened.append) as other:
        assert way_in(await other.start())[1] != code and other.url != ui.url
    task.cancel()


async def test_a_guessed_replayed_or_spent_code_is_refused_alike(ui: WebUI) -> None:
    task = await asking(ui, FormQuestion("Bistro", "Name?", SCHEMA, {}))
    address, code = way_in(ui.url)
    async with httpx.AsyncClient(timeout=10) as stranger:
        before = await stranger.post(address + "enter", data={"code": "x" * 43})  # no session exists yet
        async with httpx.AsyncClient(timeout=10) as person:
            assert (await person.post(address + "enter", data={"code": code})).status_code == 200
            assert "Name?" in text_of((await person.get(address)).text)
        refusals = [before]
        for guess in (code, code[:-1], "x" * 43, ""):  # the spent code, a part of it, a guess, none
            refusals.append(await stranger.post(address + "enter", data={"code": guess}))
        refusals.append(await stranger.get(address))
        assert {r.status_code for r in refusals} == {403}
        assert not any(r.cookies for r in refusals)
        assert len({r.text.split("<main>")[1] for r in refusals}) == 1  # the same words, whoever asks
        assert "Name?" not in refusals[-1].text
        # The file holds a fresh code now: opening it again lets the person's browser in.
        fresh = way_in(ui.url)[1]
        assert fresh != code
        assert (await stranger.post(address + "enter", data={"code": fresh})).status_code == 200
        assert "Name?" in text_of((await stranger.get(address)).text)
    task.cancel()


async def test_ui_satisfies_the_protocol() -> None:
    ui: ElicitationUI = WebUI(opener=lambda url: None)
    assert callable(ui.ask_form)


async def test_requests_without_a_session_get_the_door_page_with_the_headers(
    ui: WebUI, visitor: Visitor
) -> None:
    task = await asking(ui, FormQuestion("Bistro", "Name?", SCHEMA, {}))
    async with httpx.AsyncClient(timeout=10) as stranger:
        for path in ("", "events", "answer/x", "favicon.ico", "enter"):
            response = await stranger.get(visitor.address + path)
            assert response.status_code == 403, path
            assert "open it in this browser" in response.text and "Name?" not in response.text
            assert response.headers["x-frame-options"] == "DENY"
        forged = await stranger.post(visitor.address + "answer/x", data={"action": "decline"})
        assert forged.status_code == 403
        stranger.cookies.set(f"elicitkit-{urlsplit(visitor.address).port}", "x" * 43)  # a guessed session
        assert (await stranger.get(visitor.address)).status_code == 403
    assert not task.done()
    task.cancel()


async def test_a_post_from_another_origin_is_refused(ui: WebUI, visitor: Visitor) -> None:
    task = await asking(ui, FormQuestion("Bistro", "Name?", SCHEMA, {}))
    for origin in (
        "https://evil.example",
        f"http://localhost:{urlsplit(visitor.address).port}",
        "http://127.0.0.1:1",
    ):
        response = await visitor.post({"action": "decline"}, headers={"Origin": origin})
        assert response.status_code == 403, origin
    address, code = way_in(ui.url)
    async with httpx.AsyncClient(timeout=10) as other:
        response = await other.post(
            address + "enter", data={"code": code}, headers={"Origin": "https://evil.example"}
        )
        assert response.status_code == 403 and not response.cookies
    await asyncio.sleep(0.05)
    assert not task.done()
    assert (await visitor.post({"action": "decline"}, headers={"Origin": visitor.origin})).status_code == 303
    assert await asyncio.wait_for(task, 5) == DeclinedElicitation()


async def test_every_response_carries_the_security_headers(ui: WebUI, visitor: Visitor) -> None:
    await asking(ui, FormQuestion("Bistro", "Name?", SCHEMA, {}))
    response = await visitor.client.get(visitor.address)
    headers = response.headers
    assert headers["x-frame-options"] == "DENY"
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["cache-control"] == "no-store"
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["cross-origin-opener-policy"] == "same-origin"
    assert headers["cross-origin-resource-policy"] == "same-origin"
    assert len(headers.get_list("x-frame-options")) == len(headers.get_list("content-security-policy")) == 1
    policy = dict(part.strip().split(" ", 1) for part in headers["content-security-policy"].split(";"))
    assert policy["default-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'"
    nonce = re.fullmatch(r"'nonce-([A-Za-z0-9_-]{16,})'", policy["script-src"])
    assert nonce is not None
    scripts = re.findall(r"<script([^>]*)>", response.text)
    assert scripts == [f' nonce="{nonce.group(1)}"']
    assert "style=" not in response.text  # inline style attributes would break under the policy
    second = await visitor.client.get(visitor.address)
    assert second.headers["content-security-policy"] != headers["content-security-policy"]  # fresh nonce


async def test_a_wrong_host_header_is_refused(ui: WebUI, visitor: Visitor) -> None:
    task = await asking(ui, FormQuestion("Bistro", "Name?", SCHEMA, {}))
    port = urlsplit(visitor.address).port
    for host in ("evil.example", f"evil.example:{port}", f"localhost:{port}", "127.0.0.1", "127.0.0.1:1"):
        response = await visitor.client.get(visitor.address, headers={"Host": host})
        assert response.status_code == 400, host
        assert "answers only at" in response.text
        assert response.headers["x-frame-options"] == "DENY"
    response = await visitor.client.post(
        visitor.origin + "/x", headers={"Host": "rebound.example"}, data={"action": "decline"}
    )
    assert response.status_code == 400
    assert not task.done()
    task.cancel()


async def test_a_post_without_the_csrf_token_is_refused(ui: WebUI, visitor: Visitor) -> None:
    task = await asking(ui, FormQuestion("Bistro", "Name?", SCHEMA, {}))
    response = await visitor.post({"action": "decline"}, csrf=False)
    assert response.status_code == 403
    assert "Reload the page" in response.text
    response = await visitor.post({"action": "decline", "csrf": "guess"}, csrf=False)
    assert response.status_code == 403
    response = await visitor.post({"action": "decline"}, headers={"Sec-Fetch-Site": "cross-site"})
    assert response.status_code == 403
    action = re.search(r'<form method="post" action="([^"]+)"', await visitor.page())
    assert action is not None
    response = await visitor.client.post(visitor.origin + action.group(1), json={"action": "decline"})
    assert response.status_code == 415
    await asyncio.sleep(0.05)
    assert not task.done()
    response = await visitor.post({"action": "decline"})
    assert response.status_code == 303
    assert await asyncio.wait_for(task, 5) == DeclinedElicitation()


# -- forms ---------------------------------------------------------------------------------------


async def test_defaults_and_required_marks_are_drawn(ui: WebUI, visitor: Visitor) -> None:
    task = await asking(ui, FormQuestion("Bistro", "Book?", SCHEMA, {"name": "Ann", "seat": "out"}))
    html = await visitor.page()
    assert re.search(r'name="f:name" value="Ann"[^>]*required', html)
    assert re.search(r'<input type="radio" name="f:seat" value="1" checked', html)
    assert 'min="1"' in html and 'max="12"' in html and 'step="1"' in html and 'maxlength="5"' in html
    assert html.count('class="required"') == 2  # the Name field, and the legend under the form
    task.cancel()


async def test_server_side_validation_returns_the_page_with_problems_never_an_answer(
    ui: WebUI, visitor: Visitor
) -> None:
    task = await asking(ui, FormQuestion("Bistro", "Book?", SCHEMA, {}))
    # What a browser's own checks would stop, posted directly: too long, too large, not a choice.
    await visitor.post({"action": "review", "f:name": "Annabel", "f:size": "40", "f:seat": "7"})
    html = await visitor.page()
    page = text_of(html)
    assert "Some answers need fixing" in page
    assert "Must be at most 5 characters." in page
    assert "Must be at most 12." in page
    assert "Choose from the list." in page
    assert 'value="Annabel"' in html  # what the person typed is kept to correct
    # Submitting from the edit step is not possible: the review comes first.
    await visitor.post({"action": "submit"})
    await asyncio.sleep(0.05)
    assert not task.done()
    await visitor.post({"action": "review", "f:name": "Ann", "f:size": "4.5", "f:seat": "1"})
    assert "Enter a whole number" in text_of(await visitor.page())
    await visitor.post({"action": "review", "f:name": "Ann", "f:size": "4", "f:seat": "1"})
    review = text_of(await visitor.page())
    assert "Review your answers" in review and "Nothing has been sent yet" in review
    assert not task.done()
    await visitor.post({"action": "submit"})
    assert await asyncio.wait_for(task, 5) == AcceptedElicitation({"name": "Ann", "size": 4, "seat": "out"})


async def test_problems_from_the_handler_are_shown_next_to_their_fields(ui: WebUI, visitor: Visitor) -> None:
    problems = (
        ValidationProblem("size", "too-large", "'size' must be at most 12, not 40."),
        ValidationProblem(None, "unknown-field", "The answer had a field the form does not ask for."),
    )
    task = await asking(ui, FormQuestion("Bistro", "Book?", SCHEMA, {"name": "Ann", "size": 40}, problems))
    html = await visitor.page()
    field = re.search(r'data-field="size">(.*?)</div>\s*<div class="field', html, re.S)
    assert field is not None and "must be at most 12, not 40" in field.group(1)
    assert "does not ask for" in text_of(html)
    assert re.search(r'id="f1"[^>]*autofocus', html)  # the first field with a problem has the focus
    task.cancel()


async def test_review_then_change_then_submit(ui: WebUI, visitor: Visitor) -> None:
    task = await asking(ui, FormQuestion("Bistro", "Book?", SCHEMA, {"name": "Ann"}))
    await visitor.post({"action": "review", "f:name": "Ann", "f:size": "", "f:seat": ""})
    review = text_of(await visitor.page())
    assert "Party size —" in review  # no answer shown as such
    await visitor.post({"action": "edit:1"})
    html = await visitor.page()
    assert re.search(r'id="f1"[^>]*autofocus', html)
    assert 'value="Ann"' in html
    await visitor.post({"action": "review", "f:name": "Bo", "f:size": "2", "f:seat": ""})
    await visitor.post({"action": "submit"})
    assert await asyncio.wait_for(task, 5) == AcceptedElicitation({"name": "Bo", "size": 2})


async def test_cancel_from_the_review_step(ui: WebUI, visitor: Visitor) -> None:
    task = await asking(ui, FormQuestion("Bistro", "Book?", SCHEMA, {"name": "Ann"}))
    await visitor.post({"action": "review", "f:name": "Ann"})
    html = await visitor.page()
    assert 'value="decline"' in html and 'value="cancel"' in html
    await visitor.post({"action": "cancel"})
    assert await asyncio.wait_for(task, 5) == CancelledElicitation()
    assert "is told it was cancelled" in text_of(await visitor.page())


async def test_server_text_is_inert(ui: WebUI, visitor: Visitor) -> None:
    schema = {
        "type": "object",
        "properties": {"x": {"type": "string", "title": "<b>bold</b>", "default": "https://evil.example/"}},
    }
    message = "<script>alert(1)</script> visit https://evil.example/ \u202eevil"
    task = await asking(
        ui, FormQuestion("<img src=x onerror=alert(1)>", message, schema, schema_defaults(schema))
    )
    html = await visitor.page()
    assert "<script>alert" not in html and "<img" not in html and "<b>bold" not in html
    assert "&lt;script&gt;" in html and "&lt;b&gt;bold&lt;/b&gt;" in html
    assert "<a " not in html and "href" not in html
    assert "\u202e" not in html and "\\u202e" in html
    task.cancel()


def schema_defaults(schema: dict[str, Any]) -> dict[str, Any]:
    return {name: prop["default"] for name, prop in schema["properties"].items() if "default" in prop}


# -- URL consent ---------------------------------------------------------------------------------


async def test_consent_shows_the_url_unlinked_with_domain_and_warnings(ui: WebUI, visitor: Visitor) -> None:
    report = examine("https://login.example.com:8443/elicit/abc?x=1")
    assert report.warnings
    task = await asking(ui, UrlQuestion("Bistro", "Sign in to continue.", report))
    html = await visitor.page()
    assert '<mark class="domain">example.com</mark>' in html
    assert "<a " not in html and "href" not in html
    page = text_of(html)
    for warning in report.warnings:
        assert warning.code in page
    assert "Open in my browser" in page
    await visitor.post({"action": "open"})
    assert await asyncio.wait_for(task, 5) == AcceptedElicitation()


async def test_a_blocked_url_offers_no_open_and_refuses_one(ui: WebUI, visitor: Visitor) -> None:
    report = examine("https://good.example.com@evil.example.net/")
    assert report.verdict == "block"
    task = await asking(ui, UrlQuestion("Bistro", "Sign in.", report))
    html = await visitor.page()
    assert 'value="open"' not in html
    assert "This URL is blocked" in text_of(html)
    await visitor.post({"action": "open"})
    await asyncio.sleep(0.05)
    assert not task.done()
    assert "cannot be opened" in text_of(await visitor.page())
    await visitor.post({"action": "decline"})
    assert await asyncio.wait_for(task, 5) == DeclinedElicitation()


# -- waiting, notices, lifecycle -----------------------------------------------------------------


async def test_waiting_can_be_cancelled_and_says_when_it_timed_out(ui: WebUI, visitor: Visitor) -> None:
    waiting = Waiting("Bistro", [("el-1", "Connect your calendar")], time.monotonic() - 5, timed_out=False)
    task = asyncio.create_task(ui.wait(waiting))
    await asyncio.sleep(0.1)
    page = text_of(await visitor.page())
    assert "Connect your calendar" in page and "retried by itself" in page
    assert "No completion came in time" not in page
    task.cancel()  # what the handler does when the completion arrives
    await asyncio.sleep(0.05)
    assert "Nothing to answer right now" in text_of(await visitor.page())
    task = asyncio.create_task(ui.wait(Waiting("Bistro", [("el-1", "Connect")], time.monotonic(), True)))
    await asyncio.sleep(0.1)
    assert "No completion came in time" in text_of(await visitor.page())
    await visitor.post({"action": "cancel"})
    assert await asyncio.wait_for(task, 5) == "cancel"


async def test_notices_show_on_the_page_and_in_the_events(ui: WebUI, visitor: Visitor) -> None:
    await ui.start()
    ui.notice("Bistro: an elicitation completed.")
    ui.notice("Evil\u202e: <b>hi</b>")
    page = await visitor.page()
    assert "Bistro: an elicitation completed." in text_of(page)
    assert "Evil\\u202e: &lt;b&gt;hi&lt;/b&gt;" in page
    response = await visitor.client.get(visitor.address + "events?since=-1")
    state = response.json()
    assert state["notices"] == ["Evil\\u202e: <b>hi</b>", "Bistro: an elicitation completed."]
    assert state["current"] == "" and state["closed"] is False


async def test_questions_wait_their_turn_and_the_browser_opens_once(
    ui: WebUI, visitor: Visitor, opened: list[str]
) -> None:
    first = await asking(ui, FormQuestion("Bistro", "First?", SCHEMA, {"name": "A"}))
    second = asyncio.create_task(ui.ask_form(FormQuestion("Bistro", "Second?", SCHEMA, {"name": "B"})))
    await asyncio.sleep(0.05)
    page = text_of(await visitor.page())
    assert "First?" in page and "1 more waiting after this one." in page
    await visitor.post({"action": "decline"})
    assert await asyncio.wait_for(first, 5) == DeclinedElicitation()
    assert "Second?" in text_of(await visitor.page())
    await visitor.post({"action": "cancel"})
    assert await asyncio.wait_for(second, 5) == CancelledElicitation()
    assert len(opened) == 1


async def test_a_stale_answer_is_not_applied_to_another_question(ui: WebUI, visitor: Visitor) -> None:
    first = await asking(ui, FormQuestion("Bistro", "First?", SCHEMA, {"name": "A"}))
    html = await visitor.page()
    old_action = re.search(r'<form method="post" action="([^"]+)"', html)
    token = re.search(r'name="csrf" value="([^"]+)"', html)
    assert old_action and token
    first.cancel()
    second = asyncio.create_task(ui.ask_form(FormQuestion("Bistro", "Second?", SCHEMA, {"name": "B"})))
    await asyncio.sleep(0.05)
    await visitor.client.post(
        visitor.origin + old_action.group(1), data={"csrf": token.group(1), "action": "decline"}
    )
    await asyncio.sleep(0.05)
    assert not second.done()
    assert "already answered or withdrawn" in text_of(await visitor.page())
    second.cancel()


async def test_the_events_long_poll_wakes_on_a_new_question(
    ui: WebUI, visitor: Visitor, opened: list[str]
) -> None:
    await ui.start()
    events = visitor.address + "events"
    version = (await visitor.client.get(events, params={"since": "-1"})).json()["version"]
    poll = asyncio.create_task(visitor.client.get(events, params={"since": str(version)}))
    await asyncio.sleep(0.2)
    assert not poll.done()
    task = asyncio.create_task(ui.ask_form(FormQuestion("Bistro", "Now?", SCHEMA, {})))
    state = (await asyncio.wait_for(poll, 5)).json()
    assert state["current"] and state["version"] > version
    assert opened == []  # a page was watching: no new tab
    task.cancel()


async def test_closing_dismisses_open_questions_and_stops_the_server() -> None:
    ui = WebUI(opener=lambda url: None)
    form = asyncio.create_task(ui.ask_form(FormQuestion("Bistro", "Name?", SCHEMA, {})))
    waiting = asyncio.create_task(ui.wait(Waiting("Bistro", [("e", "m")], time.monotonic())))
    await asyncio.sleep(0.2)
    url, (address, _code) = ui.url, way_in(ui.url)
    await ui.aclose()
    assert await asyncio.wait_for(form, 5) == CancelledElicitation()
    assert await asyncio.wait_for(waiting, 5) == "cancel"
    async with httpx.AsyncClient() as client:
        with pytest.raises(httpx.ConnectError):
            await client.get(address)
    assert not Path(unquote(urlsplit(url).path)).parent.exists()  # the file and its folder are gone
    with pytest.raises(RuntimeError, match="not running"):
        _ = ui.url


async def test_a_failing_opener_leaves_the_question_open(caplog: pytest.LogCaptureFixture) -> None:
    def broken(url: str) -> bool:
        return False

    async with WebUI(opener=broken) as ui:
        task = asyncio.create_task(ui.ask_form(FormQuestion("Bistro", "Name?", SCHEMA, {})))
        await asyncio.sleep(0.2)
        assert not task.done()
        assert any(ui.url in record.getMessage() for record in caplog.records)
        task.cancel()
