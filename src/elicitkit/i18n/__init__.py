"""Which language a person reads, and what elicitkit says in it.

Everything elicitkit itself says to a person (page buttons and warnings, the URL consent's
explanations, the terminal's screens, the demo's narration) is a gettext message of the
`elicitkit` domain; what a server author wrote (a `message`, a schema's titles) is shown as
given. Server pages choose the language per request from `Accept-Language` (`negotiate`),
the UIs on a person's computer from the environment (`from_environment`: LANGUAGE, LC_ALL,
LC_MESSAGES, LANG), and both take an explicit `locale=` that wins.

The catalogs live beside this module (`locale/<locale>/LC_MESSAGES/elicitkit.po`) with their
compiled `.mo`. The `.mo` files are committed, as Django and most libraries do: an install from
a clone, an sdist or a wheel reads them with the standard library's `gettext`, with no build
step and no compiler. `tests/i18n` fails when a `.mo` no longer matches its `.po`, when a
message lacks a Chinese translation, or when the sources hold a message the catalogs lack;
`scripts/translations` re-extracts, updates and compiles them.

Babel (the `i18n` extra, which `web` and `terminal` bring) parses language tags and formats
dates and numbers. Without it nothing fails (a page must not break over its language): the
catalogs load with the standard library, tags are read by their language part alone, and
dates and numbers are written plainly (ISO dates); a warning says so once.
"""

from __future__ import annotations

import functools
import gettext as _gettext
import logging
import os
import re
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from elicitkit.errors import ElicitationError

__all__ = [
    "DEFAULT_LOCALE",
    "DOMAIN",
    "LOCALES",
    "LOCALE_DIR",
    "Translator",
    "UnsupportedLocaleError",
    "choose",
    "current",
    "environment",
    "from_environment",
    "gettext",
    "negotiate",
    "ngettext",
    "noop",
    "speaking",
    "spoken",
    "tidy",
    "translator",
]

logger = logging.getLogger(__name__)

DOMAIN = "elicitkit"
LOCALES: tuple[str, ...] = ("en", "zh_CN")
"""The locales with a complete catalog; the first is the default."""
DEFAULT_LOCALE = LOCALES[0]
LOCALE_DIR = Path(__file__).parent / "locale"
_MAX_TAGS = 16
"""An `Accept-Language` header is read up to this many tags: bounded work per header value."""


class UnsupportedLocaleError(ElicitationError, ValueError):
    """A `locale=` option named a language elicitkit has no catalog for."""


def noop(message: str) -> str:
    """Mark `message` for extraction where it is translated later, at rendering (`N_`)."""
    return message


class Translator:
    """elicitkit's messages in one locale, loaded once (`translator(locale)` shares them)."""

    def __init__(self, locale: str) -> None:
        self.locale = locale
        self.tag = locale.replace("_", "-")
        """The BCP 47 tag, for `<html lang>`."""
        self._catalog = _gettext.translation(DOMAIN, LOCALE_DIR, languages=[locale], fallback=True)
        self.gettext: Callable[[str], str] = self._catalog.gettext
        self.ngettext: Callable[[str, str, int], str] = self._catalog.ngettext

    def format_datetime(self, value: datetime | float | str, format: str = "medium") -> str:
        """A moment as people of this locale write it: a datetime in its own zone, or seconds
        since the epoch in UTC (a server does not know the reader's zone); text is kept as is."""
        if isinstance(value, str):
            return value
        when = value if isinstance(value, datetime) else datetime.fromtimestamp(value, UTC)
        zone = " UTC" if when.utcoffset() == timedelta(0) else ""
        babel_dates = _babel("babel.dates")
        if babel_dates is None:
            return when.strftime("%Y-%m-%d %H:%M") + zone
        text = babel_dates.format_datetime(when, format=format, tzinfo=when.tzinfo, locale=self.locale)
        return f"{text}{zone}"

    def format_number(self, value: float) -> str:
        """A number with this locale's separators."""
        babel_numbers = _babel("babel.numbers")
        if babel_numbers is None:
            return f"{value:,}"
        return str(babel_numbers.format_decimal(value, locale=self.locale))

    @functools.cached_property
    def jinja(self) -> Mapping[str, Any]:
        """What a template of `environment()` needs to speak this locale: pass it to `render`.

        `gettext` and `ngettext` are Jinja2's own newstyle gettext (`jinja2.ext.i18n`) over this
        locale's catalog: under autoescape the translation is Markup, so `%(name)s` values are
        escaped like any other value; a template's `_` is the extension's alias for `gettext`.
        """
        import jinja2

        # Jinja makes its newstyle callables when a catalog is installed on an environment. The
        # templates' environments serve every locale (the locale is chosen per render), so this
        # locale's callables come from an environment of their own.
        installed = jinja2.Environment(extensions=["jinja2.ext.i18n"], autoescape=True)
        installed.install_gettext_translations(self._catalog, newstyle=True)  # type: ignore[attr-defined]
        return {
            "gettext": installed.globals["gettext"],
            "ngettext": installed.globals["ngettext"],
            "lang": self.tag,
            "format_datetime": self.format_datetime,
            "format_number": self.format_number,
        }


_TRANSLATORS: dict[str, Translator] = {}


def translator(locale: str | None = None) -> Translator:
    """The one `Translator` of `locale` (any spelling `choose` accepts; None: the default)."""
    chosen = choose(locale) if locale is not None else DEFAULT_LOCALE
    found = _TRANSLATORS.get(chosen)
    if found is None:
        found = _TRANSLATORS[chosen] = Translator(chosen)
    return found


_CURRENT: ContextVar[Translator | None] = ContextVar("elicitkit_locale", default=None)


@contextmanager
def speaking(locale: str | Translator | None) -> Iterator[Translator]:
    """Within the block (and the tasks it starts), `gettext` speaks `locale`: a UI on a
    person's computer wraps its work in this once it knows their language."""
    words = locale if isinstance(locale, Translator) else translator(locale)
    token = _CURRENT.set(words)
    try:
        yield words
    finally:
        _CURRENT.reset(token)


class _Speaker(Protocol):
    words: Translator


_S = TypeVar("_S", bound=_Speaker)
_P = ParamSpec("_P")
_T = TypeVar("_T")


def spoken(
    method: Callable[Concatenate[_S, _P], Awaitable[_T]],
) -> Callable[Concatenate[_S, _P], Coroutine[Any, Any, _T]]:
    """An async method of a UI that runs `speaking(self.words)`: a UI's words, whatever task calls it."""

    @functools.wraps(method)
    async def in_its_language(self: _S, /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        with speaking(self.words):
            return await method(self, *args, **kwargs)

    return in_its_language


def current() -> Translator:
    """The `Translator` of the innermost `speaking` block; the default locale outside any."""
    return _CURRENT.get() or translator()


def gettext(message: str) -> str:
    """`message` in the current language (see `speaking`)."""
    return current().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """`singular` or `plural`, as `n` needs, in the current language (see `speaking`)."""
    return current().ngettext(singular, plural, n)


_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_FULLWIDTH = "\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\u201c\u201d\u2018\u2019"
_STRAY = re.compile(
    rf"(?<=[{_HAN}]) (?=[{_HAN}])"  # one space between two characters: a seam, not a gap
    rf"|(?<=[{_HAN}{_FULLWIDTH}]) +(?=[{_FULLWIDTH}])"
    rf"|(?<=[{_FULLWIDTH}]) +(?=[{_HAN}])"
)


def tidy(text: str) -> str:
    """`text` as Chinese typography writes it, when the current language is Chinese.

    A translation keeps a space around a value, as Chinese does around Latin words and
    numbers ("请 alice 填写"); when the value is itself Chinese ("请小明填写"), or sits by
    fullwidth punctuation, that space is dropped. Other languages are returned as given.
    """
    if not current().locale.startswith("zh"):
        return text
    return _STRAY.sub("", text)


def choose(locale: str) -> str:
    """The supported locale an explicit option means: "zh-CN", "zh_CN.UTF-8", "zh" -> "zh_CN".

    Raises:
        UnsupportedLocaleError: elicitkit has no catalog for that language.
    """
    found = locale if locale in LOCALES else _best([locale])
    if found is None:
        raise UnsupportedLocaleError(
            f"elicitkit has no translations for the locale {locale!r}; use one of: {', '.join(LOCALES)}."
        )
    return found


@functools.lru_cache(maxsize=512)
def negotiate(accept_language: str | None) -> str:
    """The locale for a browser's `Accept-Language` header value; the default when none fits.

    The tags are ranked by their `q` (RFC 9110 section 12.5.4; `q=0`, `*` and a `q` that is not
    a number from 0 to 1 are not acceptable), then matched by Babel as `choose` does (Babel
    matches a ranked list of tags; it has no reader of the header's weights). A malformed
    header never raises: its unreadable tags are skipped. Only the first tags are read, and
    the answers are kept per header value (browsers send a handful of distinct ones).
    """
    if not accept_language:
        return DEFAULT_LOCALE
    wanted: list[tuple[float, str]] = []
    for item in accept_language.split(",")[:_MAX_TAGS]:
        tag, _, params = item.partition(";")
        tag, quality = tag.strip(), _quality(params)
        if tag and tag != "*" and quality > 0:
            wanted.append((quality, tag))
    wanted.sort(key=lambda weighted: weighted[0], reverse=True)  # stable: a tie keeps the header's order
    return _best(tag for _, tag in wanted) or DEFAULT_LOCALE


def _quality(params: str) -> float:
    """The `q` among a tag's parameters ("q=0.8"), 1 without one; a `q` that is not a number
    from 0 to 1 reads as 0 (not acceptable)."""
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "q":
            try:
                quality = float(value)
            except ValueError:
                return 0.0
            return quality if 0.0 <= quality <= 1.0 else 0.0
    return 1.0


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The locale of a person's terminal: LANGUAGE (a list), LC_ALL, LC_MESSAGES, LANG, as gettext
    reads them; "C" and "POSIX" mean the default."""
    env = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if not value:
            continue
        candidates = [v for v in value.split(":") if v] if name == "LANGUAGE" else [value]
        if all(c.split(".")[0] in ("C", "POSIX") for c in candidates):
            return DEFAULT_LOCALE
        return _best(candidates) or DEFAULT_LOCALE
    return DEFAULT_LOCALE


def environment(loader: Any, **options: Any) -> Any:
    """A Jinja2 `Environment` with the i18n extension (trimmed `{% trans %}` blocks), speaking
    the default locale until a render passes another `Translator.jinja`. One per template
    folder, made once: the locale is chosen per render, never per environment. Autoescape is
    always on."""
    import jinja2

    env = jinja2.Environment(loader=loader, extensions=["jinja2.ext.i18n"], autoescape=True, **options)
    env.policies["ext.i18n.trimmed"] = True
    env.install_null_translations(newstyle=True)  # type: ignore[attr-defined]  # the extension's
    env.globals.update(translator().jinja)
    return env


_TAGS = {locale.replace("_", "-").lower(): locale for locale in LOCALES}
"""Each supported locale by its lower-case BCP 47 tag, as Babel's negotiation answers."""
_ALIASES = {locale.partition("_")[0]: locale for locale in LOCALES if "_" in locale}
"""A bare language means its one catalog ("zh" -> zh_CN), as Babel's aliases ("ja" -> ja_JP) do."""


def _best(tags: Iterable[str]) -> str | None:
    """The first supported locale among `tags` (most wanted first), negotiated by Babel.

    Each tag is followed by its language alone (RFC 4647 lookup), so "zh-TW" and "zh-Hant-HK"
    get zh_CN, the one Chinese catalog (read far better than English by most), and "en-GB"
    gets en. Without Babel a tag's language alone picks the catalog, which gives the same
    answers for the locales elicitkit has.
    """
    candidates: list[str] = []
    for raw in tags:
        tag = raw.split(".")[0].split("@")[0].strip().replace("_", "-")
        if tag:
            candidates += (tag, tag.partition("-")[0])
    babel_core = _babel("babel.core")
    if babel_core is not None:
        found = babel_core.negotiate_locale(candidates, _TAGS, sep="-", aliases=_ALIASES)
        return _TAGS.get(str(found).lower()) if found else None
    for candidate in candidates:
        language = candidate.partition("-")[0].lower()
        if found := _TAGS.get(language) or _ALIASES.get(language):
            return found
    return None


_warned: list[bool] = []


def _babel(module: str) -> Any:
    """Babel's `module`, or None (once logged) when the `i18n` extra is not installed."""
    import importlib

    try:
        return importlib.import_module(module)
    except ModuleNotFoundError:
        if not _warned:
            _warned.append(True)
            logger.warning(
                "Babel is not installed, so elicitkit reads language tags simply and writes dates and "
                "numbers plainly; install it with: pip install 'elicitkit[i18n]'"
            )
        return None
