"""Capabilities and requests: S-01 (declared modes), S-02 (inside a request), S-03 (mode, message)."""

from __future__ import annotations

from elicitkit.check._findings import Findings
from elicitkit.check._observed import Observations
from elicitkit.check._session import MODERN


def judge(seen: Observations, findings: Findings) -> None:
    asked = seen.asked
    for a in asked:
        if a.mode in ("form", "url") and a.mode not in a.connection.declared:
            findings.add(
                "S-01",
                "fail",
                f"a {a.mode}-mode elicitation to a client that did not declare it: {a.quote()}",
            )
    if asked:
        findings.add("S-01", "pass", f"{len(asked)} elicitations, each in a mode the connection declared")
    else:
        findings.note("S-01", "no tool asked anything on any connection")

    wire = [a for a in asked if a.source == "request"]
    for a in wire:
        if not a.in_flight:
            findings.add(
                "S-02",
                "fail",
                f"elicitation/create with no tools/call, prompts/get or resources/read open: {a.quote()}",
            )
        elif a.standalone:
            findings.add(
                "S-02",
                "fail",
                f"elicitation/create on the standalone GET stream, not the request's own: {a.quote()}",
            )
        elif a.connection.revision == MODERN:
            findings.add(
                "S-02",
                "fail",
                f"a wire elicitation/create on a {MODERN} connection (asks ride in results): {a.quote()}",
            )
    if wire:
        findings.add(
            "S-02",
            "pass",
            f"{len(wire)} elicitation/create requests, each while the tool call that caused it was open",
        )
    elif any(a.source == "input-required" for a in asked):
        findings.add(
            "S-02",
            "pass",
            f"the questions came inside the tool call's own result ({MODERN} input-required rounds)",
        )

    requests = [a for a in asked if a.source != "-32042"]
    for a in requests:
        message = a.params.get("message")
        mode = a.params.get("mode")
        if not isinstance(message, str) or not message.strip():
            findings.add("S-03", "fail", f"no message: {a.quote()}")
        elif mode is not None and mode not in ("form", "url"):
            findings.add("S-03", "fail", f"mode {mode!r} is neither form nor url: {a.quote()}")
        elif mode is None and ("url" in a.params or "elicitationId" in a.params):
            findings.add(
                "S-03", "fail", f'a URL-mode request without mode:"url" (it reads as a form): {a.quote()}'
            )
    if requests:
        findings.add("S-03", "pass", f"{len(requests)} requests, each with a message and a known mode")
