"""The site's Jinja templates, with Jinja run once per (template, language, shape).

A page's markup and its translated words are the same for every request in one language;
only its values (a title, a message, the CSRF token) change. So the first page of a shape
(which values are text and which are empty, `None` or flags) runs Jinja with a marker in
place of each text value, and the output cut at the markers is that shape's skeleton; the
pages after it join the skeleton with each value escaped by `markupsafe.escape`, which is
what autoescape does with a value (`{{ x }}`, and the `%` of a `{% trans %}` block). Jinja
stays the only source of the markup and the translations.

A skeleton is kept only when Jinja demonstrably used every value as plain escaped text: two
renders with markers of different lengths must agree outside them, each marker must come out
unchanged and escaped exactly once (a marker holds a `&` and mixed case), and the skeleton
filled with the first page's own values must equal Jinja's render of them. A template that
transforms a value (a filter, `|safe`, a length) fails that and keeps rendering through
Jinja. What the check cannot see is a template testing a value's text (`{% if title ==
"x" %}`) with values other than the first page's; the templates here only
print values and test whether they are empty, and `tests/server/url/test_pages.py` renders
every one of them both ways. Values of other kinds (numbers, lists, dates) also go through
Jinja each time.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from pathlib import Path
from typing import Any

from elicitkit.extras import needs
from elicitkit.i18n import Translator

__all__ = ["Pages"]

_LIMIT = 256
"""Skeletons kept at most: templates x languages x shapes, bounded whatever the values hold."""
_MISSING: Any = object()
_Hole = tuple[str, str | None]
"""Where a value comes from: a context name, and the key inside it when it is a mapping."""


class _Skeleton:
    __slots__ = ("holes", "parts")

    def __init__(self, parts: list[str], holes: list[tuple[int, _Hole]]) -> None:
        self.parts = parts
        self.holes = holes

    def fill(self, values: Mapping[str, Any], escape: Callable[[Any], str]) -> str:
        parts = self.parts.copy()
        for index, (name, key) in self.holes:
            value = values[name] if key is None else values[name][key]
            parts[index] = escape(value)
        return "".join(parts)


class Pages:
    """The templates of one folder, rendered in any language (see the module's docstring)."""

    def __init__(self, folder: Path) -> None:
        with needs("web"):
            import jinja2
            import markupsafe

            from elicitkit.i18n import environment

        self._escape: Callable[[Any], str] = markupsafe.escape

        self.env = environment(
            jinja2.FileSystemLoader(folder),
            undefined=jinja2.StrictUndefined,
            auto_reload=False,  # templates ship with the package; no stat() per page
        )
        self._skeletons: dict[Hashable, _Skeleton | None] = {}

    def render(
        self, template: str, words: Translator, constants: Mapping[str, str], values: Mapping[str, Any]
    ) -> str:
        """`template` in the language of `words`: `constants` are the same on every page of this
        site (they are part of the skeleton), `values` change from page to page."""
        shape = _shape(values)
        if shape is None:
            return self._jinja(template, words, constants, values)
        key = (template, words.locale, tuple(constants.items()), shape)
        skeleton: _Skeleton | None = self._skeletons.get(key, _MISSING)
        if skeleton is _MISSING:
            skeleton = self._skeleton(template, words, constants, values)
            if len(self._skeletons) >= _LIMIT:
                del self._skeletons[next(iter(self._skeletons))]  # the oldest
            self._skeletons[key] = skeleton
        if skeleton is None:
            return self._jinja(template, words, constants, values)
        return skeleton.fill(values, self._escape)

    def _jinja(
        self, template: str, words: Translator, constants: Mapping[str, str], values: Mapping[str, Any]
    ) -> str:
        rendered: str = self.env.get_template(template).render(**constants, **words.jinja, **values)
        return rendered

    def _skeleton(
        self, template: str, words: Translator, constants: Mapping[str, str], values: Mapping[str, Any]
    ) -> _Skeleton | None:
        holes: list[_Hole] = []
        first = self._jinja(template, words, constants, _marked(values, holes, "\x00{}&eK\x00"))
        second = self._jinja(template, words, constants, _marked(values, [], "\x00{}&&eKx\x00"))
        parts = first.split("\x00")
        if len(parts) % 2 == 0 or second.split("\x00")[::2] != parts[::2]:
            return None
        filled: list[tuple[int, _Hole]] = []
        for index in range(1, len(parts), 2):
            number = parts[index].removesuffix("&amp;eK")
            if not number.isdigit() or int(number) >= len(holes) or parts[index] != f"{number}&amp;eK":
                return None  # not printed as it is, escaped exactly once
            filled.append((index, holes[int(number)]))
        skeleton = _Skeleton(parts, filled)
        if skeleton.fill(values, self._escape) != self._jinja(template, words, constants, values):
            return None  # the page's own values take another way through the template
        return skeleton


def _shape(values: Mapping[str, Any], *, nested: bool = False) -> tuple[Hashable, ...] | None:
    """What Jinja's output depends on besides the text of the values (texts, and one level of
    dicts of texts, such as a record's `details`); None: values of other kinds."""
    shape: list[Hashable] = []
    for name, value in values.items():
        if not isinstance(name, str):
            return None
        if isinstance(value, str):
            shape.append((name, bool(value)))
        elif value is None or isinstance(value, bool):
            shape.append((name, value))
        elif isinstance(value, dict) and not nested:
            inner = _shape(value, nested=True)
            if inner is None:
                return None
            shape.append((name, inner))
        else:
            return None
    return tuple(shape)


def _marked(values: Mapping[str, Any], holes: list[_Hole], pattern: str) -> dict[str, Any]:
    """`values` with each non-empty text replaced by a numbered marker (noted in `holes`)."""

    def mark(value: Any, hole: _Hole) -> Any:
        if isinstance(value, str) and value:
            holes.append(hole)
            return pattern.format(len(holes) - 1)
        return value

    marked: dict[str, Any] = {}
    for name, value in values.items():
        if isinstance(value, dict):
            marked[name] = {key: mark(inner, (name, key)) for key, inner in value.items()}
        else:
            marked[name] = mark(value, (name, None))
    return marked
