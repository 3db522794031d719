"""`harden` puts the security headers on every page exactly once, whatever the response had."""

from __future__ import annotations

from starlette.responses import HTMLResponse

from elicitkit.server.web.site import SECURITY_HEADERS, harden


def test_hardening_twice_leaves_one_of_each_header() -> None:
    response = harden(harden(HTMLResponse("<p>hi</p>")))
    for name, value in SECURITY_HEADERS.items():
        assert response.headers.getlist(name) == [value]


def test_a_header_of_its_own_is_overridden_and_later_headers_are_hardened_again() -> None:
    response = HTMLResponse("<p>hi</p>", headers={"Cache-Control": "max-age=600", "X-Other": "1"})
    harden(response)
    response.set_cookie("c", "v")
    response.headers["Cache-Control"] = "public"  # changed after hardening: the next one fixes it
    harden(response)
    for name, value in SECURITY_HEADERS.items():
        assert response.headers.getlist(name) == [value]
    assert response.headers["x-other"] == "1" and "set-cookie" in response.headers
