"""The four formats stay as strict as jsonschema's format checker with the same libraries (what
the subset used before issue 16), with `email` stricter: email-validator, not just an "@"."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from elicitkit.schema import FORMATS

CHECKS = {name: row.accepts for name, row in FORMATS.items()}

CHECKER = Draft202012Validator.FORMAT_CHECKER
PIECES = st.sampled_from(
    [
        *"0123456789-T:Zz+. tx@/?#%[]\n",
        *("2025-", "11-", "29", "2024-02-", "T10:00:00", "+01:00", "\u0661"),
        *("http://", "urn:", "example.com", "[::1]", "%2F", "%zz", "\u00e9"),
    ]
)
TEXTS = st.lists(PIECES, max_size=10).map("".join) | st.text(max_size=30)


@settings(max_examples=1500, deadline=None)
@given(TEXTS)
@example("2024-02-29")
@example("20251125")
@example("2023-02-29")
@example("2025-11-25T10:00:00.5z")
@example("2025-11-25T24:00:00Z")
@example("\u0662\u0660\u0662\u0665-11-25")
@example("http://a.com\n")
def test_date_date_time_and_uri_agree_with_jsonschemas_checker(value: str) -> None:
    for fmt in ("date", "date-time", "uri"):
        assert CHECKS[fmt](value) == CHECKER.conforms(value, fmt), (fmt, value)


def test_the_checks_reject_what_they_must() -> None:
    assert CHECKS["date"]("2024-02-29") and not CHECKS["date"]("2023-02-29")
    assert not CHECKS["date"]("\u0662\u0660\u0662\u0665-11-25")  # Arabic-Indic digits are not RFC 3339
    assert CHECKS["date-time"]("2025-11-25T10:00:00+01:00") and not CHECKS["date-time"]("2025-11-25T10:00")
    assert CHECKS["uri"]("urn:isbn:0451450523") and not CHECKS["uri"]("example.com/page")
    assert CHECKS["email"]("ada@example.com") and not CHECKS["email"]("a@localhost")


def _email_validator_accepts(value: str) -> bool:
    import email_validator

    try:
        email_validator.validate_email(value, check_deliverability=False)
    except email_validator.EmailNotValidError:
        return False
    return True


LOCALS = st.lists(
    st.sampled_from([*"aZ9._-+!#$%&'*/=?^`{|}~", "info", "Ab", "..", '"', " ", "\u00e9"]), max_size=8
)
DOMAINS = st.lists(
    st.sampled_from(
        [
            *"aZ9.-",
            "example",
            ".com",
            ".org",
            ".1",
            "xn--bcher-kva",
            "xn--zz",
            "localhost",
            ".test",
            ".arpa",
            "ab--c",
            "-",
            "a" * 63,
            "b" * 64,
            ".onion",
            "\u00e9",
            "[",
            "]",
            "@",
        ]
    ),
    max_size=6,
)


@settings(max_examples=1500, deadline=None)
@given(LOCALS.map("".join), DOMAINS.map("".join), st.integers(0, 200))
@example("a", "example.com", 0)
@example("a", "a.localhost", 0)
@example("a", ("a" * 63 + ".") * 3 + "com", 0)
@example("a" * 70, ("a" * 60 + ".") * 3 + "com", 0)
@example("info", "xn--bcher-kva.de", 0)
@example("a" * 58, ("a" * 63 + ".") * 3 + "com", 0)  # 254 octets: the longest address
@example("a" * 58, ("a" * 63 + ".") * 3 + "com", 1)  # 255: one too many
def test_email_agrees_with_email_validator_on_every_address(local: str, domain: str, pad: int) -> None:
    """The memoised fast path for common addresses decides exactly as email-validator itself."""
    value = local + "x" * pad + "@" + domain
    assert CHECKS["email"](value) == _email_validator_accepts(value), value
    assert CHECKS["email"](local + "@" + domain) == _email_validator_accepts(local + "@" + domain)


URI_PIECES = st.sampled_from(
    [
        *"aZ9+.-_~!$&'()*,;=:@/?#%[] \n",
        "http",
        "https://",
        "//",
        "://",
        "example.com",
        ":80",
        "%2F",
        "%zz",
        "\u00e9",
    ]
)


@settings(max_examples=1500, deadline=None)
@given(st.lists(URI_PIECES, max_size=12).map("".join))
@example("https://example.org/people/1?tab=about#top")
@example("http://")
@example("http://a.com:8o/")
@example("http://a.com/\n")
def test_uri_fast_path_agrees_with_jsonschemas_checker(value: str) -> None:
    """The plain-URL fast path accepts only what rfc3986-validator accepts, and refuses nothing it takes."""
    assert CHECKS["uri"](value) == CHECKER.conforms(value, "uri"), value
    assert CHECKS["uri"]("https://" + value) == CHECKER.conforms("https://" + value, "uri"), value
