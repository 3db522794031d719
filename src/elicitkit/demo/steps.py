"""The demo story's steps, in order (`STEPS`), each played on a `Story` and checked.

Steps 1-8 are the 2025-11-25 connection's and the first form on 2026-07-28; the URL-mode
steps on 2026-07-28 are in `elicitkit.demo.url_on_2026`.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from elicitkit.client import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    FormQuestion,
    Reply,
)
from elicitkit.demo._people import DEMO_PASSWORDS, PERSON
from elicitkit.demo._wire import WireLog
from elicitkit.demo.browser import Page
from elicitkit.demo.mcp_server import key_fingerprint
from elicitkit.demo.url_on_2026 import URL_ON_2026
from elicitkit.errors import ElicitationError
from elicitkit.i18n import gettext as _
from elicitkit.i18n import noop
from elicitkit.server.store import ACTIVE

if TYPE_CHECKING:
    from elicitkit.demo.story import Story

__all__ = ["STEPS", "Step", "StepFailedError"]

WEATHER_KEY = "demo-weather-123"
MESSENGER_TOKEN = "demo-messenger-456"  # noqa: S105 - typed by the scripted person, on purpose
ROUNDS_VERSION = "2026-07-28"


class StepFailedError(ElicitationError):
    """A step of the story did not behave as it should; the message says how."""


@dataclass(frozen=True)
class Step:
    """One step of the story: a title, a line about it (English; translated when told), and how it
    is played (and checked)."""

    title: str
    about: str
    play: Callable[[Story], Awaitable[None]]


# -- the steps -----------------------------------------------------------------------------

VISIT_DAY = (date.today() + timedelta(days=14)).isoformat()
BOOKING = {
    "day": VISIT_DAY,
    "party_size": 4,
    "seating": "terrace",
    "dietary": ["vegetarian", "gluten-free"],
    "email": "alice@example.com",
    "high_chair": True,
}


def _fill(changes: dict[str, Any]) -> Callable[[Any], Reply]:
    """Start from what the form shows (its defaults), change some fields, submit."""

    def reply(question: Any) -> Reply:
        assert isinstance(question, FormQuestion)
        return AcceptedElicitation(dict(question.initial) | changes)

    return reply


async def form_every_field(story: Story) -> None:
    story.tell(
        _("Fill in the form; try a party size of 40 to see the answer refused, then review and submit.")
    )
    story.answer(_fill(BOOKING | {"party_size": 40}), _fill(BOOKING))
    text = await story.call("book_table", {"restaurant": "Chez Elicit"})
    if story.scripted is not None:
        shown = story.scripted.shown[-2:]
        properties = shown[0].schema.get("properties", {}) if isinstance(shown[0], FormQuestion) else {}
        kinds = {
            json.dumps({k: v for k, v in p.items() if k in ("type", "format")}) for p in properties.values()
        }
        story.expect(
            len(properties) == 7 and len(kinds) >= 6,
            _("the form had %(fields)d fields of %(kinds)d kinds, not 7 of every kind")
            % {"fields": len(properties), "kinds": len(kinds)},
            _(
                "the form had a date, an integer, a titled choice, a multi-select, a text with a default, "
                "an email and a yes/no"
            ),
        )
        second = shown[-1]
        story.expect(
            isinstance(second, FormQuestion) and any(p.field == "party_size" for p in second.problems),
            _("a party size of 40 was not refused before sending"),
            _("the client refused a party size of 40 before sending, and alice corrected it"),
        )
    story.expect(
        f"Booked Chez Elicit on {VISIT_DAY} for 4, on the terrace" in text
        and "'No special requests'" in text
        and "alice@example.com" in text,
        _("the booking did not come back as answered: %(text)r") % {"text": text},
        _("the tool received every answer, typed, and the note's default"),
    )


async def form_declined(story: Story) -> None:
    story.tell(_("Decline this one (Decline on the review screen, or Ctrl-D in the terminal)."))
    story.answer(DeclinedElicitation())
    text = await story.call("book_table", {"restaurant": "Le Refus"})
    story.expect(
        "you declined" in text,
        _("the tool did not see a decline: %(text)r") % {"text": text},
        _("the tool saw a decline"),
    )


async def form_cancelled(story: Story) -> None:
    story.tell(_("Cancel this one (Cancel, or Ctrl-C in the terminal)."))
    story.answer(CancelledElicitation())
    text = await story.call("book_table", {"restaurant": "Chez Annul"})
    story.expect(
        "dismissed" in text,
        _("the tool did not see a cancel: %(text)r") % {"text": text},
        _("the tool saw a cancel"),
    )


def _sign_in_hint(story: Story) -> None:
    hint = _("In the browser, sign in as %(person)s (password %(password)s) when asked.")
    story.tell(hint % {"person": PERSON, "password": DEMO_PASSWORDS[PERSON]})


async def secret_by_url(story: Story) -> None:
    _sign_in_hint(story)
    story.tell(
        _("Open the page, enter any API key (for example %(key)s) and press Save.") % {"key": WEATHER_KEY}
    )
    story.answer(AcceptedElicitation())
    call = story.start("check_weather", {"city": "Lisbon"})
    url = await story.next_url(call)
    if story.unattended and url is not None:
        browser = story.browser(PERSON)
        page = await browser.open(url)
        _expect_page(story, page, 200, "Demo Weather API key")
        story.transcript.say(
            _("browser (%(person)s)") % {"person": PERSON},
            _("types the API key (%(count)d characters) and presses Save.") % {"count": len(WEATHER_KEY)},
        )
        done = await browser.submit(page, button="save", secret=WEATHER_KEY)
        _expect_page(story, done, 200, _("Done"))
    text = await story.finish(call)
    story.expect(
        f"fingerprinted {key_fingerprint(WEATHER_KEY)}" in text and WEATHER_KEY not in text,
        _("the tool did not get the key entered on the page: %(text)r") % {"text": text},
        _("the tool got the key from the vault; the key itself never passed through the client"),
    )
    story.expect(
        any("completed" in notice for notice in story.notices()),
        _("no completion notice reached alice's client"),
        _("the completion notice reached alice's client"),
    )


async def held_with_32042(story: Story) -> None:
    story.tell(
        _("Open the page and enter any token (for example %(token)s); the call retries by itself.")
        % {"token": MESSENGER_TOKEN}
    )
    story.answer(AcceptedElicitation())
    call = story.start("send_message", {"to": "bob", "text": "See you at Chez Elicit!"})
    url = await story.next_url(call)
    if story.unattended and url is not None:
        browser = story.browser(PERSON)
        page = await browser.open(url)
        _expect_page(story, page, 200, "Demo Messenger token")
        story.transcript.say(
            _("browser (%(person)s)") % {"person": PERSON}, _("types the token and presses Save.")
        )
        done = await browser.submit(page, button="save", secret=MESSENGER_TOKEN)
        _expect_page(story, done, 200, _("Done"))
    text = await story.finish(call)
    if story.scripted is not None:
        story.expect(
            bool(story.scripted.waited),
            _("the call was not held with error -32042"),
            _("the server answered -32042; the client waited for the completion notice"),
        )
    story.expect(
        f"token fingerprint {key_fingerprint(MESSENGER_TOKEN)}" in text,
        _("the retried call did not succeed: %(text)r") % {"text": text},
        _("the client retried the call by itself, and it succeeded"),
    )


async def phishing_refused(story: Story) -> None:
    story.tell(_("Open the page; bob (played by a script) will try your link first."))
    story.answer(AcceptedElicitation())
    call = story.start("list_events", {})
    url = await story.next_url(call)
    if url is None:
        await story.finish(call)
        story.expect(False, _("list_events asked for no URL"))
        story.tell(_("You did not open the link, so there is nothing for bob to open."))
        return
    story.held, story.held_url = call, url
    elicitation_id = url.rsplit("/", 1)[-1]
    before = await story.stage.store.get(elicitation_id)
    story.transcript.say("bob", _("gets the link from alice (or steals it) and opens it, signed in as bob."))
    page = await story.browser("bob").open(url)
    after = await story.stage.store.get(elicitation_id)
    story.expect(
        page.status == 403 and _("This link is not for you") in page.heading,
        _("bob was not refused: HTTP %(status)d, %(heading)r")
        % {"status": page.status, "heading": page.heading},
        _("bob got the refusal page"),
    )
    story.expect(
        before is not None
        and after is not None
        and after.state in ACTIVE
        and after.user.subject == PERSON
        and after.updated_at == before.updated_at,
        _("alice's elicitation changed when bob opened it: %(before)s -> %(after)s")
        % {"before": before, "after": after},
        _("alice's elicitation is unchanged (still %(state)s, still hers)")
        % {"state": after.state if after else "?"},
    )
    story.expect(
        not story.stage.calendar.authorization_headers and not call.task.done(),
        _("something reached Demo Calendar, or the call ended, after bob's visit"),
        _("nothing reached Demo Calendar; alice's call still waits for her"),
    )


async def oauth_connection(story: Story) -> None:
    call, url = story.held, story.held_url
    if call is None:
        story.expect(False, _("there is no call waiting for the calendar connection"))
        story.tell(_("Skipped: no calendar link is open."))
        return
    if story.unattended:
        browser = story.browser(PERSON)
        page = await browser.open(url)
        _expect_page(story, page, 200, "")
        story.transcript.say(
            _("browser (%(person)s)") % {"person": PERSON}, _("agrees to connect Demo Calendar.")
        )
        done = await browser.submit(page)
        _expect_page(story, done, 200, "")
    else:
        story.tell(_("Now in your browser: allow the connection, then sign in to Demo Calendar as alice."))
    text = await story.finish(call)
    story.held = None
    story.expect(
        "alice's Demo Calendar" in text and "Dentist" in text and "Lunch with Carol" in text,
        _("the tool did not list alice's events: %(text)r") % {"text": text},
        _("the tool read alice's events from Demo Calendar with her calendar token"),
    )
    headers = story.stage.calendar.authorization_headers
    story.expect(
        bool(headers) and all(story.mcp_token not in header for header in headers),
        _("alice's MCP access token was sent to Demo Calendar (token passthrough)"),
        _("Demo Calendar never saw alice's MCP access token"),
    )


async def form_on_2026(story: Story) -> None:
    story.tell(_("The booking form again, on a 2026-07-28 connection: fill it in and submit."))
    story.answer(_fill(BOOKING))
    wire = WireLog(story.transcript, PERSON)
    async with story.connect("auto", wire=wire) as client:
        story.transcript.say(
            _("%(person)s's client") % {"person": PERSON},
            _(
                "opens a second connection to the same server, taking the newest revision both speak: "
                "MCP %(version)s."
            )
            % {"version": client.protocol_version},
        )
        versions = {"version": client.protocol_version, "expected": ROUNDS_VERSION}
        story.expect(
            client.protocol_version == ROUNDS_VERSION,
            _("the second connection is at MCP %(version)s, not %(expected)s") % versions,
            _("the second connection is at MCP %(expected)s") % versions,
        )
        text = await story.call("book_table", {"restaurant": "Chez Elicit"}, via=client)
    story.expect(
        wire.asked_in_result(),
        _("the question did not come in the tool result; on the wire: %(wire)s") % {"wire": wire.summary()},
        _(
            "on the wire: no elicitation/create request; the question came in an input_required result, "
            "and the call made again with the answers completed"
        ),
    )
    story.expect(
        f"Booked Chez Elicit on {VISIT_DAY} for 4, on the terrace" in text and "alice@example.com" in text,
        _("the booking did not come back as answered: %(text)r") % {"text": text},
        _("the same booking confirmation as in step 1"),
    )


def _expect_page(story: Story, page: Page, status: int, heading: str) -> None:
    story.expect(
        page.status == status and heading in page.heading,
        _("the browser landed on %(landed)r (HTTP %(status)d), not %(wanted)r (HTTP %(expected)d)")
        % {
            "landed": page.heading or page.title,
            "status": page.status,
            "wanted": heading or _("a page"),
            "expected": status,
        },
    )


STEPS: list[Step] = [
    Step(
        noop("A form with every kind of field"),
        noop("book_table asks in form mode; the client validates, alice reviews and submits."),
        form_every_field,
    ),
    Step(noop("A form declined"), noop("The same question; alice says no."), form_declined),
    Step(noop("A form cancelled"), noop("The same question; alice dismisses it."), form_cancelled),
    Step(
        noop("A secret by URL mode"),
        noop("check_weather needs an API key: it must never go through the chat, so it is typed on a page."),
        secret_by_url,
    ),
    Step(
        noop("Held with -32042, retried by itself"),
        noop("send_message needs a token and answers error -32042; the client retries after completion."),
        held_with_32042,
    ),
    Step(
        noop("A phishing attempt, refused"),
        noop("list_events needs alice's Demo Calendar; bob opens alice's link first."),
        phishing_refused,
    ),
    Step(
        noop("A third-party OAuth connection"),
        noop("alice opens her link, connects Demo Calendar, and the waiting call lists her events."),
        oauth_connection,
    ),
    Step(
        noop("The same tool on a 2026-07-28 connection"),
        noop(
            "book_table again, on a second connection at the newer revision: the server returns its "
            "question in the tool result, and the client calls again with the answers."
        ),
        form_on_2026,
    ),
    *(Step(title, about, play) for title, about, play in URL_ON_2026),
]
