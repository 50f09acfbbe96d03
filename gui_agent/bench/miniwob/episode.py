"""One MiniWoB page: load a task, start a seeded episode, read its instruction and reward.

Everything here goes through the DevTools protocol and is the harness's alone; the agent
never sees any of it except the instruction text, which it is given as a user would type it.

Seeds: episode ``i`` of task ``t`` under base seed ``s`` is seeded with a number derived from
``(s, t, i)`` only, so a run is reproducible whatever the worker count or task order.

Time: MiniWoB ends an episode after ``core.EPISODE_MAX_TIME`` (10 s by default, with reward
-1). The harness sets it to the episode limit it was given (default 60 s, see ``runner``);
success is the *raw* reward (1 = success), which has no time discount.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path

from ...errors import ConfigError, GuiAgentError
from .cdp import CdpClient
from .instruction import utterance_text

log = logging.getLogger(__name__)

LOAD_TIMEOUT = 15.0
READY_TIMEOUT = 5.0


def miniwob_html_dir() -> Path:
    """Where the installed ``miniwob`` package keeps its task pages."""
    try:
        import miniwob
    except ImportError as exc:
        raise ConfigError("the MiniWoB bench needs the miniwob package: "
                          "pip install 'gui-agent[bench]'") from exc
    path = Path(miniwob.__file__).resolve().parent / "html" / "miniwob"
    if not path.is_dir():
        raise ConfigError(f"the miniwob package has no task pages at {path}; reinstall it")
    return path


def available_tasks() -> list[str]:
    return sorted(p.stem for p in miniwob_html_dir().glob("*.html"))


def task_url(task: str) -> str:
    path = miniwob_html_dir() / f"{task}.html"
    if not path.is_file():
        known = available_tasks()
        near = [t for t in known if task.split("-")[0] in t][:8]
        hint = f"; similar: {', '.join(near)}" if near else ""
        raise ConfigError(f"no MiniWoB task named {task!r} ({len(known)} tasks installed){hint}")
    return path.as_uri()


def episode_seed(base_seed: int, task: str, index: int) -> int:
    """A 31-bit seed that depends only on (base seed, task, episode index)."""
    digest = hashlib.sha256(f"{base_seed}:{task}:{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


@dataclass(frozen=True)
class EpisodeState:
    done: bool
    raw_reward: float
    reward: float
    reason: str | None

    @property
    def success(self) -> bool:
        return self.done and self.raw_reward >= 1.0


class MiniWobPage:
    """The task page in one browser, seen through CDP."""

    def __init__(self, cdp: CdpClient) -> None:
        self.cdp = cdp
        self.task: str | None = None

    def load(self, task: str) -> None:
        """Open the task's page and wait until MiniWoB shows its START cover. The page is opened
        again when the last episode left it (a link the agent clicked changed its address)."""
        url = task_url(task)
        if self.task != task or not self.cdp.evaluate("location.href === " + json.dumps(url)):
            self.cdp.navigate(url)
        deadline = time.monotonic() + LOAD_TIMEOUT
        probe = ("document.readyState === 'complete' && typeof core !== 'undefined' && "
                 "document.getElementById('sync-task-cover') !== null && "
                 "location.href === " + json.dumps(url))
        while not self.cdp.evaluate(probe):
            if time.monotonic() > deadline:
                raise GuiAgentError(f"the MiniWoB page for {task!r} did not load within "
                                    f"{LOAD_TIMEOUT:.0f} s")
            time.sleep(0.05)
        self.task = task

    def start(self, seed: int, max_seconds: float) -> str:
        """Start a seeded episode with the given time limit; returns its utterance."""
        self.cdp.evaluate(
            f"Math.seedrandom({int(seed)}); core.EPISODE_MAX_TIME = {int(max_seconds * 1000)};"
            " core.startEpisodeReal(); true")
        deadline = time.monotonic() + READY_TIMEOUT
        while not self.cdp.evaluate("WOB_TASK_READY === true"):
            if time.monotonic() > deadline:
                raise GuiAgentError(f"the {self.task} episode did not get ready within "
                                    f"{READY_TIMEOUT:.0f} s")
            time.sleep(0.05)
        return utterance_text(self.cdp.evaluate("core.getUtterance()"))

    def state(self) -> EpisodeState:
        data = self.cdp.evaluate(
            "({done: WOB_DONE_GLOBAL, raw: WOB_RAW_REWARD_GLOBAL, reward: WOB_REWARD_GLOBAL,"
            " reason: WOB_REWARD_REASON == null ? null : String(WOB_REWARD_REASON)})")
        return EpisodeState(bool(data["done"]), float(data["raw"] or 0.0),
                            float(data["reward"] or 0.0), data.get("reason"))

    def wait_done(self, seconds: float, interval: float = 0.05) -> EpisodeState:
        """Poll until the episode is done or ``seconds`` have passed; the last state."""
        deadline = time.monotonic() + seconds
        state = self.state()
        while not state.done and time.monotonic() < deadline:
            time.sleep(interval)
            state = self.state()
        return state

    def stop(self) -> EpisodeState:
        """End a still running episode (reward 0, as MiniWoB's own force-stop does)."""
        state = self.state()
        if not state.done:
            self.cdp.evaluate("core.endEpisode(0, false, 'stopped by the harness'); true")
        return state
