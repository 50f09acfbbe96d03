"""A text as part of a file or folder name: letters and digits joined by dashes."""

from __future__ import annotations

import re


def slugify(text: str, limit: int = 40) -> str:
    slug = re.sub(r"[^a-zA-Z0-9]+", "-", text).strip("-").lower()
    return slug[:limit].rstrip("-") or "run"
