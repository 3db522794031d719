"""The catalogs are complete and current: every message has its Chinese, the sources hold no
message the catalogs lack, and the committed `.mo` files say what their `.po` say."""

from __future__ import annotations

import re

import pytest
from babel.messages.catalog import Message

from elicitkit.i18n import LOCALES
from tests.i18n.catalogs import extract, loaded_mo, read

_PLACEHOLDER = re.compile(r"%\((\w+)\)[sdr]|%\(\w+\)\.\d+f")
_TAG = re.compile(r"</?[a-z]+[^>]*>")


def _strings(message: Message) -> list[str]:
    return list(message.string) if isinstance(message.string, tuple | list) else [message.string]


def _ids(message: Message) -> list[str]:
    return list(message.id) if isinstance(message.id, tuple | list) else [message.id]


def test_every_message_has_a_chinese_translation() -> None:
    catalog = read("zh_CN")
    untranslated = [m.id for m in catalog if m.id and (not all(_strings(m)) or m.fuzzy)]
    assert len(catalog) > 300
    assert not untranslated, f"{len(untranslated)} messages lack a zh_CN translation: {untranslated[:10]}"


def test_the_english_catalog_says_the_messages_themselves() -> None:
    for message in read("en"):
        if message.id:
            assert _strings(message) == _ids(message), message.id


@pytest.mark.parametrize("locale", LOCALES)
def test_the_catalogs_hold_every_message_of_the_sources_and_no_other(locale: str) -> None:
    found = {m.id if isinstance(m.id, str) else tuple(m.id) for m in extract() if m.id}
    held = {m.id if isinstance(m.id, str) else tuple(m.id) for m in read(locale) if m.id}
    assert found - held == set(), (
        f"run scripts/translations: new messages {sorted(map(str, found - held))[:10]}"
    )
    assert held - found == set(), (
        f"run scripts/translations: gone messages {sorted(map(str, held - found))[:10]}"
    )


@pytest.mark.parametrize("locale", LOCALES)
def test_the_committed_mo_is_compiled_from_the_po(locale: str) -> None:
    expected: dict[object, str] = {}
    for message in read(locale):
        if not message.id:
            continue
        if isinstance(message.id, tuple | list):
            for index, text in enumerate(_strings(message)):
                expected[(message.id[0], index)] = text
        else:
            expected[message.id] = message.string
    assert loaded_mo(locale) == expected, "run scripts/translations to compile the .mo again"


def test_translations_keep_every_placeholder_and_tag() -> None:
    """A translation that drops `%(name)s` or mistypes a tag would break a page or its escaping."""
    for message in read("zh_CN"):
        if not message.id:
            continue
        wanted = sorted(_PLACEHOLDER.findall(_ids(message)[-1]))
        tags = sorted(_TAG.findall(_ids(message)[-1]))
        for text in _strings(message):
            assert sorted(_PLACEHOLDER.findall(text)) == wanted, message.id
            assert sorted(_TAG.findall(text)) == tags, message.id
