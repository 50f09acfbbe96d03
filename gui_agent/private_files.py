"""Private folders and files: what gui-agent writes is readable by its user only.

Folders gui-agent creates are 0700 and its files 0600, whatever the umask (the mode is set
again right after creation). An existing folder gui-agent owns (its data dir, runs dir, memory
folder, config dir) is tightened when opened; a folder the user chose keeps its mode. A folder
that cannot be written is a :class:`NotWritable` error naming it and what to do, never a
traceback. On Windows, where modes mean little, nothing is changed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
from pathlib import Path
from typing import IO, Any

from .errors import GuiAgentError

DIR_MODE = 0o700
FILE_MODE = 0o600
POSIX = os.name != "nt"
DATA_FIX = "set GUI_AGENT_DATA_DIR to a folder you can write to (or make this one writable)"


class NotWritable(GuiAgentError):
    """A folder or file gui-agent must write to is read-only (permissions or file system)."""

    def __init__(self, path: Path, why: str, fix: str) -> None:
        self.path = Path(path)
        super().__init__(f"cannot write to {path}: {why}; {fix}")


def describe(exc: OSError) -> str:
    """Why a write failed, in words."""
    if exc.errno == errno.EROFS:
        return "it is on a read-only file system"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "it is read-only (permission denied)"
    if exc.errno in (errno.EEXIST, errno.ENOTDIR):
        return "it is a file, not a folder"
    return exc.strerror or str(exc)


def is_write_error(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM)


def data_dir() -> Path:
    from .config import user_data_dir

    return user_data_dir()


def within(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or inside it (both made absolute, links resolved)."""
    try:
        return Path(path).resolve().is_relative_to(Path(folder).resolve())
    except OSError:
        return False


def set_mode(path: Path, mode: int) -> None:
    if POSIX:
        with contextlib.suppress(OSError):   # not ours (another user's folder): leave it as it is
            os.chmod(path, mode)


def tighten(path: Path, mode: int | None = None) -> None:
    """Take group and other permissions off ``path`` when it is ours and has any."""
    if not POSIX:
        return
    try:
        st = path.stat()
    except OSError:
        return
    if st.st_mode & 0o077 and st.st_uid == os.geteuid():
        set_mode(path, mode if mode is not None else (DIR_MODE if path.is_dir() else FILE_MODE))


def check_writable(folder: Path, fix: str) -> None:
    """NotWritable when ``folder`` (an existing folder) cannot be written."""
    if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
        raise NotWritable(folder, "it is read-only", fix)


def private_dir(path: Path, fix: str, *, owned: bool = True) -> Path:
    """``path`` as a folder that only its user can read: created 0700 (missing parents with the
    usual mode), or, when it exists and ``owned``, tightened. NotWritable says ``fix``."""
    path = Path(path)
    existed = path.is_dir()
    try:
        if not existed:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.mkdir(mode=DIR_MODE, exist_ok=True)
    except OSError as exc:   # read-only, or a file where a folder should be: the user must act
        blocked = next((p for p in (path, *path.parents) if p.exists()), path)
        raise NotWritable(blocked, describe(exc), fix) from None
    if not existed:
        set_mode(path, DIR_MODE)
    elif owned:
        tighten(path, DIR_MODE)
    check_writable(path, fix)
    return path


def opener(path: str | os.PathLike[str], flags: int) -> int:
    """For ``open(..., opener=opener)``: a file created 0600 (an existing one is set to 0600)."""
    fd = os.open(path, flags, FILE_MODE)
    if POSIX:
        with contextlib.suppress(OSError):   # a file of another user's: written, mode kept
            os.fchmod(fd, FILE_MODE)
    return fd


def open_private(path: Path, mode: str = "w", **kwargs: Any) -> IO[Any]:
    """``open(path, mode)`` for writing a file only its user can read."""
    return open(path, mode, opener=opener, **kwargs)  # noqa: SIM115 - the caller closes it


def write_text(path: Path, text: str) -> None:
    with open_private(path, "w", encoding="utf-8") as f:
        f.write(text)


def copy_file(src: Path, dest: Path) -> None:
    """Copy ``src`` to ``dest`` (0600)."""
    with open(src, "rb") as fin, open_private(dest, "wb") as fout:
        shutil.copyfileobj(fin, fout)


def save_image(image: Any, path: Path, **params: Any) -> None:
    """A PIL image saved as a 0600 PNG."""
    with open_private(path, "wb") as f:
        image.save(f, format="PNG", **params)


def create_empty(path: Path) -> bool:
    """Create ``path`` empty and 0600 unless it exists; whether it was created."""
    try:
        fd = opener(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        return False
    os.close(fd)
    return True
