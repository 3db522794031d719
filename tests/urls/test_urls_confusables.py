"""Look-alike hosts written in the very alphabet they imitate (Latin small capitals, Latin
letters like alpha) and in others (Cyrillic, Greek, Cherokee) are blocked as imitations, by
Unicode's confusables data (UTS #39 skeletons), not a hand-kept table."""

from __future__ import annotations

import pytest

from elicitkit.urls import examine


@pytest.mark.parametrize(
    ("url", "imitated"),
    [
        ("https://\ua731tripe.com/", "stripe"),  # LATIN LETTER SMALL CAPITAL S
        ("https://\u1d1cber.com/", "uber"),  # LATIN LETTER SMALL CAPITAL U
        ("https://\u1d04oinbase.com/", "coinbase"),  # LATIN LETTER SMALL CAPITAL C
        ("https://\u1d0f\u1d0f\u0261le.com/", "oogle"),  # small capital O twice, script g
        ("https://\u0455tripe.com/", "stripe"),  # CYRILLIC SMALL LETTER DZE
        ("https://g\u03bfogle.com/", "google"),  # GREEK SMALL LETTER OMICRON
        ("https://\uabafoinbase.com/", "coinbase"),  # CHEROKEE SMALL LETTER TLI
        ("https://\u0251pple.com/", "apple"),  # LATIN SMALL LETTER ALPHA
        ("https://login.\ua731tripe.com/", "stripe"),  # in the registrable domain, below a subdomain
    ],
)
def test_a_look_alike_of_an_ascii_name_is_blocked_and_says_which(url: str, imitated: str) -> None:
    report = examine(url)
    assert report.verdict == "block"
    messages = {warning.code: warning.message for warning in report.warnings}
    assert f"'{imitated}'" in messages["confusable"]


@pytest.mark.parametrize(
    "url",
    [
        "https://m\u00fcnchen.de/",  # a real accent draws as no ASCII letter
        "https://\u0441\u0430\u0445\u0430\u0440.\u0440\u0444/",  # Cyrillic under Cyrillic .рф
        "https://\u4f8b\u3048.jp/",  # Japanese
        "https://stripe.com/",
    ],
)
def test_real_names_are_not_called_imitations(url: str) -> None:
    assert "confusable" not in examine(url).codes


def test_fullwidth_letters_name_the_real_host_they_fold_to() -> None:
    """IDNA folds fullwidth and mathematical letters to ASCII: the browser goes to the real host,
    which the report names, with the international-characters warning and no block."""
    for url in ("https://\uff53\uff54\uff52\uff49\uff50\uff45.com/", "https://\U0001d42ctripe.com/"):
        report = examine(url)
        assert report.host == "stripe.com"
        assert report.verdict == "warn"
        assert "idn" in report.codes
