"""MemoryStore: the one SQLite database of episodes and skills, with files beside it.

Layout: ``memory.sqlite3`` (WAL), ``shots/<folder>/*.png`` (episode screenshots) and
``crops/*.png`` (skill anchors); the database refers to files by paths relative to its folder.
Transactions and the checks that keep a foreign or corrupt file untouched are in
:mod:`.database`.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import shutil
import sqlite3
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ..secrets import TaskSecrets, TextMasker, chain, mask_record
from . import schema
from .database import Database
from .files import copy_crop, copy_shot, remove_unreferenced
from .models import (
    FLAG_WINDOW,
    Episode,
    Skill,
    SkillNameTaken,
    SkillNotFound,
    SkillStats,
    check_skill_name,
)
from .rows import (
    PARAM_COLUMNS,
    SKILL_STEP_COLUMNS,
    SKILLS_QUERY,
    STEP_COLUMNS,
    episode_from_rows,
    skill_from_json_row,
    skill_from_rows,
    skill_rows,
    step_row,
)

log = logging.getLogger(__name__)
T = TypeVar("T")
DB_NAME = "memory.sqlite3"


def default_memory_path() -> Path:
    """``$GUI_AGENT_MEMORY`` or ``<user data dir>/memory.sqlite3``."""
    from ..config import user_data_dir

    env = os.environ.get("GUI_AGENT_MEMORY")
    return Path(env).expanduser() if env else user_data_dir() / DB_NAME


@dataclass(frozen=True)
class SkillChanges:
    """The skills' state at ``revision``: every skill's name, and the skills that changed."""

    revision: int
    names: frozenset[str]
    changed: tuple[Skill, ...]


def _masked(step: Any, mask: TextMasker) -> Any:
    return mask_record(step, mask) if dataclasses.is_dataclass(step) else step


def _marks(columns: str) -> str:
    return ", ".join("?" * len(columns.split(",")))


class MemoryStore:
    """Opens (or creates) the memory database; use it as a context manager."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path).expanduser() if path is not None else default_memory_path()
        self.root = self.path.parent
        self._db = Database(self.path)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- episodes ----------------------------------------------------------------------------
    def record_episode(self, result: Any, *, model: str | None = None,
                       created_at: float | None = None, masker: TextMasker | None = None) -> int:
        """Store a RunResult (or anything shaped like one); its screenshots are copied in.

        The secrets its task names (and those ``masker`` knows) are masked in every text stored.
        """
        mask = chain(TaskSecrets.from_task(result.task).mask, masker)
        created = time.time() if created_at is None else created_at
        folder = f"shots/{time.strftime('%Y%m%d', time.localtime(created))}-{uuid.uuid4().hex[:12]}"
        run_dir = Path(result.run_dir) if getattr(result, "run_dir", None) else None
        steps: list[tuple[Any, str | None, str | None, str | None]] = []
        answer = getattr(result, "answer", None)

        def body(conn: sqlite3.Connection) -> int:
            cur = conn.execute(
                "INSERT INTO episodes (task, outcome, reason, answer, model, seconds, created_at, "
                "run_dir, shots_dir) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (mask(result.task), result.outcome, mask(result.reason or ""),
                 None if answer is None else mask(answer), model,
                 float(getattr(result, "seconds", 0.0) or 0.0), created,
                 mask(str(run_dir)) if run_dir else None, folder))
            episode_id = int(cur.lastrowid)
            conn.executemany(
                f"INSERT INTO episode_steps ({STEP_COLUMNS}) VALUES ({_marks(STEP_COLUMNS)})",
                [step_row(episode_id, s, before, after, crop) for s, before, after, crop in steps])
            return episode_id

        try:   # files first: a crash may leave a stray file, never a row without its file
            steps.extend((_masked(step, mask),
                          copy_shot(self.root, run_dir, getattr(step, "before", None), folder),
                          copy_shot(self.root, run_dir, getattr(step, "after", None), folder),
                          copy_shot(self.root, run_dir, getattr(step, "crop", None), folder))
                         for step in result.steps)
            return self._db.write(body)
        except BaseException:
            shutil.rmtree(self.root / folder, ignore_errors=True)
            raise

    def episodes(self, limit: int | None = 50) -> list[Episode]:
        """The most recent episodes, newest first, with their steps."""
        def body(conn: sqlite3.Connection) -> list[Episode]:
            rows = conn.execute("SELECT * FROM episodes ORDER BY created_at DESC, id DESC LIMIT ?",
                                (-1 if limit is None else limit,)).fetchall()
            return [self._episode(conn, row) for row in rows]

        return self._db.read(body)

    def episode(self, episode_id: int) -> Episode | None:
        def body(conn: sqlite3.Connection) -> Episode | None:
            row = conn.execute("SELECT * FROM episodes WHERE id = ?", (episode_id,)).fetchone()
            return None if row is None else self._episode(conn, row)

        return self._db.read(body)

    def _episode(self, conn: sqlite3.Connection, row: sqlite3.Row) -> Episode:
        steps = conn.execute("SELECT * FROM episode_steps WHERE episode_id = ? ORDER BY idx",
                             (row["id"],)).fetchall()
        return episode_from_rows(row, steps)

    def shot_path(self, rel: str) -> Path:
        """The file of a screenshot or crop path stored in the database."""
        return self.root / rel

    # -- skills ------------------------------------------------------------------------------
    def save_skill(self, skill: Skill, *, replace: bool = False) -> int:
        """Store a skill (crop files are copied under ``crops/``); its id. Name clash: SkillNameTaken
        unless ``replace``, which keeps the old skill's run history."""
        skill.check_actions()
        crops = [copy_crop(self.root, step.crop) for step in skill.steps]

        def body(conn: sqlite3.Connection) -> int:
            now = time.time()
            old = conn.execute("SELECT id, created_at FROM skills WHERE name = ?", (skill.name,)).fetchone()
            if old is not None and not replace:
                raise SkillNameTaken(skill.name)
            if old is not None:
                skill_id = old["id"]
                conn.execute("UPDATE skills SET name = ?, description = ?, source = ?, updated_at = ? "
                             "WHERE id = ?", (skill.name, skill.description, skill.source, now, skill_id))
                for table in ("skill_steps", "skill_parameters", "skill_examples"):
                    conn.execute(f"DELETE FROM {table} WHERE skill_id = ?", (skill_id,))
            else:
                skill_id = conn.execute(
                    "INSERT INTO skills (name, description, source, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?)", (skill.name, skill.description, skill.source,
                                               skill.created_at or now, now)).lastrowid
            params, steps, examples = skill_rows(skill_id, skill, crops)
            conn.executemany(f"INSERT INTO skill_parameters ({PARAM_COLUMNS}) VALUES ({_marks(PARAM_COLUMNS)})", params)
            conn.executemany(f"INSERT INTO skill_steps ({SKILL_STEP_COLUMNS}) VALUES ({_marks(SKILL_STEP_COLUMNS)})", steps)
            conn.executemany("INSERT INTO skill_examples (skill_id, position, text) VALUES (?, ?, ?)", examples)
            return int(skill_id)

        new_crops = [c for c, step in zip(crops, skill.steps, strict=True) if c and c != step.crop]
        try:
            skill_id = self._db.write(body)
        except BaseException:
            for rel in new_crops:
                (self.root / rel).unlink(missing_ok=True)
            raise
        self._drop_unused_crops()
        return skill_id

    def skill(self, name: str) -> Skill | None:
        def body(conn: sqlite3.Connection) -> Skill | None:
            row = conn.execute("SELECT * FROM skills WHERE name = ?", (name.strip(),)).fetchone()
            return None if row is None else self._skill(conn, row)

        return self._db.read(body)

    def require_skill(self, name: str) -> Skill:
        """Like :meth:`skill`, but a missing one is a SkillNotFound error."""
        found = self.skill(name)
        if found is None:
            raise SkillNotFound(name, self.path)
        return found

    def list_skills(self, include_flagged: bool = False) -> list[Skill]:
        """All skills by name; those that keep failing only with ``include_flagged``."""
        skills = self._db.read(lambda conn: [skill_from_json_row(row) for row in conn.execute(
            f"{SKILLS_QUERY} ORDER BY s.name")])
        return [s for s in skills if include_flagged or not s.flagged]

    def skill_changes(self, since: int | None = None) -> SkillChanges | None:
        """What changed in the skills after revision ``since`` (None: everything), or None when
        nothing did: one query to learn that, one more to load every changed skill."""
        def body(conn: sqlite3.Connection) -> SkillChanges | None:
            revision = int(conn.execute("SELECT revision FROM skill_revision").fetchone()[0])
            if since is not None and revision == since:
                return None
            names, changed = [], []
            for row in conn.execute("SELECT id, name, revision > ? AS changed FROM skills",
                                    (-1 if since is None else since,)):
                names.append(row["name"])
                if row["changed"]:
                    changed.append(row["id"])
            skills = []
            for part in range(0, len(changed), 500):   # SQLite's limit on bound values
                ids = changed[part:part + 500]
                skills += [skill_from_json_row(row) for row in conn.execute(
                    f"{SKILLS_QUERY} WHERE s.id IN ({', '.join('?' * len(ids))})", ids)]
            return SkillChanges(revision, frozenset(names), tuple(skills))

        return self._db.read(body)

    def _skill(self, conn: sqlite3.Connection, row: sqlite3.Row) -> Skill:
        sid = row["id"]
        params = conn.execute("SELECT * FROM skill_parameters WHERE skill_id = ? ORDER BY position",
                              (sid,)).fetchall()
        steps = conn.execute("SELECT * FROM skill_steps WHERE skill_id = ? ORDER BY position",
                             (sid,)).fetchall()
        examples = [r[0] for r in conn.execute(
            "SELECT text FROM skill_examples WHERE skill_id = ? ORDER BY position", (sid,))]
        runs, successes, last = conn.execute(
            "SELECT count(*), coalesce(sum(ok), 0), max(created_at) FROM skill_runs WHERE skill_id = ?",
            (sid,)).fetchone()
        recent = tuple(bool(r[0]) for r in conn.execute(
            "SELECT ok FROM skill_runs WHERE skill_id = ? ORDER BY id DESC LIMIT ?", (sid, FLAG_WINDOW)))
        stats = SkillStats(runs=runs, successes=successes, recent=recent, last_run_at=last)
        return skill_from_rows(row, params, steps, examples, stats)

    def _skill_id(self, conn: sqlite3.Connection, name: str) -> int:
        row = conn.execute("SELECT id FROM skills WHERE name = ?", (name.strip(),)).fetchone()
        if row is None:
            raise SkillNotFound(name, self.path)
        return int(row[0])

    def rename_skill(self, old: str, new: str) -> None:
        new = check_skill_name(new)

        def body(conn: sqlite3.Connection) -> None:
            sid = self._skill_id(conn, old)
            clash = conn.execute("SELECT id FROM skills WHERE name = ?", (new,)).fetchone()
            if clash is not None and clash[0] != sid:
                raise SkillNameTaken(new)
            conn.execute("UPDATE skills SET name = ?, updated_at = ? WHERE id = ?", (new, time.time(), sid))

        self._db.write(body)

    def delete_skill(self, name: str) -> None:
        self._db.write(lambda conn: conn.execute("DELETE FROM skills WHERE id = ?",
                                              (self._skill_id(conn, name),)))
        self._drop_unused_crops()

    def record_skill_run(self, name: str, ok: bool, step_results: Sequence[bool | None] = ()) -> SkillStats:
        """Count one replay: overall and per step (True passed, False failed, None not reached)."""
        results = [None if r is None else bool(r) for r in step_results]

        def body(conn: sqlite3.Connection) -> None:
            sid = self._skill_id(conn, name)
            conn.execute("INSERT INTO skill_runs (skill_id, ok, created_at, step_results) VALUES (?, ?, ?, ?)",
                         (sid, int(bool(ok)), time.time(), json.dumps(results)))
            for position, passed in enumerate(results):
                if passed is not None:
                    column = "successes" if passed else "failures"
                    conn.execute(f"UPDATE skill_steps SET {column} = {column} + 1 "
                                 "WHERE skill_id = ? AND position = ?", (sid, position))

        self._db.write(body)
        return self.require_skill(name).stats

    def _drop_unused_crops(self) -> None:
        folder = self.root / "crops"
        if not folder.is_dir():
            return
        used = set(self._db.read(lambda c: [r[0] for r in c.execute(
            "SELECT crop FROM skill_steps WHERE crop IS NOT NULL")]))
        remove_unreferenced(folder.iterdir(), used, "crops")

    # -- housekeeping ------------------------------------------------------------------------
    def prune(self, keep_days: float | None = None, keep_last: int | None = None) -> dict[str, int]:
        """Delete episodes older than ``keep_days`` and beyond the newest ``keep_last`` (both
        must agree when both are given), with their screenshots; then unreferenced shot folders."""
        def body(conn: sqlite3.Connection) -> list[str]:
            where, args = [], []
            if keep_days is not None:
                where.append("created_at < ?")
                args.append(time.time() - keep_days * 86400)
            if keep_last is not None:
                where.append("id NOT IN (SELECT id FROM episodes ORDER BY created_at DESC, id DESC "
                             "LIMIT ?)")
                args.append(max(0, keep_last))
            if not where:
                return []
            cond = " AND ".join(where)
            folders = [r[0] for r in conn.execute(f"SELECT shots_dir FROM episodes WHERE {cond}", args)]
            conn.execute(f"DELETE FROM episodes WHERE {cond}", args)
            return folders

        folders = self._db.write(body)
        for folder in folders:
            if folder:
                shutil.rmtree(self.root / folder, ignore_errors=True)
        shots = self.root / "shots"
        orphans = 0
        if shots.is_dir():
            used = set(self._db.read(lambda c: [r[0] for r in c.execute(
                "SELECT shots_dir FROM episodes WHERE shots_dir IS NOT NULL")]))
            orphans = remove_unreferenced(shots.iterdir(), used, "shots")
        return {"episodes": len(folders), "orphan_folders": orphans}

    def stats(self) -> dict[str, Any]:
        def body(conn: sqlite3.Connection) -> dict[str, Any]:
            one = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
            oldest, newest = conn.execute("SELECT min(created_at), max(created_at) FROM episodes").fetchone()
            return {
                "episodes": one("SELECT count(*) FROM episodes"),
                "outcomes": dict(conn.execute("SELECT outcome, count(*) FROM episodes GROUP BY outcome "
                                              "ORDER BY outcome").fetchall()),
                "steps": one("SELECT count(*) FROM episode_steps"),
                "skills": one("SELECT count(*) FROM skills"),
                "skill_runs": one("SELECT count(*) FROM skill_runs"),
                "oldest_episode": oldest, "newest_episode": newest,
            }

        out: dict[str, Any] = {"path": str(self.path), "schema_version": schema.SCHEMA_VERSION}
        out.update(self._db.read(body))
        out["flagged_skills"] = sum(s.flagged for s in self.list_skills(include_flagged=True))
        out["database_bytes"] = sum(p.stat().st_size for p in self.root.glob(self.path.name + "*")
                                    if p.is_file())
        out["files_bytes"] = sum(p.stat().st_size for d in ("shots", "crops")
                                 for p in (self.root / d).rglob("*") if p.is_file())
        return out
