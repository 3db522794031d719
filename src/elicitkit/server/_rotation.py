"""Key rotation: every value of a vault sealed again under the key ring's current key.

A key is retired in steps (docs/deployment.md, "Rotating the vault key"): every replica learns
the new key, then seals with it, then `rotate` seals again what is stored under older keys,
then the old key leaves the ring. `rotate` reads the store in bounded batches and changes each
value with a compare-and-set, so a value a replica writes meanwhile is never lost; each value is
changed alone, so a rotation stopped at any point (a crash, Ctrl-C) left every value readable
with the ring it ran with, and running it again finishes the job.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from elicitkit.server._vault import KeyRing, Vault

__all__ = ["Rotation", "rotate"]

_AT_ONCE = 32
"""Values resealed concurrently: enough to hide a networked store's round trips, few enough
that serving replicas barely notice."""


@dataclass
class Rotation:
    """What `rotate` found and did."""

    key: str
    """The id of the key everything is now sealed under (the ring's current key)."""
    resealed: int = 0
    """Values this run sealed again under `key`."""
    current: int = 0
    """Values already sealed under `key`."""
    left: Counter[str] = field(default_factory=Counter)
    """Values still sealed under another key, by that key's id: a key the ring lacks, or a value
    altered so that it does not open. On Redis, a value the listing met twice counts twice."""

    @property
    def seen(self) -> int:
        """How many values this run looked at."""
        return self.resealed + self.current + sum(self.left.values())

    def retirable(self, ring: KeyRing) -> list[str]:
        """The ids of `ring`'s keys that no stored value needs any more: remove them from the ring
        (after every replica seals with `key`)."""
        return [kid for kid in ring.ids if kid != self.key and not self.left[kid]]

    def needs(self, key_id: str) -> bool:
        """Whether some stored value still needs `key_id` to be read."""
        return key_id == self.key or self.left[key_id] > 0


async def rotate(vault: Vault, *, progress: Callable[[int], None] | None = None) -> Rotation:
    """Seal every value of `vault` again under its ring's current key, and tell which keys are
    still needed. `progress(n)` is called as values are done, with how many were done since its
    last call. Safe to run while replicas serve, and to run again after an interruption."""
    rotation = Rotation(vault.keys.current)
    batch: list[str] = []

    async def one(key: str) -> None:
        outcome = await vault.reseal(key)
        if outcome == "resealed":
            rotation.resealed += 1
        elif outcome == "current":
            rotation.current += 1
        elif outcome == "left":
            blob = await vault.store.get_blob(key)
            if blob is not None:
                rotation.left[vault.keys.sealed_with(blob) or "?"] += 1

    async def flush() -> None:
        await asyncio.gather(*(one(key) for key in batch))
        if progress is not None:
            progress(len(batch))
        batch.clear()

    async for key in vault.store.blob_keys(Vault.PREFIX):
        batch.append(key)
        if len(batch) >= _AT_ONCE:
            await flush()
    if batch:
        await flush()
    return rotation
