"""A planner model with a worker, as Agent S2 pairs them.

The planner model (any chat model: ``--planner-model``) is the Manager: it splits the task into
subtasks from the screen (its screenshot, or its text for a text-only model) and re-plans after
each subtask and after a failure. A subtask it writes in gui-agent's action text
(``click("the Add button")``) is done as that action, its target found by the grounding ladder
(whose last rung may be a grounding model); any other subtask is handed, as the instruction,
to the worker: a native agent (UI-TARS in its trained loop), a tool-calling agent (Qwen2.5-VL's
computer_use), or the planner model itself writing action text.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..backends.base import Backend, GenerationSettings
from ..backends.images import ImageBudget
from ..backends.registry import ModelFamily
from ..deadline import Deadline
from ..errors import ConfigError
from .base import Planner, SkillMenu
from .native_agent import native_agent_worker
from .prompting import PromptSettings, ScreenText
from .tool_agent import tool_agent_worker
from .vlm import PlannedActions, RunContext, VlmManager, vlm_planner


def hierarchical_planner(planner_backend: Backend, planner_family: ModelFamily, *,
                         worker_backend: Backend | None = None,
                         worker_family: ModelFamily | None = None,
                         planner_budget: ImageBudget | None = None,
                         worker_budget: ImageBudget | None = None,
                         planner_generation: GenerationSettings | None = None,
                         worker_generation: GenerationSettings | None = None,
                         screen_text: ScreenText | None = None, skills: Sequence[str] = (),
                         max_replans: int = 3, deadline: Deadline | None = None) -> Planner:
    """The planner model as Manager; the worker is ``worker_family``'s kind (native agent, tool-
    calling agent, action text) or, without a worker, the planner model writing action text."""
    settings = PromptSettings(budget=planner_budget or planner_family.budget)
    if worker_backend is None or worker_family is None:
        return vlm_planner(planner_backend, planner_family, settings=settings,
                           screen_text=screen_text, skills=skills,
                           generation=planner_generation, max_replans=max_replans,
                           deadline=deadline)
    if worker_family.can("action-text"):
        return vlm_planner(worker_backend, worker_family,
                           settings=PromptSettings(budget=worker_budget or worker_family.budget),
                           manager_backend=planner_backend, screen_text=screen_text,
                           skills=skills, generation=worker_generation, max_replans=max_replans,
                           deadline=deadline)
    context = RunContext()
    menu = SkillMenu(tuple(skills))
    manager = VlmManager(planner_backend, settings,
                         generation=planner_generation or planner_family.generation,
                         screen_text=screen_text, skills=menu, max_replans=max_replans,
                         context=context, deadline=deadline, vision=planner_family.vision,
                         action_lines=True)
    if worker_family.can("native-agent"):
        worker = native_agent_worker(worker_backend, worker_family, budget=worker_budget,
                                     generation=worker_generation, context=context,
                                     deadline=deadline)
    elif worker_family.can("tool-agent"):
        worker = tool_agent_worker(worker_backend, worker_family, budget=worker_budget,
                                   generation=worker_generation, context=context,
                                   deadline=deadline)
    else:
        raise ConfigError(f"{worker_family.name} models cannot work on subtasks; see "
                          "`gui-agent models`")
    name = f"hierarchical:{planner_family.name}+{worker_family.name}"
    return Planner(name, manager, PlannedActions(worker), menu)
