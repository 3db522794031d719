"""The Starlette routes behind `<public url>/elicit/<id>`.

Every page checks that the person in the browser is the user the record belongs to before it
shows or accepts anything (S-34); a different person gets a refusal and nothing changes.
Pages are Jinja2 with autoescape, every POST carries a CSRF token tied to the browser
session and is refused when its `Origin` or `Sec-Fetch-Site` says another site, every
response forbids framing, and the one cookie is `__Host-`, Secure, HttpOnly, SameSite=Lax
and sealed with the vault's key ring. Nothing sensitive goes into a URL or log.
"""

from __future__ import annotations

import hmac
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

import anyio
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from elicitkit.asgi import SecurityHeaders
from elicitkit.i18n import Translator, negotiate, noop, speaking, translator
from elicitkit.server._errors import BackendUnavailableError, StoreUnavailableError
from elicitkit.server._user import User
from elicitkit.server._web._form import read_form
from elicitkit.server._web.flows import ClosingFlow, Flow, HandOffFlow
from elicitkit.server._web.pages import Pages
from elicitkit.server._web.sessions import COOKIE, BrowserSession, SessionCookies
from elicitkit.server.store import ACTIVE, Record, holding

if TYPE_CHECKING:
    from elicitkit.server._vault import KeyRing
    from elicitkit.server._web.identity import BrowserIdentity
    from elicitkit.server.bus import Bus
    from elicitkit.server.store import Store

__all__ = [
    "COOKIE",
    "POLICY",
    "PREFIX",
    "BrowserSession",
    "Site",
]

logger = logging.getLogger(__name__)

PREFIX = "/elicit"
_FINISH_MARGIN = 1.0
"""Seconds past the store's deadline that a page's lock on a record lives (see `complete`)."""
_DEFAULT_DEADLINE = 10.0
"""The deadline of a store that states none (in memory: its calls never wait)."""
_ELICITATION_ID = re.compile(r"^[A-Za-z0-9_-]{32,64}$")
_HERE = Path(__file__).parent
_UNNAMED = noop("This server")
"""The server name `UrlMode` gives a server that did not say its own: translated on the page."""
_WORDS = "elicitkit.words"
"""The request scope's key for the page's `Translator`, negotiated once per request."""

POLICY = (
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
"""The pages' Content-Security-Policy: no script at all, styles from our own stylesheet only."""


class Site:
    """The URL-mode pages of one server, ready to mount on any Starlette app."""

    def __init__(
        self,
        *,
        server_name: str,
        store: Store,
        keys: KeyRing,
        bus: Bus,
        browser: BrowserIdentity,
        flows: Mapping[str, Flow],
        public_url: str,
        locale: str | None = None,
    ) -> None:
        self.server_name = server_name
        self.store = store
        self.keys = keys
        self.bus = bus
        self.browser = browser
        self.flows = flows
        self.public_url = public_url.rstrip("/")
        self.locale: Translator | None = translator(locale) if locale is not None else None
        """The language of every page when set; None: each browser's `Accept-Language` decides."""
        self._pages = Pages(_HERE / "templates")
        self._cookies = SessionCookies(store.clock)  # a session's hours are the store's, as a link's

    # -- routes --------------------------------------------------------------------------

    @property
    def named(self) -> bool:
        """Whether the server gave its own name (an unnamed one is "This server" on its pages)."""
        return self.server_name != _UNNAMED

    def routes(self) -> list[Route]:
        """Every page, each behind `SecurityHeaders` (an ASGI app as the route's endpoint, so a
        server mounts it with `custom_route` as it is)."""
        own: list[BaseRoute] = [
            Route(f"{PREFIX}/static/style.css", self._style, methods=["GET"]),
            *self.browser.routes(self),
            Route(f"{PREFIX}/{{elicitation_id}}", self._speaking(self._landing), methods=["GET"]),
            Route(f"{PREFIX}/{{elicitation_id}}", self._speaking(self._submit), methods=["POST"]),
            Route(f"{PREFIX}/callback/{{flow}}", self._speaking(self._flow_callback), methods=["GET"]),
        ]
        hardened = []
        for route in own:
            assert isinstance(route, Route)
            page = SecurityHeaders(route.app, content_security_policy=POLICY)
            hardened.append(Route(route.path, page, methods=sorted(route.methods or {"GET"})))
        return hardened

    def _speaking(
        self, endpoint: Callable[[Request], Awaitable[Response]]
    ) -> Callable[[Request], Awaitable[Response]]:
        """`endpoint` run in the page's language, so what a flow says (`elicitkit.i18n.gettext`:
        a secret's "Enter the ...", an OAuth page's title) is in the words of the page."""

        async def in_page_language(request: Request) -> Response:
            with speaking(self.translator(request)):
                return await endpoint(request)

        return in_page_language

    def url_for(self, elicitation_id: str) -> str:
        """The URL a client shows: the public base and the record id, nothing else (S-21)."""
        return f"{self.public_url}{PREFIX}/{elicitation_id}"

    # -- sessions ------------------------------------------------------------------------

    def new_session(self, user: User | None = None) -> BrowserSession:
        """A new browser session (a new id and CSRF token), saved with the page that made it."""
        return self._cookies.new(user)

    def load_session(self, request: Request) -> BrowserSession | None:
        """The browser's session from its cookie; None without one, or when it does not open or
        expired (see `SessionCookies`: a browser's cookie is opened once, then kept a while)."""
        raw = request.cookies.get(COOKIE)
        return self._cookies.open(raw, self.keys) if raw else None

    def save_session(self, response: Response, session: BrowserSession) -> None:
        """Set `session`'s sealed cookie on `response`."""
        self._cookies.save(response, session, self.keys)

    async def announce(self, elicitation_id: str) -> None:
        """Publish that `elicitation_id` finished; an outage must not turn a saved answer into an error.

        The record is already final in the store, and a bus that reconnects re-checks the store
        for what its sessions wait on, so the person still sees "Saved" and the notice follows.
        """
        try:
            await self.bus.publish(elicitation_id)
        except BackendUnavailableError as exc:
            logger.warning("completion saved but not announced yet (%s); it is delivered on reconnect", exc)

    async def complete(
        self, elicitation_id: str, person: User, keep: Callable[[Record], Awaitable[None]]
    ) -> Literal["completed", "busy", "closed"]:
        """`keep` what the person gave, then mark the record completed and announce it.

        In that order: the completion wakes the waiting tool (with Redis, from the very script
        that writes it), so what the tool reads next must already be kept. The record's lock in
        the store lets one page at a time do it ("busy" for the others); "closed": the record
        was no longer active, and nothing was kept.

        The lock lives the store's deadline plus a second, and the work under it stops before
        then (`StoreUnavailableError`), so a holder never acts unlocked, and a lock whose release
        an outage lost (or whose holder died) turns nobody away for longer than that. What
        guards the record itself is the store's transition: only one completion of it succeeds.
        """
        deadline = float(getattr(self.store, "timeout", _DEFAULT_DEADLINE))
        lease = deadline + _FINISH_MARGIN
        with anyio.move_on_after(lease - _FINISH_MARGIN / 2) as budget:  # from before the claim
            async with holding(self.store, f"finish:{elicitation_id}", ttl=lease) as held:
                if not held:
                    return "busy"
                current = await self.store.get(elicitation_id)
                if current is None or current.state not in ACTIVE:
                    return "closed"
                await keep(current)
                await self.store.transition(elicitation_id, from_states=ACTIVE, to="completed", user=person)
        if budget.cancelled_caught:
            raise StoreUnavailableError(
                f"Keeping the entry took longer than its lock on the record lasts ({lease:g}s: the "
                "store's deadline and a second), so it stopped; retry (it is kept at most once)."
            )
        await self.announce(elicitation_id)
        return "completed"

    def cross_site(self, request: Request) -> bool:
        """Whether the browser says this request came from another site (defence in depth beside
        the CSRF token). `Sec-Fetch-Site` decides when present: only same-origin or none pass.
        Without it (older browsers), an `Origin` other than this server's public origin is
        refused; `Origin: null` is not evidence either way (our pages' `Referrer-Policy:
        no-referrer` makes browsers send it for our own forms). With neither header (not a
        browser), the CSRF token alone decides."""
        fetch_site = request.headers.get("sec-fetch-site")
        if fetch_site is not None:
            return fetch_site.lower() not in ("same-origin", "none")
        origin = request.headers.get("origin")
        if origin is None or origin == "null":
            return False
        parts = urlsplit(self.public_url)
        return origin.lower().rstrip("/") != f"{parts.scheme}://{parts.netloc}".lower()

    # -- rendering -----------------------------------------------------------------------

    def translator(self, request: Request | None) -> Translator:
        """The language of the page answering `request`: the site's `locale` when set, else the
        browser's `Accept-Language` (negotiated once per distinct header value)."""
        if self.locale is not None:
            return self.locale
        if request is None:
            return translator(negotiate(None))
        words: Translator | None = request.scope.get(_WORDS)  # a page asks more than once
        if words is None:
            words = request.scope[_WORDS] = translator(negotiate(request.headers.get("accept-language")))
        return words

    def render(
        self, template: str, status_code: int = 200, *, request: Request | None = None, **context: Any
    ) -> HTMLResponse:
        """`template` in the language of `request` (see `translator`)."""
        words = self.translator(request)
        name = words.gettext(self.server_name) if self.server_name == _UNNAMED else self.server_name
        html = self._pages.render(template, words, {"server_name": name, "prefix": PREFIX}, context)
        return HTMLResponse(html, status_code=status_code)

    def refusal(self, request: Request, title: str, reason: str, *, status_code: int) -> HTMLResponse:
        """A refusal page; `title` and `reason` are already in the request's language."""
        return self.render(
            "refusal.html", status_code=status_code, request=request, title=title, reason=reason
        )

    # -- pages ---------------------------------------------------------------------------

    async def _style(self, request: Request) -> Response:
        return FileResponse(_HERE / "static" / "style.css", media_type="text/css")

    async def _find(self, request: Request) -> tuple[Record, Flow] | Response:
        elicitation_id = request.path_params["elicitation_id"]
        record = await self.store.get(elicitation_id) if _ELICITATION_ID.match(elicitation_id) else None
        flow = self.flows.get(record.flow) if record is not None else None
        _ = self.translator(request).gettext
        if record is None or flow is None:
            return self.refusal(
                request,
                _("Link not valid"),
                _("This link does not lead to a request we know. Ask again from your application."),
                status_code=404,
            )
        if record.state not in ACTIVE:
            reasons = {
                "completed": _("This request was already completed. Nothing more is needed here."),
                "expired": _("This link has expired. Ask again from your application to get a new one."),
            }
            reason = reasons.get(record.state, _("This request was closed. Ask again from your application."))
            return self.refusal(request, _("Link no longer active"), reason, status_code=410)
        return record, flow

    def _not_yours(self, request: Request) -> Response:
        logger.warning("URL-mode page refused: the signed-in person is not the user the link was made for")
        _ = self.translator(request).gettext
        return self.refusal(
            request,
            _("This link is not for you"),
            _(
                "This link was made for a different account than the one you are signed in with. "
                "Nothing was changed. If someone sent you this link, do not use it."
            ),
            status_code=403,
        )

    async def _landing(self, request: Request) -> Response:
        session = self.load_session(request) or self.new_session()
        person = (
            await self.browser.identify(request, session)
            if _ELICITATION_ID.match(request.path_params["elicitation_id"])
            else None
        )
        if person is not None:  # the first visit of the right person: one store round trip
            opened = await self.store.transition(
                request.path_params["elicitation_id"], from_states={"pending"}, to="opened", user=person
            )
            flow = self.flows.get(opened.flow) if opened is not None else None
            if opened is not None and flow is not None:
                return with_session(self, self._page(request, opened, flow, session, person), session)
        found = await self._find(request)  # anything else: the record as it is decides the page
        if isinstance(found, Response):
            return found
        record, flow = found
        if person is None:
            response = await self.browser.login(request, session, f"{PREFIX}/{record.id}")
        elif person != record.user:
            response = self._not_yours(request)
        else:
            await self.store.transition(record.id, from_states={"pending"}, to="opened", user=person)
            response = self._page(request, record, flow, session, person)
        return with_session(self, response, session)

    def _page(
        self,
        request: Request,
        record: Record,
        flow: Flow,
        session: BrowserSession,
        person: User,
        *,
        error: str | None = None,
    ) -> HTMLResponse:
        return self.render(
            flow.template,
            status_code=400 if error else 200,
            request=request,
            title=flow.title,
            message=record.message,
            person=str(person),
            action=f"{PREFIX}/{record.id}",
            csrf=session.csrf,
            error=error,
            details=record.details,
        )

    async def _submit(self, request: Request) -> Response:
        _ = self.translator(request).gettext
        if self.cross_site(request):
            logger.warning(
                "URL-mode POST refused: its Origin or Sec-Fetch-Site says it came from another site"
            )
            return self.refusal(
                request,
                _("Request refused"),
                _(
                    "This form was sent from another site, so nothing was changed. "
                    "Open the link from your application again and fill the form in there."
                ),
                status_code=403,
            )
        unverified = self.refusal(
            request,
            _("Request refused"),
            _(
                "This form could not be verified (it may be stale or from another site). "
                "Open the link again and retry."
            ),
            status_code=403,
        )
        session = self.load_session(request)
        if session is None:  # before the body: a stranger's upload is not even read
            return unverified
        form = await read_form(request)
        if isinstance(form, Response):
            return form
        token = form.get("csrf")
        if not isinstance(token, str) or not hmac.compare_digest(token, session.csrf):
            return unverified
        found = await self._find(request)
        if isinstance(found, Response):
            return found
        record, flow = found
        person = await self.browser.identify(request, session)
        if person is None:
            return self.refusal(
                request, _("Sign in first"), _("Open the link again to sign in, then retry."), status_code=401
            )
        if person != record.user:
            return self._not_yours(request)
        if form.get("action") == "decline":
            declined = await self.store.transition(record.id, from_states=ACTIVE, to="declined", user=person)
            if declined is None:
                return self.refusal(
                    request, _("Link no longer active"), _("Nothing was changed."), status_code=409
                )
            await self.announce(record.id)
            title, text = (
                flow.closing("declined")
                if isinstance(flow, ClosingFlow)
                else (_("Declined"), _("You declined. Nothing was stored."))
            )
            return self.render("done.html", request=request, title=title, text=text)
        error = await flow.check(record, form)
        if error is not None:
            return self._page(request, record, flow, session, person, error=error)
        if isinstance(flow, HandOffFlow):  # completes at its callback, not here
            return with_session(self, await flow.proceed(request, record, session), session)
        outcome = await self.complete(record.id, person, lambda current: flow.finish(current, form))
        if outcome == "busy":
            return self.refusal(
                request,
                _("Being completed elsewhere"),
                _(
                    "This request is being completed in another tab or window; your entry was not "
                    "stored. Wait a moment, then reload this page."
                ),
                status_code=409,
            )
        if outcome == "closed":
            return self.refusal(
                request,
                _("Already completed"),
                _("This request was completed already; your entry was not stored."),
                status_code=409,
            )
        title, text = (
            flow.closing("completed")
            if isinstance(flow, ClosingFlow)
            else (_("Done"), _("Saved. You can close this tab and return to your application."))
        )
        return self.render("done.html", request=request, title=title, text=text)

    async def _flow_callback(self, request: Request) -> Response:
        flow = self.flows.get(request.path_params["flow"])
        if not isinstance(flow, HandOffFlow):
            _ = self.translator(request).gettext
            return self.refusal(request, _("Link not valid"), _("This page does not exist."), status_code=404)
        return await flow.callback(request)


def with_session(site: Site, response: Response, session: BrowserSession) -> Response:
    """Every page with a session ends here: save the cookie if the session changed."""
    if session.dirty:
        site.save_session(response, session)
    return response
