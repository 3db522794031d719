"""The string formats of the subset (`FORMATS`), checked by the libraries that own them.

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
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from elicitkit.i18n import noop

_FULL_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)


# An address of the common shape: a dot-atom local part of plain ASCII (email-validator's own
# DOT_ATOM_TEXT, which it accepts with no further check) and an ASCII host name. For those, the
# only checks left depend on the domain alone (syntax, IDNA, special-use names) or on lengths,
# so the domain's verdict is memoised and the address costs one match and a sum.
_ATEXT = r"A-Za-z0-9_!#$%&'*+\-/=?^`{|}~"
_PLAIN_ADDRESS = re.compile(rf"([{_ATEXT}]+(?:\.[{_ATEXT}]+)*)@([A-Za-z0-9.\-]+)", re.ASCII)
_EMAIL_MAX_OCTETS = 254  # RFC 5321 4.5.3.1.3, as email-validator counts it


@lru_cache(maxsize=4096)
def is_email(value: str) -> bool:
    """True for an address `email-validator` accepts (syntax only, no DNS look-up)."""
    plain = _PLAIN_ADDRESS.fullmatch(value)
    if plain is None:
        return _email_validator_accepts(value)
    local, domain = plain.groups()
    longest_domain = _domain_octets(domain)
    return longest_domain is not None and len(local) + 1 + longest_domain <= _EMAIL_MAX_OCTETS


@lru_cache(maxsize=1024)
def _domain_octets(domain: str) -> int | None:
    """None when email-validator refuses `domain` after any local part; else the longest of its
    three forms (as given, normalised, IDNA ASCII) in UTF-8 octets, which the length limit counts."""
    import email_validator

    try:
        checked = email_validator.validate_email("a@" + domain, check_deliverability=False)
    except email_validator.EmailNotValidError:
        return None
    return max(len(domain), len(checked.domain.encode("utf-8")), len(checked.ascii_domain))


def _email_validator_accepts(value: str) -> bool:
    if "@" not in value:
        return False
    import email_validator

    try:
        email_validator.validate_email(value, check_deliverability=False)
    except email_validator.EmailNotValidError:
        return False
    return True


# The common shape of an absolute URI, `scheme://host[:port][/path][?query][#fragment]` with no
# percent-escapes, user info or IP literal: a plain subset of RFC 3986's grammar that one short
# match accepts; anything else goes to `rfc3986-validator`'s full expression, which decides.
_PCHAR = r"A-Za-z0-9\-._~!$&'()*+,;=:@"
_PLAIN_URI = re.compile(
    rf"[A-Za-z][A-Za-z0-9+.\-]*://[A-Za-z0-9\-._~!$&'()*+,;=]*(?::[0-9]*)?"
    rf"(?:/[{_PCHAR}]*)*(?:\?[{_PCHAR}/?]*)?(?:#[{_PCHAR}/?]*)?",
    re.ASCII,
)


@lru_cache(maxsize=4096)
def is_uri(value: str) -> bool:
    """True for an absolute RFC 3986 URI."""
    if _PLAIN_URI.fullmatch(value):
        return True
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
