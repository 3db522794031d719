"""`pip install elicitkit` without extras: small, imports none of the optional stacks, and a
form round trip runs in process on both protocol revisions (issue 16, must-show 1 and 2)."""

from __future__ import annotations

import json
from pathlib import Path

from venvs import HEAVY, closure, distributions, run_in

HERE = Path(__file__).resolve().parent
MAX_ADDED = 8


def test_the_base_install_adds_at_most_eight_distributions_to_mcps(base_python: Path) -> None:
    installed = distributions(base_python)
    added = closure(installed, "elicitkit") - closure(installed, "mcp")
    assert "elicitkit" in added
    assert len(added) <= MAX_ADDED, sorted(added)
    assert not {name.replace("_", "-") for name in HEAVY} & set(installed), sorted(installed)
    assert set(installed) - closure(installed, "elicitkit") <= {"pip", "setuptools"}


def test_the_base_install_imports_nothing_optional_and_runs_a_form_round_trip(base_python: Path) -> None:
    result = json.loads(run_in(base_python, HERE / "probe_base.py", ",".join(HEAVY)))
    assert result["loaded_by_import"] == []
    assert result["loaded_after_round_trip"] == []
    answer = json.dumps(
        {
            "at": "2026-12-24T19:30:00+01:00",
            "day": "2026-12-24",
            "email": "ada@example.com",
            "party": 4,
            "site": "https://example.com/menu",
        },
        sort_keys=True,
    )
    assert result["round_trips"] == {"legacy": answer, "auto": answer, "auto-decline": "decline"}
    # The four formats are checked strictly with the core's own libraries.
    assert result["formats"] == {name: ["format"] for name in ("bad-date", "bad-uri", "bad-email", "bad-at")}
    # ... and the public-suffix data is there without an HTTP stack.
    assert result["url"] == {"domain": "evil.io", "codes": ["domain-in-subdomain"]}
