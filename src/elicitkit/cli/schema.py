"""`elicitkit schema lint|check|show`.

Exit codes: 0 when all is well, 1 when the schema has errors or the answer is invalid, 2 when
an input cannot be read at all (no such file, not JSON, no such type). What the commands say
to a person is in the terminal's language (or `--locale`'s), an answer's problems too; `--json`
and the codes are the same in every language. The lint's findings are English: they speak to
the schema's author about the spec's own terms.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from elicitkit.cli._help import MARKUP, Command
from elicitkit.cli._language import LocaleOption, words
from elicitkit.i18n import gettext as _
from elicitkit.i18n import speaking
from elicitkit.schema import SchemaBuildError, ValidationProblem, build, lint, validate

app = typer.Typer(
    help="Lint form schemas, check answers, show the schema built for a type.",
    no_args_is_help=True,
    rich_markup_mode=MARKUP,
)

_JSON = typer.Option("--json", help="Print the findings as a JSON list.")


def _fail(message: str) -> typer.Exit:
    typer.echo(_("error: %(problem)s") % {"problem": message}, err=True)
    return typer.Exit(2)


def _read(path: str) -> Any:
    """The JSON document at `path`, or on standard input for "-"."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise _fail(
            _("cannot read %(path)s: %(reason)s.") % {"path": path, "reason": exc.strerror or exc}
        ) from None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise _fail(_("%(path)s is not JSON (%(reason)s).") % {"path": path, "reason": exc}) from None


@app.command("lint", cls=Command)
def lint_command(
    path: Annotated[
        str, typer.Argument(help="A requestedSchema, elicitation/create params or request; - for stdin.")
    ],
    as_json: Annotated[bool, _JSON] = False,
    message: Annotated[str | None, typer.Option(help="The request message, checked for URLs.")] = None,
    allow_sensitive: Annotated[
        list[str] | None,
        typer.Option("--allow-sensitive", help="FIELD=REASON: a field that only looks sensitive."),
    ] = None,
    locale: LocaleOption = None,
) -> None:
    """Say everything in a form schema that the 2025-11-25 subset does not allow. Exit 1 on errors."""
    with speaking(words(locale)):
        _lint(path, as_json, message, allow_sensitive or [])


def _lint(path: str, as_json: bool, message: str | None, allow_sensitive: list[str]) -> None:
    document = _read(path)
    if isinstance(document, dict) and isinstance(document.get("params"), dict):
        document = document["params"]
    if isinstance(document, dict) and "requestedSchema" in document:
        message = message if message is not None else document.get("message")
        document = document["requestedSchema"]
    allowed: dict[str, str] = {}
    for item in allow_sensitive:
        field, equals, reason = item.partition("=")
        if not (field and equals and reason.strip()):
            raise _fail(
                _("--allow-sensitive takes FIELD=REASON, like token='a raffle ticket'; got %(item)s.")
                % {"item": repr(item)}
            )
        allowed[field] = reason
    findings = lint(document, message=message if isinstance(message, str) else None, allow_sensitive=allowed)
    if as_json:
        typer.echo(json.dumps([dataclasses.asdict(f) for f in findings], indent=2))
    else:
        severities = {"error": _("error"), "warning": _("warning")}
        width = max(len(word) for word in severities.values())
        for f in findings:
            severity = severities.get(f.severity, f.severity)
            pointer = f.pointer or _("(message)")
            typer.echo(f"{severity:<{width}} {pointer}  [{f.code}] {f.message}")
        errors = sum(f.severity == "error" for f in findings)
        counts = {"errors": errors, "warnings": len(findings) - errors}
        typer.echo(
            _("%(errors)d error(s), %(warnings)d warning(s).") % counts
            if findings
            else _("No problems found.")
        )
    if any(f.severity == "error" for f in findings):
        raise typer.Exit(1)


@app.command("check", cls=Command)
def check_command(
    schema_path: Annotated[str, typer.Argument(help="The requestedSchema; - for stdin.")],
    content_path: Annotated[str, typer.Argument(help="The `content` of an accepted answer; - for stdin.")],
    as_json: Annotated[bool, _JSON] = False,
    locale: LocaleOption = None,
) -> None:
    """Check an answer strictly against its form schema. Exit 1 when it is not valid."""
    with speaking(words(locale)) as said:
        problems = validate(_read(schema_path), _read(content_path))
        _report(problems, as_json, said.gettext)


def _report(problems: list[ValidationProblem], as_json: bool, gettext: Callable[[str], str]) -> None:
    if as_json:
        typer.echo(
            json.dumps([{"field": p.field, "code": p.code, "message": p.message} for p in problems], indent=2)
        )
    else:
        for p in problems:
            field = p.field or _("(answer)")
            typer.echo(f"{field}  [{p.code}] {p.say(gettext)}")
        typer.echo(
            _("%(count)d problem(s).") % {"count": len(problems)} if problems else _("The answer is valid.")
        )
    if problems:
        raise typer.Exit(1)


@app.command("show", cls=Command)
def show_command(
    target: Annotated[str, typer.Argument(help="MODULE:NAME of a pydantic model, dataclass or TypedDict.")],
    locale: LocaleOption = None,
) -> None:
    """Print the requestedSchema that `build` makes for a type."""
    with speaking(words(locale)):
        _show(target)


def _show(target: str) -> None:
    module_name, _colon, name = target.partition(":")
    if not module_name or not name:
        raise _fail(
            _("%(target)s is not MODULE:NAME (for example myapp.forms:Contact).") % {"target": repr(target)}
        )
    if "" not in sys.path:
        sys.path.insert(0, "")  # let `show` find modules in the current directory, as `python -m` does
    try:
        tp: Any = importlib.import_module(module_name)
        for part in name.split("."):
            tp = getattr(tp, part)
    except (ImportError, AttributeError) as exc:
        raise _fail(_("cannot load %(target)s: %(reason)s.") % {"target": target, "reason": exc}) from None
    except Exception as exc:  # the module itself fails on import: say so, not a traceback
        reason = f"{type(exc).__name__}: {exc}"
        raise _fail(_("cannot load %(target)s: %(reason)s.") % {"target": target, "reason": reason}) from None
    try:
        schema = build(tp)
    except SchemaBuildError as exc:
        typer.echo(_("error: %(problem)s") % {"problem": exc}, err=True)
        raise typer.Exit(1) from None
    typer.echo(json.dumps(schema, indent=2))
