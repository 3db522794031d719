"""A written record of what a person would see: for scripted runs, demos and logs.

`Transcript` prints readable lines (who says what, step by step); `NarratedUI` wraps the UI
that answers (a `ScriptedUI`, when nobody is there) and writes down each question as the
person would have seen it, and the answer given. Everything that came from a server is
printed as inert text (`elicitkit.urls.reveal`), as a UI would. `elicitkit client --script`
and the demo use it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any, Literal

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from elicitkit import schema
from elicitkit.client._fields import listing
from elicitkit.client._ui import (
    AcceptedElicitation,
    DeclinedElicitation,
    ElicitationUI,
    FormQuestion,
    Reply,
    UrlQuestion,
    Waiting,
)
from elicitkit.client._ui import said as in_words
from elicitkit.i18n import gettext as _
from elicitkit.i18n import ngettext, noop, tidy
from elicitkit.schema import Field
from elicitkit.urls import UrlReport, reveal

__all__ = ["NarratedUI", "Transcript", "describe_field"]

_INDENT = "    "
_KINDS = {
    "text": noop("text"),
    "email": noop("email"),
    "uri": noop("uri"),
    "date": noop("date"),
    "date-time": noop("date-time"),
}


class Transcript:
    """Readable lines on a console: who says what, step by step.

    Each step's header says how long that step took. With `hold_steps` (nobody answers at
    this console, as when a script plays), a step's lines are held until it ends, so its
    header carries its own duration; otherwise the header comes first, for the person to
    read while they answer, and the duration follows the step's last line.
    """

    def __init__(self, console: Console | None = None, *, hold_steps: bool = False) -> None:
        self.console = console or Console(highlight=False, emoji=False, soft_wrap=True)
        self.started = time.monotonic()
        self.hold_steps = hold_steps
        self._open: tuple[Text, str, float, bool] | None = None  # header, about, start, held

    def line(self, text: str | Text = "", *, style: str = "") -> None:
        """Print the program's own line as given (a `str` is read as Rich markup); an empty line
        by default."""
        self.console.print(text, style=style)

    def heading(self, text: str) -> None:
        """Print a title in bold, above the steps."""
        self.console.print(Text(text, style="bold"))

    def step(self, number: int, total: int, title: str, about: str) -> None:
        """Open step `number` (closing the one before, if still open): see `end_step`."""
        self.end_step()
        header = Text(f"[{number}/{total}] {title}", style="bold cyan")
        held = self.hold_steps
        if not held:
            self._print_header(header, about, None)
        else:
            self.console.begin_capture()
        self._open = (header, about, time.monotonic(), held)

    def end_step(self) -> None:
        """Close the open step: its duration goes in its header (or after it, when not held)."""
        if self._open is None:
            return
        header, about, started, held = self._open
        self._open = None
        took = _("%(seconds)s s") % {"seconds": f"{time.monotonic() - started:.1f}"}
        if held:
            lines = self.console.end_capture()
            self._print_header(header, about, took)
            self.console.print(Text.from_ansi(lines), end="")
        else:
            self.console.print(Text(_("  (this step took %(time)s)") % {"time": took}, style="dim"))

    def _print_header(self, header: Text, about: str, took: str | None) -> None:
        self.console.print()
        if took is not None:  # one message: Chinese puts no space before its brackets
            header = header + Text(_(" (%(time)s)") % {"time": took}, style="dim")
        self.console.print(header)
        self.console.print(Text(f"  {about}", style="dim"))

    def say(self, who: str, text: str, *, style: str = "") -> None:
        """Print `who` (bold) saying `text`, both made inert (`reveal`): either may come from a server."""
        line = Text("  ")
        line.append(tidy(reveal(who)), style="bold")
        line.append("  ")
        line.append(tidy(reveal(text)), style=style)
        self.console.print(line)

    def quote(self, text: str) -> None:
        """Print a server's words (its message, say) in quotes, indented and made inert."""
        self.console.print(Text(f'{_INDENT}"{reveal(text)}"', style="italic"))

    def rows(self, rows: list[tuple[str, str]]) -> None:
        """Print (name, value) pairs, a form's fields or answers, with the values lined up in a
        column (a wide character counted as two), all made inert."""
        width = max((cell_len(reveal(name)) for name, _ in rows), default=0)
        for name, value in rows:
            shown = reveal(name)
            shown += " " * (width - cell_len(shown))  # by columns: a CJK character takes two
            self.console.print(Text(f"{_INDENT}{shown}  {tidy(reveal(value))}"))

    def url(self, report: UrlReport) -> None:
        """The URL in its parts, the domain highlighted, and an underline naming the site."""
        text = Text(_INDENT)
        marks = " " * len(_INDENT)
        for part in report.parts or ():
            shown = reveal(part.text)
            highlighted = part.role in ("domain", "userinfo")
            text.append(shown, style="bold reverse" if highlighted else "")
            marks += ("^" if highlighted else " ") * cell_len(shown)
        if not report.parts:
            text.append(reveal(report.url))
        self.console.print(text)
        warnings = " ".join(w.say(_) for w in report.warnings) or _("no warnings")
        site = _("site: %(domain)s (%(warnings)s)") % {
            "domain": reveal(report.domain_unicode or "?"),
            "warnings": warnings,
        }
        self.console.print(Text(f"{marks.rstrip()}  {tidy(site)}"))

    def ok(self, text: str) -> None:
        """Print a check that passed, with a green ✓."""
        self.console.print(Text(f"  ✓ {text}", style="green"))

    def fail(self, text: str) -> None:
        """Print what went wrong, with a red ✗."""
        self.console.print(Text(f"  ✗ {text}", style="bold red"))


def describe_field(schema: Mapping[str, Any], required: bool) -> str:
    """A field's kind in words: what a person is asked to give (`schema` is one property)."""
    field = Field.of("", schema, required=required)
    choices = " | ".join(o.title for o in field.options)
    if field.kind == "single-select":
        words = _("one of: ") + choices
    elif field.kind == "multi-select":
        words = _("any of: ") + listing(o.title for o in field.options)
    elif field.kind == "boolean":
        words = _("yes/no")
    elif field.kind in ("integer", "number"):
        low, high = field.minimum, field.maximum
        words = _("integer") if field.kind == "integer" else _("number")
        if low is not None and high is not None:
            words += _(" from %(low)s to %(high)s") % {"low": low, "high": high}
    else:
        shape = field.format or "text"
        words = _(_KINDS[shape]) if shape in _KINDS else shape
    if field.default is not None:
        words += _(", default %(value)s") % {"value": _show(field.default)}
    return words + (_(", required") if required else "")


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, list):
        return listing(map(str, value)) or _("(none)")
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _answer(field: Field, value: Any) -> str:
    """An answer as the person chose it: choices by their titles, text as typed."""
    titles = {str(o.const): o.title for o in field.options}
    if isinstance(value, list):
        return listing(titles.get(str(v), str(v)) for v in value) or _("(none)")
    if isinstance(value, str):
        return titles.get(value, value)
    return _show(value)


class NarratedUI:
    """An `ElicitationUI` that writes each question and its answer into the transcript.

    `inner` answers (a `ScriptedUI` when nobody is there); `person` names who answers and
    `client` the client they answer through (default: "<person>'s client").
    """

    def __init__(
        self, inner: ElicitationUI, transcript: Transcript, person: str, *, client: str | None = None
    ) -> None:
        self.inner = inner
        self.transcript = transcript
        self.person = person
        self.client = client or _("%(person)s's client") % {"person": person}

    async def ask_form(self, question: FormQuestion) -> Reply:
        """Write the form as the person sees it (or the problems with their last answer), let
        `inner` answer, and write the answer: each field's value, or that nothing is sent."""
        t = self.transcript
        fields = schema.fields(question.schema)
        who = {"person": self.person}
        if question.problems:  # the same form again, the answers kept, the problems named
            problems = " ".join(problem.say(_) for problem in question.problems)
            t.say(self.client, _("does not send that: %(problems)s") % {"problems": problems}, style="yellow")
            t.say(self.client, _("shows the form again, with %(person)s's answers kept.") % who)
        else:
            t.say(in_words(question.server, _), _("asks %(person)s to fill in a form:") % who)
            t.quote(question.message)
            t.rows([(f.title, describe_field(f.schema, f.required)) for f in fields])
        reply = await self.inner.ask_form(question)
        if isinstance(reply, AcceptedElicitation):
            t.say(self.person, _("reviews the answers and submits:"))
            content = reply.data or {}
            t.rows([(f.title, _answer(f, content[f.name])) for f in fields if f.name in content])
        else:
            t.say(
                self.person,
                _("declines: nothing is sent.")
                if isinstance(reply, DeclinedElicitation)
                else _("cancels: nothing is sent."),
            )
        return reply

    async def ask_url_consent(self, question: UrlQuestion) -> Reply:
        """Write the server's message and the URL in its parts with its warnings, let `inner`
        answer, and write whether the page is opened."""
        t = self.transcript
        asks = _("asks %(person)s to open a page in the browser:") % {"person": self.person}
        t.say(in_words(question.server, _), asks)
        t.quote(question.message)
        t.url(question.report)
        reply = await self.inner.ask_url_consent(question)
        if isinstance(reply, AcceptedElicitation) and question.report.verdict == "block":
            t.say(self.person, _("agrees, but the URL is blocked: the page is not opened."))
        elif isinstance(reply, AcceptedElicitation):
            t.say(self.person, _("agrees to open the page."))
        else:
            said = _("does not agree (%(action)s): the page is not opened.") % {"action": reply.action}
            t.say(self.person, said)
        return reply

    async def wait(self, waiting: Waiting) -> Literal["retry", "cancel"]:
        """Write why the call waits (held by -32042, a 2026-07-28 page, or out of time), then wait
        with `inner`."""
        count = len(waiting.pending)
        if waiting.timed_out:
            said = _("no completion came in time; asks %(person)s to retry or cancel.") % {
                "person": self.person
            }
            self.transcript.say(self.client, said)
        elif waiting.notes:  # a 2026-07-28 call: made again until the page is done
            self.transcript.say(self.client, _("waits for the page.") + f" {in_words(waiting.notes[0], _)}")
        else:
            said = ngettext(
                "the call is held (error -32042) until the elicitation completes; it will retry by itself.",
                "the call is held (error -32042) until the %(num)d elicitations complete; "
                "it will retry by itself.",
                count,
            )
            self.transcript.say(self.client, said % {"num": count})
        return await self.inner.wait(waiting)

    def notice(self, text: str) -> None:
        """Write the notice (a `Notice` translated), and pass it on to `inner`."""
        self.transcript.say(_("notice"), in_words(text, _), style="green")
        self.inner.notice(text)
