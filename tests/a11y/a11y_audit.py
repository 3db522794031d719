"""What the accessibility tests check on one page, in the real Chromium.

axe-core (the npm peer in tests/peers/axe) is evaluated in the page through the DevTools
protocol, so the pages' own Content-Security-Policy, which forbids every script we did not
write, does not have to be loosened for it. It runs the WCAG 2.1 A and AA rules and axe's
best practices (one main landmark, all content in landmarks, a level-one heading). Beside axe,
what it cannot see: the page reflows at 200% and 400% zoom (a 640 and a 320 CSS pixel wide
window: no horizontal scrolling, every control inside the window), the page says its language
on `<html lang>`, and a page asked for in Chinese is in Chinese.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import Page

_CHINESE = re.compile("[\u4e00-\u9fff]")

AXE = Path(__file__).resolve().parents[1] / "peers" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
RULE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]

DESKTOP = {"width": 1280, "height": 800}
MOBILE = {"width": 375, "height": 667}
ZOOMED = {"200%": {"width": 640, "height": 400}, "400%": {"width": 320, "height": 256}}
"""A 1280 px window at 200% zoom is 640 CSS px wide; WCAG's reflow (1.4.10) asks for 320."""

_RUN = """async (tags) => {
  const result = await axe.run(document, {runOnly: {type: "tag", values: tags}, resultTypes: ["violations"]});
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({target: n.target.join(" "), summary: n.failureSummary})),
  }));
}"""

_REFLOW = """() => {
  const root = document.scrollingElement || document.documentElement;
  const width = root.clientWidth;
  const out = [];
  if (root.scrollWidth > width + 1) {
    out.push(`the page scrolls sideways (${root.scrollWidth} px wide in ${width})`);
  }
  const controls = "a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]";
  for (const el of document.querySelectorAll(controls)) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;  // not shown
    if (box.left < -1 || box.right > width + 1) {
      const name = el.getAttribute("name") || el.id || el.textContent.trim().slice(0, 30);
      const span = `${Math.round(box.left)}..${Math.round(box.right)} of ${width}`;
      out.push(`${el.tagName.toLowerCase()} "${name}" is outside the window (${span})`);
    }
  }
  return out;
}"""


def axe_source() -> str:
    if not AXE.exists():
        raise RuntimeError(f"{AXE} is missing: run scripts/setup (it runs npm ci in tests/peers/axe)")
    return AXE.read_text()


@dataclass
class Findings:
    """Everything found on every page of a tour; empty when all is well."""

    problems: list[str] = field(default_factory=list)
    pages: list[str] = field(default_factory=list)

    def report(self) -> str:
        return f"{len(self.problems)} problems on {len(self.pages)} pages:\n" + "\n".join(self.problems)


async def axe_violations(page: Page, source: str) -> list[dict[str, Any]]:
    if not await page.evaluate("() => typeof axe !== 'undefined'"):
        await page.evaluate(source)
    violations: list[dict[str, Any]] = await page.evaluate(_RUN, RULE_TAGS)
    return violations


async def audit(page: Page, name: str, findings: Findings, source: str, *, lang: str) -> None:
    """axe at the desktop and mobile sizes, reflow at 200% and 400% zoom, the page's language."""
    findings.pages.append(name)
    before = page.viewport_size or DESKTOP
    try:
        for size_name, size in (("desktop", DESKTOP), ("mobile", MOBILE)):
            await page.set_viewport_size(size)
            for violation in await axe_violations(page, source):
                nodes = "; ".join(f"{n['target']}: {n['summary']}" for n in violation["nodes"][:4])
                where = f"[{name} / {size_name}] {violation['id']} ({violation['impact']})"
                findings.problems.append(f"{where}: {violation['help']} -- {nodes}")
        for zoom, size in ZOOMED.items():
            await page.set_viewport_size(size)
            for problem in await page.evaluate(_REFLOW):
                findings.problems.append(f"[{name} / {zoom} zoom] {problem}")
        declared = await page.evaluate("() => document.documentElement.lang")
        if declared.replace("_", "-").lower().split("-")[0] != lang.replace("_", "-").lower().split("-")[0]:
            findings.problems.append(f'[{name}] <html lang="{declared}">, but the page is for {lang}')
        if lang.startswith("zh") and not _CHINESE.search(await page.inner_text("body")):
            findings.problems.append(f"[{name}] the page is for {lang} but shows no Chinese")
    finally:
        await page.set_viewport_size(before)
