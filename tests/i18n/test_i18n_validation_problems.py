# ruff: noqa: RUF001 (Chinese is written with fullwidth punctuation)
"""The problems `schema.validate` finds in an answer are said in the person's language where a
UI shows them (the client's check before sending); `validate` itself stays English and free of
language state: `message` is what it always was, and `say(gettext)` renders its template."""

from __future__ import annotations

import asyncio
import io
import re
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from rich.console import Console
from support.client_uis import BOOKING, page_while_asking, terminal_ui

from elicitkit.client._ui import AcceptedElicitation, FormQuestion
from elicitkit.i18n import speaking, translator
from elicitkit.schema import ValidationProblem, validate

SCHEMA = BOOKING
EVERY = {
    "type": "object",
    "properties": {
        "word": {"type": "string", "minLength": 2, "maxLength": 3, "pattern": "^[a-z]+$"},
        "mail": {"type": "string", "format": "email"},
        "when": {"type": "string", "format": "date"},
        "n": {"type": "integer", "minimum": 1, "maximum": 3},
        "x": {"type": "number"},
        "ok": {"type": "boolean"},
        "pick": {"type": "string", "enum": ["a", "b"]},
        "many": {
            "type": "array",
            "items": {"type": "string", "enum": ["a", "b", "c"]},
            "minItems": 1,
            "maxItems": 2,
        },
        "one": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "maxItems": 1},
    },
    "required": ["word"],
}
ANSWERS: list[Any] = [
    [1],
    None,
    {},
    {"word": "x", "other": 1},
    {"word": "abcd"},
    {"word": "AB"},
    {"word": 5},
    {"word": "ab\ud800"},
    {"word": "ab", "mail": "nope", "when": "tomorrow"},
    {"word": "ab", "n": 0, "x": 1.5},
    {"word": "ab", "n": 9},
    {"word": "ab", "n": 1.5, "x": "1"},
    {"word": "ab", "n": "1"},
    {"word": "ab", "ok": "yes", "pick": "z"},
    {"word": "ab", "many": [], "one": ["a", "b"]},
    {"word": "ab", "many": ["a", "b", "c"], "one": "a"},
    {"word": "ab", "many": ["a", "a"], "one": ["z"]},
]


def test_every_problem_says_its_english_and_its_chinese() -> None:
    english, chinese = translator("en").gettext, translator("zh_CN").gettext
    codes: set[str] = set()
    for answer in ANSWERS:
        for problem in validate(EVERY, answer):
            codes.add(problem.code)
            assert problem.template, problem
            assert problem.say(english) == problem.message
            said = problem.say(chinese)
            assert re.search("[\u4e00-\u9fff]", said) and said != problem.message, said
            assert not re.search(r"\b(must|is|has|names)\b", said), said
    assert codes >= {
        "not-an-object", "unknown-field", "missing", "wrong-type", "too-short", "too-long", "pattern",
        "format", "not-a-choice", "too-small", "too-large", "too-few", "too-many", "duplicate",
    }  # fmt: skip


def test_the_english_is_what_it_was_and_a_problem_compares_as_before() -> None:
    problems = validate(SCHEMA, {"name": "Annabel", "size": 40.5})
    assert problems == [
        ValidationProblem("name", "too-long", "'name' must be at most 5 characters long, not 7."),
        ValidationProblem("size", "wrong-type", "'size' must be an integer, not 40.5."),
    ]
    assert problems[1].say(translator("zh_CN").gettext) == "'size' 必须是整数，而不是 40.5。"
    written = ValidationProblem(None, "whole", "That name is taken.")  # a handler's own words
    assert written.say(translator("zh_CN").gettext) == "That name is taken."


async def test_the_chinese_web_form_shows_the_clients_problems_in_chinese() -> None:
    problems = tuple(validate(SCHEMA, {"name": "Ann", "size": 40, "pets": 2}))
    question = FormQuestion("Bistro", "Book?", SCHEMA, {"name": "Ann", "size": 40}, problems)
    html = await page_while_asking(lambda ui: ui.ask_form(question), locale="zh_CN")
    page = re.sub(r"\s+", " ", html)
    assert "&#39;size&#39; 不能大于 12，而现在是 40。" in page, page
    assert "&#39;pets&#39; 不是这份表单的字段" in page
    assert "must be at most" not in page and "is not a field" not in page


async def test_the_chinese_terminal_form_shows_the_clients_problems_in_chinese() -> None:
    problems = tuple(validate(SCHEMA, {"name": "Ann", "size": 40}))
    question = FormQuestion("Bistro", "Book?", SCHEMA, {"name": "Ann", "size": 40}, problems)
    with create_pipe_input() as pipe:
        ui, drawn, screens = terminal_ui(pipe, "zh_CN")
        pipe.send_text("\r" + "\x7f\x7f4\r" + "s")
        reply = await asyncio.wait_for(ui.ask_form(question), 10)
    assert reply == AcceptedElicitation({"name": "Ann", "size": 4})
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screens.getvalue() + drawn.getvalue())
    assert "不能大于 12，而现在是 40。" in shown, shown
    assert "must be at most" not in shown


@pytest.mark.parametrize("locale", ["zh_CN", "en"])
async def test_the_narration_says_the_problems_in_its_language(locale: str) -> None:
    from elicitkit.client._scripted import ScriptedUI
    from elicitkit.demo.transcript import NarratedUI, Transcript

    drawn = io.StringIO()
    problems = tuple(validate(SCHEMA, {"name": "Ann", "size": 40}))
    with speaking(locale):
        ui = NarratedUI(
            ScriptedUI(AcceptedElicitation()), Transcript(Console(file=drawn, width=200)), "alice"
        )
        await ui.ask_form(FormQuestion("Bistro", "Book?", SCHEMA, {}, problems))
    said = drawn.getvalue()
    expected = "'size' 不能大于 12，而现在是 40。" if locale == "zh_CN" else problems[0].message
    assert expected in said, said


async def test_the_chinese_web_forms_own_check_of_a_multi_choice_speaks_chinese() -> None:
    multi = {
        "type": "object",
        "properties": {
            "toppings": {
                "type": "array",
                "items": {"type": "string", "enum": ["ham", "egg", "leek"]},
                "minItems": 1,
                "maxItems": 2,
            }
        },
    }
    question = FormQuestion("Bistro", "Pizza?", multi, {})
    html = await page_while_asking(lambda ui: ui.ask_form(question), locale="zh_CN")
    assert 'data-min-text="至少选择 1 项。"' in html and 'data-max-text="最多选择 2 项。"' in html, html
    assert "set.dataset.minText" in html  # what the browser says when the limit is broken


def test_a_cut_list_of_choices_or_fields_says_how_many_more_in_one_whole_sentence() -> None:
    """Past ten items a list is cut; "and N more" is part of its sentence in each language (the
    English as it always was), never an English tail glued onto a Chinese sentence."""
    many = [f"c{i}" for i in range(13)]
    schema = {
        "type": "object",
        "properties": {
            **{f"f{i}": {"type": "string", "enum": many} for i in range(12)},
            "m": {"type": "array", "items": {"type": "string", "enum": many[:11]}},
        },
    }
    shown = "'c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9'"
    fields = "'f0', 'f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'f7', 'f8', 'f9'"
    problems = validate(schema, {"f0": "x", "m": ["q"], "zz": 1})
    assert [p.message for p in problems] == [
        f"'f0' has 'x', which is not one of its choices: {shown} and 3 more.",
        f"'m' has item 0 ('q'), which is not one of its choices: {shown} and 1 more.",
        f"'zz' is not a field of this form; remove it (the form asks for {fields} and 3 more).",
    ]
    chinese = [p.say(translator("zh_CN").gettext) for p in problems]
    assert chinese == [
        f"'f0' 的值 'x' 不是它的选项之一：{shown}，另外还有 3 个选项。",
        f"'m' 的第 0 项（'q'）不是它的选项之一：{shown}，另外还有 1 个选项。",
        f"'zz' 不是这份表单的字段；请删除它（表单要求的字段是 {fields}，另外还有 3 个）。",
    ]
    assert all(p.say(translator("en").gettext) == p.message for p in problems)
    empty = validate({"type": "object", "properties": {}}, {"zz": 1})
    assert [p.message for p in empty] == [
        "'zz' is not a field of this form; remove it (the form asks for no fields)."
    ]
    assert (
        empty[0].say(translator("zh_CN").gettext)
        == "'zz' 不是这份表单的字段；请删除它（这份表单没有任何字段）。"
    )
