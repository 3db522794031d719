"""The story's URL-mode steps on a 2026-07-28 connection: a secret, then the calendar connection.

The same tools as steps 4 and 7, on a connection at the newer revision, where the server
returns the URL inside the tool result and the client calls again. alice first clears what she
gave in those steps (as from an account page), so the tools must ask again. Each step checks
on the wire that the URL was asked once, and that alice saw one consent screen, however many
times the call was made again while she was in the browser.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from elicitkit.client import AcceptedElicitation, UrlQuestion
from elicitkit.demo._people import DEMO_PASSWORDS
from elicitkit.demo._wire import WireLog
from elicitkit.demo.mcp_server import key_fingerprint
from elicitkit.i18n import gettext as _
from elicitkit.i18n import noop
from elicitkit.server import User

if TYPE_CHECKING:
    from elicitkit.demo.story import Story

__all__ = ["URL_ON_2026", "calendar_on_2026", "secret_on_2026"]

_PERSON = "alice"
_VERSION = "2026-07-28"
_KEY = "demo-weather-789"


def _consent_screens(story: Story) -> int:
    shown = story.scripted.shown if story.scripted is not None else []
    return sum(isinstance(question, UrlQuestion) for question in shown)


async def _forget(story: Story, vault_name: str, what: str) -> None:
    user = User(story.stage.auth.issuer, _PERSON)
    url_mode = story.stage.server.url_mode
    assert url_mode is not None
    await url_mode.vault.delete(user, vault_name)
    said = _("clears %(what)s (as from her account page), so it must be asked again.") % {"what": what}
    story.transcript.say(_PERSON, said)


def _check_rounds(story: Story, wire: WireLog, screens_before: int) -> None:
    story.expect(
        wire.elicitation_requests == 0 and wire.questions_in_results == ["elicitation/create"],
        _("the URL was not asked exactly once, in a tool result; on the wire: %(wire)s")
        % {"wire": wire.summary()},
        _(
            "on the wire: the URL came once, inside a tool result; the calls made again while alice was "
            "in the browser did not ask it again"
        ),
    )
    story.expect(
        _consent_screens(story) - screens_before == 1,
        _("alice saw %(count)d consent screens for one URL")
        % {"count": _consent_screens(story) - screens_before},
        _("alice saw one consent screen for the URL"),
    )


async def secret_on_2026(story: Story) -> None:
    await _forget(story, "demo-weather-api-key", _("her Demo Weather API key"))
    story.tell(
        _("Open the page, sign in as %(person)s if asked, enter any API key and press Save.")
        % {"person": _PERSON}
    )
    story.answer(AcceptedElicitation())
    wire = WireLog(story.transcript, _PERSON)
    screens_before = _consent_screens(story)
    async with story.connect("auto", wire=wire) as client:
        story.expect(
            client.protocol_version == _VERSION,
            _("the connection is at MCP %(version)s, not %(expected)s")
            % {"version": client.protocol_version, "expected": _VERSION},
        )
        call = story.start("check_weather", {"city": "Porto"}, via=client)
        url = await story.next_url(call)
        if story.unattended and url is not None:
            browser = story.browser(_PERSON)
            page = await browser.open(url)
            story.expect(
                page.status == 200, _("the secret's page answered HTTP %(status)d") % {"status": page.status}
            )
            story.transcript.say(
                _("browser (%(person)s)") % {"person": _PERSON}, _("types a new API key and presses Save.")
            )
            done = await browser.submit(page, button="save", secret=_KEY)
            story.expect(
                done.status == 200, _("saving the key answered HTTP %(status)d") % {"status": done.status}
            )
        text = await story.finish(call)
    story.expect(
        f"fingerprinted {key_fingerprint(_KEY)}" in text,
        _("the tool did not get the new key: %(text)r") % {"text": text},
        _("the tool got the new key from the vault, on 2026-07-28 too"),
    )
    _check_rounds(story, wire, screens_before)


async def calendar_on_2026(story: Story) -> None:
    connection = story.stage.server.calendar_connection
    assert connection is not None
    await _forget(story, f"oauth:{connection.name}:tokens", _("her Demo Calendar connection"))
    story.tell(
        _(
            "Open the page, allow the connection, and sign in to Demo Calendar as %(person)s "
            "(password %(password)s)."
        )
        % {"person": _PERSON, "password": DEMO_PASSWORDS[_PERSON]}
    )
    story.answer(AcceptedElicitation())
    wire = WireLog(story.transcript, _PERSON)
    screens_before = _consent_screens(story)
    async with story.connect("auto", wire=wire) as client:
        call = story.start("list_events", {}, via=client)
        url = await story.next_url(call)
        if story.unattended and url is not None:
            browser = story.browser(_PERSON)
            page = await browser.open(url)
            story.transcript.say(
                _("browser (%(person)s)") % {"person": _PERSON}, _("agrees to connect Demo Calendar.")
            )
            done = await browser.submit(page)
            story.expect(
                done.status == 200, _("connecting answered HTTP %(status)d") % {"status": done.status}
            )
        text = await story.finish(call)
    story.expect(
        "alice's Demo Calendar" in text and "Dentist" in text,
        _("the tool did not list alice's events: %(text)r") % {"text": text},
        _("the tool read alice's events with the newly connected calendar"),
    )
    _check_rounds(story, wire, screens_before)


URL_ON_2026: list[tuple[str, str, Callable[[Story], Awaitable[None]]]] = [
    (
        noop("A secret by URL mode on 2026-07-28"),
        noop("check_weather again at the newer revision: the URL comes in the tool result, once."),
        secret_on_2026,
    ),
    (
        noop("A calendar connection on 2026-07-28"),
        noop("list_events again at the newer revision: one consent, then the call waits for the browser."),
        calendar_on_2026,
    ),
]
"""The steps as (title, about, play), for `story.STEPS`."""
