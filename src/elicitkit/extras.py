"""Optional extras: the heavy stacks belong to the programs that use them.

`pip install elicitkit` brings what a form round trip needs on either side. Each other feature
names the extra that brings its libraries (`pip install 'elicitkit[redis]'`), and importing it
without them raises `MissingExtraError`, which says which one to install.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from elicitkit.errors import ElicitationError

__all__ = ["MissingExtraError", "lazy_names", "needs"]


class MissingExtraError(ElicitationError, ModuleNotFoundError):
    """A feature was used whose optional extra is not installed; the message names the extra."""


@contextmanager
def needs(extra: str) -> Iterator[None]:
    """Run the imports of a feature of `extra`; a missing library becomes `MissingExtraError`.

    with needs("redis"):
        from redis.asyncio import Redis
    """
    try:
        yield
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if not missing or missing.partition(".")[0] == "elicitkit" or isinstance(exc, MissingExtraError):
            raise
        raise MissingExtraError(
            f"This part of elicitkit needs the optional package {missing.partition('.')[0]!r}, which is "
            f"not installed; install it with: pip install 'elicitkit[{extra}]'",
            name=missing,
        ) from None


def lazy_names(
    package: str, optional: Mapping[str, tuple[str, str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's `__getattr__` and `__dir__` for public names kept behind an extra.

    `optional` maps each name to (the module that defines it, its extra); the module is imported
    on first use, under `needs(extra)`.
    """

    def __getattr__(name: str) -> Any:
        if name not in optional:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, extra = optional[name]
        with needs(extra):
            return getattr(importlib.import_module(module), name)

    def __dir__() -> list[str]:
        return sorted({*vars(importlib.import_module(package)), *optional})

    return __getattr__, __dir__
