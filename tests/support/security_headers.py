"""What every page elicitkit serves must carry, written out here rather than read from the code,
so a header or directive taken out of the code fails the tests that use it."""

from __future__ import annotations

from collections.abc import Mapping

import httpx

PAGE_HEADERS: Mapping[str, str] = {
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}
SERVER_POLICY: Mapping[str, str] = {
    "default-src": "'none'",
    "style-src": "'self'",
    "img-src": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
    "base-uri": "'none'",
}
"""The URL-mode pages' Content-Security-Policy, directive by directive: no script at all."""


def policy_of(headers: httpx.Headers) -> dict[str, str]:
    """The one Content-Security-Policy header, as {directive: sources}."""
    [policy] = headers.get_list("content-security-policy")
    return dict(part.strip().split(" ", 1) for part in policy.split(";") if part.strip())


def assert_hardened(headers: httpx.Headers, policy: Mapping[str, str] = SERVER_POLICY) -> None:
    """Each security header once, with its value, and the policy with exactly these directives."""
    for name, value in PAGE_HEADERS.items():
        assert headers.get_list(name) == [value], name
    assert policy_of(headers) == dict(policy)
