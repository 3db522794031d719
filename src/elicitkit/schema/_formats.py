"""The four string formats of the subset, checked by the libraries that own them.

`uri`, `date` and `date-time` use jsonschema's own format checker (backed by `rfc3987`
and `rfc3339-validator`). For `email`, jsonschema only looks for an "@", so the address
is checked by `email-validator`, as pydantic's `EmailStr` does (syntax only, no DNS).
Verdicts are memoised in bounded caches: an email check costs tens of microseconds, a
date-time check several, and the same values (pre-filled defaults, today's date, the user's
own address) come back again and again.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import email_validator
from jsonschema import Draft202012Validator

_CHECKER = Draft202012Validator.FORMAT_CHECKER


@lru_cache(maxsize=4096)
def is_email(value: str) -> bool:
    """True for an address `email-validator` accepts (syntax only, no DNS look-up)."""
    if "@" not in value:
        return False
    try:
        email_validator.validate_email(value, check_deliverability=False)
    except email_validator.EmailNotValidError:
        return False
    return True


@lru_cache(maxsize=4096)
def is_uri(value: str) -> bool:
    """True for an absolute RFC 3986 URI."""
    return bool(_CHECKER.conforms(value, "uri"))


@lru_cache(maxsize=4096)
def is_date(value: str) -> bool:
    """True for an RFC 3339 full-date (YYYY-MM-DD)."""
    return bool(_CHECKER.conforms(value, "date"))


@lru_cache(maxsize=4096)
def is_date_time(value: str) -> bool:
    """True for an RFC 3339 date-time with a time-zone offset."""
    return bool(_CHECKER.conforms(value, "date-time"))


CHECKS: dict[str, Callable[[str], bool]] = {
    "email": is_email,
    "uri": is_uri,
    "date": is_date,
    "date-time": is_date_time,
}

#: How each format is described to a person who got it wrong.
DESCRIBED = {
    "email": "an email address such as name@example.com",
    "uri": "an absolute URI such as https://example.com/page",
    "date": "a date such as 2025-11-25",
    "date-time": "a date and time with a time zone such as 2025-11-25T14:30:00Z",
}
