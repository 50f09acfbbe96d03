"""The memory database's schema, versioned, and the migrations between versions.

A gui-agent database carries ``PRAGMA application_id`` = :data:`APPLICATION_ID` and a
``meta`` table with ``app`` and ``schema_version``; anything else (another program's SQLite
file, random bytes) is refused and never written to. Migration ``n`` takes version ``n - 1``
to ``n``; all of them run in one transaction, so a crash leaves the old version intact.
"""

from __future__ import annotations

import sqlite3

APPLICATION_ID = 0x47554941   # "GUIA"
APP_NAME = "gui-agent-memory"

_V1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE episodes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    task TEXT NOT NULL,
    outcome TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    answer TEXT,
    seconds REAL NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    run_dir TEXT,
    shots_dir TEXT
);
CREATE INDEX episodes_created ON episodes(created_at);
CREATE TABLE episode_steps (
    episode_id INTEGER NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    subtask TEXT NOT NULL DEFAULT '',
    action TEXT NOT NULL,
    outcome TEXT NOT NULL,
    target TEXT,
    source TEXT,
    point TEXT,
    screen_point TEXT,
    box TEXT,
    score REAL,
    error TEXT NOT NULL DEFAULT '',
    verification TEXT,
    before_shot TEXT,
    after_shot TEXT,
    timings TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (episode_id, idx)
);
CREATE TABLE skills (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    description TEXT NOT NULL DEFAULT '',
    source TEXT NOT NULL DEFAULT 'manual',
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE skill_parameters (
    skill_id INTEGER NOT NULL REFERENCES skills(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    default_value TEXT,
    choices TEXT NOT NULL DEFAULT '[]',
    description TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (skill_id, position),
    UNIQUE (skill_id, name)
);
CREATE TABLE skill_steps (
    skill_id INTEGER NOT NULL REFERENCES skills(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    action TEXT NOT NULL,
    target TEXT,
    ocr_text TEXT,
    crop TEXT,
    landmarks TEXT NOT NULL DEFAULT '[]',
    post_text TEXT,
    post_region TEXT,
    successes INTEGER NOT NULL DEFAULT 0,
    failures INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (skill_id, position)
);
CREATE TABLE skill_runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    skill_id INTEGER NOT NULL REFERENCES skills(id) ON DELETE CASCADE,
    ok INTEGER NOT NULL,
    created_at REAL NOT NULL,
    step_results TEXT NOT NULL DEFAULT '[]'
);
"""

# Version 2: the model an episode was planned with, and example task phrasings per skill.
_V2 = """
ALTER TABLE episodes ADD COLUMN model TEXT;
CREATE TABLE skill_examples (
    skill_id INTEGER NOT NULL REFERENCES skills(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (skill_id, position)
);
CREATE INDEX skill_runs_skill ON skill_runs(skill_id, id);
"""

# Version 3: what a step's target looked like (anchors a skill is mined from), the text a
# step's subtask expected afterwards, and the box a skill step's target had when learned.
_V3 = """
ALTER TABLE episode_steps ADD COLUMN crop TEXT;
ALTER TABLE episode_steps ADD COLUMN ocr_text TEXT;
ALTER TABLE episode_steps ADD COLUMN landmarks TEXT NOT NULL DEFAULT '[]';
ALTER TABLE episode_steps ADD COLUMN expect TEXT;
ALTER TABLE skill_steps ADD COLUMN box TEXT;
ALTER TABLE skill_parameters ADD COLUMN secret INTEGER NOT NULL DEFAULT 0;
"""



def _bump(skill_id: str | None) -> str:
    """Trigger body: count one change of the skills; ``skill_id``'s skill carries the count."""
    mark = "" if skill_id is None else (
        "UPDATE skills SET revision = (SELECT revision FROM skill_revision) "
        f"WHERE id = {skill_id}; ")
    return f"BEGIN UPDATE skill_revision SET revision = revision + 1; {mark}END"


# Version 4: a count of the changes to the skills (kept by triggers, whoever writes), and per
# skill the count at its latest change, so that a kept skill index reloads only what changed.
_V4 = "\n".join([
    "ALTER TABLE skills ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;",
    "CREATE TABLE skill_revision (revision INTEGER NOT NULL);",
    "INSERT INTO skill_revision (revision) VALUES (0);",
    f"CREATE TRIGGER skills_added AFTER INSERT ON skills {_bump('NEW.id')};",
    "CREATE TRIGGER skills_changed AFTER UPDATE OF name, description, source, created_at, "
    f"updated_at ON skills {_bump('NEW.id')};",
    f"CREATE TRIGGER skills_removed AFTER DELETE ON skills {_bump(None)};",
    *(f"CREATE TRIGGER {table}_{event.lower()} AFTER {event} ON {table} "
      f"{_bump(('OLD' if event == 'DELETE' else 'NEW') + '.skill_id')};"
      for table in ("skill_parameters", "skill_steps", "skill_examples", "skill_runs")
      for event in ("INSERT", "UPDATE", "DELETE")),
])

MIGRATIONS: tuple[str, ...] = (_V1, _V2, _V3, _V4)
SCHEMA_VERSION = len(MIGRATIONS)


def _statements(script: str) -> list[str]:
    """The statements of a migration script (a trigger's body keeps its own semicolons)."""
    out: list[str] = []
    pending = ""
    for part in script.split(";"):
        pending += part + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n;"):
                out.append(pending.strip().rstrip(";").strip())
            pending = ""
    return out


def has_tables(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0] > 0


def read_version(conn: sqlite3.Connection) -> int | None:
    """The schema version in ``meta``, 0 for an empty database, None when ``meta`` is missing."""
    if not has_tables(conn):
        return 0
    row = conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
                       ).fetchone()
    if not row[0]:
        return None
    app = conn.execute("SELECT value FROM meta WHERE key = 'app'").fetchone()
    version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if app is None or app[0] != APP_NAME or version is None:
        return None
    try:
        return int(version[0])
    except ValueError:
        return None


def migrate(conn: sqlite3.Connection, current: int, target: int = SCHEMA_VERSION) -> None:
    """Apply migrations ``current+1 .. target`` (the caller holds a write transaction)."""
    for version in range(current + 1, target + 1):
        for statement in _statements(MIGRATIONS[version - 1]):
            conn.execute(statement)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('app', ?)", (APP_NAME,))
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)", (str(target),))
