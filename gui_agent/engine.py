"""The one place gui-agent is put together: settings in, an engine out.

``Engine.from_settings(settings)`` builds what a run needs from the settings alone: the desktop
(the real screen with real input, a dry run that only records, or a screenshot file), the
screen parser, the grounding ladder (with a pointing model's rung when one is set), the
application registry and the safety gate that share it, the step pipeline, the planner (the
offline planner, or a model's), the experience memory and the replayer. The CLI, the app,
batch workers, the demo and every benchmark get their engine here; ``Engine(desktop, ...)``
takes parts a caller already has (a test's scripted planner, a benchmark's counting parser).

    from gui_agent import Engine, Settings
    with Engine.from_settings(Settings(safety="refuse")) as engine:
        result = engine.run('type "Ann" into the Name field, then click "Save"')
    print(result.outcome, result.reason)
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .agent import Agent
from .backends.base import Backend
from .backends.registry import ModelFamily
from .config import Settings, load_settings
from .control.app_registry import AppRegistry
from .deadline import Deadline
from .desktop import Desktop, LiveDesktop, StillDesktop
from .errors import ConfigError
from .grounding.ladder import Ladder
from .grounding.queries import ScreenQueries
from .memory.experience import ExperienceMemory, Learned
from .parsing.elements import ScreenParsing
from .planner.base import Planner
from .replay import ReplayResult, SkillReplayer
from .safety import SafetyGate
from .screen.observation import Observation
from .skill_use import SkillUse
from .step import AgentHooks, Observer, RunControl, StepPipeline
from .trajectory import RunResult
from .verify import settle_after

if TYPE_CHECKING:
    from .grounding.template import TemplateMatcher
    from .memory.models import Skill
    from .recording import Demonstration

log = logging.getLogger(__name__)

# Families whose prompts (gui-agent's own) take the screen's OCR text as extra context.
SCREEN_TEXT_PARSERS = ("gui-agent",)


def load_backend(model: str, family: str | None, settings: Settings) -> tuple[Backend, ModelFamily]:
    """(backend, family) for ``model`` through the backend factory (tests replace this); the
    settings' image budget and sampling overrides are applied to the family."""
    from .backends.factory import create_backend

    backend = settings.backend or ("openai" if settings.base_url else "transformers")
    extra = {"api_key_env": settings.api_key_env} if settings.api_key_env else {}
    tuning = {"min_pixels": settings.min_pixels, "max_pixels": settings.max_pixels,
              "max_new_tokens": settings.max_new_tokens, "temperature": settings.temperature,
              "top_p": settings.top_p}
    return create_backend(model, family, backend=backend, base_url=settings.base_url,
                          allow_download=settings.allow_download, device=settings.device,
                          dtype=settings.dtype, tuning=tuning, **extra)


def planner_settings(settings: Settings) -> Settings:
    """The settings the planner model loads with: its own backend and server (never the acting
    model's), its family's own image budget and sampling."""
    backend = settings.planner_backend or ("openai" if settings.planner_base_url else "transformers")
    return replace(settings, backend=backend, base_url=settings.planner_base_url, min_pixels=None,
                   max_pixels=None, max_new_tokens=None, temperature=None, top_p=None)


def model_parts(settings: Settings, parser: ScreenParsing | None = None,
                deadline: Deadline | None = None) -> tuple[Planner | None, Ladder, ScreenParsing]:
    """(planner or None, ladder, parser) for the model settings.

    The configured models decide the mode (:func:`gui_agent.backends.modes.choose_mode`): a
    native agent (UI-TARS in its trained loop), a tool-calling agent (Qwen2.5-VL's
    computer_use), hierarchical (``planner_model`` as the Manager of a worker, or writing
    gui-agent's action text), or the offline planner (None) when no model acts or plans. The
    grounding ladder gets a pointing rung last: ``grounding_model``, else the acting model when
    it can point. ``deadline`` is the run's one time limit, shared by every model call.
    """
    from .backends.modes import HIERARCHICAL, NATIVE, TOOL, choose_mode
    from .grounding.default import default_ladder
    from .grounding.vlm_grounder import VlmGrounder, ZoomSettings
    from .planner.hierarchical import hierarchical_planner
    from .planner.native_agent import native_agent_planner
    from .planner.prompting import parser_screen_text
    from .planner.tool_agent import tool_agent_planner

    ladder, parser = default_ladder(parser)
    acting = load_backend(settings.model, settings.family, settings) if settings.model else None
    planning = (load_backend(settings.planner_model, settings.planner_family,
                             planner_settings(settings)) if settings.planner_model else None)
    grounding = (load_backend(settings.grounding_model, settings.grounding_family, settings)
                 if settings.grounding_model else None)
    choice = choose_mode(acting[1] if acting else None, planning[1] if planning else None,
                         grounding[1] if grounding else None)
    log.info("mode: %s", choice.describe())
    planner: Planner | None = None
    if choice.mode == NATIVE and acting is not None:
        planner = native_agent_planner(*acting, deadline=deadline)
    elif choice.mode == TOOL and acting is not None:
        planner = tool_agent_planner(*acting, deadline=deadline)
    elif choice.mode == HIERARCHICAL:
        head = planning or acting
        assert head is not None
        worker = acting if planning is not None else None
        reads = head[1].parser in SCREEN_TEXT_PARSERS or not head[1].vision
        planner = hierarchical_planner(
            head[0], head[1], worker_backend=worker[0] if worker else None,
            worker_family=worker[1] if worker else None,
            screen_text=parser_screen_text(parser) if reads else None, deadline=deadline)
    pointer = grounding or (acting if acting is not None and acting[1].can("grounder") else None)
    if pointer is not None:
        g_backend, g_family = pointer
        zoom = ZoomSettings() if settings.grounding_zoom else None
        ladder = ladder.with_rung(VlmGrounder(g_backend, g_family, zoom=zoom, deadline=deadline))
        log.info("the grounding ladder's last rung: %s", g_family.name)
    return planner, ladder, parser


def live_desktop(settings: Settings, apps: AppRegistry, *, dry_run: bool = False) -> LiveDesktop:
    """The real screen (``settings.monitor``) with real input through ``apps``, or with
    ``dry_run`` a controller that records and performs (and launches) nothing; with the
    platform's accessibility tree unless ``settings.accessibility`` is off."""
    from .accessibility import platform_source
    from .control.dry_run import DryRunController

    tree = platform_source(settings.a11y_budget) if settings.accessibility else None
    if dry_run:
        return LiveDesktop(DryRunController(apps=apps), settings.monitor, tree=tree)
    from .control.pyautogui_controller import PyAutoGuiController

    return LiveDesktop(PyAutoGuiController(apps=apps), settings.monitor, tree=tree)


class Engine:
    """A desktop, a planner and everything between them; ``run(task)`` does a task."""

    def __init__(self, desktop: Desktop, planner: Planner | None = None, *,
                 settings: Settings | None = None, ladder: Ladder | None = None,
                 parser: ScreenParsing | None = None, hooks: AgentHooks | None = None,
                 live: bool = True, memory: ExperienceMemory | None = None,
                 safety: SafetyGate | None = None, deadline: Deadline | None = None,
                 runs_dir: Path | None = None, matcher: TemplateMatcher | None = None,
                 control: RunControl | None = None) -> None:
        from .grounding.default import default_ladder
        from .planner import offline_planner

        self.settings = settings or Settings()
        self.desktop = desktop
        if ladder is None:
            ladder, parser = default_ladder(parser)
        self.ladder, self.parser = ladder, parser
        self.safety = safety or SafetyGate.from_settings(
            self.settings, AppRegistry.for_platform(self.settings.allow_apps))
        self.hooks = hooks or AgentHooks()
        self.control = control or RunControl()
        self.deadline = deadline or Deadline()
        self.memory = memory
        self.live = live       # False: the screen cannot change (a dry run, a screenshot file)
        self.observer = Observer(desktop)
        self.queries = ScreenQueries(ladder, parser)
        # The offline planner asks the screen (through the ladder) whether a box is already
        # ticked or what a field shows: it is given the questions here, explicitly.
        self.planner = planner or offline_planner(self.queries.checked_state, self.queries.shown_text,
                                                  self.queries.dialog_of, self.queries.texts,
                                                  self.queries.dialog, self.queries.buttons,
                                                  self.queries.slider, self.queries.named,
                                                  self.queries.text_rows, self.queries.field_labels)
        self.pipeline = StepPipeline(desktop, settings=self.settings, safety=self.safety, hooks=self.hooks,
                                     observe=self.observer, settle=self._settle, reader=parser, live=live,
                                     control=self.control)
        self.replayer = SkillReplayer(self.pipeline, ladder=ladder, parser=parser,
                                      store=memory.store if memory is not None else None, matcher=matcher)
        self.skills = SkillUse(memory, self.replayer, parser) if memory is not None else None
        self.agent = Agent(self.planner, self.pipeline, ladder, settings=self.settings, parser=parser,
                           skills=self.skills, deadline=self.deadline, runs_dir=runs_dir,
                           control=self.control)

    @classmethod
    def from_settings(cls, settings: Settings | None = None, desktop: Desktop | None = None,
                      hooks: AgentHooks | None = None, *, dry_run: bool = False,
                      screenshot: str | Path | None = None, parser: ScreenParsing | None = None,
                      use_memory: bool | None = None, apps: AppRegistry | None = None,
                      control: RunControl | None = None) -> Engine:
        """An engine for ``settings`` (default: the config file, the environment).

        ``desktop`` None: the real screen (``settings.monitor``) with real input, or with
        ``dry_run`` a controller that only records, or ``screenshot`` a still image. The planner
        is the model's when ``settings.model`` is set, else the offline planner; the memory is
        used unless turned off (``use_memory`` False, ``settings.use_memory`` False, a dry run).
        ``parser``: a screen parser to share (its OCR models stay loaded between engines);
        ``apps``: the application registry a given desktop's controller launches through (the
        safety gate shares it); ``control``: stop and pause events owned by the caller.
        """
        from .grounding.default import default_ladder

        settings = settings or load_settings()
        apps = apps or AppRegistry.for_platform(settings.allow_apps)
        live = not (dry_run or screenshot)
        if desktop is None:
            desktop = StillDesktop.from_file(screenshot) if screenshot is not None else \
                live_desktop(settings, apps, dry_run=dry_run)
        deadline = Deadline()
        planner, (ladder, parser) = None, default_ladder(parser)
        if settings.model or settings.grounding_model or settings.planner_model:
            planner, ladder, parser = model_parts(settings, parser, deadline=deadline)
        remember = live and settings.use_memory and use_memory is not False
        memory = ExperienceMemory.from_settings(settings) if remember else None
        return cls(desktop, planner, settings=settings, ladder=ladder, parser=parser, hooks=hooks,
                   live=live, memory=memory, safety=SafetyGate.from_settings(settings, apps),
                   deadline=deadline, control=control)

    # -- the screen --------------------------------------------------------------------------
    def observe(self) -> Observation:
        """The screen now, as the engine sees it."""
        return self.observer()

    def text_visible(self, text: str) -> bool:
        """Whether ``text`` is on the screen now (a batch check, a wait)."""
        return self.queries.text_visible(text, self.observer())

    def _settle(self, before: Observation | None) -> Observation:
        if not self.live:
            return self.observer()
        return settle_after(self.observer, before, self.settings, self.control.stop_event)

    # -- what it does ------------------------------------------------------------------------
    def run(self, task: str) -> RunResult:
        """Do ``task``: a confidently recalled skill, else the planner, step by step."""
        return self.agent.run(task)

    def run_skill(self, name: str, params: Mapping[str, Any] | None = None,
                  task: str | None = None) -> RunResult:
        """Replay one skill of the memory as a run of its own (a run folder, its steps)."""
        return self.agent.run_skill(name, dict(params or {}), task)

    def replay(self, skill: str | Skill, params: Mapping[str, Any] | None = None, **more: Any) -> ReplayResult:
        """Replay a skill (by name from the memory, or a Skill) with its parameters; its own run
        folder and HTML-renderable record."""
        values = {**(params or {}), **more}
        if isinstance(skill, str):
            if self.memory is None:
                raise ConfigError(f"cannot replay {skill!r}: the experience memory is off")
            skill = self.memory.skill(skill)
        return self.replayer.run(skill, values)

    def record(self, name: str, folder: Path | None = None, **options: Any) -> Demonstration:
        """Record a demonstration with the real mouse and keyboard into ``folder`` (a new
        folder under the data folder by default); compile it with
        :func:`gui_agent.recording.compile_demo`. ``options``: the Recorder's (stop_hotkey,
        secret_fields, max_seconds, ...)."""
        from .config import user_data_dir
        from .recording import Recorder
        from .slugs import slugify

        folder = folder or user_data_dir() / "recordings" / f"{slugify(name)}-{time.strftime('%Y%m%d-%H%M%S')}"
        options.setdefault("stop_hotkey", self.settings.stop_hotkey)
        options.setdefault("monitor", self.settings.monitor)
        options.setdefault("parser", self.parser)
        return Recorder(folder, name, **options).record()

    def save_as(self, name: str) -> Skill:
        """Save the latest run (it must have succeeded) as a skill named ``name``: its typed
        texts become parameters, a secret one without a default."""
        if self.memory is None or self.last_episode_id is None:
            raise ConfigError("there is no successful run in the experience memory to save as a skill")
        return self.memory.save_as(self.last_episode_id, name)

    # -- control -----------------------------------------------------------------------------
    @property
    def stop_event(self) -> Any:
        return self.control.stop_event

    @property
    def pause_event(self) -> Any:
        return self.control.pause_event

    def stop(self) -> None:
        self.control.stop_event.set()

    @property
    def last_episode_id(self) -> int | None:
        return self.skills.last_episode_id if self.skills is not None else None

    @property
    def last_learned(self) -> Learned:
        return self.skills.last_learned if self.skills is not None else Learned()

    def close(self) -> None:
        if self.memory is not None:
            self.memory.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
