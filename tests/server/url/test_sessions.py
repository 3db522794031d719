"""The session cookie: sealed, and opened once per browser session without checking any less.

`SessionCookies` keeps the cookies that opened (by their sealed text) so that a browser's next
pages skip AES-GCM and JSON; every page still gets its own session object, an expired cookie
is refused even when kept, only cookies that open under the key ring are kept, a different
key ring opens nothing that the old one opened, and the number kept is bounded.
"""

from __future__ import annotations

from starlette.responses import Response
from support.clock import Clock

from elicitkit.server._user import User
from elicitkit.server._vault import KeyRing
from elicitkit.server._web.sessions import COOKIE, BrowserSession, SessionCookies

ALICE = User("https://as.example", "alice")


def sealed(cookies: SessionCookies, session: BrowserSession, keys: KeyRing) -> str:
    response = Response()
    cookies.save(response, session, keys)
    header = response.headers["set-cookie"]
    assert "secure" in header.lower() and "httponly" in header.lower() and "samesite=lax" in header.lower()
    return header.split(";", 1)[0].removeprefix(f"{COOKIE}=")


def test_a_cookie_opens_to_its_session_each_time_as_a_new_object() -> None:
    keys = KeyRing.from_string(KeyRing.generate())
    cookies = SessionCookies()
    session = cookies.new(ALICE)
    raw = sealed(SessionCookies(), session, keys)
    first = cookies.open(raw, keys)
    assert first is not None
    assert (first.sid, first.csrf, first.user, first.expires_at) == (
        session.sid,
        session.csrf,
        ALICE,
        session.expires_at,
    )
    assert not first.dirty
    first.user, first.dirty = None, True  # what a page does to its own copy stays there
    second = cookies.open(raw, keys)
    assert second is not None and second is not first
    assert second.user == ALICE and not second.dirty


def test_an_expired_cookie_is_refused_even_after_it_opened() -> None:
    keys = KeyRing.from_string(KeyRing.generate())
    clock = Clock(at=2_000_000_000.0)
    cookies = SessionCookies(clock)
    raw = sealed(cookies, cookies.new(ALICE), keys)
    clock.advance(12 * 3600 - 1)
    assert cookies.open(raw, keys) is not None
    clock.advance(1)  # twelve hours by the clock
    assert cookies.open(raw, keys) is None
    assert cookies.open(raw, keys) is None


def test_altered_or_foreign_cookies_do_not_open_and_another_key_ring_opens_nothing_kept() -> None:
    keys = KeyRing.from_string(KeyRing.generate())
    cookies = SessionCookies()
    raw = sealed(cookies, cookies.new(ALICE), keys)
    assert cookies.open(raw, keys) is not None
    altered = raw[:-3] + ("AAA" if raw[-3:] != "AAA" else "BBB")
    assert cookies.open(altered, keys) is None
    assert cookies.open("not-a-cookie", keys) is None
    other = KeyRing.from_string(KeyRing.generate())  # same id "k1", other bytes
    assert cookies.open(raw, other) is None  # kept under the first ring, refused under this one
    assert cookies.open(raw, keys) is not None
    foreign = sealed(cookies, cookies.new(ALICE), other)
    assert cookies.open(foreign, keys) is None


def test_the_cookies_kept_are_bounded() -> None:
    keys = KeyRing.from_string(KeyRing.generate())
    cookies = SessionCookies()
    raws = [sealed(cookies, cookies.new(ALICE), keys) for _ in range(1100)]
    for raw in raws:
        assert cookies.open(raw, keys) is not None
    assert cookies.kept == 1024
    assert cookies.open(raws[0], keys) is not None  # dropped from memory, still opens
