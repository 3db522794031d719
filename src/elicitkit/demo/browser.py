"""A scripted browser: what plays the person's web browser when the demo runs unattended.

It is an HTTP client with a cookie jar, nothing more: it opens the URL an elicitation names,
follows redirects, signs in on the demo sign-in pages as its person (filling the form, hidden
CSRF fields included, like a person would) and submits the forms it is told to. It never
runs scripts. Every page it lands on is reported to `on_page`, so the demo's transcript can
show the headings a person would have seen.

Cookies follow a browser's rules for `http://127.0.0.1`, which browsers treat as a secure
context: `Secure` (and `__Host-`) cookies are kept and sent there. Python's cookie policy
would send them over https only, so the jar is applied here, in a transport.
"""

from __future__ import annotations

import http.cookiejar
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from types import TracebackType
from typing import Self
from urllib.parse import urljoin, urlsplit

import httpx

from elicitkit.demo._people import DEMO_PASSWORDS
from elicitkit.errors import ElicitationError
from elicitkit.i18n import current

__all__ = ["BrowserError", "Page", "PageForm", "ScriptedBrowser"]

_MAX_REDIRECTS = 20


class BrowserError(ElicitationError):
    """The scripted browser could not do what the script asked (no form, too many redirects)."""


@dataclass
class PageForm:
    """A form on a page: where it posts, its fields (hidden ones filled in) and its buttons."""

    action: str
    fields: dict[str, str] = field(default_factory=dict)
    inputs: list[str] = field(default_factory=list)
    buttons: list[tuple[str, str, str]] = field(default_factory=list)
    """(name, value, label) of each submit button, in page order."""


@dataclass
class Page:
    """A page the browser landed on, read as a person would skim it."""

    url: str
    status: int
    text: str
    title: str = ""
    heading: str = ""
    paragraphs: list[str] = field(default_factory=list)
    forms: list[PageForm] = field(default_factory=list)
    refresh: str = ""
    """Where a `<meta http-equiv="refresh">` sends the browser next, if anywhere."""

    @property
    def site(self) -> str:
        """The host and port the page came from."""
        return urlsplit(self.url).netloc

    @property
    def is_sign_in(self) -> bool:
        """A page asking for a user name and a password."""
        return any({"username", "password"} <= set(form.inputs) for form in self.forms)


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.title = ""
        self.heading = ""
        self.paragraphs: list[str] = []
        self.forms: list[PageForm] = []
        self.refresh = ""
        self._in: str | None = None
        self._text: list[str] = []
        self._button: tuple[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag in ("title", "h1", "p", "li") and self._in is None:
            self._in, self._text = tag, []
        elif tag == "meta" and values.get("http-equiv", "").lower() == "refresh":
            _, _, target = values.get("content", "").partition("url=")
            self.refresh = target.strip()
        elif tag == "form":
            self.forms.append(PageForm(action=values.get("action", "")))
        elif tag == "input" and self.forms and values.get("name"):
            form, name = self.forms[-1], values["name"]
            form.inputs.append(name)
            if values.get("type") == "hidden" or values.get("value"):
                form.fields[name] = values.get("value", "")
        elif tag == "button" and self.forms and values.get("type", "submit") == "submit":
            self._button = (values.get("name", ""), values.get("value", ""))
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        if tag == self._in:
            text = " ".join("".join(self._text).split())
            if tag == "title":
                self.title = text
            elif tag == "h1" and not self.heading:
                self.heading = text
            elif tag == "p" and text:
                self.paragraphs.append(text)
            elif tag == "li" and text:
                self.paragraphs.append(f"- {text}")  # a list item, read after the line it follows
            self._in = None
        elif tag == "button" and self._button is not None and self.forms:
            self.forms[-1].buttons.append((*self._button, " ".join("".join(self._text).split())))
            self._button = None

    def handle_data(self, data: str) -> None:
        if self._in is not None or self._button is not None:
            self._text.append(data)


def read_page(url: str, status: int, html: str) -> Page:
    """What a person sees of an HTML page: title, first heading, paragraphs, forms."""
    reader = _Reader()
    reader.feed(html)
    return Page(
        url, status, html, reader.title, reader.heading, reader.paragraphs, reader.forms, reader.refresh
    )


class _Jar(httpx.AsyncBaseTransport):
    """A browser's cookie handling, as a transport around the real one."""

    def __init__(self) -> None:
        policy = http.cookiejar.DefaultCookiePolicy(secure_protocols=("https", "wss", "http"))
        self.jar = http.cookiejar.CookieJar(policy)
        self._inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.host not in ("127.0.0.1", "localhost", "::1"):
            raise BrowserError(f"The scripted browser only visits this computer, not {request.url.host}.")
        compat = urllib.request.Request(str(request.url), method=request.method)  # noqa: S310 - never opened
        self.jar.add_cookie_header(compat)
        cookie = compat.unredirected_hdrs.get("Cookie")
        if cookie:
            request.headers["Cookie"] = cookie
        response = await self._inner.handle_async_request(request)
        self.jar.extract_cookies(_Headers(response.headers), compat)  # type: ignore[arg-type]
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Headers:
    """Just enough of `http.client.HTTPResponse` for `CookieJar.extract_cookies`."""

    def __init__(self, headers: httpx.Headers) -> None:
        self._headers = headers

    def info(self) -> _Headers:
        return self

    def get_all(self, name: str, default: list[str] | None = None) -> list[str] | None:
        return self._headers.get_list(name) or default


class ScriptedBrowser:
    """A person's browser, scripted: `async with ScriptedBrowser("alice") as browser: ...`.

    `person` is who signs in when a page asks (with the demo password unless `password` is
    given); `on_page` hears of every page landed on, sign-in pages included.
    """

    def __init__(
        self,
        person: str,
        *,
        password: str | None = None,
        on_page: Callable[[ScriptedBrowser, Page], None] | None = None,
    ) -> None:
        self.person = person
        self.password = DEMO_PASSWORDS.get(person, "") if password is None else password
        self.on_page = on_page
        self.pages: list[Page] = []
        # Like a person's browser, it asks for pages in their language (the story's).
        language = {"Accept-Language": current().tag}
        self._http = httpx.AsyncClient(transport=_Jar(), timeout=30, headers=language)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def open(self, url: str) -> Page:
        """Go to `url` as if typed in the address bar; sign in on the way when asked."""
        return await self._land(await self._http.get(url))

    async def submit(self, page: Page, *, button: str | None = None, **fields: str) -> Page:
        """Fill the page's first form with `fields` and press `button` (by value; default the first)."""
        if not page.forms:
            raise BrowserError(f"The page {page.heading or page.url!r} has no form to submit.")
        form = page.forms[0]
        data = dict(form.fields) | fields
        pressed = next((b for b in form.buttons if button is None or b[1] == button), None)
        if pressed is None:
            raise BrowserError(f"The page {page.heading!r} has no button {button!r}.")
        if pressed[0]:
            data[pressed[0]] = pressed[1]
        response = await self._http.post(urljoin(page.url, form.action or page.url), data=data)
        return await self._land(response)

    async def _land(self, response: httpx.Response) -> Page:
        for _ in range(_MAX_REDIRECTS):
            if response.is_redirect:
                response = await self._http.get(urljoin(str(response.url), response.headers["location"]))
                continue
            page = read_page(str(response.url), response.status_code, response.text)
            self.pages.append(page)
            if self.on_page is not None:
                self.on_page(self, page)
            if page.refresh:
                response = await self._http.get(urljoin(page.url, page.refresh))
            elif page.is_sign_in:
                response = await self._sign_in(page)
            else:
                return page
        raise BrowserError("The pages kept redirecting; the scripted browser gave up.")

    async def _sign_in(self, page: Page) -> httpx.Response:
        form = next(f for f in page.forms if {"username", "password"} <= set(f.inputs))
        buttons = [b for b in form.buttons if b[0] == "decision" and b[1] == "allow"] or form.buttons[:1]
        data = dict(form.fields) | {"username": self.person, "password": self.password}
        if buttons and buttons[0][0]:
            data[buttons[0][0]] = buttons[0][1]
        response = await self._http.post(urljoin(page.url, form.action or page.url), data=data)
        if response.status_code == 401:
            raise BrowserError(f"The sign-in page at {page.site} did not accept {self.person!r}.")
        return response
