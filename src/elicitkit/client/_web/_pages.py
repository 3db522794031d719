"""The web UI's HTTP side: a small Starlette app, behind a guard, showing the board's first question.

The guard comes first for every request: the Host header must be exactly 127.0.0.1:port (a
DNS-rebinding page cannot reach it under another name), a POST must not name another origin
(the page's own forms send `null` under its no-referrer policy, as does the door's file), and
only a browser the door let in (`_door.Door`: its session cookie) reaches the pages; any other request
gets the door's page, which says how to get in and nothing more. Every response carries the
security headers (`elicitkit.asgi.SecurityHeaders`), with a fresh nonce for the page's one
inline style and one inline script. Every answer carries the CSRF token; a cross-site one is
refused.

Pages are server-rendered (Jinja2, autoescaped). Everything a server sent is drawn as inert
text with its hidden characters made visible, and no URL is a link (C-24) but one: the URL the
person agreed to open when no browser could open it. A POST answers and redirects (303) to the
page for what comes next.
"""

from __future__ import annotations

import asyncio
import secrets
import time
import urllib.parse
from collections.abc import Callable, Mapping
from typing import Any

import jinja2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from elicitkit.asgi import SecurityHeaders, csp_nonce
from elicitkit.client._fields import safe
from elicitkit.client._ui import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    FormQuestion,
    UrlQuestion,
    said,
)
from elicitkit.client._ui import said as in_words
from elicitkit.client._web._board import Board, Entry, Outcome
from elicitkit.client._web._door import Door
from elicitkit.i18n import Translator, current, environment, speaking
from elicitkit.i18n import gettext as _
from elicitkit.urls import UrlReport, reveal

_LONG_POLL = 25.0
_MAX_BODY = 1 << 20
_FORM = "application/x-www-form-urlencoded"
_POLICY = (
    "default-src 'self'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
)

_templates = environment(
    jinja2.PackageLoader("elicitkit.client", "web_templates"),
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    auto_reload=False,  # templates ship with the package; no stat() per page
)


def build_app(board: Board, door: Door, csrf: str, words: Translator) -> ASGIApp:
    """The whole site at the door's address, wrapped in the guard, speaking `words`."""
    pages = _Pages(board, door, csrf)
    site = Starlette(
        routes=[
            Route("/", pages.show, methods=["GET"]),
            Route("/events", pages.events, methods=["GET"]),
            Route("/answer/{entry}", pages.answer, methods=["POST"]),
            Route("/enter", pages.enter, methods=["POST"]),
        ]
    )
    return SecurityHeaders(_Guard(site, pages, words), content_security_policy=_POLICY)


def launch_page(words: Translator) -> Callable[[str, str], str]:
    """What the door's file holds: a page, in `words`, that posts the code to the page's address."""

    def render(address: str, code: str) -> str:
        with speaking(words):
            page: str = _templates.get_template("launch.html").render(
                address=address, code=code, **current().jinja
            )
        return page

    return render


class _Guard:
    """The Host check, the Origin check and the door, before anything else runs."""

    def __init__(self, app: ASGIApp, pages: _Pages, words: Translator) -> None:
        self.app = app
        self.pages = pages
        self.words = words
        self.origin = pages.door.address.rstrip("/")
        self.host = urllib.parse.urlsplit(self.origin).netloc

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # no lifespan, no websockets: only pages are served
        request = Request(scope, receive)
        entering = scope["path"] == "/enter" and request.method == "POST"
        with speaking(self.words):
            if request.headers.get("host") != self.host:
                where = _("This page answers only at %(address)s.") % {"address": f"{self.origin}/"}
                refusal: Response = PlainTextResponse(where, 400)
            elif request.method == "POST" and self._foreign(request):
                refusal = PlainTextResponse(_not_from_here(), 403)
            elif entering or self.pages.admitted(request):
                await self.app(scope, receive, send)
                return
            else:
                refusal = self.pages.door_page(request)
            await refusal(scope, receive, send)

    def _foreign(self, request: Request) -> bool:
        """A POST from another origin. The page's own forms send `null` (the page's referrer
        policy is no-referrer), and so does the door's file."""
        return request.headers.get("origin", "null") not in ("null", self.origin)


def _not_from_here() -> str:
    return _(
        "This answer did not come from this page (the form's security token is missing or "
        "wrong). Reload the page and answer again."
    )


class _Pages:
    """The routes: the page for the current question, its long-poll, its answers, and the door."""

    def __init__(self, board: Board, door: Door, csrf: str) -> None:
        self.board = board
        self.door = door
        self.csrf = csrf

    def admitted(self, request: Request) -> bool:
        return self.door.admits(request.cookies.get(self.door.cookie))

    async def enter(self, request: Request) -> Response:
        """The door: a browser that posts the file's code (once) gets its session cookie."""
        if self.admitted(request):
            return self._entered(request)  # the person's own browser, posting again
        posted = await _posted(request) if _is_form(request) else None
        session = self.door.enter((posted or {}).get("code", [""])[0].strip())
        if session is None:
            return self.door_page(request)
        response = self._entered(request)
        response.set_cookie(self.door.cookie, session, httponly=True, samesite="strict", path="/")
        return response

    def door_page(self, request: Request) -> Response:
        """What anyone without a session gets, whatever they sent: how the person gets in."""
        return self._render(request, "door.html", 403, title=_("Open your page"), file=self.door.url)

    def _entered(self, request: Request) -> Response:
        # Not a redirect: a same-site step from here onward, so the browser sends the new
        # SameSite=Strict cookie with it (a redirect would still count as the file's request).
        return self._render(request, "entered.html", title=_("Open your page"))

    async def show(self, request: Request) -> Response:
        self.board.seen()
        entry = self.board.current
        if entry is None:
            return self._board(request, "idle.html", title=_("Nothing to answer"))
        question = entry.question
        server = safe(said(question.server, _))
        if isinstance(question, FormQuestion):
            assert entry.draft is not None
            return self._board(
                request,
                "review.html" if entry.draft.step == "review" else "form.html",
                title=_("A form from %(server)s") % {"server": server},
                entry=entry,
                server=server,
                message=safe(question.message),
                draft=entry.draft,
            )
        if isinstance(question, UrlQuestion):
            report = question.report
            drawn = "".join(part.text for part in report.parts)
            return self._board(
                request,
                "consent.html",
                title=_("Open a web page for %(server)s?") % {"server": server},
                entry=entry,
                server=server,
                message=safe(question.message),
                report=report,
                parts=_parts(report),
                sent_as=reveal(report.url) if drawn != report.url else None,
                domain=_forms(report.domain_unicode, report.domain),
                host=_forms(report.host_unicode, report.host),
                warnings=_warnings(report),
            )
        elapsed = max(0.0, time.monotonic() - question.started)
        return self._board(
            request,
            "waiting.html",
            title=_("Waiting for %(server)s") % {"server": server},
            entry=entry,
            server=server,
            waiting=question,
            pending=[safe(text) for _id, text in question.pending],
            notes=[safe(said(n, _)) for n in question.notes],
            elapsed=f"{elapsed:.1f}",
            clock=_clock(elapsed),
        )

    async def events(self, request: Request) -> Response:
        """Long-poll: answer as soon as the board differs from the page's `since` version."""
        self.board.seen()
        try:
            since = int(request.query_params.get("since", ""))
        except ValueError:
            since = -1
        changed = asyncio.ensure_future(self.board.wait_change(since, _LONG_POLL))
        gone = asyncio.ensure_future(_disconnected(request.receive))
        try:
            await asyncio.wait({changed, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            changed.cancel()
            gone.cancel()
        self.board.seen()
        return JSONResponse(self.board.state())

    async def answer(self, request: Request) -> Response:
        self.board.seen()
        if not _is_form(request):
            return PlainTextResponse(_("Answers are sent as a form post from this page."), 415)
        posted = await _posted(request)
        if posted is None:
            return PlainTextResponse(_("The answer is too large to be a reply to this page."), 413)
        token = posted.get("csrf", [""])[0]
        fetch_site = request.headers.get("sec-fetch-site", "same-origin")
        if not secrets.compare_digest(token.encode(), self.csrf.encode()) or fetch_site not in (
            "same-origin",
            "none",
        ):
            return PlainTextResponse(_not_from_here(), 403)
        entry = self.board.find(request.path_params["entry"])
        action = posted.get("action", [""])[0]
        if entry is None:
            self.board.tell(
                Outcome(_("That question was already answered or withdrawn; here is what is open now."))
            )
        elif isinstance(entry.question, FormQuestion):
            self._answer_form(entry, action, posted)
        elif isinstance(entry.question, UrlQuestion):
            self._answer_consent(entry, action)
        else:
            self._answer_wait(entry, action)
        return RedirectResponse("/", status_code=303)

    def _answer_form(self, entry: Entry, action: str, posted: Mapping[str, list[str]]) -> None:
        draft, server = entry.draft, safe(in_words(entry.question.server, _))
        assert draft is not None
        if action == "decline":
            said = _("You declined the form; “%(server)s” is told you said no.") % {"server": server}
            self.board.answer(entry, DeclinedElicitation(), Outcome(said))
        elif action == "cancel":
            said = _("You dismissed the form; “%(server)s” is told it was cancelled.") % {"server": server}
            self.board.answer(entry, CancelledElicitation(), Outcome(said))
        elif action == "review":
            draft.take(posted)
            draft.step = "review" if draft.check() else "edit"
        elif action == "submit" and draft.step == "review" and draft.check():
            said = _("✓ Your answers were sent to “%(server)s”.") % {"server": server}
            self.board.answer(entry, AcceptedElicitation(draft.content), Outcome(said))
        else:
            draft.step = "edit"
            index = action.removeprefix("edit:")
            if index.isdigit() and int(index) < len(draft.fields):
                draft.focus = draft.fields[int(index)].name

    def _answer_consent(self, entry: Entry, action: str) -> None:
        question = entry.question
        assert isinstance(question, UrlQuestion)
        if action == "open" and question.report.verdict != "block":
            agreed = Outcome(_("✓ You agreed: the page opens in your system browser."), question.report)
            self.board.answer(entry, AcceptedElicitation(), agreed)
        elif action == "open":
            entry.problem = _("This URL is blocked, so it cannot be opened. Decline or cancel.")
        elif action == "decline":
            self.board.answer(entry, DeclinedElicitation(), Outcome(_("Not opened: you declined.")))
        elif action == "cancel":
            self.board.answer(entry, CancelledElicitation(), Outcome(_("Not opened: cancelled.")))

    def _answer_wait(self, entry: Entry, action: str) -> None:
        if action == "retry":
            self.board.answer(entry, "retry", Outcome(_("↻ Retrying the call now.")))
        elif action == "cancel":
            self.board.answer(entry, "cancel", Outcome(_("Stopped waiting: the call was cancelled.")))

    def _board(self, request: Request, template: str, **context: Any) -> Response:
        """A page of the board: `template`, with the last outcome and what waits after this page."""
        board = self.board
        shown, outcome = board.current, board.outcome
        return self._render(
            request,
            template,
            csrf=self.csrf,
            version=board.version,
            told=board.told,
            current=shown.id if shown else "",
            queued=max(0, len(board.entries) - 1),
            notices=board.recent_notices(),
            outcome=outcome,
            link=_link(outcome.url) if outcome is not None and outcome.by_hand and outcome.url else None,
            **context,
        )

    def _render(self, request: Request, template: str, status: int = 200, **context: Any) -> Response:
        html = _templates.get_template(template).render(
            nonce=csp_nonce(request.scope), **current().jinja, **context
        )
        return HTMLResponse(html, status)


def _is_form(request: Request) -> bool:
    return request.headers.get("content-type", "").split(";")[0].strip() == _FORM


async def _posted(request: Request) -> dict[str, list[str]] | None:
    """The posted form fields, or None when the body is too large (or not a form's encoding)."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > _MAX_BODY:
            return None
    fields: dict[str, list[str]] = {}
    text = body.decode("utf-8", errors="replace")
    try:
        pairs = urllib.parse.parse_qsl(text, keep_blank_values=True, max_num_fields=10_000)
    except ValueError:
        return None
    for name, value in pairs:
        fields.setdefault(name, []).append(value)
    return fields


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def _parts(report: UrlReport) -> list[tuple[str, str]]:
    """The URL as drawn, part by part, each with its role (the domain is the one to highlight)."""
    return [(reveal(part.text), part.role) for part in report.parts]


def _warnings(report: UrlReport) -> list[tuple[str, str, str]]:
    return [(w.severity, reveal(w.say(_)), w.code) for w in report.warnings]


def _link(report: UrlReport) -> dict[str, Any]:
    """A URL the person agreed to open, for them to open by hand: a link only for http(s)."""
    web = urllib.parse.urlsplit(report.url).scheme.lower() in ("http", "https")
    return {"href": report.url if web else None, "parts": _parts(report), "warnings": _warnings(report)}


def _forms(unicode_name: str | None, ascii_name: str | None) -> tuple[str, str | None] | None:
    """A name as it reads, and its punycode form when that differs; None when there is no name."""
    if not ascii_name:
        return None
    readable = unicode_name or ascii_name
    return reveal(readable), (ascii_name if ascii_name != readable else None)


def _clock(seconds: float) -> str:
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60:02d}:{rest % 60:02d}"
