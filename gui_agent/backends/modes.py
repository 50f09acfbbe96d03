"""Which mode a configuration gives, decided by what its models are (the registry's ``modes``).

- ``offline``: no model plans; the offline planner (a grounding model may still point).
- ``native-agent``: one end-to-end GUI model in its trained loop (UI-TARS), the task its
  instruction; no plan is ever asked of it.
- ``tool-agent``: a general VLM acting through its ``computer_use`` tool (Qwen2.5-VL).
- ``hierarchical``: a planner model splits the task and re-plans (the Manager); each subtask goes
  to a native or tool-calling worker, or the planner writes gui-agent's action text whose
  targets the grounding ladder finds (Agent S2's pairing of a planner and a grounder).

A grounding model, when one is set, is the ladder's last rung; else the acting model is, when
it can point. A model used for what it cannot do is refused with what to do instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ConfigError
from .registry import ModelFamily

OFFLINE, NATIVE, TOOL, HIERARCHICAL = "offline", "native-agent", "tool-agent", "hierarchical"
MODE_NAMES = {OFFLINE: "offline planner", NATIVE: "native agent", TOOL: "tool-calling agent",
              HIERARCHICAL: "hierarchical (planner + worker)"}
USES = {"native-agent": "native agent (--model)", "tool-agent": "tool-calling agent (--model)",
        "action-text": "worker writing action text (--model)",
        "planner": "planner (--planner-model)", "grounder": "grounder (--grounding-model)"}


@dataclass(frozen=True)
class ModeChoice:
    """A configuration's mode, the worker's kind and who points, and why."""

    mode: str                     # OFFLINE | NATIVE | TOOL | HIERARCHICAL
    why: str
    worker: str | None = None     # native-agent | tool-agent | action-text (who acts)
    grounder: str | None = None   # the family of the ladder's model rung, if any

    @property
    def name(self) -> str:
        return MODE_NAMES[self.mode]

    def describe(self) -> str:
        rung = f"; the grounding ladder's last rung: {self.grounder}" if self.grounder else ""
        return f"{self.name}: {self.why}{rung}"


def family_uses(family: ModelFamily) -> str:
    """What a family's model can be used as, for ``gui-agent models``."""
    return ", ".join(USES[m] for m in family.modes)


def _worker_kind(family: ModelFamily) -> str | None:
    for kind in ("native-agent", "tool-agent", "action-text"):
        if family.can(kind):
            return kind
    return None


def _refuse_model(family: ModelFamily, planner: bool) -> ConfigError:
    if family.can("grounder"):
        more = "" if planner else " beside the offline planner or a --planner-model"
        return ConfigError(
            f"{family.name} models only point at elements; they cannot act on a task: use one as "
            f"--grounding-model{more} (`gui-agent models` lists what each family can be)")
    return ConfigError(f"{family.name} models cannot act on a task; see `gui-agent models`")


def choose_mode(model: ModelFamily | None, planner: ModelFamily | None = None,
                grounding: ModelFamily | None = None) -> ModeChoice:
    """The mode of a configuration with these families (``model``: --model, ``planner``:
    --planner-model, ``grounding``: --grounding-model); ConfigError for a misuse."""
    if grounding is not None and not grounding.can("grounder"):
        raise ConfigError(f"{grounding.name} models cannot point at elements; as "
                          "--grounding-model use a grounder such as uground, showui or os-atlas")
    if planner is not None and not planner.can("planner"):
        raise ConfigError(
            f"{planner.name} models are trained to act, not to plan: use one as --model (a "
            "native or tool-calling worker) and a chat model as --planner-model")
    worker = _worker_kind(model) if model is not None else None
    if model is not None and worker is None:
        raise _refuse_model(model, planner is not None)
    pointer = grounding or (model if model is not None and model.can("grounder") else None)
    rung = pointer.name if pointer is not None else None
    if planner is not None:
        if model is None:
            return ModeChoice(HIERARCHICAL, f"the planner model ({planner.name}) splits the task "
                              "and writes gui-agent's action text; the grounding ladder finds "
                              "its targets", "action-text", rung)
        return ModeChoice(HIERARCHICAL, f"the planner model ({planner.name}) splits the task and "
                          f"hands each subtask to the {model.name} worker "
                          f"({MODE_NAMES.get(worker or '', worker)})", worker, rung)
    if model is None:
        why = "no model is set: explicit instructions, language as data"
        return ModeChoice(OFFLINE, why, None, rung)
    if worker == NATIVE:
        return ModeChoice(NATIVE, f"{model.name} is an end-to-end GUI model: the task goes to it "
                          "as trained (its prompt, its Thought/Action turns, the last "
                          f"{model.max_images} screenshots)", NATIVE, rung)
    if worker == TOOL:
        return ModeChoice(TOOL, f"{model.name} acts through its computer_use tool, the task as "
                          "its query", TOOL, rung)
    return ModeChoice(HIERARCHICAL, f"{model.name} plans the subtasks and writes gui-agent's "
                      "action text; the grounding ladder finds its targets", "action-text", rung)


def configured_mode(model: str | None = None, family: str | None = None,
                    planner_model: str | None = None, planner_family: str | None = None,
                    grounding_model: str | None = None,
                    grounding_family: str | None = None) -> ModeChoice:
    """The mode a configuration gives, from the models' names and families alone (nothing is
    loaded: ``gui-agent models`` and the app's engine selector say it before a run)."""
    from .factory import choose_family

    def pick(name: str | None, fam: str | None) -> ModelFamily | None:
        return choose_family(fam, name) if name else None

    return choose_mode(pick(model, family), pick(planner_model, planner_family),
                       pick(grounding_model, grounding_family))
