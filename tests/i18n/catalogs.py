"""The catalogs' upkeep, shared by `scripts/translations` and the tests that keep them honest.

`python -m tests.i18n.catalogs` extracts every message of the sources (babel.cfg), merges
them into each locale's `.po` (the `en` one is filled from the English messages; new Chinese
entries stay empty until translated) and compiles the committed `.mo` files.
"""

from __future__ import annotations

import copy
import gettext
import io
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from elicitkit.i18n import DOMAIN, LOCALE_DIR, LOCALES

ROOT = Path(__file__).resolve().parents[2]
_CREATED = datetime(2026, 12, 3, tzinfo=UTC)
"""A fixed date in the headers: re-running the extraction changes nothing when no message did."""
KEYWORDS = {**DEFAULT_KEYWORDS, "noop": None}


def po_path(locale: str) -> Path:
    return LOCALE_DIR / locale / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(locale: str) -> Path:
    return po_path(locale).with_suffix(".mo")


def extract() -> Catalog:
    """Every message the sources hold now, as a template catalog."""
    with (ROOT / "babel.cfg").open(encoding="utf-8") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    template = Catalog(project="elicitkit", domain=DOMAIN, creation_date=_CREATED)
    for filename, lineno, message, comments, context in extract_from_dir(
        str(ROOT),
        method_map,
        options_map,
        keywords=KEYWORDS,
        strip_comment_tags=True,
        directory_filter=_searched,
    ):
        template.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return template


def _searched(dirpath: str) -> bool:
    """Every folder but hidden ones and caches: Babel's default also skips `_name` folders,
    which is where elicitkit's private rooms (`client/_web`, `server/_web`, ...) keep their words."""
    name = os.path.basename(dirpath)
    return not name.startswith(".") and name != "__pycache__"


def read(locale: str) -> Catalog:
    with po_path(locale).open("rb") as file:
        return read_po(file, locale=locale, domain=DOMAIN)


def compiled(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def loaded_mo(locale: str) -> dict[object, str]:
    """The committed `.mo` as gettext reads it: msgid (or (msgid, n)) -> translation."""
    with mo_path(locale).open("rb") as file:
        catalog: dict[object, str] = dict(gettext.GNUTranslations(file)._catalog)  # type: ignore[attr-defined]
    return {key: value for key, value in catalog.items() if key != ""}


def update() -> None:
    template = extract()
    for locale in LOCALES:
        path = po_path(locale)
        path.parent.mkdir(parents=True, exist_ok=True)
        fresh = Catalog(locale=locale, domain=DOMAIN, project="elicitkit", creation_date=_CREATED)
        catalog = read(locale) if path.exists() else fresh
        catalog.update(copy.deepcopy(template), no_fuzzy_matching=True)
        catalog.fuzzy = False  # the header, with its Plural-Forms, must reach the .mo
        catalog.revision_date = _CREATED
        catalog.last_translator = "elicitkit"
        catalog.language_team = f"elicitkit {locale}"
        if locale == "en":
            for message in catalog:
                if message.id:
                    message.string = message.id
                    message.flags.discard("fuzzy")
        with path.open("wb") as file:
            write_po(file, catalog, ignore_obsolete=True, width=100, sort_output=False)
        mo_path(locale).write_bytes(compiled(catalog))
        empty = [m.id for m in catalog if m.id and not _translated(m.string)]
        print(f"{locale}: {len(catalog)} messages, {len(empty)} untranslated", file=sys.stderr)


def _translated(string: object) -> bool:
    if isinstance(string, tuple | list):
        return all(string)
    return bool(string)


if __name__ == "__main__":
    update()
