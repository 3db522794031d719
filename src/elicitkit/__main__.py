"""The `elicitkit` command (and `python -m elicitkit`): the CLI, or a sentence naming its extra."""

from __future__ import annotations

from elicitkit.extras import MissingExtraError, needs


def main() -> None:
    """Entry point for the `elicitkit` console script; the CLI comes with `elicitkit[cli]`."""
    try:
        with needs("cli"):
            from elicitkit.cli import main as cli_main
    except MissingExtraError as exc:
        raise SystemExit(f"elicitkit: {exc}") from None
    cli_main()


if __name__ == "__main__":
    main()
