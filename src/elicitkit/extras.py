"""Optional extras: the heavy stacks belong to the programs that use them.

`pip install elicitkit` brings what a form round trip needs on either side. Each other feature
names the extra that brings its libraries (`pip install 'elicitkit[redis]'`), and importing it
without them raises `MissingExtraError`, which says which one to install.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["MissingExtraError", "needs"]


class MissingExtraError(ModuleNotFoundError):
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
