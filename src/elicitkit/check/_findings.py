"""Findings: one verdict per requirement ID, with the evidence that decided it.

Rules report observations as they go; `Findings` keeps the worst verdict per ID (fail over
warn over pass over not-observed) and the evidence behind it, so the report shows the one
request or response that proves the point instead of every call that agreed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Verdict = Literal["pass", "fail", "warn", "not-observed"]

_RANK: dict[Verdict, int] = {"not-observed": 0, "pass": 1, "warn": 2, "fail": 3}

#: The server-side IDs a client can observe, their area, and the rule in a few words.
RULES: dict[str, tuple[str, str]] = {
    "S-01": ("Capabilities and requests", "only modes the client declared"),
    "S-02": ("Capabilities and requests", "elicitation/create only inside a request in flight"),
    "S-03": ("Capabilities and requests", "every request carries mode and message"),
    "S-10": ("Form mode", "requestedSchema inside the form subset"),
    "S-11": ("Form mode", "no sensitive information asked in form mode"),
    "S-12": ("Form mode", "no URLs in the fields of a form"),
    "S-13": ("Form mode", "invalid answers are not accepted"),
    "S-20": ("URL mode", "URL-mode shape; elicitationId unique"),
    "S-21": ("URL mode", "no credentials or personal data in the URL; https"),
    "S-23": ("URL mode", "completion notices only to the client that started it"),
    "S-24": ("URL mode", "-32042 shape and use"),
    "S-34": ("Identity and pages", "another user cannot use the URL"),
    "S-35": ("Identity and pages", "cookie flags and framing headers"),
    "T-01": ("Tasks", "tasks.requests.tools.call declared for tools that run as tasks"),
    "T-03": ("Tasks", "a CreateTaskResult at once, the task working"),
    "T-04": ("Tasks", 'a "required" task tool called without a task: -32601'),
    "T-05": ("Tasks", "an unknown task id is -32602"),
    "T-06": ("Tasks", "another user's task id is -32602"),
    "T-07": ("Tasks", "valid status paths, input_required while asked; an ended task stays so"),
    "T-08": ("Tasks", "a task's question and its result carry related-task metadata"),
    "T-09": ("Tasks", "tasks/get gives the actual ttl and the task's times"),
    "T-40": ("Tasks", "task-augmented elicitation only to a client that declared it"),
}

#: The client-side IDs a server can observe (`elicitkit check --host`), their area, and the rule.
HOST_RULES: dict[str, tuple[str, str]] = {
    "C-01": ("Capabilities and requests", "a declared mode is answered, not declined unseen or left hanging"),
    "C-02": ("Capabilities and requests", "-32602 for a mode the host did not declare"),
    "C-11": ("Form mode", "fields pre-filled from their defaults"),
    "C-12": ("Form mode", "answers checked against the schema before they are sent"),
    "C-23": ("URL mode", "a look-alike domain is warned about or refused"),
    "C-30": ("Client duties across modes", "decline and cancel are at hand"),
    "R-01": ("Responses", "content only with a form accept, and matching the schema"),
    "M-01": ("Revision 2026-07-28", "every input-required round answered and retried"),
    "T-10": ("Tasks", "task-augmented elicitation taken only when declared"),
    "T-11": ("Tasks", "without the capability, a task-augmented question answered normally"),
    "T-12": ("Tasks", "a CreateTaskResult at once, the task working"),
    "T-13": ("Tasks", "input_required while asked, then a terminal status"),
    "T-14": ("Tasks", "tasks/result returns the ElicitResult"),
    "T-15": ("Tasks", "tasks/result carries related-task metadata"),
    "T-17": ("Tasks", "cancelling an ended task is -32602"),
    "T-18": ("Tasks", "an unknown task id is -32602"),
    "T-20": ("Tasks", 'a "required" task tool called as a task'),
    "T-22": ("Tasks", "tasks/get no faster than pollInterval"),
    "T-23": ("Tasks", "tasks/result read; the task's question answered there"),
    "T-24": ("Tasks", "a question tied to its task by related-task metadata answered"),
}

_ALL_RULES = {**RULES, **HOST_RULES}


@dataclass(frozen=True)
class Finding:
    """The verdict on one requirement ID and the evidence for it."""

    id: str
    verdict: Verdict
    evidence: str

    @property
    def area(self) -> str:
        """The part of the spec the rule belongs to ("Form mode", say): the report groups by it."""
        return _ALL_RULES[self.id][0]

    @property
    def rule(self) -> str:
        """The requirement in a few words, as the report's table shows it."""
        return _ALL_RULES[self.id][1]

    def to_dict(self) -> dict[str, str]:
        """The finding as JSON-ready data (`id`, `verdict`, `evidence`), as `--json` lists it."""
        return {"id": self.id, "verdict": self.verdict, "evidence": self.evidence}


class Findings:
    """The worst verdict seen so far per ID of `rules` (a server's, or a host's `HOST_RULES`);
    the first evidence of that verdict is kept."""

    def __init__(self, rules: Mapping[str, tuple[str, str]] = RULES) -> None:
        self._by_id: dict[str, Finding] = {
            rule: Finding(rule, "not-observed", "nothing the checker did made the server show this")
            for rule in rules
        }

    def add(self, rule: str, verdict: Verdict, evidence: str) -> None:
        """Note one observation on `rule`; it replaces the kept finding only when its verdict is worse."""
        current = self._by_id[rule]
        if _RANK[verdict] > _RANK[current.verdict]:
            self._by_id[rule] = Finding(rule, verdict, evidence)

    def note(self, rule: str, evidence: str) -> None:
        """Explain a not-observed verdict (kept only while nothing else was seen)."""
        current = self._by_id[rule]
        if current.verdict == "not-observed":
            self._by_id[rule] = Finding(rule, "not-observed", evidence)

    def all(self) -> list[Finding]:
        """One finding per ID of its rules, in their order (not-observed ones included)."""
        return list(self._by_id.values())

    def failed(self) -> bool:
        """Whether any rule failed: `elicitkit check` then exits with status 1."""
        return any(f.verdict == "fail" for f in self._by_id.values())
