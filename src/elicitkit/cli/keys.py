"""`elicitkit keys new` and `elicitkit keys rotate`: the vault's key ring, for operators."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, NoReturn

import anyio
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from elicitkit.cli._help import MARKUP, Command
from elicitkit.errors import ElicitationError
from elicitkit.server import KEYS_ENV, KeyRing, Vault

if TYPE_CHECKING:
    from elicitkit.server import Rotation
    from elicitkit.server.store import Store

app = typer.Typer(
    help="Make vault keys and re-seal what a store holds under the newest one (docs/deployment.md).",
    no_args_is_help=True,
    rich_markup_mode=MARKUP,
)

LEFT = 3
"""The exit status of a rotation that left values which still need an older key."""


@app.command("new", cls=Command)
def new(
    key_id: Annotated[
        str, typer.Argument(help="The new key's id: 1-32 letters, digits, '-' or '_'.", show_default=False)
    ],
) -> None:
    """Print a new entry for the vault's key ring.

    The entry is `ID:base64key`, 32 random bytes. Add it to the ring (the ELICITKIT_VAULT_KEYS
    variable, comma-separated): first, so every replica can read what it will seal; then last,
    so it seals.
    """
    try:
        KeyRing.from_string(entry := KeyRing.generate(key_id))
    except ElicitationError as error:
        _fail("new", error)
    typer.echo(entry)


@app.command("rotate", cls=Command)
def rotate_command(
    store: Annotated[
        str,
        typer.Option(
            "--store",
            metavar="URL",
            envvar="ELICITKIT_STORE",
            help="The store the servers use: sqlite:///PATH, redis://..., redis+sentinel://..., "
            "redis+cluster://... or postgresql://... (default: $ELICITKIT_STORE).",
            show_default=False,
        ),
    ],
    keys_env: Annotated[
        str,
        typer.Option("--keys-env", metavar="NAME", help="The variable that holds the key ring."),
    ] = KEYS_ENV,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Re-seal the store's vault values under the ring's last key.

    Then it says which older keys no stored value needs, so they can leave the ring. Run it
    once every replica seals with the new key. Replicas may keep serving: a value written
    meanwhile is never overwritten. Stopped midway, it loses nothing; run it again to finish.

    Exit status: 0 every value is sealed under the last key, 1 an error, 3 some values still need
    an older key (one the ring lacks, or a value altered so that it does not open), 130 stopped.
    """
    from elicitkit.server import open_store

    try:
        ring = KeyRing.from_env(keys_env)
        backend = open_store(store)
    except ElicitationError as error:
        _fail("rotate", error)
    console = Console(stderr=True)
    try:
        rotation = anyio.run(
            _rotate, Vault(ring, backend), backend, console, quiet or not console.is_terminal
        )
    except KeyboardInterrupt:
        print("elicitkit keys rotate: stopped; nothing is lost, run it again to finish.", file=sys.stderr)
        raise typer.Exit(130) from None
    except (ElicitationError, OSError) as error:
        _fail("rotate", error)
    typer.echo(_summary(rotation, ring))
    raise typer.Exit(LEFT if rotation.left else 0)


async def _rotate(vault: Vault, backend: Store, console: Console, quiet: bool) -> Rotation:
    from elicitkit.server import rotate

    try:
        if quiet:
            return await rotate(vault)
        columns = (TextColumn("Re-sealing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=console, transient=True) as progress:
            total = 0
            async for _ in backend.blob_keys(Vault.PREFIX):
                total += 1
            task = progress.add_task("reseal", total=total)
            return await rotate(vault, progress=lambda n: progress.advance(task, n))
    finally:
        await backend.close()


def _summary(rotation: Rotation, ring: KeyRing) -> str:
    lines = [
        f"{rotation.resealed} value(s) re-sealed under key {rotation.key!r}; {rotation.current} already were."
    ]
    for kid, count in sorted(rotation.left.items()):
        lines.append(
            f"{count} value(s) still need key {kid!r}"
            + (
                " (not in the ring, or altered): add it back to read them, or let them be written again."
                if kid not in ring.ids
                else " (they do not open under it: altered?): keep it until they are written again."
            )
        )
    retirable = rotation.retirable(ring)
    if retirable:
        names = ", ".join(repr(kid) for kid in retirable)
        lines.append(f"No stored value needs {names} now: remove it from the ring on every replica.")
    return "\n".join(lines)


def _fail(command: str, error: BaseException) -> NoReturn:
    print(f"elicitkit keys {command}: {error}", file=sys.stderr)
    raise typer.Exit(1) from None
