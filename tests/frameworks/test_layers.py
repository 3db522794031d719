"""The framework modules keep the project's layering: the client adapters import neither the
server side nor any framework; the FastMCP server side never imports the client side."""

from __future__ import annotations

import subprocess
import sys


def imported_after(module: str) -> set[str]:
    code = f"import sys, {module}; print(' '.join(sorted(sys.modules)))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    return set(run.stdout.split())


def test_client_adapters_import_no_server_and_no_framework() -> None:
    loaded = imported_after("elicitkit.client._frameworks")
    assert not {
        m for m in loaded if m.startswith(("elicitkit.server", "fastmcp", "pydantic_ai", "langchain"))
    }


def test_fastmcp_server_side_imports_no_client() -> None:
    loaded = imported_after("elicitkit.fastmcp")
    assert "fastmcp" in loaded and not {m for m in loaded if m.startswith("elicitkit.client")}
