"""The demo's transcript: the narrated record of `elicitkit.client._terminal.narrated`, plus
the pages the demo's scripted browser lands on."""

from __future__ import annotations

from rich.text import Text

from elicitkit.client import NarratedUI, describe_field
from elicitkit.client import Transcript as _Transcript
from elicitkit.demo._pages import DEMO_BANNER, DEMO_PEOPLE
from elicitkit.demo.browser import Page, ScriptedBrowser
from elicitkit.i18n import gettext as _
from elicitkit.urls import reveal

__all__ = ["NarratedUI", "Transcript", "describe_field"]

_INDENT = "    "


class Transcript(_Transcript):
    """Readable lines on a console: who says what, step by step, and the browser's pages."""

    def page(self, browser: ScriptedBrowser, page: Page) -> None:
        """A page the scripted browser landed on: its site, heading and first lines."""
        heading = page.heading or page.title or f"HTTP {page.status}"
        what = f'{page.site}  "{heading}"'
        if page.status >= 400:
            what += f" (HTTP {page.status})"
        self.say(_("browser (%(person)s)") % {"person": browser.person}, what)
        shown = 0
        banners = tuple(b for b in (_(DEMO_BANNER).split("<")[0].strip(), _(DEMO_PEOPLE)) if b)
        for paragraph in page.paragraphs:
            if paragraph.startswith(banners):
                continue
            item = paragraph.startswith("- ")
            if shown >= 3 and not item:
                break
            # A line ending in ":" is always followed by its list, never left hanging.
            self.console.print(Text(f"{_INDENT}{_INDENT}{reveal(paragraph)}", style="dim"))
            shown += 0 if item else 1
