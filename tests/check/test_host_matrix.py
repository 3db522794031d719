"""docs/hosts.md's compatibility matrix is what the host audit produces against every host this
machine can drive (tests/support/host_drivers.py's HOSTS): a host that changes shows here.

To write the matrix again after a change, run this test with ELICITKIT_WRITE_HOSTS=1 and read
the diff of docs/hosts.md.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.host_drivers import HOSTS

from elicitkit.check import audit_host
from elicitkit.check._host import matrix

DOC = Path(__file__).parents[2] / "docs" / "hosts.md"
BEGIN = "<!-- host-audit matrix: begin (tests/check/test_host_matrix.py) -->"
END = "<!-- host-audit matrix: end -->"


@pytest.mark.timeout(900)
async def test_docs_hosts_md_holds_the_matrix_the_audit_produces() -> None:
    reports = []
    for make in HOSTS:
        host = make()  # a host in a browser is slower than a callback: it says its own deadline
        reports.append(await audit_host(host, deadline=getattr(host, "deadline", 30)))
    produced = matrix(reports)
    text = DOC.read_text(encoding="utf-8")
    head, _, rest = text.partition(BEGIN)
    written, _, tail = rest.partition(END)
    if os.environ.get("ELICITKIT_WRITE_HOSTS"):
        DOC.write_text(f"{head}{BEGIN}\n{produced}\n{END}{tail}", encoding="utf-8")
    assert written.strip() == produced, (
        "docs/hosts.md's matrix is not what the audit produced now: run this test with "
        "ELICITKIT_WRITE_HOSTS=1 and read the diff."
    )
