"""The four formats stay as strict as jsonschema's format checker with the same libraries (what
the subset used before issue 16), with `email` stricter: email-validator, not just an "@"."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from elicitkit.schema._formats import CHECKS

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
