"""The playground: a small, realistic PySide6 app for demos and end-to-end tests.

Importing this package does not import Qt; ``app`` (the window) does, lazily via ``main``.
"""

from __future__ import annotations

from collections.abc import Sequence

from gui_agent.playground.launcher import PlaygroundError, PlaygroundProcess, launch_playground

__all__ = ["PlaygroundError", "PlaygroundProcess", "launch_playground", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the playground app (the `gui-agent playground` command)."""
    from gui_agent.playground.app import main as app_main

    return app_main(argv)
