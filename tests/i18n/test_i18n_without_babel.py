"""Without Babel (the `i18n` extra) nothing fails: the catalogs load with the standard
library, tags are read by their language, dates and numbers are written plainly, and a
warning says once what is missing. Run in a child interpreter that cannot import babel."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(
    """
    import importlib.abc, json, logging, sys

    class NoBabel(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "babel" or name.startswith("babel."):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, NoBabel())
    warnings = []
    logging.getLogger("elicitkit.i18n").addHandler(type("H", (logging.Handler,), {
        "emit": lambda self, record: warnings.append(record.getMessage())})())
    import jinja2
    from elicitkit.i18n import environment, negotiate, translator
    env = environment(jinja2.DictLoader({"t.html": "<p>{{ _('Save') }}</p>"}))
    zh = translator(negotiate("zh-CN,zh;q=0.9"))
    print(json.dumps({
        "locale": zh.locale,
        "en": negotiate("en-US"),
        "page": env.get_template("t.html").render(**zh.jinja),
        "date": zh.format_datetime(1772721000.0),
        "number": zh.format_number(1234567.5),
        "warnings": warnings,
        "babel": "babel" in sys.modules,
    }))
    """
)


def test_pages_still_render_and_choose_their_language_without_babel() -> None:
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["babel"] is False
    assert seen["locale"] == "zh_CN" and seen["en"] == "en"
    assert seen["page"] == "<p>\u4fdd\u5b58</p>"  # 保存
    assert seen["date"] == "2026-03-05 14:30 UTC" and seen["number"] == "1,234,567.5"
    assert len(seen["warnings"]) == 1 and "pip install 'elicitkit[i18n]'" in seen["warnings"][0]
