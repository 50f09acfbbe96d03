"""The memory's files beside the database: screenshots under ``shots/``, crops under ``crops/``.

Files are copied in before the transaction that refers to them commits, so a crash can leave an
unreferenced file but never a row pointing at nothing; :func:`remove_unreferenced` sweeps them.
Folders are 0700 and files 0600 (:mod:`gui_agent.private_files`).
"""

from __future__ import annotations

import logging
import shutil
import time
import uuid
from collections.abc import Iterable
from pathlib import Path

from .. import private_files
from ..errors import MemoryStoreError

log = logging.getLogger(__name__)
ORPHAN_GRACE_S = 3600.0   # an unreferenced file younger than this may belong to a write under way


def copy_shot(root: Path, run_dir: Path | None, rel: str | None, folder: str) -> str | None:
    """Copy a run's screenshot into ``root/folder``; its store-relative path (None if missing)."""
    if not rel:
        return None
    src = Path(rel) if Path(rel).is_absolute() or run_dir is None else run_dir / rel
    if not src.is_file():
        log.warning("screenshot %s is missing; the episode is stored without it", src)
        return None
    dest = f"{folder}/{src.name}"
    private_dir(root, folder)
    private_files.copy_file(src, root / dest)
    return dest


def copy_crop(root: Path, crop: str | None) -> str | None:
    """A crop inside the store stays as it is; a file elsewhere is copied into ``crops/``."""
    if not crop:
        return None
    src = Path(crop)
    if not src.is_absolute() and (root / src).is_file():
        return src.as_posix()
    if not src.is_file():
        raise MemoryStoreError(f"skill crop image {crop} does not exist")
    rel = f"crops/{uuid.uuid4().hex}{src.suffix or '.png'}"
    private_dir(root, "crops")
    private_files.copy_file(src, root / rel)
    return rel


def private_dir(root: Path, rel: str) -> Path:
    """``root/rel`` and the folders between, created (or tightened) 0700: they are the memory's."""
    from .database import FIX_WRITABLE

    path = root
    for part in Path(rel).parts:
        path = private_files.private_dir(path / part, FIX_WRITABLE)
    return path


def remove_unreferenced(paths: Iterable[Path], used: set[str], prefix: str) -> int:
    """Delete the files or folders ``prefix/<name>`` not in ``used`` (and not just written)."""
    removed = 0
    for p in paths:
        if f"{prefix}/{p.name}" in used or time.time() - p.stat().st_mtime < ORPHAN_GRACE_S:
            continue
        if p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)
        removed += 1
    return removed
