"""Demonstration -> Skill: each event becomes an anchored skill step.

For a click (and a scroll or drag) the element under the point is found in the event's
*before* frame by the screen parser: its box, its text, a description the grounding ladder
resolves back onto it in that frame (``'"Log in"'``, ``'the Username field'``), an image crop
(``crops/NNNN.png`` in the demonstration folder) and nearby text landmarks. A click on nothing
recognisable keeps ``target=None`` (its action names the clicked region) but still gets a crop.
A click followed by typing becomes one ``type("{param}", into=...)`` step; the parameter is
named after the field's label (or as ``meta.json`` names it, so renaming it there renames it
here), its default is the typed text, except for secrets (``secret_<name>``, no default: the
value must be given at replay). The postcondition of a step is a text that appears in the
next step's before frame (the last step: its own after frame) and was not there before.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from PIL import Image

from ..actions import Click, Drag, Hotkey, Scroll, Type, format_action
from ..errors import ConfigError, ControlError
from ..geometry import Box, Point
from ..memory.anchors import crop_around, fixed_texts, folded_text, landmarks_for
from ..memory.models import Skill, SkillParameter, SkillStep
from ..parsing.elements import Element, ScreenParse
from ..screen.observation import Observation
from ..secrets import secret_env_var
from .demo_folder import Demonstration, load_demo
from .events import DemoEvent
from .targets import (
    element_at,
    image_point,
    label_of,
    param_slug,
    unique_name,
    verified_description,
)

log = logging.getLogger(__name__)

BLANK_ANCHOR = 48          # side of the region kept around a click on nothing recognisable
MAX_POST_TEXT = 60


@dataclass(frozen=True)
class Anchor:
    box: Box | None
    description: str | None = None
    label: str | None = None
    ocr_text: str | None = None
    crop: str | None = None
    landmarks: tuple[tuple[str, int, int], ...] = ()


class DemoCompiler:
    def __init__(self, demo: Demonstration, parser: Any = None) -> None:
        from ..grounding.ladder import GroundingLadder
        from ..grounding.ocr_grounder import OcrGrounder

        if parser is None:
            from ..parsing.screen_parser import ScreenParser

            parser = ScreenParser()
        self.demo = demo
        self.parser = parser
        self.ladder = GroundingLadder([OcrGrounder(parser)])
        self._images: dict[str, Image.Image] = {}
        self._taken: set[str] = set()
        self.parameters: list[SkillParameter] = []
        self.values: list[str] = []          # typed values (not secrets): never a postcondition
        self.phrases: list[str] = []

    # -- frames ----------------------------------------------------------------------
    def image(self, name: str | None) -> Image.Image | None:
        if not name:
            return None
        if name not in self._images:
            self._images[name] = self.demo.frame(name)
        return self._images[name]

    def parse(self, name: str | None) -> ScreenParse | None:
        image = self.image(name)
        return None if image is None else self.parser.parse(image)

    # -- anchors ---------------------------------------------------------------------
    def anchor(self, event: DemoEvent, point: tuple[int, int] | None = None, crop: bool = True) -> Anchor:
        image, parsed = self.image(event.before), self.parse(event.before)
        where = point or event.point
        if image is None or parsed is None or where is None:
            return Anchor(None)
        p = image_point(where, self.demo.meta.screen)
        element = element_at(parsed.elements, p)
        description = label = text = None
        if element is not None:
            box = element.box
            label = label_of(element, parsed.elements)
            text = (element.text or "").strip()
            text = text if any(c.isalnum() for c in text) else None      # not a masked field's dots
            description = verified_description(element, label, Observation.from_image(image), self.ladder)
        else:
            half = BLANK_ANCHOR // 2
            box = Box(p.x - half, p.y - half, BLANK_ANCHOR, BLANK_ANCHOR).clip(image.width, image.height)
        if box.width < 1 or box.height < 1:
            return Anchor(None)
        crop_file = None
        if crop:
            (self.demo.folder / "crops").mkdir(exist_ok=True)
            crop_file = (self.demo.folder / "crops" / f"{event.index:04d}.png").resolve()
            crop_around(image, box).save(crop_file, format="PNG")
        return Anchor(box, description, label, text, str(crop_file) if crop_file else None,
                      landmarks_for(self._fixed_texts(parsed), box))

    def _fixed_texts(self, parsed: ScreenParse) -> list[Element]:
        """Elements whose text a replay can expect again, and find: not a field's content, not a
        typed value, not dots, not a text shown more than once (three "Edit" buttons locate nothing)."""
        return [e for e in fixed_texts(parsed.elements) if not self._has_value(e.text)]

    # -- parameters ------------------------------------------------------------------
    def parameter(self, event: DemoEvent, label: str | None) -> str:
        recorded = self.demo.parameter(event.index)
        secret = bool(event.secret) or bool(recorded and recorded.secret)
        base = recorded.name if recorded is not None else ("secret_" if secret else "") + param_slug(label)
        if secret and not base.startswith("secret_"):
            base = "secret_" + base
        name = unique_name(base, self._taken)
        field = f"the {label} field" if label else "the focused field"
        if secret:
            self.parameters.append(SkillParameter(name, secret=True, description=(
                f"secret typed into {field}; give it at replay with --param {name}=... or "
                f"{secret_env_var(name)}")))
        else:
            self.parameters.append(SkillParameter(name, default=event.text or "",
                                                  description=f"text typed into {field}"))
            if event.text:
                self.values.append(event.text)
        return name

    # -- steps -----------------------------------------------------------------------
    def units(self) -> list[tuple[DemoEvent, ...]]:
        """Events grouped into steps: a single left click followed by typing is one step."""
        events, out, i = self.demo.events, [], 0
        while i < len(events):
            e = events[i]
            if (e.kind == "click" and e.clicks == 1 and e.button == "left" and i + 1 < len(events)
                    and events[i + 1].kind == "type"):
                out.append((e, events[i + 1]))
                i += 2
            else:
                out.append((e,))
                i += 1
        return out

    def steps_for(self, unit: tuple[DemoEvent, ...]) -> list[tuple[SkillStep, DemoEvent]]:
        """The step(s) of one unit, each with the event it starts from."""
        first = unit[0]
        if len(unit) == 2:
            a = self.anchor(first)
            if a.description:
                action = Type(_slot(self.parameter(unit[1], a.label)), into=a.description)
                return [(self._step(action, a), first)]
            return [(self._click(first, a), first)] + self.steps_for(unit[1:])
        if first.kind == "click":
            return [(self._click(first, self.anchor(first)), first)]
        if first.kind == "type":
            return [(self._step(Type(_slot(self.parameter(first, None))), None), first)]
        if first.kind in ("key", "hotkey"):
            from ..control.keys import parse_hotkey

            try:
                keys = parse_hotkey(list(first.keys))
            except ControlError as exc:
                log.warning("event %d: skipped the key %s: %s", first.index, "+".join(first.keys), exc)
                return []
            return [(self._step(Hotkey(tuple(keys)), None), first)]
        a = self.anchor(first)
        if first.kind == "scroll":
            action = Scroll(first.direction or "down", min(100, max(1, first.amount)), at=a.description)
            return [(self._step(action, a), first)]
        end = self.anchor(first, first.end_point, crop=False)
        destination = end.description or self._point(first.end_point or first.point)
        return [(self._step(Drag(a.description or a.box or self._point(first.point), destination), a), first)]

    def _point(self, point: tuple[int, int] | None) -> Point:
        return image_point(point or (0, 0), self.demo.meta.screen)

    def _click(self, event: DemoEvent, a: Anchor) -> SkillStep:
        target = a.description or a.box or self._point(event.point)
        return self._step(Click(target, button=event.button or "left", clicks=event.clicks), a)

    def _step(self, action: Any, anchor: Anchor | None) -> SkillStep:
        self.phrases.append(_phrase(action))
        text = format_action(action)
        if anchor is None or anchor.box is None:
            return SkillStep(text)
        return SkillStep(text, target=anchor.description, ocr_text=anchor.ocr_text, crop=anchor.crop,
                         landmarks=anchor.landmarks, box=anchor.box.corners)

    # -- postconditions --------------------------------------------------------------
    def post_text(self, before: str | None, then: str | None) -> str | None:
        """A text in ``then`` that was not in ``before`` (no typed value, not only words that were
        there already; the longest)."""
        old, new = self.parse(before), self.parse(then)
        if old is None or new is None or before == then:
            return None
        seen = {folded_text(e.text) for e in old.elements if e.text}
        seen_words = {w for e in old.elements for w in _words(e.text or "")}
        found: list[tuple[int, int, str]] = []
        for e in new.elements:
            text = (e.text or "").strip()
            if (not text or folded_text(text) in seen or len(text) < 3 or len(text) > MAX_POST_TEXT
                    or not any(c.isalpha() for c in text) or self._has_value(text)
                    or set(_words(text)) <= seen_words):   # old words OCR grouped otherwise: nothing new
                continue
            found.append((-len(text), e.box.top, text))
        return min(found)[2] if found else None

    def post_region(self, before: str | None, then: str | None) -> tuple[int, int, int, int] | None:
        """Where the screen changed between the two frames (l, t, r, b), when it did."""
        from ..verify import changed_region

        old, new = self.image(before), self.image(then)
        if old is None or new is None or before == then:
            return None
        region = changed_region(old, new)
        return region.corners if region is not None else None

    def _has_value(self, text: str) -> bool:
        """Whether ``text`` shows a typed value, as typed or misread ("Kiwvisl": "Kiwis" and the caret)."""
        low = text.casefold()
        return any((v.casefold() in low) if len(v) >= 2 else v.casefold() == low for v in self.values) or any(
            SequenceMatcher(None, v.casefold(), word).ratio() >= 0.75
            for v in self.values if len(v) >= 3 for word in low.split())

    def compile(self, name: str | None = None) -> Skill:
        built: list[tuple[SkillStep, DemoEvent, DemoEvent]] = []
        for unit in self.units():
            built += [(step, first, unit[-1]) for step, first in self.steps_for(unit)]
        if not built:
            raise ConfigError(f"{self.demo.folder}: no event of the demonstration makes a skill step")
        steps: list[SkillStep] = []
        for k, (step, first, last) in enumerate(built):
            then = built[k + 1][1].before if k + 1 < len(built) else last.after
            post = self.post_text(first.before, then)
            if post:
                steps.append(replace(step, post_text=post))
            else:
                steps.append(replace(step, post_region=self.post_region(first.before, then)))
        meta = self.demo.meta
        title = meta.window.get("title") if meta.window else None
        where = f" in {title}" if title else ""
        skill = Skill(name or meta.name, tuple(steps), parameters=tuple(self.parameters),
                      description=f"{meta.name}{where}: " + ", then ".join(self.phrases),
                      examples=(meta.name,), source="recorded", created_at=meta.created_at)
        skill.check_actions()
        return skill


def _slot(name: str) -> str:
    """The ``{name}`` placeholder of a parameter in action text."""
    return "{" + name + "}"


def _phrase(action: Any) -> str:
    """A short plain form of a step for the skill's description (what recall matches)."""
    def name(target: Any) -> str:
        return target if isinstance(target, str) else "the recorded place"

    if isinstance(action, Click):
        return f"{'double ' if action.clicks == 2 else ''}click {name(action.target)}"
    if isinstance(action, Type):
        return f"type {action.text}" + (f" into {name(action.into)}" if action.into else "")
    if isinstance(action, Hotkey):
        return "press " + "+".join(action.keys)
    if isinstance(action, Scroll):
        return f"scroll {action.direction}" + (f" over {name(action.at)}" if action.at else "")
    return f"drag {name(action.source)} to {name(action.destination)}"


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.casefold())


def compile_demo(folder: Path | str | Demonstration, *, name: str | None = None, parser: Any = None) -> Skill:
    """The skill a demonstration folder teaches (crops written to its ``crops/``)."""
    demo = folder if isinstance(folder, Demonstration) else load_demo(folder)
    return DemoCompiler(demo, parser).compile(name)
