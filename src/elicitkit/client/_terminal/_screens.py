"""The few prompt_toolkit screens a terminal UI needs: a line of text, one choice, several, a live panel.

Each runs inline in the caller's asyncio loop, wipes itself when done (the caller prints a
one-line summary instead, so the scrollback stays a calm transcript), and turns the keys that
are always there into exceptions: Ctrl-C cancels, Ctrl-D declines. `Screens.held` keeps the
keys a person types between two screens of one question for the next screen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from prompt_toolkit import PromptSession
from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app_session
from prompt_toolkit.formatted_text import AnyFormattedText, to_formatted_text
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyBindingsBase, KeyPressEvent, merge_key_bindings
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.containers import Container
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import CheckboxList, RadioList

from elicitkit.i18n import ngettext

T = TypeVar("T")

STYLE = Style.from_dict(
    {
        "prompt": "bold",
        "toolbar": "reverse",
        "error": "ansired bold",
        "muted": "ansibrightblack",
        "required": "ansired bold",
        "problem": "ansired",
        "picked": "bold",
        "checkbox-selected": "reverse",
        "radio-number": "ansibrightblack",
        "validation-toolbar": "ansired bold",
    }
)


class DeclinePressed(Exception):
    """The person pressed the decline key."""


class CancelPressed(Exception):
    """The person pressed the cancel key (or the terminal went away)."""


def _always(decline: bool) -> KeyBindings:
    kb = KeyBindings()

    @kb.add("c-c", eager=True)
    @kb.add("<sigint>")
    def _cancel(event: KeyPressEvent) -> None:
        event.app.exit(exception=CancelPressed())

    if decline:

        @kb.add("c-d", eager=True)
        def _decline(event: KeyPressEvent) -> None:
            event.app.exit(exception=DeclinePressed())

    return kb


def _shortcuts(keys: Mapping[str, Any]) -> KeyBindings:
    kb = KeyBindings()
    for key, value in keys.items():

        def _choose(event: KeyPressEvent, value: Any = value) -> None:
            event.app.exit(result=value)

        kb.add(key, eager=True)(_choose)
    return kb


def _refusing(check: Callable[[str], str | None], problem: list[str]) -> KeyBindings:
    """Enter accepts the line only when `check` agrees; otherwise its sentence goes in `problem`."""
    kb = KeyBindings()

    @kb.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        found = check(event.current_buffer.text)
        if found is None:
            event.current_buffer.validate_and_handle()
        else:
            problem[:] = [found]

    return kb


@dataclass
class Screens:
    """Where the screens run (the terminal's input and output) and which one is up now."""

    input: Input | None = None
    output: Output | None = None
    current: Application[Any] | None = None
    color_depth: ColorDepth | None = None
    """`ColorDepth.DEPTH_1_BIT` when the person asked for no colour; None: the terminal's own."""
    _raw: ExitStack = field(default_factory=ExitStack, init=False, repr=False)
    _holds: int = field(default=0, init=False, repr=False)

    @contextmanager
    def held(self) -> Iterator[None]:
        """The terminal stays in raw mode, as a screen puts it, for as long as this lasts.

        A question is drawn (its header, a line after each answer) between its screens, when
        no screen is up and the terminal would be back in cooked mode: there the kernel turns
        Ctrl-D into an end of file (read later as a NUL byte), Ctrl-C into SIGINT, and echoes
        the rest. So a key pressed as soon as the question showed was lost or did the wrong
        thing; held, it waits in the terminal for the next screen. Whoever else read the terminal
        (`elicitkit client` while a call runs) stops reading until the hold ends. Holds that
        overlap share one.
        """
        if not self._holds:
            terminal = self.input or get_app_session().input
            self._raw.enter_context(terminal.raw_mode())
            self._raw.enter_context(terminal.detach())
        self._holds += 1
        try:
            yield
        finally:
            self._holds -= 1
            if not self._holds:
                self._raw.close()

    async def _run(self, app: Application[T]) -> T:
        self.current = app
        try:
            return await app.run_async()
        except (KeyboardInterrupt, EOFError):
            raise CancelPressed() from None
        finally:
            self.current = None

    def _app(self, body: list[Container], toolbar: AnyFormattedText, keys: KeyBindingsBase, **kw: Any) -> Any:
        bar = Window(FormattedTextControl(toolbar), style="class:toolbar", height=1)
        return Application(
            layout=Layout(HSplit([*body, Window(), bar])),
            key_bindings=keys,
            style=STYLE,
            erase_when_done=True,
            input=self.input,
            output=self.output,
            color_depth=self.color_depth,
            **kw,
        )

    async def text(
        self,
        message: Callable[[str | None], AnyFormattedText],
        *,
        default: str,
        check: Callable[[str], str | None],
        toolbar: AnyFormattedText,
        placeholder: str = "",
    ) -> str:
        """A line of text, pre-filled with `default`; Enter is refused while `check` objects.

        `message(problem)` draws what stands above the input: the refusal is shown there, next
        to the field it is about, rather than at the foot of the screen, and stays until the
        text changes.
        """
        problem: list[str] = []
        session: PromptSession[str] = PromptSession(
            input=self.input,
            output=self.output,
            style=STYLE,
            color_depth=self.color_depth,
            erase_when_done=True,
            key_bindings=merge_key_bindings([_always(decline=True), _refusing(check, problem)]),
            bottom_toolbar=toolbar,
            placeholder=[("class:muted", placeholder)] if placeholder else None,
        )
        session.default_buffer.on_text_changed += lambda _buffer: problem.clear()

        def prompt() -> AnyFormattedText:
            return [
                *to_formatted_text(message(problem[0] if problem else None)),
                ("", "\n"),
                ("class:prompt", "▶ "),
            ]

        self.current = session.app
        try:
            return await session.prompt_async(prompt, default=default)
        except (KeyboardInterrupt, EOFError):
            raise CancelPressed() from None
        finally:
            self.current = None

    async def one(
        self,
        message: AnyFormattedText,
        options: Sequence[tuple[T, AnyFormattedText]],
        *,
        default: T | None,
        toolbar: AnyFormattedText,
        keys: Mapping[str, T] | None = None,
        decline: bool = True,
    ) -> T:
        """One of `options`: arrows or digits move, Enter or a shortcut key chooses."""
        radio = RadioList(
            values=options,
            default=default,
            show_numbers=len(options) <= 9,
            select_on_focus=True,
            open_character="",
            select_character="▶",
            close_character="",
            selected_style="class:picked",
            checked_style="class:picked",
            show_cursor=False,
            show_scrollbar=False,
        )
        kb = _shortcuts(keys or {})

        @kb.add("enter", eager=True)
        def _enter(event: KeyPressEvent) -> None:
            event.app.exit(result=radio.current_value)

        body: list[Container] = [_label(message), radio.__pt_container__()]
        return await self._run(self._app(body, toolbar, merge_key_bindings([_always(decline), kb])))

    async def many(
        self,
        message: AnyFormattedText,
        options: Sequence[tuple[T, AnyFormattedText]],
        *,
        default: Sequence[T],
        check: Callable[[list[T]], str | None],
        toolbar: AnyFormattedText,
    ) -> list[T]:
        """Several of `options`: Space ticks, Enter finishes once `check` agrees."""
        boxes = CheckboxList(values=options, default_values=default)
        boxes.show_scrollbar = False
        refused: list[tuple[str, list[T]]] = []  # the last refusal, and the ticks it was about

        def status() -> AnyFormattedText:
            if refused and refused[0][1] == boxes.current_values:
                return [("class:error", f"  {refused[0][0]}")]
            count = len(boxes.current_values)
            return [
                ("class:muted", "  " + ngettext("%(num)d chosen", "%(num)d chosen", count) % {"num": count})
            ]

        kb = KeyBindings()

        @kb.add("enter", eager=True)
        def _enter(event: KeyPressEvent) -> None:
            chosen = [value for value, _ in options if value in boxes.current_values]
            problem = check(chosen)
            if problem is None:
                event.app.exit(result=chosen)
            else:
                refused[:] = [(problem, list(boxes.current_values))]

        body: list[Container] = [_label(message), boxes.__pt_container__(), _label(status)]
        return await self._run(self._app(body, toolbar, merge_key_bindings([_always(True), kb])))

    async def live(
        self,
        body: Callable[[], AnyFormattedText],
        *,
        keys: Mapping[str, T],
        toolbar: AnyFormattedText,
        refresh: float = 0.5,
    ) -> T:
        """A panel redrawn every `refresh` seconds until one of `keys` is pressed."""
        kb = merge_key_bindings([_always(decline=False), _shortcuts(keys)])
        return await self._run(self._app([_label(body)], toolbar, kb, refresh_interval=refresh))


def _label(text: AnyFormattedText) -> Window:
    return Window(FormattedTextControl(text), dont_extend_height=True, wrap_lines=True)
