"""The four string formats of the subset, checked by the libraries that own them.

`uri` is RFC 3986's absolute URI, checked by `rfc3986-validator`; `date-time` is RFC 3339's,
checked by `rfc3339-validator`; `date` is an RFC 3339 full-date, read by the standard library.
These are the checks jsonschema's format checker makes with the same libraries, without its
`[format]` extra's dozen other packages. For `email`, jsonschema only looks for an "@", so the
address is checked by `email-validator`, as pydantic's `EmailStr` does (syntax only, no DNS).
The libraries load on the first check, not with the package. Verdicts are memoised in bounded
caches: an email check costs tens of microseconds, a date-time check several, and the same
values (pre-filled defaults, today's date, the user's own address) come back again and again.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from functools import lru_cache

_FULL_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)


@lru_cache(maxsize=4096)
def is_email(value: str) -> bool:
    """True for an address `email-validator` accepts (syntax only, no DNS look-up)."""
    if "@" not in value:
        return False
    import email_validator

    try:
        email_validator.validate_email(value, check_deliverability=False)
    except email_validator.EmailNotValidError:
        return False
    return True


@lru_cache(maxsize=4096)
def is_uri(value: str) -> bool:
    """True for an absolute RFC 3986 URI."""
    from rfc3986_validator import validate_rfc3986  # type: ignore[import-untyped]

    return bool(validate_rfc3986(value, rule="URI"))


@lru_cache(maxsize=4096)
def is_date(value: str) -> bool:
    """True for an RFC 3339 full-date (YYYY-MM-DD) that exists in the calendar."""
    if not _FULL_DATE.fullmatch(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


@lru_cache(maxsize=4096)
def is_date_time(value: str) -> bool:
    """True for an RFC 3339 date-time with a time-zone offset."""
    from rfc3339_validator import validate_rfc3339  # type: ignore[import-untyped]

    return bool(validate_rfc3339(value.upper()))


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
