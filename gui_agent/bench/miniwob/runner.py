"""Run MiniWoB episodes with the real agent: pixels in, OS mouse and keyboard out.

Each worker is a separate process with its own Xvfb and chromium (``DISPLAY`` and pyautogui's
X connection are per process). The agent is the ordinary one: ``Agent`` on a ``LiveDesktop``
with a ``PyAutoGuiController`` and the offline planner, safety ``allow`` (sandbox pages).

What the agent observes: the whole virtual screen, kept small on purpose
(``browser.screen_size``: 328x560 at scale 2). It shows the chromium window's top-left part:
the 160x210 CSS px task area (the yellow instruction box included), a 4 px strip of page
background right of it and background below it, where a <select> popup may open. MiniWoB's
reward panel lies right of the screen's edge, so no score is on screen.

Before each episode the harness parks the mouse on that background strip (inside the window:
with no window manager, X sends keys to the window under the pointer). During the episode
the harness only polls the reward; when the page says the episode is over it stops the agent.
"""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import ConfigError, GuiAgentError
from .browser import SCREEN_CSS, TASK_AREA, BrowserOptions, Chromium, screen_size
from .episode import EpisodeState, MiniWobPage, episode_seed, task_url
from .instruction import instruction_from_utterance
from .report import EpisodeResult

if TYPE_CHECKING:
    from ...batch.desktop_session import DesktopSession

log = logging.getLogger(__name__)

DONE_GRACE = 1.5     # seconds to wait for the page's verdict after the agent stops


@dataclass(frozen=True)
class BenchConfig:
    tasks: tuple[str, ...]
    episodes: int = 5
    seed: int = 0
    scale: int = 2
    workers: int = 1
    max_steps: int = 30
    episode_seconds: float = 60.0
    out_dir: Path = Path("miniwob-bench")
    keep_runs: bool = False          # keep the agent's run folders of successful episodes too
    display: int | None = None       # first X display number (worker i uses display + i)
    accessibility: bool = False      # pixels + chromium's accessibility tree (an AT-SPI bus per worker)

    def __post_init__(self) -> None:
        if not self.tasks:
            raise ConfigError("no MiniWoB tasks given: use --tasks a,b,c or --suite FILE")
        if self.episodes < 1:
            raise ConfigError("--episodes must be at least 1")
        if self.scale < 1 or self.scale > 4:
            raise ConfigError("--scale must be 1, 2, 3 or 4")
        if self.workers < 1:
            raise ConfigError("--workers must be at least 1")
        if self.episode_seconds <= 0 or self.max_steps < 1:
            raise ConfigError("the episode time and step limits must be positive")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["tasks"] = list(self.tasks)
        data["out_dir"] = str(self.out_dir)
        return data


def shards(tasks: tuple[str, ...], workers: int) -> list[tuple[str, ...]]:
    """Tasks dealt round-robin to at most ``workers`` non-empty shards."""
    n = max(1, min(workers, len(tasks)))
    return [tasks[i::n] for i in range(n)]


def classify(agent_outcome: str, agent_reason: str, step_errors: list[tuple[str, bool]],
             state: EpisodeState) -> tuple[str | None, str]:
    """(cause, reason) of an episode; cause None when it succeeded.

    ``step_errors``: for each failed agent step, its error and whether it got as far as
    acting (a grounding failure does not).
    """
    if state.success:
        return None, ""
    page = state.reason or f"raw reward {state.raw_reward:g}"
    if agent_outcome == "stopped":  # the harness stopped it when the page ended the episode
        agent_reason = ""
    if agent_outcome == "error":
        return "planner", agent_reason
    if state.done and state.reason == "timed out":
        return "limit", "the page's episode timer ran out"
    if state.done:
        said = f"; the agent: {agent_reason}" if agent_reason else ""
        return "wrong-result", f"the page ended the episode: {page}{said}"
    grounding = [err for err, acted in step_errors if not acted]
    if grounding:
        return "grounding", grounding[-1]
    acted_errors = [err for err, acted in step_errors if acted]
    if acted_errors:
        return "no-effect", acted_errors[-1]
    if agent_reason.startswith("stopped after"):
        return "limit", agent_reason
    if agent_outcome == "done":
        return "incomplete", "the agent finished its plan, but the page gave no reward"
    return "error", agent_reason or f"agent outcome {agent_outcome}"


class EpisodeRunner:
    """One worker's display, browser and agent; runs episodes one after another."""

    def __init__(self, config: BenchConfig, display: str) -> None:
        from ...config import Settings
        from ...engine import Engine
        from ...step import AgentHooks

        self.config = config
        self.display = display
        self.shots_dir = config.out_dir / "shots"
        self.shots_dir.mkdir(parents=True, exist_ok=True)
        self.browser = Chromium(display, task_url(config.tasks[0]),
                                BrowserOptions(scale=config.scale, accessibility=config.accessibility))
        self.page = MiniWobPage(self.browser.start())
        settings = Settings(safety="allow", max_steps=config.max_steps,
                            max_seconds=config.episode_seconds, runs_dir=config.out_dir / "runs",
                            save_screenshots=True, accessibility=config.accessibility)
        self.agent = Engine.from_settings(settings, hooks=AgentHooks(on_step=self._after_step),
                                          use_memory=False)
        self.controller = self.agent.desktop.controller
        parser = self.agent.parser
        if parser is not None:  # load the OCR models now, not inside the first episode's time
            parser.parse(self.agent.observe().image)

    def _after_step(self, _step: object) -> None:
        if self.page.state().done:
            self.agent.stop_event.set()

    def park_mouse(self) -> None:
        from ...geometry import Point

        s = self.config.scale
        self.controller.move(Point((TASK_AREA[0] + SCREEN_CSS[0]) // 2 * s, TASK_AREA[1] // 2 * s))

    def run_task(self, task: str, progress: Callable[[EpisodeResult], None] | None = None
                 ) -> list[EpisodeResult]:
        out: list[EpisodeResult] = []
        for index in range(self.config.episodes):
            result = self.run_episode(task, index)
            out.append(result)
            if progress:
                progress(result)
        return out

    def run_episode(self, task: str, index: int) -> EpisodeResult:
        seed = episode_seed(self.config.seed, task, index)
        utterance = ""
        start = time.monotonic()
        try:
            self.page.load(task)
            # The page's own timer is a backstop a little beyond the agent's time limit.
            utterance = self.page.start(seed, self.config.episode_seconds + 5)
            instruction = instruction_from_utterance(utterance)
            self.park_mouse()
            self.agent.stop_event.clear()
            start = time.monotonic()
            result = self.agent.run(instruction)
            state = self.page.wait_done(DONE_GRACE)
            seconds = time.monotonic() - start
        except GuiAgentError as exc:
            log.warning("%s episode %d: %s", task, index, exc)
            self.page.task = None  # reload the page before the next episode
            return EpisodeResult(task, index, seed, utterance, utterance, False, 0.0, 0.0, False,
                                 0, round(time.monotonic() - start, 3), "error", "error", str(exc))
        step_errors = [(s.error, s.screen_point is not None) for s in result.steps
                       if s.outcome == "failed"]
        cause, reason = classify(result.outcome, result.reason, step_errors, state)
        shot = self._failure_shot(task, index, result) if cause is not None else None
        if not state.done:
            self.page.stop()
        run_dir = str(result.run_dir) if result.run_dir else None
        if cause is None and not self.config.keep_runs and result.run_dir:
            shutil.rmtree(result.run_dir, ignore_errors=True)
            run_dir = None
        return EpisodeResult(
            task=task, index=index, seed=seed, utterance=utterance, instruction=instruction,
            success=state.success, raw_reward=state.raw_reward, reward=state.reward,
            done=state.done, steps=len(result.steps), seconds=round(seconds, 3),
            agent_outcome=result.outcome, cause=cause, reason=reason,
            actions=tuple(f"{s.action} [{s.outcome}]" for s in result.steps),
            screenshot=shot, run_dir=run_dir)

    def _failure_shot(self, task: str, index: int, result: Any) -> str:
        """The screen the agent last acted on, its target marked (the final screen may already
        show MiniWoB's START cover); the screen now when the agent never acted."""
        last = result.steps[-1] if result.steps else None
        if last is not None and last.before and result.run_dir:
            source = Path(result.run_dir) / last.before
            if source.is_file():
                shot = self.shots_dir / f"{task}-{index:02d}.png"
                shutil.copyfile(source, shot)
                return str(shot)
        shot = self.shots_dir / f"{task}-{index:02d}.png"
        self.agent.observe().image.save(shot)
        return str(shot)

    def close(self) -> None:
        self.browser.stop()


def run_shard(config: BenchConfig, tasks: tuple[str, ...], worker: int) -> list[EpisodeResult]:
    """Everything one worker does: its own Xvfb and chromium, then the shard's tasks."""
    from ...display import VirtualDisplay

    number = None if config.display is None else config.display + worker
    results: list[EpisodeResult] = []
    with VirtualDisplay(size=screen_size(config.scale), display=number) as vd:
        session = _accessible_session(config, worker) if config.accessibility else None
        try:
            runner = EpisodeRunner(replace(config, tasks=tasks), vd.name or "")
            try:
                for task in tasks:
                    results += runner.run_task(task, _log_progress)
            finally:
                runner.close()
        finally:
            if session is not None:
                session.stop()
    return results


def _accessible_session(config: BenchConfig, worker: int) -> DesktopSession:
    """The worker's D-Bus session with the accessibility bus, which chromium reports its tree to
    (``--accessibility``); a missing dbus or at-spi2-core is a clear error."""
    from ...batch.desktop_session import (
        A11Y_BUS_SERVICES,
        DesktopSession,
        DesktopSpec,
        SessionError,
    )

    if shutil.which("dbus-daemon") is None:
        raise ConfigError("--accessibility needs a D-Bus session bus: apt-get install dbus")
    if not any(Path(p).exists() for p in A11Y_BUS_SERVICES):
        raise ConfigError("--accessibility needs the accessibility bus: apt-get install at-spi2-core")
    session = DesktopSession(DesktopSpec(accessibility=True), config.out_dir / f"session-{worker}")
    try:
        session.start()
    except SessionError as exc:
        raise ConfigError(f"--accessibility: {exc}") from exc
    return session


def _log_progress(r: EpisodeResult) -> None:
    verdict = "ok" if r.success else f"FAIL {r.cause}: {r.reason[:100]}"
    log.warning("%s #%d %.1fs %d steps %s | %s", r.task, r.index, r.seconds, r.steps, verdict,
                r.utterance[:80])


def _init_worker(level: int) -> None:
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")


def run_benchmark(config: BenchConfig) -> list[EpisodeResult]:
    """All episodes of all tasks; one process per worker when there is more than one, and
    with ``accessibility`` always (libatspi joins one bus per process, once: each worker's
    own bus needs a process of its own)."""
    for task in config.tasks:
        task_url(task)  # unknown names fail before anything starts
    parts = shards(config.tasks, config.workers)
    if len(parts) == 1 and not config.accessibility:
        return run_shard(config, parts[0], 0)
    import multiprocessing

    level = logging.getLogger().getEffectiveLevel()
    with ProcessPoolExecutor(len(parts), mp_context=multiprocessing.get_context("spawn"),
                             initializer=_init_worker, initargs=(level,)) as pool:
        futures = [pool.submit(run_shard, config, part, i) for i, part in enumerate(parts)]
        return [r for f in futures for r in f.result()]
