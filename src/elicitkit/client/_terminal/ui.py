"""A person at a terminal answers elicitations: forms with a review screen, URL consent, waiting.

The UI shows and asks, nothing more: the handler decides what is valid to send and opens URLs.
Everything the server sent (its name, message, titles, the URL) is drawn as inert text, so a
crafted string cannot repaint the screen, and no URL is ever made clickable (C-24).

Keys, on every screen: Ctrl-C cancels, Ctrl-D declines (not while waiting). In a form:
Enter confirms a field; on the review screen Enter changes the selected answer or submits,
`s` submits, `d` declines. Choices: arrows or digits move, Enter picks, `y`/`n` answer yes/no
questions; Space ticks a multi-choice. URL consent: `o` opens, `d` declines. Waiting: `r`
retries now, `c` cancels. A key typed as soon as a question shows, or between two of its
screens, waits for the next screen rather than reaching a terminal no screen reads.

Colour only repeats what the words say (a problem, a required answer, a risky URL): with
`NO_COLOR` set, or a console made with `no_color=True`, nothing is drawn in colour.
"""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import Mapping
from typing import Any, Literal

from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.application.current import set_app
from prompt_toolkit.formatted_text import ANSI, AnyFormattedText
from prompt_toolkit.input import Input
from prompt_toolkit.output import ColorDepth, Output
from rich.cells import cell_len
from rich.console import Console, RenderableType
from rich.text import Text

from elicitkit import schema as _schema
from elicitkit.client._errors import NotATerminalError
from elicitkit.client._fields import (
    Field,
    check,
    editable,
    example,
    form_fields,
    parse,
    problems_by_field,
    safe,
    show,
)
from elicitkit.client._terminal._screens import CancelPressed, DeclinePressed, Screens
from elicitkit.client._terminal._views import (
    answers_table,
    field_heading,
    header,
    review_row,
    styled,
    url_details,
    waiting_panel,
)
from elicitkit.client._ui import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    FormQuestion,
    Reply,
    UrlQuestion,
    Waiting,
    said,
)
from elicitkit.i18n import Translator, from_environment, noop, spoken, translator
from elicitkit.i18n import gettext as _

__all__ = ["NotATerminalError", "TerminalUI"]

_TEXT_KEYS = noop(" Enter: next   Ctrl-D: decline   Ctrl-C: cancel ")
_PICK_KEYS = noop(" ↑↓/digits: move   Enter: choose   Ctrl-D: decline   Ctrl-C: cancel ")
_YES_NO_KEYS = noop(" y: yes   n: no   ↑↓: move   Enter: choose   Ctrl-D: decline   Ctrl-C: cancel ")
_TICK_KEYS = noop(" ↑↓: move   Space: tick   Enter: done   Ctrl-D: decline   Ctrl-C: cancel ")
_REVIEW_KEYS = noop(" ↑↓: move   Enter: change/choose   s: submit   d: decline   Ctrl-C: cancel ")
_CONSENT_KEYS = noop(" ↑↓: move   Enter: choose   o: open   d/Ctrl-D: decline   Ctrl-C: cancel ")
_BLOCKED_KEYS = noop(" ↑↓: move   Enter: choose   d/Ctrl-D: decline   Ctrl-C: cancel ")
_WAIT_KEYS = noop(" r: retry now   c/Ctrl-C: cancel ")

_SUBMIT, _DECLINE, _CANCEL = ("do", "submit"), ("do", "decline"), ("do", "cancel")


class TerminalUI:
    """The `ElicitationUI` for a terminal, on prompt_toolkit (input) and rich (drawing).

    It runs inside the caller's asyncio loop. `input`, `output` and `console` exist for tests
    (prompt_toolkit pipe input, a rich console on a buffer); leave them out on a real terminal.
    It speaks `locale` ("zh_CN"), by default the terminal's (LANGUAGE, LC_ALL, LANG).
    """

    def __init__(
        self,
        *,
        console: Console | None = None,
        input: Input | None = None,
        output: Output | None = None,
        locale: str | None = None,
    ) -> None:
        self.words: Translator = translator(locale or from_environment())
        if input is None:
            for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout)):
                if stream is None or not stream.isatty():
                    raise NotATerminalError(
                        f"TerminalUI needs a person at a terminal, but {name} is not a TTY. "
                        "Run it in an interactive terminal, or use the scripted or web UI."
                    )
        # rich reads NO_COLOR itself; a console made with no_color=True says the same to the screens.
        self.console = console or Console(highlight=False, emoji=False)
        no_color = self.console.no_color
        self._screens = Screens(input, output, color_depth=ColorDepth.DEPTH_1_BIT if no_color else None)
        self._notices: set[asyncio.Future[None]] = set()

    # -- forms ---------------------------------------------------------------------------

    @spoken
    async def ask_form(self, question: FormQuestion) -> Reply:
        """Walk the fields (or go straight to review when fixing refused answers), then review."""
        fields = form_fields(question.schema)
        answers: dict[str, Any] = {f.name: question.initial.get(f.name) for f in fields}
        problems = problems_by_field(question.problems, [f.name for f in fields])
        with self._screens.held():  # a key pressed once the header shows waits for the screen
            keys = _("✱ required answer   Ctrl-D declines   Ctrl-C cancels")
            self.console.print(
                header(question.server, _("asks you to fill in a form"), question.message, keys)
            )
            try:
                if not problems:
                    for index, field in enumerate(fields, 1):
                        answers[field.name] = await self._ask(
                            field, answers[field.name], None, index, len(fields)
                        )
                content = await self._review(question, fields, answers, problems)
            except DeclinePressed:
                self.console.print(Text(_("✗ Declined. Nothing you typed is sent."), style="yellow"))
                return DeclinedElicitation()
            except CancelPressed:
                self.console.print(Text(_("✗ Cancelled. Nothing you typed is sent."), style="yellow"))
                return CancelledElicitation()
            self.console.print(Text(_("✓ Answers submitted:"), style="green"), answers_table(fields, answers))
            return AcceptedElicitation(content)

    async def _review(
        self,
        question: FormQuestion,
        fields: list[Field],
        answers: dict[str, Any],
        problems: dict[str | None, str],
    ) -> dict[str, Any]:
        """The review screen (C-10): every answer, any of them changeable, until submit."""
        by_name = {f.name: f for f in fields}
        selected = _first_problem(fields, problems)
        width = min(max((cell_len(f.title) for f in fields), default=0), 30)
        while True:
            rows: list[tuple[tuple[str, str], AnyFormattedText]] = [
                (("field", f.name), review_row(f, answers[f.name], problems.get(f.name), width))
                for f in fields
            ]
            rows += [
                (_SUBMIT, [("class:prompt", _("Submit answers"))]),
                (_DECLINE, _("Decline")),
                (_CANCEL, _("Cancel")),
            ]
            heading = Text(_("Review your answers"), style="bold")
            if problems:
                heading.append(_("  Some answers need fixing."), style="red")
            if None in problems:
                heading.append(f"\n⚠ {problems[None]}", style="red")
            selected = await self._screens.one(
                self._ansi(heading),
                rows,
                default=selected,
                toolbar=_(_REVIEW_KEYS),
                keys={"s": _SUBMIT, "d": _DECLINE},
            )
            if selected == _DECLINE:
                raise DeclinePressed()
            if selected == _CANCEL:
                raise CancelPressed()
            if selected == _SUBMIT:
                problems = _check_all(question.schema, fields, answers)
                if not problems:
                    return {k: v for k, v in answers.items() if v is not None}
                selected = _first_problem(fields, problems)
                continue
            field = by_name[selected[1]]
            answers[field.name] = await self._ask(field, answers[field.name], problems.pop(field.name, None))

    async def _ask(
        self, field: Field, value: Any, problem: str | None, index: int = 0, total: int = 0
    ) -> Any:
        """Ask one field with the widget for its kind; returns the new value (None: no answer)."""
        progress = f"({index}/{total})" if index else _("(change)")
        heading = self._ansi(field_heading(field, problem, progress))
        if field.kind in ("boolean", "single-select"):
            if field.kind == "boolean":
                values: list[Any] = [True, False]
                titles = [_("Yes"), _("No")]
            else:
                values = [v for v, _ in field.options]
                titles = [t for _, t in field.options]
            if not field.required:
                values.append(None)
                titles.append(_("No answer"))
            keys = {"y": 0, "n": 1} if field.kind == "boolean" else {}
            current = next((i for i, v in enumerate(values) if _same(v, value)), None)
            picked = await self._screens.one(
                heading,
                list(enumerate(titles)),
                default=current,
                toolbar=_(_YES_NO_KEYS if keys else _PICK_KEYS),
                keys=keys,
            )
            answer = values[picked]
        elif field.kind == "multi-select":
            options = [v for v, _ in field.options]
            ticked = [
                i
                for i, v in enumerate(options)
                if isinstance(value, list) and any(_same(v, x) for x in value)
            ]

            def chosen(indexes: list[int]) -> list[Any] | None:
                # Nothing ticked on an optional field is no answer rather than an empty one.
                return [options[i] for i in indexes] if indexes or field.required else None

            indexes = await self._screens.many(
                heading,
                [(i, t) for i, (_, t) in enumerate(field.options)],
                default=ticked,
                check=lambda indexes: check(field, chosen(indexes)),
                toolbar=_(_TICK_KEYS),
            )
            answer = chosen(indexes)
        else:

            def check_text(text: str) -> str | None:
                try:
                    typed = parse(field, text)
                except ValueError as error:
                    return str(error)
                return check(field, typed) or _check_one(field, typed)

            drawn: dict[str | None, ANSI] = {problem: heading}

            def heading_with(refused: str | None) -> ANSI:
                refused = refused or problem
                if refused not in drawn:  # drawn once per sentence, not on every repaint
                    drawn[refused] = self._ansi(field_heading(field, refused, progress))
                return drawn[refused]

            shown = example(field)
            text = await self._screens.text(
                heading_with,
                default=editable(field, value),
                check=check_text,
                toolbar=_(_TEXT_KEYS),
                placeholder=_("e.g. %(example)s") % {"example": shown} if shown else "",
            )
            answer = parse(field, text)
        line = Text("  ") + styled(
            _("%(field)s: %(answer)s"), field=(field.title, "dim"), answer=(show(field, answer), "")
        )
        self.console.print(line)
        return answer

    # -- URL consent ---------------------------------------------------------------------

    @spoken
    async def ask_url_consent(self, question: UrlQuestion) -> Reply:
        """The full URL with its domain highlighted, both forms of the host, every warning."""
        report = question.report
        with self._screens.held():  # a key pressed once the header shows waits for the screen
            self.console.print(header(question.server, _("asks you to open a web page"), question.message))
            self.console.print(url_details(report, question.server))
            blocked = report.verdict == "block"
            options: list[tuple[str, AnyFormattedText]] = []
            if not blocked:
                options.append(("open", _("Open it in my browser")))
            options += [("decline", _("Don't open it (decline)")), ("cancel", _("Cancel"))]
            try:
                choice = await self._screens.one(
                    self._ansi(Text(_("Open this page?"), style="bold")),
                    options,
                    default="open" if report.verdict == "ok" else "decline",
                    toolbar=_(_BLOCKED_KEYS if blocked else _CONSENT_KEYS),
                    keys={"d": "decline"} if blocked else {"o": "open", "d": "decline"},
                )
            except DeclinePressed:
                choice = "decline"
            except CancelPressed:
                choice = "cancel"
            if choice == "open":
                self.console.print(
                    Text(_("✓ You agreed; the page opens in your system browser."), style="green")
                )
                return AcceptedElicitation()
            if choice == "decline":
                self.console.print(Text(_("✗ Not opened: you declined."), style="yellow"))
                return DeclinedElicitation()
            self.console.print(Text(_("✗ Not opened: cancelled."), style="yellow"))
            return CancelledElicitation()

    # -- waiting -------------------------------------------------------------------------

    @spoken
    async def wait(self, waiting: Waiting) -> Literal["retry", "cancel"]:
        """A live panel with the elapsed time; `r` and `c` work at any moment."""

        def body() -> AnyFormattedText:
            return self._ansi(waiting_panel(waiting))

        keys: dict[str, Literal["retry", "cancel"]] = {"r": "retry", "c": "cancel"}
        try:
            with self._screens.held():  # a key pressed before the panel shows waits for it
                choice = await self._screens.live(body, keys=keys, toolbar=_(_WAIT_KEYS))
        except CancelPressed:
            choice = "cancel"
        self.console.print(
            Text(_("↻ Retrying the call."), style="green")
            if choice == "retry"
            else Text(_("✗ Stopped waiting: cancelled."), style="yellow")
        )
        return choice

    def notice(self, text: str) -> None:
        """A one-line notice; printed above the current screen if one is up, without disturbing it."""
        line = Text("◆ ", style="cyan")
        line.append(safe(said(text, self.words.gettext)))
        app = self._screens.current
        if app is None or not app.is_running:
            self.console.print(line)
            return
        with set_app(app):
            future = asyncio.ensure_future(run_in_terminal(lambda: self.console.print(line)))
        self._notices.add(future)
        future.add_done_callback(self._notices.discard)

    # -- drawing -------------------------------------------------------------------------

    def _ansi(self, renderable: RenderableType) -> ANSI:
        """Render with rich into text prompt_toolkit can show inside a screen."""
        buffer = io.StringIO()
        Console(
            file=buffer,
            force_terminal=True,
            color_system=self.console.color_system,  # type: ignore[arg-type]
            no_color=self.console.no_color,
            width=self.console.width,
            highlight=False,
            emoji=False,
        ).print(renderable)
        return ANSI(buffer.getvalue().rstrip("\n"))


def _check_all(
    schema: Mapping[str, Any], fields: list[Field], answers: dict[str, Any]
) -> dict[str | None, str]:
    """Everything to fix before the answer may leave the review screen (the handler checks again)."""
    found: dict[str | None, str] = {}
    for field in fields:
        problem = check(field, answers[field.name])
        if problem is not None:
            found[field.name] = problem
    if found:
        return found
    content = {k: v for k, v in answers.items() if v is not None}
    return problems_by_field(_schema.validate(schema, content), [f.name for f in fields])


def _check_one(field: Field, value: Any) -> str | None:
    """The shared validator's word on one field, for whatever the widget's own checks miss."""
    if value is None:
        return None
    alone = {"type": "object", "properties": {field.name: dict(field.schema)}}
    for problem in _schema.validate(alone, {field.name: value}):
        return safe(problem.say(_))
    return None


def _first_problem(fields: list[Field], problems: Mapping[str | None, str]) -> tuple[str, str]:
    """Where the review screen's selection starts: the first answer to fix, else Submit."""
    return next((("field", f.name) for f in fields if f.name in problems), _SUBMIT)


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b
