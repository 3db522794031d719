"""The site's Jinja templates: compiled once each, rendered with autoescape on every page.

A page is what a person waits on, so it is rendered the plain way: Jinja escapes every value
it prints, whatever the template does with it, and nothing outside Jinja joins markup and
values (docs/performance.md says what that costs and why it is the right trade).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from elicitkit.extras import needs
from elicitkit.i18n import Translator

__all__ = ["Pages"]


class Pages:
    """The templates of one folder, each compiled on its first page, rendered in any language."""

    def __init__(self, folder: Path) -> None:
        with needs("web"):
            import jinja2

            from elicitkit.i18n import environment

        self.env = environment(
            jinja2.FileSystemLoader(folder),
            undefined=jinja2.StrictUndefined,
            auto_reload=False,  # templates ship with the package; no stat() per page
        )
        self._templates: dict[str, jinja2.Template] = {}

    def render(
        self, template: str, words: Translator, constants: Mapping[str, str], values: Mapping[str, Any]
    ) -> str:
        """`template` in the language of `words`, with the site's `constants` (its name, its
        prefix) and the page's `values`."""
        compiled = self._templates.get(template)
        if compiled is None:
            compiled = self._templates[template] = self.env.get_template(template)
        rendered: str = compiled.render(**constants, **words.jinja, **values)
        return rendered
