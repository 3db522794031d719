"""Files only their owner can read, in folders only their owner can open.

The bridge keeps secrets on disk (its credential, the upstream sign-in and its key). Each file
is written whole under a temporary name made with mode 0600 and then given its name, so no
one reads it half written or with looser rights. Every folder made on the way to it, parents
included, is made 0700: the XDG Base Directory rule for the folders an application creates,
and `Path.mkdir(parents=True, mode=...)` gives that mode to the last folder only.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

__all__ = ["open_to_others", "private_folder", "write_new", "write_over"]


def private_folder(folder: Path) -> Path:
    """`folder`, made with every missing parent, each of mode 0700; folders already there are
    left as they are (they are the person's)."""
    missing: list[Path] = []
    step = folder
    while not step.exists():
        missing.append(step)
        step = step.parent
    for made in reversed(missing):
        try:
            made.mkdir(mode=0o700)
        except FileExistsError:
            continue  # another process made it first: its rights are its own
        os.chmod(made, 0o700)  # whatever the umask took away or left
    return folder


def write_new(path: Path, data: bytes) -> bool:
    """Write `path` (mode 0600) unless it exists; False if it did. Two writers at once agree on
    one file: it takes its name by a link, which fails when the name is taken."""
    temporary = _written(path, data)
    try:
        os.link(temporary, path)
    except FileExistsError:
        return False
    finally:
        Path(temporary).unlink(missing_ok=True)
    return True


def write_over(path: Path, data: bytes) -> None:
    """Write `path` (mode 0600), replacing it at once for its readers."""
    temporary = _written(path, data)
    try:
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def open_to_others(path: Path) -> str | None:
    """The mode of `path` (as `0644`) when its group or other users may read or change it, else
    None. Windows has no such bits: there the folder's own rights decide."""
    if os.name != "posix":
        return None
    mode = stat.S_IMODE(path.stat().st_mode)
    return f"{mode:04o}" if mode & 0o077 else None


def _written(path: Path, data: bytes) -> str:
    private_folder(path.parent)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")  # mode 0600
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return temporary
