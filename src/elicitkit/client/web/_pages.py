"""The web UI's HTTP side: a small Starlette app, behind a guard, showing the board's first question.

The guard comes first for every request: the Host header must be exactly 127.0.0.1:port (a
DNS-rebinding page cannot reach it under another name), the path must start with the secret
token (anything else is a 404), and every response carries the security headers
(`elicitkit.asgi.SecurityHeaders`), with a fresh nonce for the page's one inline style and one
inline script. Every POST carries the CSRF token; a cross-site one is refused.

Pages are server-rendered (Jinja2, autoescaped). Everything a server sent is drawn as inert
text with its hidden characters made visible, and no URL is ever a link (C-24). A POST
answers and redirects (303) to the page for what comes next.
"""

from __future__ import annotations

import asyncio
import secrets
import time
import urllib.parse
from collections.abc import Mapping
from typing import Any

import jinja2
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from elicitkit.asgi import SecurityHeaders, csp_nonce
from elicitkit.client._fields import safe
from elicitkit.client.ui import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    FormQuestion,
    UrlQuestion,
    said,
)
from elicitkit.client.ui import said as in_words
from elicitkit.client.web._board import Board, Entry
from elicitkit.i18n import Translator, current, environment, speaking
from elicitkit.i18n import gettext as _
from elicitkit.urls import reveal

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


def build_app(board: Board, token: str, csrf: str, port: int, words: Translator) -> ASGIApp:
    """The whole site: the pages under `/<token>/`, wrapped in the guard, speaking `words`."""
    pages = _Pages(board, f"/{token}", csrf)
    site = Starlette(
        routes=[
            Mount(
                f"/{token}",
                routes=[
                    Route("/", pages.show, methods=["GET"]),
                    Route("/events", pages.events, methods=["GET"]),
                    Route("/answer/{entry}", pages.answer, methods=["POST"]),
                ],
            )
        ]
    )
    return SecurityHeaders(_Guard(site, token, f"127.0.0.1:{port}", words), content_security_policy=_POLICY)


class _Guard:
    """Host check and token check, before anything else runs."""

    def __init__(self, app: ASGIApp, token: str, host: str, words: Translator) -> None:
        self.app = app
        self.words = words
        self.token = token.encode()
        self.host = host

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # no lifespan, no websockets: only pages are served
        with speaking(self.words):
            if Headers(scope=scope).get("host") != self.host:
                where = _("This page answers only at %(address)s.") % {"address": f"http://{self.host}/"}
                refusal: Response = PlainTextResponse(where, 400)
            elif not self._has_token(scope["path"]):
                refusal = PlainTextResponse(_("Not Found"), 404)
            else:
                await self.app(scope, receive, send)
                return
            await refusal(scope, receive, send)

    def _has_token(self, path: str) -> bool:
        first = path.lstrip("/").split("/", 1)[0]
        return secrets.compare_digest(first.encode(), self.token)


class _Pages:
    """The three routes: the page for the current question, its long-poll, and its answers."""

    def __init__(self, board: Board, base: str, csrf: str) -> None:
        self.board = board
        self.base = base
        self.csrf = csrf

    async def show(self, request: Request) -> Response:
        self.board.seen()
        entry = self.board.current
        if entry is None:
            return self._render(request, "idle.html", title=_("Nothing to answer"))
        question = entry.question
        server = safe(said(question.server, _))
        if isinstance(question, FormQuestion):
            assert entry.draft is not None
            return self._render(
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
            return self._render(
                request,
                "consent.html",
                title=_("Open a web page for %(server)s?") % {"server": server},
                entry=entry,
                server=server,
                message=safe(question.message),
                report=report,
                parts=[(reveal(part.text), part.role) for part in report.parts],
                sent_as=reveal(report.url) if drawn != report.url else None,
                domain=_forms(report.domain_unicode, report.domain),
                host=_forms(report.host_unicode, report.host),
                warnings=[(w.severity, reveal(w.say(_)), w.code) for w in report.warnings],
            )
        elapsed = max(0.0, time.monotonic() - question.started)
        return self._render(
            request,
            "waiting.html",
            title=_("Waiting for %(server)s") % {"server": server},
            entry=entry,
            server=server,
            waiting=question,
            pending=[(safe(i), safe(m)) for i, m in question.pending],
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
        if request.headers.get("content-type", "").split(";")[0].strip() != _FORM:
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
            return PlainTextResponse(
                _(
                    "This answer did not come from this page (the form's security token is missing or "
                    "wrong). Reload the page and answer again."
                ),
                403,
            )
        entry = self.board.find(request.path_params["entry"])
        action = posted.get("action", [""])[0]
        if entry is None:
            self.board.flash = _("That question was already answered or withdrawn; here is what is open now.")
        elif isinstance(entry.question, FormQuestion):
            self._answer_form(entry, action, posted)
        elif isinstance(entry.question, UrlQuestion):
            self._answer_consent(entry, action)
        else:
            self._answer_wait(entry, action)
        return RedirectResponse(f"{self.base}/", status_code=303)

    def _answer_form(self, entry: Entry, action: str, posted: Mapping[str, list[str]]) -> None:
        draft, server = entry.draft, safe(in_words(entry.question.server, _))
        assert draft is not None
        if action == "decline":
            said = _("You declined the form; “%(server)s” is told you said no.") % {"server": server}
            self.board.answer(entry, DeclinedElicitation(), said)
        elif action == "cancel":
            said = _("You dismissed the form; “%(server)s” is told it was cancelled.") % {"server": server}
            self.board.answer(entry, CancelledElicitation(), said)
        elif action == "review":
            draft.take(posted)
            draft.step = "review" if draft.check() else "edit"
        elif action == "submit" and draft.step == "review" and draft.check():
            said = _("✓ Your answers were sent to “%(server)s”.") % {"server": server}
            self.board.answer(entry, AcceptedElicitation(draft.content), said)
        else:
            draft.step = "edit"
            index = action.removeprefix("edit:")
            if index.isdigit() and int(index) < len(draft.fields):
                draft.focus = draft.fields[int(index)].name

    def _answer_consent(self, entry: Entry, action: str) -> None:
        question = entry.question
        assert isinstance(question, UrlQuestion)
        if action == "open" and question.report.verdict != "block":
            self.board.answer(
                entry, AcceptedElicitation(), _("✓ You agreed: the page opens in your system browser.")
            )
        elif action == "open":
            entry.problem = _("This URL is blocked, so it cannot be opened. Decline or cancel.")
        elif action == "decline":
            self.board.answer(entry, DeclinedElicitation(), _("Not opened: you declined."))
        elif action == "cancel":
            self.board.answer(entry, CancelledElicitation(), _("Not opened: cancelled."))

    def _answer_wait(self, entry: Entry, action: str) -> None:
        if action == "retry":
            self.board.answer(entry, "retry", _("↻ Retrying the call now."))
        elif action == "cancel":
            self.board.answer(entry, "cancel", _("Stopped waiting: the call was cancelled."))

    def _render(self, request: Request, template: str, **context: Any) -> Response:
        board = self.board
        shown = board.current
        flash, board.flash = board.flash, None
        html = _templates.get_template(template).render(
            nonce=csp_nonce(request.scope),
            base=self.base,
            csrf=self.csrf,
            version=board.version,
            current=shown.id if shown else "",
            queued=max(0, len(board.entries) - 1),
            notices=board.recent_notices(),
            flash=flash,
            **current().jinja,
            **context,
        )
        return HTMLResponse(html)


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
