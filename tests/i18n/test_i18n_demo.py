# ruff: noqa: RUF001 (Chinese is written with fullwidth punctuation)
"""`LANG=zh_CN.UTF-8 scripts/demo --script` tells the whole story in Chinese: the narration,
the steps and their checks, and the pages the scripted browser lands on (it asks for them in
the reader's language, as a browser does). The servers' own words (tool results, the
questions' messages) stay as the demo's author wrote them. `scripts/demo` sets up, then runs
the `elicitkit demo` command this test runs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ELICITKIT = Path(sys.executable).parent / "elicitkit"
CJK = re.compile(r"[\u4e00-\u9fff]")


def _demo(tmp_path: Path, *args: str, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k not in ("ELICITKIT_VAULT_KEYS", "LANGUAGE", "LC_ALL")}
    done = subprocess.run(
        [str(ELICITKIT), "demo", "--script", "--data-dir", str(tmp_path), *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env={**clean, **env},
        timeout=240,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def test_the_demo_tells_its_story_in_chinese_under_a_chinese_lang(tmp_path: Path) -> None:
    out = _demo(tmp_path, LANG="zh_CN.UTF-8")
    lines = out.splitlines()
    assert lines[0].startswith("elicitkit 演示")
    steps = [line for line in lines if re.match(r"^\[\d+/\d+\]", line)]
    assert len(steps) == 10 and all(CJK.search(step) for step in steps), steps
    said = [line for line in lines if re.match(r"^  \S", line)]  # who says what, each step's checks
    assert len(said) > 80
    english = [line for line in said if not CJK.search(line)]
    assert not english, english
    for chinese in (
        "[1/10] 包含各种字段的表单",
        "alice 的客户端  调用 book_table",
        "请 alice 填写表单：",
        "浏览器（alice）",
        '"完成"',  # the secret page's last page, in Chinese
        '"此链接不是给你的" (HTTP 403)',  # bob's refusal
        "已保存。你可以关闭此标签页并返回你的应用程序。",
        "✓ bob 看到了拒绝页面",
        "全部 10 个步骤都符合预期",
    ):
        assert chinese in out, chinese
    for english_text in (
        "asks alice to fill in a form",
        "steps behaved as expected",
        "browser (alice)",
        " is asking",
    ):
        assert english_text not in out, english_text
    assert "Book a table at Chez Elicit" in out  # the demo server's own message, as written
    # each step says its own duration, in Chinese; sentences are spaced as Chinese is
    assert all(re.search(r"（\d+\.\d 秒）$", step) for step in steps), steps
    assert "账户已连接。你可以关闭此标签页" in out and "默认（无）" in out
    stray = re.compile(
        r"[。，：；！？] +[\u4e00-\u9fff]|[\u4e00-\u9fff] +[（“]|[\u4e00-\u9fff] [\u4e00-\u9fff]"
    )
    assert [line for line in lines if stray.search(line.strip())] == []


def test_the_locale_option_wins_over_lang(tmp_path: Path) -> None:
    out = _demo(tmp_path, "--locale", "en", LANG="zh_CN.UTF-8")
    assert "All 10 steps behaved as expected" in out and not CJK.search(out)
