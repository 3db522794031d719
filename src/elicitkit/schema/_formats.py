"""The string formats of the subset (`FORMATS`), each checked by the library that owns it.

`email` is an address `email-validator` accepts (syntax only, no DNS look-up), as pydantic's
`EmailStr` checks it; `uri` is RFC 3986's absolute URI (`rfc3986-validator`); `date-time` is
RFC 3339's (`rfc3339-validator`); `date` is an RFC 3339 full-date, read by the standard
library. The last three are the checks jsonschema's format checker makes with the same
libraries, without its `[format]` extra's dozen other packages (jsonschema's own `email`
check only looks for an "@"). The libraries load on the first check, not with the package.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from elicitkit.i18n import noop

_FULL_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
"""RFC 3339's full-date; `date.fromisoformat` alone also takes "20251125" and other ISO forms."""


def is_email(value: str) -> bool:
    """True for an address `email-validator` accepts (syntax only, no DNS look-up)."""
    import email_validator

    try:
        email_validator.validate_email(value, check_deliverability=False)
    except email_validator.EmailNotValidError:
        return False
    return True


def is_uri(value: str) -> bool:
    """True for an absolute RFC 3986 URI."""
    from rfc3986_validator import validate_rfc3986  # type: ignore[import-untyped]

    return bool(validate_rfc3986(value, rule="URI"))


def is_date(value: str) -> bool:
    """True for an RFC 3339 full-date (YYYY-MM-DD) that exists in the calendar."""
    if not _FULL_DATE.fullmatch(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def is_date_time(value: str) -> bool:
    """True for an RFC 3339 date-time with a time-zone offset ("t" and "z" may be lower case)."""
    from rfc3339_validator import validate_rfc3339  # type: ignore[import-untyped]

    return bool(validate_rfc3339(value.upper()))


@dataclass(frozen=True)
class Format:
    """One string `format` a form can check: the one row every part of elicitkit reads.

    `lint` and `validate` accept a format only if it has a row here; `validate` calls
    `accepts`; `described` is what a refused value is told it should be; `hint` is what a form
    says before the person types; `example` is a value the format accepts (`elicitkit check`
    sends it, a form shows it as a placeholder unless `placeholder` gives a shape instead).
    The three texts are English gettext messages, translated where they are shown.
    """

    name: str
    accepts: Callable[[str], bool]
    described: str
    hint: str
    example: str
    placeholder: str | None = None


#: Every format of the subset, by name: the one table a new format is added to.
FORMATS: dict[str, Format] = {
    "email": Format(
        "email",
        is_email,
        noop("an email address such as name@example.com"),
        noop("an email address"),
        "name@example.com",
    ),
    "uri": Format(
        "uri",
        is_uri,
        noop("an absolute URI such as https://example.com/page"),
        noop("a full URL (kept as text, never opened)"),
        "https://example.com/",
    ),
    "date": Format(
        "date",
        is_date,
        noop("a date such as 2025-11-25"),
        noop("a date, YYYY-MM-DD"),
        "2025-11-25",
        placeholder="YYYY-MM-DD",
    ),
    "date-time": Format(
        "date-time",
        is_date_time,
        noop("a date and time with a time zone such as 2025-11-25T14:30:00Z"),
        noop("a date and time with zone, YYYY-MM-DDTHH:MM:SSZ"),
        "2025-11-25T14:30:00Z",
        placeholder="YYYY-MM-DDTHH:MM:SSZ",
    ),
}
