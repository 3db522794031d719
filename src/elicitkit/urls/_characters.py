"""Which characters hide, reorder or imitate others: the judgements `examine` makes per character."""

from __future__ import annotations

import functools
import unicodedata

__all__ = [
    "is_bidi",
    "is_control",
    "is_hidden",
    "is_invisible",
    "is_mixed",
    "is_phonetic",
    "looks_ascii",
    "reveal",
    "script_of",
    "scripts_of",
]

# --- character classes -------------------------------------------------------------------

_BIDI_CLASSES = {"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"}
_BIDI_MARKS = {"\u200e", "\u200f", "\u061c"}
# Letters and marks that draw as nothing, beyond the format (Cf) category.
_BLANK = {"\u034f", "\u115f", "\u1160", "\u17b4", "\u17b5", "\u180b", "\u180c", "\u180d", "\u180e"}
_BLANK |= {"\u2800", "\u3164", "\uffa0"}


def is_bidi(c: str) -> bool:
    return c in _BIDI_MARKS or unicodedata.bidirectional(c) in _BIDI_CLASSES


def is_control(c: str) -> bool:
    return unicodedata.category(c) in {"Cc", "Cs", "Zl", "Zp"}


def is_invisible(c: str) -> bool:
    return (
        c in _BLANK
        or "\ufe00" <= c <= "\ufe0f"
        or "\U000e0100" <= c <= "\U000e01ef"
        or (unicodedata.category(c) == "Cf" and not is_bidi(c))
    )


def is_hidden(c: str) -> bool:
    if c.isascii():
        return not c.isprintable()
    return is_control(c) or is_bidi(c) or is_invisible(c) or unicodedata.category(c) in {"Zs", "Co", "Cn"}


def reveal(text: str) -> str:
    """Escape control, invisible and bidi characters as `\\uXXXX`, so what is drawn is what is there."""
    return "".join(f"\\u{ord(c):04x}" if is_hidden(c) else c for c in text)


# --- scripts and look-alikes -------------------------------------------------------------

# Names of letters begin with their script, near enough for this purpose.
_SCRIPT_ALIASES = {"CJK": "HAN", "IDEOGRAPHIC": "HAN", "KATAKANA-HIRAGANA": "KATAKANA"}
# Script mixes that real names use (UTS 39, "highly restrictive").
_SCRIPT_MIXES = (
    {"LATIN", "HAN", "HIRAGANA", "KATAKANA"},
    {"LATIN", "HAN", "BOPOMOFO"},
    {"LATIN", "HAN", "HANGUL"},
)


def script_of(c: str) -> str | None:
    if c.isascii():
        return "LATIN" if c.isalpha() else None
    if unicodedata.category(c)[0] not in "LN":
        return None  # marks and punctuation take the script of their neighbours
    word = unicodedata.name(c, "UNKNOWN").split(" ", 1)[0]
    return _SCRIPT_ALIASES.get(word, word)


def scripts_of(label: str) -> set[str]:
    return {s for s in map(script_of, label) if s}


def is_mixed(scripts: set[str]) -> bool:
    return len(scripts) > 1 and not any(scripts <= mix for mix in _SCRIPT_MIXES)


def looks_ascii(label: str) -> str | None:
    """The ASCII label that `label` imitates, if it imitates one: its UTS #39 skeleton, when
    that is plain ASCII and differs from it (a small capital S or a Cyrillic dze draws as "s")."""
    prototypes = _prototypes()
    skeleton = "".join(prototypes.get(c, c) for c in unicodedata.normalize("NFD", label))
    return skeleton if skeleton != label and skeleton.isascii() else None


# --- letters for phonetics, not for names -------------------------------------------------

# UTS #39 (Identifier_Status) restricts these blocks wholesale in identifiers: their letters
# write sounds (Identifier_Type Technical, Obsolete, Uncommon_Use), not any language's names,
# and browsers' IDN policies show a name with one in punycode. Python ships no
# Identifier_Status, so the class is these blocks, checked against IdentifierStatus.txt.
_PHONETIC_BLOCKS = (
    (0x0250, 0x02AF),  # IPA Extensions: small capitals G, L, R, B, N, I; turned and script letters
    (0x02B0, 0x02FF),  # Spacing Modifier Letters: stress and length marks
    (0x1D00, 0x1D7F),  # Phonetic Extensions: small capitals A, P, T, E, M, O ...
    (0x1D80, 0x1DBF),  # Phonetic Extensions Supplement
    (0x1DC0, 0x1DFF),  # Combining Diacritical Marks Supplement
    (0xAB30, 0xAB6F),  # Latin Extended-E: dialectology and Americanist phonetics
    (0x10780, 0x107BF),  # Latin Extended-F
    (0x1DF00, 0x1DFFF),  # Latin Extended-G
)
# Less what UTS #39 allows of them: U+0259 (the schwa of Azerbaijani), U+02BB and U+02BC (the
# okina and apostrophe of Hawaiian), U+02EC; and of the small capitals elsewhere, U+A7AE, U+A7FA.
_ALLOWED = frozenset("\u0259\u02bb\u02bc\u02ec\ua7ae\ua7fa")


def is_phonetic(c: str) -> bool:
    """Is `c` a letter for phonetic notation (a Latin small capital, an IPA or a modifier
    letter) that UTS #39 restricts in identifiers, so that no real name is spelled with it?
    Small capitals outside those blocks (U+A730 F, U+A731 S) are known by their name."""
    if c in _ALLOWED:
        return False
    code = ord(c)
    in_blocks = any(low <= code <= high for low, high in _PHONETIC_BLOCKS)
    return in_blocks or "SMALL CAPITAL" in unicodedata.name(c, "")


@functools.cache
def _prototypes() -> dict[str, str]:
    """The ASCII letters or digits each character draws as, from Unicode's confusables data
    (confusables.txt of UTS #39, as the confusable-homoglyphs package keeps it up to date),
    not a table of our own: small capitals, Cyrillic, Greek, Armenian, Cherokee and the rest.
    Loaded once, from the package's own files; nothing is fetched."""
    from confusable_homoglyphs.confusables import confusables_data  # type: ignore[import-untyped]

    table: dict[str, str] = {}
    for char, homoglyphs in confusables_data.items():
        if char.isascii():
            continue
        for homoglyph in homoglyphs:
            drawn = homoglyph["c"]
            if drawn.isascii() and drawn.isalnum():
                table[char] = drawn.lower()
                break
    return table
