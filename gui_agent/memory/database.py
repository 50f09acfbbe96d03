"""The memory database's connection: identity checks before any write, WAL, migrations, and
transactions retried while another process holds the lock.

Every write is one ``BEGIN IMMEDIATE`` transaction, so several batch workers can share a store
and a killed process loses nothing committed. The database file (and so SQLite's ``-wal`` and
``-shm`` files, which take its mode) is 0600, its folder 0700 when it is gui-agent's own.
"""

from __future__ import annotations

import logging
import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from .. import private_files
from ..errors import GuiAgentError, MemoryStoreError
from . import schema

log = logging.getLogger(__name__)
T = TypeVar("T")
SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT_S = 10.0      # SQLite's own wait for a lock
WRITE_DEADLINE_S = 60.0    # then our retries, with jitter, until this much time has passed
ELSEWHERE = ("point gui-agent at another memory file (the memory_path setting in config.toml "
             "or GUI_AGENT_MEMORY_PATH, or GUI_AGENT_MEMORY; --memory PATH on the skills, "
             "memory, record and replay commands)")
FIX_WRITABLE = f"{ELSEWHERE}, make it writable, or run without memory (--no-memory)"


def _is_busy(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def _is_read_only(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "readonly" in text or "read-only" in text or "unable to open" in text


class Database:
    """One SQLite connection to the memory database: opened only after the file proved to be
    ours (or new), migrated, and used through ``write``/``read`` transactions."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.root = path.parent
        self._lock = threading.RLock()
        self._conn = self._open()

    # -- opening -----------------------------------------------------------------------------
    def _refuse(self, why: str) -> MemoryStoreError:
        return MemoryStoreError(f"{self.path}: {why}; it was left untouched. Move it away, or "
                                f"{ELSEWHERE}.")

    def _prepare(self) -> None:
        """The folder (0700 when gui-agent's own) and the file (0600) before SQLite opens it;
        a read-only folder or file is a NotWritable error that says what to do."""
        owned = private_files.within(self.root, private_files.data_dir())
        private_files.private_dir(self.root, FIX_WRITABLE, owned=owned)
        if self.path.exists() and not os.access(self.path, os.W_OK):
            raise private_files.NotWritable(self.path, "the file is read-only", FIX_WRITABLE)
        try:
            private_files.create_empty(self.path)
        except OSError as exc:
            if not private_files.is_write_error(exc):
                raise MemoryStoreError(f"{self.path}: cannot create the memory database ({exc})"
                                       ) from exc
            why = private_files.describe(exc)
            raise private_files.NotWritable(self.root, why, FIX_WRITABLE) from None
        for p in (self.path, *(self.path.with_name(self.path.name + s) for s in ("-wal", "-shm"))):
            private_files.tighten(p, private_files.FILE_MODE)

    def _open(self) -> sqlite3.Connection:
        if self.path.is_dir():
            raise MemoryStoreError(f"{self.path}: is a folder, not a memory database file")
        if self.path.exists() and self.path.stat().st_size > 0:
            with self.path.open("rb") as f:
                if f.read(16) != SQLITE_MAGIC:
                    raise self._refuse("not a gui-agent memory database (not an SQLite file: "
                                       "corrupt or some other kind of file)")
        self._prepare()
        try:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                                   check_same_thread=False)
        except (OSError, sqlite3.Error) as exc:
            raise MemoryStoreError(f"{self.path}: cannot open the memory database ({exc})") from exc
        try:
            conn.row_factory = sqlite3.Row
            self._retry(lambda: self._check_snapshot(conn))
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            conn.execute("PRAGMA foreign_keys = ON")
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                self._retry(lambda: conn.execute("PRAGMA journal_mode = WAL"))
            conn.execute("PRAGMA synchronous = NORMAL")
            self._conn = conn
            self.write(self._migrate)
        except GuiAgentError:   # refused, or read-only
            conn.close()
            raise
        except sqlite3.DatabaseError as exc:
            conn.close()
            if _is_read_only(exc):
                why = f"it is read-only ({exc})"
                raise private_files.NotWritable(self.path, why, FIX_WRITABLE) from None
            raise self._refuse(f"unreadable as a memory database ({exc})") from exc
        return conn

    def _check_snapshot(self, conn: sqlite3.Connection) -> None:
        """The identity check inside one read transaction. Its reads must see one snapshot:
        read one by one, another gui-agent creating the store could commit in between, and a
        header read before its commit beside tables read after it looks like a foreign file."""
        conn.execute("BEGIN")
        try:
            self._check_identity(conn)
        finally:
            conn.execute("ROLLBACK")

    def _check_identity(self, conn: sqlite3.Connection) -> None:
        """Read only: refuse a foreign or newer database before anything writes to it."""
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        if app_id not in (0, schema.APPLICATION_ID):
            raise self._refuse(f"belongs to another application (application_id {app_id:#x})")
        version = schema.read_version(conn)
        if version is None or (app_id == 0 and version > 0):
            raise self._refuse("an SQLite database of another application (no gui-agent schema)")
        if version > schema.SCHEMA_VERSION:
            raise self._refuse(f"written by a newer gui-agent (schema version {version}; this one "
                               f"reads up to {schema.SCHEMA_VERSION}). Upgrade gui-agent")

    def _migrate(self, conn: sqlite3.Connection) -> None:
        self._check_identity(conn)   # again, under the write lock: another process may have won
        version = schema.read_version(conn) or 0
        if version < schema.SCHEMA_VERSION:
            if version:
                log.info("migrating %s from schema %d to %d", self.path, version, schema.SCHEMA_VERSION)
            schema.migrate(conn, version)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # -- transactions ------------------------------------------------------------------------
    def _retry(self, fn: Callable[[], T]) -> T:
        deadline = time.monotonic() + WRITE_DEADLINE_S
        while True:
            try:
                return fn()
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(random.uniform(0.01, 0.1))

    def write(self, body: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``body`` in one write transaction, retried while the database is busy."""
        conn = self._conn

        def attempt() -> T:
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = body(conn)
                conn.execute("COMMIT")
                return result
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

        with self._lock:
            try:
                return self._retry(attempt)
            except sqlite3.DatabaseError as exc:
                if _is_read_only(exc):
                    raise private_files.NotWritable(self.path, f"it is read-only ({exc})",
                                                    FIX_WRITABLE) from None
                raise MemoryStoreError(f"{self.path}: could not write to the memory database ({exc})"
                                       ) from exc

    def read(self, body: Callable[[sqlite3.Connection], T]) -> T:
        with self._lock:
            try:
                return self._retry(lambda: body(self._conn))
            except sqlite3.DatabaseError as exc:
                raise MemoryStoreError(f"{self.path}: could not read the memory database ({exc})"
                                       ) from exc
