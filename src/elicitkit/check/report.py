"""The report: a rich table for a person, grouped by area, and the `--json` object."""

from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table
from rich.text import Text

from elicitkit.check.findings import Verdict
from elicitkit.check.runner import Report

_STYLE: dict[Verdict, str] = {"pass": "green", "fail": "bold red", "warn": "yellow", "not-observed": "dim"}


def table(report: Report) -> Table:
    """One row per requirement ID, areas as sections, each with its evidence."""
    title = f"elicitkit check {report.target} ({', '.join(report.protocol_versions)})"
    grid = Table(title=title, show_lines=False, expand=True)
    grid.add_column("ID", no_wrap=True)
    grid.add_column("Rule", ratio=1, min_width=24)
    grid.add_column("Verdict", no_wrap=True)
    grid.add_column("Evidence", ratio=3, overflow="fold")
    area = ""
    for finding in report.findings.all():
        if finding.area != area:
            area = finding.area
            grid.add_section()
            grid.add_row("", Text(area, style="bold"), "", "")
        grid.add_row(
            finding.id, finding.rule, Text(finding.verdict, style=_STYLE[finding.verdict]), finding.evidence
        )
    return grid


def show(report: Report, console: Console) -> None:
    console.print(table(report))
    counts = {v: sum(1 for f in report.findings.all() if f.verdict == v) for v in _STYLE}
    for note in report.seen.notes:
        console.print(f"[yellow]Note:[/yellow] {note}")
    console.print(", ".join(f"{n} {v}" for v, n in counts.items()))


def to_json(report: Report) -> str:
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=True)
