"""The messages a VLM planner sends: task, subtask, recent screenshots, a compact history.

Prompt wording lives in data files (``gui_agent/prompts/*.txt``) with ``{name}`` fields; only
known fields are filled, so braces in a prompt (JSON examples) are left alone. Screenshots are
downscaled to the model family's pixel budget here, before a backend sees them, so the image
a model answers about is the one its coordinates refer to. Text read off the screen goes in
as untrusted data (:func:`~gui_agent.safety.quote_untrusted`), never as instructions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image

from ..actions import Action, AskUser, format_action
from ..backends.base import Message
from ..backends.images import ImageBudget
from ..backends.registry import PROMPTS_DIR, ModelFamily, fill
from ..errors import ConfigError
from ..safety import quote_untrusted
from ..screen.observation import Observation
from .base import StepRecord, Subtask

ScreenText = Callable[[Observation], str]


@dataclass(frozen=True)
class PromptSettings:
    """How much context a model gets: images in budget, a few screenshots, a short history."""

    budget: ImageBudget = ImageBudget()
    screenshots: int = 3          # the last N distinct screenshots, the current one included
    history_steps: int = 12       # at most this many history lines (older ones are counted)
    screen_text_chars: int = 2000
    max_subtasks: int = 8

    def __post_init__(self) -> None:
        if self.screenshots < 1:
            raise ConfigError("a VLM planner needs at least the current screenshot (screenshots >= 1)")
        if self.history_steps < 0 or self.max_subtasks < 1:
            raise ConfigError("history_steps must be >= 0 and max_subtasks >= 1")


@lru_cache(maxsize=64)
def load_prompt(name: str) -> str:
    """The prompt file ``gui_agent/prompts/<name>.txt``."""
    path = PROMPTS_DIR / f"{name}.txt"
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"prompt file {path} is missing or unreadable ({exc}); reinstall gui-agent") from exc


def family_prompt(family: ModelFamily) -> str:
    """A model family's own prompt (the file its registry entry names, or its text)."""
    return family.load_prompt()


def downscale(image: Image.Image, budget: ImageBudget) -> Image.Image:
    """The image as the model will see it (resized to the family's pixel budget)."""
    return budget.apply(image)


def skills_text(skills: Sequence[str]) -> str:
    """The skills/tools the model may call, one per line (empty when there are none)."""
    if not skills:
        return ""
    lines = "\n".join(f"- {s}" for s in skills[:8])
    return f"Skills you may call with run_skill(name, ...):\n{lines}\n\n"


def screen_text_part(observation: Observation | None, screen_text: ScreenText | None,
                     settings: PromptSettings) -> str | None:
    """The screen's text, quoted as untrusted data; None when there is no reader or no text."""
    if observation is None or screen_text is None:
        return None
    text = screen_text(observation).strip()
    if not text:
        return None
    return quote_untrusted(text, "screen", settings.screen_text_chars)


def step_line(number: int, record: StepRecord, shown: str | None = None) -> str:
    """'3. click('OK') -> ok' / '... -> failed: <why>' (``shown`` is the model's own wording)."""
    text = shown or format_action(record.action)
    if isinstance(record.action, AskUser):
        outcome = record.note or "asked"
    elif record.ok:
        outcome = "ok"
    else:
        outcome = f"failed: {record.note}" if record.note else "failed"
    return f"{number}. {text} -> {outcome}"


def history_text(history: Sequence[StepRecord], limit: int,
                 shown: Callable[[Action], str | None] | None = None) -> str:
    """The last ``limit`` steps, one line each; '(none yet)' for an empty history."""
    if not history or limit == 0:
        return "(none yet)"
    first = max(0, len(history) - limit)
    lines = [f"({first} earlier steps not shown)"] if first else []
    for i, record in enumerate(history[first:], first + 1):
        lines.append(step_line(i, record, shown(record.action) if shown else None))
    return "\n".join(lines)


def manager_messages(task: str, observation: Observation | None, settings: PromptSettings, *,
                     screen_text: ScreenText | None = None, skills: Sequence[str] = (),
                     image: bool = True) -> list[Message]:
    """The planning question; ``image`` False for a text-only model (the screen's text only)."""
    text = fill(load_prompt("planner-manager"), task=task, skills=skills_text(skills),
                max_subtasks=settings.max_subtasks)
    return [Message("user", _with_screen(text, observation, screen_text, settings, image))]


def replan_messages(task: str, observation: Observation | None, settings: PromptSettings, *,
                    done: Sequence[Subtask], failed: Subtask | None, reason: str,
                    history: Sequence[StepRecord], screen_text: ScreenText | None = None,
                    skills: Sequence[str] = (), image: bool = True) -> list[Message]:
    done_text = "\n".join(f"{i}. {s.instruction}" for i, s in enumerate(done, 1)) or "(none)"
    if failed is not None:
        outcome = f"The subtask \"{failed.instruction}\" FAILED: {reason or 'no reason given'}"
    else:
        outcome = "The last subtask finished."
    text = fill(load_prompt("planner-replan"), task=task, done=done_text, outcome=outcome,
                history=history_text(history, settings.history_steps), skills=skills_text(skills),
                max_subtasks=settings.max_subtasks)
    return [Message("user", _with_screen(text, observation, screen_text, settings, image))]


def worker_messages(task: str, subtask: Subtask, position: str, plan: Sequence[Subtask],
                    frames: Sequence[Image.Image], history: Sequence[StepRecord],
                    settings: PromptSettings, *, family_text: str,
                    observation: Observation | None = None,
                    screen_text: ScreenText | None = None, skills: Sequence[str] = (),
                    shown: Callable[[Action], str | None] | None = None,
                    reflection: str | None = None) -> list[Message]:
    """One user message: the family's prompt (task and subtask as its instruction), the step
    history, older screenshots, the current screenshot last, the screen text, a reflection."""
    plan_text = "; ".join(f"{i}. {s.instruction}" for i, s in enumerate(plan, 1)) or subtask.instruction
    instruction = fill(load_prompt("planner-worker-context"), task=task, subtask=subtask.instruction,
                       position=position, plan=plan_text).strip()
    width, height = settings.budget.resized_size(*frames[-1].size) if frames else (0, 0)
    prompt = fill(family_text, instruction=instruction, task=instruction, language="English",
                  width=width, height=height)
    parts: list[str | Image.Image] = [prompt, skills_text(skills).strip()]
    parts.append("Steps taken so far:\n" + history_text(history, settings.history_steps, shown))
    recent = list(frames)[-settings.screenshots:]
    for i, frame in enumerate(recent):
        last = i == len(recent) - 1
        parts.append("The current screenshot:" if last else f"An earlier screenshot ({len(recent) - 1 - i} "
                     "before the current one):")
        parts.append(downscale(frame, settings.budget))
    quoted = screen_text_part(observation, screen_text, settings)
    if quoted:
        parts.append(quoted)
    if reflection:
        parts.append(reflection)
    return [Message("user", tuple(p for p in parts if not isinstance(p, str) or p))]


def reflection_text(action: Action, shown: str | None = None) -> str:
    return fill(load_prompt("planner-reflection"), action=shown or format_action(action)).strip()


def retry_messages(messages: Sequence[Message], reply: str, reminder: str) -> list[Message]:
    """The conversation once more, with the unreadable reply and a reminder of the format."""
    return [*messages, Message.text("assistant", reply), Message.text("user", reminder)]


def action_reminder(error: str, adapter_reminder: str = "") -> str:
    return fill(load_prompt("planner-format-reminder"), error=error, reminder=adapter_reminder).strip()


def plan_reminder(error: str) -> str:
    return fill(load_prompt("planner-plan-reminder"), error=error).strip()


def _with_screen(text: str, observation: Observation | None, screen_text: ScreenText | None,
                 settings: PromptSettings, image: bool = True) -> tuple[str | Image.Image, ...]:
    parts: list[str | Image.Image] = [text]
    if observation is not None and image:
        parts += ["The current screenshot:", downscale(observation.image, settings.budget)]
    quoted = screen_text_part(observation, screen_text, settings)
    if quoted:
        parts.append(quoted)
    return tuple(parts)


def parser_screen_text(parser: object, max_lines: int = 80) -> ScreenText:
    """A screen-text reader from a ScreenParser: the visible text lines in reading order."""
    def read(observation: Observation) -> str:
        parse = parser.parse(observation.image)  # type: ignore[attr-defined]
        lines = [e.text for e in parse.elements if getattr(e, "text", "")]
        return "\n".join(lines[:max_lines])

    return read
