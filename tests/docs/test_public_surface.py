"""The public surface is the one written down: nothing becomes public by accident.

elicitkit's API is what its public packages list in `__all__`; every module inside a package is
private (its name starts with `_`), as in HTTPX and Starlette. `public_surface.txt` beside this
file is the surface 1.x promises to keep. A new module without an underscore, a name added to an
`__all__`, or one taken away makes this test fail with the difference: if it was meant, write
the change in that file and in the CHANGELOG (a removal needs a deprecation first).
"""

from __future__ import annotations

import importlib
from pathlib import Path

from test_site import public_modules

SURFACE = Path(__file__).with_name("public_surface.txt")


def surface() -> list[str]:
    return [
        f"{module.__name__}: {name}"
        for module in public_modules()
        for name in sorted(getattr(module, "__all__", ()))
    ] + [f"{module.__name__}" for module in public_modules()]


def test_every_public_module_lists_its_names() -> None:
    """Without `__all__`, every name a module happens to import would be public."""
    missing = [module.__name__ for module in public_modules() if not hasattr(module, "__all__")]
    assert not missing, f"give these modules an __all__ (or a leading underscore): {missing}"


def test_the_public_surface_is_the_one_written_down() -> None:
    written = {line for line in SURFACE.read_text().splitlines() if line and not line.startswith("#")}
    now = set(surface())
    added, removed = sorted(now - written), sorted(written - now)
    assert not (added or removed), (
        f"the public surface changed; if that was meant, update {SURFACE.name} and the CHANGELOG.\n"
        f"now public: {added}\nno longer public: {removed}"
    )


def test_each_public_name_is_importable_from_where_it_is_listed() -> None:
    for line in SURFACE.read_text().splitlines():
        if ": " in line and not line.startswith("#"):
            module, name = line.split(": ")
            assert hasattr(importlib.import_module(module), name), line
