"""Past tasks, newest first, kept in a small JSON file in the user data folder."""

from __future__ import annotations

import json
import logging
from pathlib import Path

log = logging.getLogger(__name__)

MAX_TASKS = 100


def default_history_file() -> Path:
    from gui_agent import user_data_dir

    return user_data_dir() / "app-task-history.json"


class TaskHistory:
    """Newest first, no duplicates; a missing or unreadable file is an empty history."""

    def __init__(self, path: Path | None, limit: int = MAX_TASKS) -> None:
        self.path = path
        self.limit = limit
        self._tasks: list[str] = self._load()

    def _load(self) -> list[str]:
        if self.path is None or not self.path.exists():
            return []
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            log.warning("ignoring the task history %s: %s", self.path, exc)
            return []
        if not isinstance(data, list):
            return []
        return [t for t in data if isinstance(t, str) and t.strip()][: self.limit]

    @property
    def tasks(self) -> list[str]:
        return list(self._tasks)

    def add(self, task: str) -> None:
        from gui_agent import TaskSecrets

        task = TaskSecrets.from_task(task.strip()).mask(task.strip())   # never a password on disk
        if not task:
            return
        self._tasks = [task] + [t for t in self._tasks if t != task]
        del self._tasks[self.limit:]
        self._save()

    def _save(self) -> None:
        if self.path is None:
            return
        try:
            from gui_agent import private_files

            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(self.path.name + ".tmp")
            private_files.write_text(tmp, json.dumps(self._tasks, ensure_ascii=False, indent=1))
            tmp.replace(self.path)
        except OSError as exc:  # history is a convenience: never fail a run for it
            log.warning("could not save the task history to %s: %s", self.path, exc)
