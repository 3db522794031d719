"""`HostReport`: a host's verdicts with their evidence, as JSON, one HTML page, text and Markdown.

The verdicts are `elicitkit check`'s `Findings` over the client rule IDs; beside them every
question the audit asked, what was sent and what came back, so a reader can check a verdict
against the exchange behind it.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from elicitkit.check._findings import HOST_RULES, Findings
from elicitkit.check._host._battery import BATTERY
from elicitkit.check._host._grading import grade, question_of
from elicitkit.check._host._records import Asked, HostSeen

if TYPE_CHECKING:
    from elicitkit.check._host._audit import HostAudit


@dataclass
class HostReport:
    """What one host did with the battery: `findings` (one verdict per client rule) and `asked`."""

    host: str
    seen: HostSeen
    asked: list[Asked]
    findings: Findings = field(default_factory=lambda: Findings(HOST_RULES))

    @classmethod
    def of(cls, audit: HostAudit, host: str = "") -> HostReport:
        """The report on what `audit` has seen so far; `host` names the host (else what it said)."""
        asked = audit.asked()
        return cls(host or audit.host.name or "an unnamed host", audit.host, asked, grade(asked, audit.host))

    @property
    def questions(self) -> int:
        """How many questions of the battery the host was asked (its rounds count once)."""
        return len({question_of(a.key).key for a in self.asked if a.outcome != "not-asked"})

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data (what `--json` writes)."""
        return {
            "host": self.host,
            "client": self.seen.name,
            "protocol": self.seen.protocol,
            "elicitation": list(self.seen.modes) if self.seen.declared else None,
            "tasks": self.seen.tasks,
            "findings": [f.to_dict() for f in self.findings.all()],
            "asked": [a.to_dict() for a in self.asked],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HostReport:
        """A report read back from `to_dict`'s data (a stdio audit writes it to a file)."""
        declared = data["elicitation"] is not None
        seen = HostSeen(
            data["client"],
            data["protocol"],
            declared,
            tuple(data["elicitation"] or ()),
            bool(data.get("tasks")),
        )
        findings = Findings(HOST_RULES)
        for one in data["findings"]:
            if one["verdict"] == "not-observed":
                findings.note(one["id"], one["evidence"])
            else:
                findings.add(one["id"], one["verdict"], one["evidence"])
        return cls(data["host"], seen, [Asked.from_dict(a) for a in data["asked"]], findings)

    def to_json(self) -> str:
        """`to_dict` as indented JSON."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    def summary(self) -> str:
        """One line: the host, its revision, what it declared, how many questions."""
        declared = _declares(self.seen) if self.seen.declared else "no elicitation"
        return (
            f"{self.host} ({self.seen.name or 'no client info'}; {self.seen.protocol or 'no revision'}; "
            f"declares {declared}; {self.questions} of {len(BATTERY)} questions asked)"
        )

    def to_text(self) -> str:
        """The verdicts as plain text, one per line (what the `audit_report` tool returns)."""
        lines = [f"elicitkit host audit: {self.summary()}"]
        lines += [f"{f.id} {f.verdict}: {f.rule}. {f.evidence}" for f in self.findings.all()]
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """The verdicts as a Markdown table (docs/hosts.md holds one per host it can drive)."""
        rows = [
            f"### {self.host}",
            "",
            self.summary() + ".",
            "",
            "| ID | Rule | Verdict | Evidence |",
            "|---|---|---|---|",
        ]
        for f in self.findings.all():
            evidence = f.evidence.replace("|", "\\|").replace("\n", " ")
            rows.append(f"| {f.id} | {f.rule} | `{f.verdict}` | {evidence} |")
        return "\n".join(rows)

    def to_html(self) -> str:
        """One self-contained page: the verdicts, then each question as sent and as answered."""
        e = html.escape
        verdicts = "".join(
            f'<tr class="{e(f.verdict)}"><td>{e(f.id)}</td><td>{e(f.rule)}</td>'
            f"<td><b>{e(f.verdict)}</b></td><td>{e(f.evidence)}</td></tr>"
            for f in self.findings.all()
        )
        exchanges = "".join(
            f"<details><summary>{e(a.key)}: {e(question_of(a.key).label)} ({e(a.outcome)})</summary>"
            f"<p>Sent</p><pre>{e(json.dumps(a.sent, indent=2, ensure_ascii=False))}</pre>"
            f"<p>Came back</p><pre>{e(json.dumps(a.answer, indent=2, ensure_ascii=False))}</pre>"
            + (
                f"<p>The task</p><pre>{e(json.dumps(a.task, indent=2, ensure_ascii=False))}</pre>"
                if a.task
                else ""
            )
            + f"<p>{e(a.detail)}</p></details>"
            for a in self.asked
        )
        return (
            '<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f"<title>Host audit: {e(self.host)}</title><style>{_STYLE}</style></head><body>"
            f"<h1>Host audit: {e(self.host)}</h1><p>{e(self.summary())}</p>"
            "<table><thead><tr><th>ID</th><th>Rule</th><th>Verdict</th><th>Evidence</th></tr></thead>"
            f"<tbody>{verdicts}</tbody></table><h2>The questions</h2>{exchanges}</body></html>"
        )


def matrix(reports: list[HostReport]) -> str:
    """The compatibility matrix in Markdown: one row per host, one column per rule, then each
    host's verdicts with their evidence (what docs/hosts.md holds between its markers)."""
    ids = list(HOST_RULES)
    lines = [
        "| Host | Revision | Declares | " + " | ".join(ids) + " |",
        "|---|---|---|" + "---|" * len(ids),
    ]
    for report in reports:
        verdicts = {f.id: f.verdict for f in report.findings.all()}
        declared = _declares(report.seen) if report.seen.declared else "nothing"
        cells = " | ".join(_CELL[verdicts[i]] for i in ids)
        lines.append(f"| {report.host} | {report.seen.protocol} | {declared} | {cells} |")
    sections = "\n\n".join(r.to_markdown() for r in reports)
    return "\n".join(lines) + "\n\n" + sections


def _declares(seen: HostSeen) -> str:
    """What the host declared, in short: its modes, and "tasks" for task-augmented elicitation."""
    return ", ".join((*seen.modes, *(("tasks",) if seen.tasks else ())))


_CELL = {"pass": "pass", "fail": "**fail**", "warn": "*warn*", "not-observed": "-"}

_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem}"
    "table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.3rem;vertical-align:top}"
    "tr.fail b{color:#b00}tr.warn b{color:#a60}tr.pass b{color:#070}tr.not-observed{color:#666}"
    "pre{background:#f4f4f4;padding:.5rem;overflow:auto;white-space:pre-wrap}"
)
