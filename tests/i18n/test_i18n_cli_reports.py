# ruff: noqa: RUF001 (Chinese is written with fullwidth punctuation)
"""`elicitkit url inspect` and `elicitkit schema lint|check|show` speak the terminal's language
(LANGUAGE, LC_ALL, LC_MESSAGES, LANG) or `--locale`'s, as the demo and `elicitkit client` do:
the real command, in a subprocess. What a script reads stays the same in every language: the
exit status, the codes in brackets, and `--json`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from elicitkit.urls import examine

ELICITKIT = Path(sys.executable).parent / "elicitkit"
CJK = re.compile(r"[\u4e00-\u9fff]")
SCHEMA = {"type": "object", "properties": {"size": {"type": "string", "enum": ["small", "large"]}}}
URL = "https://login.microsoft.com.evil.io:8443/"


def run(*args: str, lang: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    return subprocess.run(
        [str(ELICITKIT), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**clean, "LANG": lang, "COLUMNS": "200", "NO_COLOR": "1"},
        timeout=60,
    )


def test_url_inspect_reports_in_chinese_under_a_chinese_lang() -> None:
    done = run("url", "inspect", URL, lang="zh_CN.UTF-8")
    assert done.returncode == 1, done.stderr
    out = done.stdout
    for chinese in (
        "网站  evil.io",
        "主机  login.microsoft.com.evil.io",
        "结论  警告",
        "domain-in-subdomain: 主机以 'microsoft.com' 开头，但真正的网站是 'evil.io'。",
        "unusual-port: 该链接使用了不常见的端口 8443。",
    ):
        assert chinese in out, out
    assert not re.search(r"\b(Site|Host|Verdict|WARN|The host|The link)\b", out), out


def test_url_inspect_is_english_under_the_c_locale_and_its_json_never_changes() -> None:
    done = run("url", "inspect", URL, lang="C")
    assert done.returncode == 1 and not CJK.search(done.stdout), done.stdout
    assert "Site     evil.io" in done.stdout and "Verdict  WARN" in done.stdout
    assert "unusual-port: The link uses the unusual port 8443." in done.stdout
    as_json = run("url", "inspect", "--json", URL, lang="zh_CN.UTF-8")
    assert as_json.stdout == examine(URL).to_json(indent=2) + "\n"  # English, whatever LANG says
    blocked = run("url", "inspect", "--locale", "zh_CN", "https://user@evil.com/", lang="C")
    assert blocked.returncode == 2 and "结论  拦截" in blocked.stdout, blocked.stdout


def test_schema_check_says_the_problems_in_chinese_and_keeps_their_codes(tmp_path: Path) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    done = run("schema", "check", str(schema), "-", lang="zh_CN.UTF-8", stdin='{"size": "huge", "x": 1}')
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines() == [
        "size  [not-a-choice] 'size' 的值 'huge' 不是它的选项之一：'small', 'large'。",
        "x  [unknown-field] 'x' 不是这份表单的字段；请删除它（表单要求的字段是 'size'）。",
        "2 个问题。",
    ]
    whole = run("schema", "check", str(schema), "-", lang="zh_CN.UTF-8", stdin="[]")
    assert whole.stdout.startswith("（回答）  [not-an-object] 回答必须是一个 JSON 对象"), whole.stdout
    valid = run("schema", "check", str(schema), "-", lang="zh_CN.UTF-8", stdin='{"size": "small"}')
    assert valid.returncode == 0 and valid.stdout == "这份回答有效。\n"
    english = run("schema", "check", str(schema), "-", lang="C", stdin='{"size": "huge", "x": 1}')
    assert english.stdout.splitlines()[-1] == "2 problem(s)." and not CJK.search(english.stdout)
    assert "'size' has 'huge', which is not one of its choices: 'small', 'large'." in english.stdout
    chosen = run("schema", "check", "--locale", "en", str(schema), "-", lang="zh_CN.UTF-8", stdin="{}")
    assert chosen.stdout == "The answer is valid.\n"


def test_schema_lint_and_the_errors_of_every_command_follow_lang(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"type": "object", "properties": {"n": {"type": "object"}}}))
    lint = run("schema", "lint", str(broken), lang="zh_CN.UTF-8")
    assert lint.returncode == 1
    *findings, total = lint.stdout.splitlines()
    assert findings and all(line.startswith("错误 ") for line in findings), findings
    assert re.fullmatch(r"\d+ 个错误，\d+ 个警告。", total), total
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps(SCHEMA))
    assert run("schema", "lint", str(clean), lang="zh_CN.UTF-8").stdout == "没有发现问题。\n"
    missing = run("schema", "lint", str(tmp_path / "nope.json"), lang="zh_CN.UTF-8")
    assert missing.returncode == 2 and missing.stderr.startswith("错误：无法读取 "), missing.stderr
    show = run("schema", "show", "no-colon", lang="zh_CN.UTF-8")
    assert show.returncode == 2 and "不是 模块:名称 的形式" in show.stderr, show.stderr
    unknown = run("schema", "lint", "--locale", "tlh", str(clean), lang="C")
    assert unknown.returncode == 2 and "no translations for the locale 'tlh'" in unknown.stderr
