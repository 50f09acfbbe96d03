"""X displays for tests of what happens without one."""

from __future__ import annotations

from pathlib import Path


def unused_display() -> str:
    """A display name no X server listens on now (for tests of what happens without one)."""
    for number in range(900, 1000):
        if not (Path(f"/tmp/.X{number}-lock").exists() or Path(f"/tmp/.X11-unix/X{number}").exists()):
            return f":{number}"
    raise RuntimeError("every display from :900 to :999 is taken")
