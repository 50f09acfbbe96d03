"""A task's run folder carried from a Ray node back to the driver, up to a size cap.

The worker packs the files of its run folder (``run.json``, ``steps.jsonl``, the step
screenshots) and its setup logs into one uncompressed tar (PNGs are compressed already):
text first, then the screenshots in step order, each one that still fits under the cap. What
does not fit stays out and is named, so the report can say which screenshots are missing.
The driver unpacks the tar under its ``--out`` folder with tarfile's ``data`` filter (no
absolute paths, links out of the folder or device files).
"""

from __future__ import annotations

import io
import tarfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

_BLOCK = 512
_TEXT_FIRST = (".json", ".jsonl", ".log", ".txt")


@dataclass(frozen=True)
class RunBundle:
    data: bytes                       # a tar of the files that fit (paths relative to the base)
    left_out: tuple[str, ...] = ()    # files over the cap, relative to the base


def _tar_size(size: int) -> int:
    """A member's bytes in the tar: header, data padded to blocks, room for a PAX header."""
    return 3 * _BLOCK + (size + _BLOCK - 1) // _BLOCK * _BLOCK


def pack_files(base: Path, folders: Iterable[Path], cap: int,
               logs_only: Iterable[Path] = ()) -> RunBundle:
    """Every file under ``folders`` (and the ``*.log`` files of ``logs_only``), relative to
    ``base``, while the tar stays within ``cap`` bytes."""
    files: list[Path] = []
    for folder in folders:
        if folder.is_dir():
            files += [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]
    for folder in logs_only:
        if folder.is_dir():
            files += [p for p in folder.glob("*.log") if p.is_file() and not p.is_symlink()]
    files.sort(key=lambda p: (p.suffix not in _TEXT_FIRST, p.relative_to(base).as_posix()))
    used = 2 * _BLOCK  # the end-of-archive blocks
    buffer = io.BytesIO()
    left_out: list[str] = []
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in files:
            name = path.relative_to(base).as_posix()
            try:
                size = path.stat().st_size
            except OSError:
                continue
            if used + _tar_size(size) > cap:
                left_out.append(name)
                continue
            tar.add(path, arcname=name, recursive=False)
            used += _tar_size(size)
        end = tar.offset + 2 * _BLOCK  # tarfile pads the archive further; readers need no more
    return RunBundle(buffer.getvalue()[:end], tuple(left_out))


def unpack(data: bytes, dest: Path) -> None:
    """Extract a bundle under ``dest`` (created); nothing can land outside it."""
    if not data:
        return
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
        tar.extractall(dest, filter="data")
