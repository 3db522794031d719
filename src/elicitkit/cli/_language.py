"""The language a command speaks: `--locale`, else the terminal's (LANGUAGE, LC_ALL, LC_MESSAGES,
LANG), as the demo and the terminal UI choose it. What a script reads (`--json`, exit codes,
problem and warning codes) stays the same in every language."""

from __future__ import annotations

from typing import Annotated

import typer

from elicitkit.i18n import Translator, UnsupportedLocaleError, from_environment, translator

__all__ = ["LocaleOption", "words"]

LocaleOption = Annotated[
    str | None,
    typer.Option("--locale", help="The language of the report (en, zh_CN); default: LANG."),
]


def words(locale: str | None) -> Translator:
    """The `Translator` for `--locale` or the environment; a usage error for a language we lack."""
    try:
        return translator(locale or from_environment())
    except UnsupportedLocaleError as error:
        raise typer.BadParameter(str(error), param_hint="'--locale'") from None
