"""What the terminal UI draws, as rich renderables: who asks, a field, a review row, a URL, a wait.

Drawing only; `terminal.py` decides when. Every string from the server passes through `safe`.
"""

from __future__ import annotations

import re
import time
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples
from rich.cells import cell_len, set_cell_size
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from elicitkit.client._fields import Field, hint, safe, show
from elicitkit.client._ui import Waiting, said
from elicitkit.i18n import gettext as _
from elicitkit.i18n import ngettext
from elicitkit.urls import UrlReport

_PLACEHOLDER = re.compile(r"(%\(\w+\)s)")
_URL_STYLES = {"domain": "bold reverse", "userinfo": "bold red underline"}


def header(server: str, verb: str, message: str, keys: str | None = None) -> RenderableType:
    """Who asks and why (C-30): the server's name and its message, both inert."""
    title = styled(
        _("The server “%(server)s” %(verb)s"),
        server=(safe(said(server, _)), "bold"),
        verb=(verb, ""),
    )
    return _Header(title, Text(safe(message)), Text(keys, style="dim") if keys else None)


class _Header:
    """A panel whose title and key line sit on its border when they fit there whole, and
    otherwise inside it, wrapped: a border cuts what is too long, and a cut name misleads."""

    def __init__(self, title: Text, body: Text, keys: Text | None) -> None:
        self.title, self.body, self.keys = title, body, keys

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        def fits(text: Text | None) -> bool:  # a space each side, in a border: ╭─ text ─╮
            return text is None or cell_len(text.plain) + 6 <= options.max_width

        title = self.title if fits(self.title) else None
        keys = self.keys if fits(self.keys) else None
        inside = Group(*(t for t in (self.title if title is None else None, self.body) if t is not None))
        if keys is None and self.keys is not None:
            inside.renderables.append(self.keys)
        # rich sizes a panel to its body and title, not its subtitle: size it for all three
        needed = console.measure(inside, options=options.update_width(options.max_width - 4)).maximum + 4
        for edge in (title, keys):
            if edge is not None:
                needed = max(needed, cell_len(edge.plain) + 6)
        yield Panel(
            inside,
            title=title,
            title_align="left",
            subtitle=keys,
            subtitle_align="right",
            border_style="cyan",
            width=min(needed, options.max_width),
        )


def styled(template: str, **values: tuple[str, str]) -> Text:
    """A translated sentence with its `%(name)s` values in their own styles.

    The sentence stays one message, so each language orders and spaces it as it reads
    (Chinese puts no space around its quotes and colons); only the values are styled.
    """
    text = Text()
    for piece in _PLACEHOLDER.split(template):
        if piece.startswith("%(") and piece.endswith(")s") and piece[2:-2] in values:
            value, style = values[piece[2:-2]]
            text.append(value, style=style)
        else:
            text.append(piece.replace("%%", "%"))
    return text


def field_heading(field: Field, problem: str | None, progress: str) -> RenderableType:
    title = Text(field.title, style="bold")
    if field.required:
        title.append(" ✱", style="bold red")
    title.append("  ")
    title.append(progress, style="dim")
    lines: list[RenderableType] = [title]
    if field.description:
        lines.append(Text(f"  {field.description}"))
    details = hint(field)
    if details:
        lines.append(Text(f"  {details}", style="dim"))
    if problem:
        lines.append(Text(f"  ⚠ {problem}", style="red"))
    return Group(*lines)


def review_row(field: Field, value: Any, problem: str | None, width: int) -> StyleAndTextTuples:
    """One line of the review screen: title, required mark, answer, and what to fix."""
    row: StyleAndTextTuples = [("", pad(clip(field.title, width), width))]
    row.append(("class:required", " ✱ " if field.required else "   "))
    shown = clip(" ".join(show(field, value).splitlines()), 60)
    row.append(("class:muted" if value is None else "bold", shown))
    if problem:
        row.append(("class:problem", f"   ⚠ {problem}"))
    return row


def answers_table(fields: list[Field], answers: dict[str, Any]) -> Table:
    """What was submitted, left in the scrollback: the last word on what left this machine."""
    table = Table.grid(padding=(0, 2), pad_edge=True)
    for field in fields:
        table.add_row(Text(field.title, style="dim"), Text(show(field, answers[field.name])))
    return table


def clip(text: str, width: int) -> str:
    """`text` cut to `width` terminal columns (a CJK character takes two), ending in "…"."""
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, width - 1).rstrip() + "…"


def pad(text: str, width: int) -> str:
    """`text` padded with spaces to `width` terminal columns: `ljust` counts characters."""
    return text + " " * max(0, width - cell_len(text))


def url_details(report: UrlReport, server: str) -> RenderableType:
    url = Text(overflow="fold")
    if "".join(p.text for p in report.parts) == report.url:
        for part in report.parts:
            url.append(safe(part.text), style=_URL_STYLES.get(part.role, ""))
    else:
        url.append(safe(report.url))
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="dim", no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row(_("URL"), url)
    names = (
        (_("Domain"), report.domain, report.domain_unicode),
        (_("Host"), report.host, report.host_unicode),
    )
    for label, name, readable in names:
        if label == _("Host") and name == report.domain:
            continue  # the host is the domain itself: once is clearer
        if not name:
            grid.add_row(label, Text(_("none"), style="dim"))
            continue
        unicode_name, ascii_name = _host_forms(name)
        unicode_name = readable or unicode_name
        grid.add_row(label, Text(safe(unicode_name), style="bold" if label == _("Domain") else ""))
        if ascii_name != unicode_name:
            grid.add_row(
                "",
                Text(
                    _("%(host)s  (punycode: what the browser uses)") % {"host": safe(ascii_name)}, style="dim"
                ),
            )
    lines: list[RenderableType] = [grid]
    if report.verdict == "block":
        lines.append(Text(_("✖ This URL is blocked: it will not be opened."), style="bold red"))
    elif report.verdict == "warn":
        lines.append(Text(_("⚠ Look closely before opening it:"), style="bold yellow"))
    else:
        lines.append(
            Text(
                _("Nothing odd found in the URL. Open it only if you expected this from “%(server)s”.")
                % {"server": safe(said(server, _))}
            )
        )
    warnings = Table.grid(padding=(0, 1), pad_edge=True)
    warnings.add_column(no_wrap=True)
    warnings.add_column(overflow="fold")
    for warning in report.warnings:
        mark, style = ("✖", "red") if warning.severity == "block" else ("⚠", "yellow")
        warnings.add_row(
            Text(mark, style=style), Text.assemble(safe(warning.say(_)), (f"  [{warning.code}]", "dim"))
        )
    if report.warnings:
        lines.append(warnings)
    return Group(*lines)


def _host_forms(host: str) -> tuple[str, str]:
    """The host as a person reads it (unicode) and as the browser resolves it (punycode)."""
    try:
        ascii_host = host.encode("idna").decode("ascii")
    except UnicodeError:
        ascii_host = host
    try:
        unicode_host = ascii_host.encode("ascii").decode("idna")
    except UnicodeError:
        unicode_host = host
    return unicode_host, ascii_host


def waiting_panel(waiting: Waiting) -> RenderableType:
    count = len(waiting.pending)
    steps = ngettext(
        "%(num)d step to finish in your browser", "%(num)d steps to finish in your browser", count
    ) % {"num": count}
    title = styled(
        _("Waiting for “%(server)s”: %(steps)s"),
        server=(safe(said(waiting.server, _)), "bold"),
        steps=(steps, ""),
    )
    title.append("   ")
    title.append(_clock(time.monotonic() - waiting.started), style="bold cyan")
    lines: list[RenderableType] = [title]
    for elicitation_id, message in waiting.pending:
        lines.append(Text.assemble("  • ", safe(message), (f"  ({safe(elicitation_id)})", "dim")))
    for note in waiting.notes:
        lines.append(Text(f"  {safe(said(note, _))}", style="dim"))
    if waiting.timed_out:
        lines.append(
            Text(
                _("No completion came in time. Retry the call now (r), or cancel it (c)?"),
                style="bold yellow",
            )
        )
    else:
        lines.append(
            Text(_("The call is retried by itself when the server reports completion."), style="dim")
        )
    return Group(*lines)


def _clock(seconds: float) -> str:
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60:02d}:{rest % 60:02d}"
