"""`Pages` renders what Jinja renders: every shipped template, both languages, hostile values.

A page must come out byte for byte as the plain autoescaped Jinja render of the same template
with the same values, whatever the template does with a value (a filter, `|safe`, a test), and
a hostile value never comes out as markup.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
import pytest
from markupsafe import Markup

from elicitkit.i18n import LOCALES, environment, translator
from elicitkit.server._web import site
from elicitkit.server._web.pages import Pages

TEMPLATES = Path(site.__file__).parent / "templates"
CONSTANTS = {"server_name": 'Weather <Co> & "sons"', "prefix": "/elicit"}
HOSTILE = "<script>alert('x')</script> & \"quoted\" {{ not_jinja }} %(name)s \x00 \x01"


def jinja_render(folder: Path, template: str, locale: str, values: dict[str, Any]) -> str:
    env = environment(jinja2.FileSystemLoader(folder), undefined=jinja2.StrictUndefined)
    words = translator(locale)
    return str(env.get_template(template).render(**CONSTANTS, **words.jinja, **values))


def page_values() -> list[tuple[str, dict[str, Any]]]:
    form = {
        "title": HOSTILE,
        "message": "Why: " + HOSTILE,
        "person": "iss|" + HOSTILE,
        "action": "/elicit/a&b",
    }
    consent = {"client": HOSTILE, "service": "Git<Hub>", "provider": "https://id.example/?a=1&b=2"}
    return [
        ("secret.html", {**form, "csrf": "t<o>k", "error": None, "details": {"description": HOSTILE}}),
        ("secret.html", {**form, "csrf": "tok", "error": HOSTILE, "details": {}}),
        (
            "secret.html",
            {**form, "csrf": "tok", "error": Markup("<em>kept</em>"), "details": {"description": ""}},
        ),
        ("secret.html", {**form, "csrf": "", "error": "", "details": {"description": "d", "other": "x"}}),
        (
            "approval.html",
            {**form, "csrf": "tok", "error": HOSTILE, "details": {"summary": [[HOSTILE, HOSTILE]]}},
        ),
        ("approval.html", {**form, "csrf": "tok", "error": None, "details": {"approve": HOSTILE}}),
        ("done.html", {"title": HOSTILE, "text": HOSTILE}),
        ("done.html", {"title": "", "text": Markup("<b>trusted</b> & kept")}),
        ("refusal.html", {"title": "Link not valid", "reason": HOSTILE}),
        (
            "oauth_continue.html",
            {"title": HOSTILE, "service": HOSTILE, "url": 'https://as.example/?q=<1>&r="2"'},
        ),
        (
            "oauth_consent.html",
            {**form, "csrf": "tok", "error": None, "details": {**consent, "scopes": "", "consented_at": ""}},
        ),
        (
            "oauth_consent.html",  # a list and a date: through Jinja every time
            {
                **form,
                "csrf": "tok",
                "error": HOSTILE,
                "details": {**consent, "scopes": ["repo", "<read:user>"], "consented_at": 1_700_000_000.0},
            },
        ),
    ]


@pytest.mark.parametrize("locale", LOCALES)
def test_every_template_comes_out_as_jinja_renders_it(locale: str) -> None:
    pages = Pages(TEMPLATES)
    words = translator(locale)
    cases = page_values()
    assert {name for name, _ in cases} >= {p.name for p in TEMPLATES.iterdir()} - {"base.html"}
    for _ in range(2):  # the first compiles each template, the second reuses it
        for template, values in cases:
            expected = jinja_render(TEMPLATES, template, locale, values)
            page = pages.render(template, words, CONSTANTS, values)
            assert page == expected, (template, values)
            assert "<script>" not in page, template
    # Another page of the same template: only the values change, each escaped as autoescape does.
    values = {"title": "T2", "reason": "R & <2>"}
    page = pages.render("refusal.html", words, CONSTANTS, values)
    assert page == jinja_render(TEMPLATES, "refusal.html", locale, values)
    assert "R &amp; &lt;2&gt;" in page and "<script>" not in page


@pytest.mark.parametrize(
    "body",
    [
        "<p>{{ a|upper }}</p>",
        "<p>{{ a|length }}</p>",
        "<p>{{ a|safe }}</p>",
        "<p>{{ a|e }}{{ a|e|e }}</p>",
        "<p>{{ a[0] }}{{ a[1:] }}</p>",
        "<p>{{ a ~ a }}</p>",
        "<p>{{ a|replace('x', '<y>') }}</p>",
        "<p>{% trans %}Hello {{ a }}{% endtrans %} {{ _('Save') }}</p>",
        "{% if b %}<p>{{ b }}</p>{% else %}<p>none</p>{% endif %}",
    ],
)
def test_a_template_that_does_more_than_print_a_value_still_renders_as_jinja_does(
    tmp_path: Path, body: str
) -> None:
    (tmp_path / "t.html").write_text(body, encoding="utf-8")
    pages = Pages(tmp_path)
    for a, b in [("x<&>x", None), ("second & longer value", ""), ("3", "<b>"), ("x", "x")]:
        values = {"a": a, "b": b}
        for _ in range(2):
            got = pages.render("t.html", translator("en"), CONSTANTS, values)
            assert got == jinja_render(tmp_path, "t.html", "en", values), body
