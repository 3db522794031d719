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
@example("https://example.org/people/1?tab=about#top")
@example("http://")
@example("http://a.com:8o/")
def test_date_date_time_and_uri_agree_with_jsonschemas_checker(value: str) -> None:
    for fmt in ("date", "date-time", "uri"):
        assert CHECKS[fmt](value) == CHECKER.conforms(value, fmt), (fmt, value)


def test_the_checks_reject_what_they_must() -> None:
    assert CHECKS["date"]("2024-02-29") and not CHECKS["date"]("2023-02-29")
    assert not CHECKS["date"]("\u0662\u0660\u0662\u0665-11-25")  # Arabic-Indic digits are not RFC 3339
    assert CHECKS["date-time"]("2025-11-25T10:00:00+01:00") and not CHECKS["date-time"]("2025-11-25T10:00")
    assert CHECKS["uri"]("urn:isbn:0451450523") and not CHECKS["uri"]("example.com/page")
    assert CHECKS["email"]("ada@example.com") and not CHECKS["email"]("a@localhost")


def test_email_is_an_address_a_person_could_be_written_to() -> None:
    """email-validator's syntax: internationalised addresses, RFC 5321's 254 octets, no
    special-use or single-label domains, no display names or quoted local parts."""
    assert CHECKS["email"]("ada.lovelace+forms@example.co.uk")
    assert CHECKS["email"]("\u7528\u6237@\u4f8b\u5b50.\u5e7f\u544a")  # 用户@例子.广告
    longest = "a" * 58 + "@" + ("a" * 63 + ".") * 3 + "com"
    assert len(longest) == 254 and CHECKS["email"](longest) and not CHECKS["email"]("a" + longest)
    for refused in (
        "a@localhost",
        "a@example.test",
        "Ada <ada@example.com>",
        '"a b"@example.com',
        "a..b@example.com",
    ):
        assert not CHECKS["email"](refused), refused
