"""Letters for phonetic notation in a host (Latin small capitals, IPA and modifier letters) are
blocked as a class, whether or not the confusables table lists them: UTS #39 restricts them in
identifiers, so no real name is spelled with them, and in a name that reads as ASCII they pass
for the letters they resemble (`ᴘaypal.com`). Real international names are not touched."""

from __future__ import annotations

import idna
import pytest

from elicitkit.urls import examine

#: The blocks UTS #39 (IdentifierStatus.txt) restricts wholesale, with the letters it allows.
PHONETIC_BLOCKS = {
    "IPA Extensions": range(0x0250, 0x02B0),
    "Spacing Modifier Letters": range(0x02B0, 0x0300),
    "Phonetic Extensions": range(0x1D00, 0x1D80),
    "Phonetic Extensions Supplement": range(0x1D80, 0x1DC0),
    "Latin Extended-E": range(0xAB30, 0xAB70),
}
ALLOWED_BY_UTS39 = {"\u0259", "\u02bb", "\u02bc", "\u02ec"}  # schwa, okina, apostrophe, voicing


@pytest.mark.parametrize(
    ("url", "letter"),
    [
        ("https://\u1d18aypal.com/", "'\u1d18' (U+1D18)"),  # LATIN LETTER SMALL CAPITAL P
        ("https://goo\u0262le.com/", "'\u0262' (U+0262)"),  # LATIN LETTER SMALL CAPITAL G (IPA)
        ("https://paypa\u029f.com/", "'\u029f' (U+029F)"),  # LATIN LETTER SMALL CAPITAL L (IPA)
        ("https://\ua730acebook.com/", "'\ua730' (U+A730)"),  # LATIN LETTER SMALL CAPITAL F
        ("https://amazo\u0274.com/", "'\u0274' (U+0274)"),  # LATIN LETTER SMALL CAPITAL N (IPA)
        ("https://\u0280eddit.com/", "'\u0280' (U+0280)"),  # LATIN LETTER SMALL CAPITAL R (IPA)
        ("https://\u1d07bay.com/", "'\u1d07' (U+1D07)"),  # LATIN LETTER SMALL CAPITAL E
        ("https://exa\u1d0dple.com/", "'\u1d0d' (U+1D0D)"),  # LATIN LETTER SMALL CAPITAL M
        ("https://\u0299inance.com/", "'\u0299' (U+0299)"),  # LATIN LETTER SMALL CAPITAL B (IPA)
        ("https://\u0265ulu.com/", "'\u0265' (U+0265)"),  # LATIN SMALL LETTER TURNED H (IPA)
        ("https://\u0250mazon.com/", "'\u0250' (U+0250)"),  # LATIN SMALL LETTER TURNED A (IPA)
        ("https://go\u02c8ogle.com/", "'\u02c8' (U+02C8)"),  # MODIFIER LETTER VERTICAL LINE
        ("https://wiki\u02d0pedia.org/", "'\u02d0' (U+02D0)"),  # MODIFIER LETTER TRIANGULAR COLON
        ("https://\uab31pple.com/", "'\uab31' (U+AB31)"),  # LATIN SMALL LETTER A REVERSED-SCHWA
        ("https://login.\u1d1bwitter.com/", "'\u1d1b' (U+1D1B)"),  # in the domain, under a subdomain
        ("https://\u1d18ay\u1d18a\u029f.com/", "'\u1d18' (U+1D18), '\u029f' (U+029F)"),  # several
        ("https://m\u00fc\u029fler.de/", "'\u029f' (U+029F)"),  # among real Latin letters
    ],
)
def test_a_phonetic_letter_in_a_host_is_blocked_and_named(url: str, letter: str) -> None:
    report = examine(url)
    assert report.verdict == "block", report.warnings
    messages = {warning.code: warning.message for warning in report.warnings}
    assert "phonetic letters that pass for ordinary ones" in messages["phonetic-letter"]
    assert f"({letter})" in messages["phonetic-letter"], messages


@pytest.mark.parametrize("block", sorted(PHONETIC_BLOCKS))
def test_every_letter_of_the_class_that_reaches_a_host_is_blocked(block: str) -> None:
    """Not a table of known spoofs: every character of the block that a browser keeps in a name
    as a letter of the block (IDNA folds many modifier letters to plain ones: `ᵖ` is `p`)."""
    reached = 0
    for code in PHONETIC_BLOCKS[block]:
        label = f"pay{chr(code)}pal"
        try:
            mapped = idna.uts46_remap(label, std3_rules=False, transitional=False)
            idna.encode(mapped)
        except idna.IDNAError:
            continue  # no browser goes there: an invalid host
        kept = mapped.removeprefix("pay").removesuffix("pal")
        if len(kept) != 1 or ord(kept) not in PHONETIC_BLOCKS[block] or kept in ALLOWED_BY_UTS39:
            continue  # folded to a letter of another block (ᵖ to p, ᶞ to ð): judged as that letter
        reached += 1
        report = examine(f"https://{label}.com/")
        assert report.verdict == "block", (f"U+{code:04X}", report.warnings)
        assert any(f"(U+{ord(kept):04X})" in w.message for w in report.warnings), report.warnings
    assert reached >= 5, block


@pytest.mark.parametrize(
    "url",
    [
        "https://m\u00fcller.de/",  # German
        "https://stra\u00dfe.de/",
        "https://\u4f8b\u5b50.\u4e2d\u56fd/",  # Chinese
        "https://\u4e2d\u6587\u7f51.com/",
        "https://\u03c0\u03b1\u03c1\u03ac\u03b4\u03b5\u03b9\u03b3\u03bc\u03b1.gr/",  # Greek
        "https://az\u0259rbaycan.az/",  # the schwa UTS #39 allows (Azerbaijani)
        "https://caf\u00e9.fr/",
        "https://vi\u1ec7tnam.vn/",  # Vietnamese
        "https://\u0142\u00f3d\u017a.pl/",  # Polish
        "https://\u0131\u015f\u0131k.com.tr/",  # Turkish dotless i
        "https://\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444/",  # Russian under .рф
        "https://\u65e5\u672c\u8a9e.jp/",  # Japanese
    ],
)
def test_real_international_names_are_not_blocked(url: str) -> None:
    report = examine(url)
    assert "phonetic-letter" not in report.codes
    assert report.verdict == "warn" and report.codes == ("idn",), report.warnings
