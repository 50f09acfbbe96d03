"""The last rung of the grounding ladder: ask a vision-language model where a description is.

The grounding model may be the acting model or a separate one (a small pointing model such
as UGround or ShowUI beside a planner, as Agent S2 pairs them). Each is asked in its model
card's words and layout (:func:`~gui_agent.backends.protocol.grounding_messages`: the
screenshot first for UGround and OS-Atlas, ShowUI's sentence around it, UI-TARS's grounding
template, Qwen2.5-VL's computer_use tool). With ``zoom`` the first guess
is refined: a region around it is cropped, enlarged, and the model is asked again on the
crop, whose answer is mapped back to the full image. A refined guess that agrees with the
first scores higher; a failed refinement keeps the first guess.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass

from PIL import Image

from ..backends.base import Backend, GenerationSettings, generate_within
from ..backends.images import ImageBudget
from ..backends.protocol import grounding_messages
from ..backends.registry import ModelFamily
from ..deadline import Deadline
from ..errors import DeadlineExceeded, GuiAgentError, TargetNotFound
from ..geometry import Box, Point
from ..screen.observation import Observation, frame_digest
from .candidate import Candidate

log = logging.getLogger(__name__)

POINT_HALF = 4  # a point becomes a 9x9 box around it


@dataclass(frozen=True)
class ZoomSettings:
    factor: float = 2.0        # the crop is 1/factor of the image on each side, enlarged factor x
    min_side: int = 256        # never crop smaller than this (image pixels)
    agree_px: int = 24         # a refined point this close to the first guess "agrees"


class VlmGrounder:
    """A ladder rung: ``candidates(description, observation)`` -> one candidate from a model."""

    name = "vlm"

    def __init__(self, backend: Backend, family: ModelFamily, *, budget: ImageBudget | None = None,
                 zoom: ZoomSettings | None = None, score: float = 0.6, agreed_score: float = 0.75,
                 generation: GenerationSettings | None = None, cache_size: int = 32,
                 deadline: Deadline | None = None) -> None:
        from ..backends.adapters import get_adapter

        self.backend = backend
        self.family = family
        self.parser_name = family.parser
        self.adapter = get_adapter(self.parser_name)
        self.convention = family.convention
        self.budget = budget or family.budget
        self.prompt = family.load_prompt()   # read now: a missing prompt package fails early
        self.zoom = zoom
        self.score = score
        self.agreed_score = agreed_score
        self.generation = generation if generation is not None else family.generation
        self._cache: OrderedDict[tuple[str, str], list[Candidate]] = OrderedDict()
        self._cache_size = cache_size
        self.deadline = deadline  # the run's time limit, shared with every model call

    # -- the rung -----------------------------------------------------------------------------
    def candidates(self, description: str, observation: Observation) -> list[Candidate]:
        key = (description, frame_digest(observation.image))
        if key in self._cache:
            self._cache.move_to_end(key)
            return list(self._cache[key])
        found = self._locate(description, observation.image)
        self._cache[key] = found
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return list(found)

    def _locate(self, description: str, image: Image.Image) -> list[Candidate]:
        first = self.point_on(description, image)
        box, score, why = first, self.score, f"{self.backend.name} pointed at it"
        if self.zoom is not None and isinstance(first, Point):
            crop = zoom_region(first, image.size, self.zoom)
            try:
                refined = self._point_in_crop(description, image, crop)
            except DeadlineExceeded:
                raise  # the run is out of time: no first guess is acted on
            except GuiAgentError as exc:
                log.info("zoom-in on %r failed (%s); keeping the first guess", description, exc)
            else:
                agree = refined.distance(first) <= self.zoom.agree_px
                box = refined
                score = self.agreed_score if agree else self.score
                why = f"{self.backend.name} pointed at it, refined on a {crop.width}x{crop.height} zoom" + (
                    " (agreeing with the first guess)" if agree else "")
        if isinstance(box, Point):
            box = Box(box.x - POINT_HALF, box.y - POINT_HALF, 2 * POINT_HALF + 1, 2 * POINT_HALF + 1)
        return [Candidate(box, score, self.name, why=why)]

    # -- asking -------------------------------------------------------------------------------
    def point_on(self, description: str, image: Image.Image) -> Point | Box:
        """Where the model says ``description`` is, in pixels of ``image``."""
        from ..backends.coordinates import ImageFrame

        sent = self.budget.apply(image)
        frame = ImageFrame(image.width, image.height, sent.width, sent.height, self.convention)
        messages = grounding_messages(self.family, sent, description)
        reply = generate_within(self.backend, messages, self.generation, self.deadline, "grounding")
        try:
            return reply_target(self.adapter, reply, frame)
        except GuiAgentError as exc:
            flat = " ".join(str(reply).split())[:120]
            raise TargetNotFound(description, f"the grounding model's reply gave no point ({exc}); "
                                              f"it began: {flat!r}") from exc

    def _point_in_crop(self, description: str, image: Image.Image, crop: Box) -> Point:
        assert self.zoom is not None
        region = image.crop((crop.left, crop.top, crop.right, crop.bottom))
        scale = self.zoom.factor
        enlarged = region.resize((max(1, round(region.width * scale)), max(1, round(region.height * scale))),
                                 Image.Resampling.BICUBIC)
        target = self.point_on(description, enlarged)
        p = target.center if isinstance(target, Box) else target
        return Point(min(crop.right - 1, crop.left + round(p.x / scale)),
                     min(crop.bottom - 1, crop.top + round(p.y / scale)))


def reply_target(adapter: object, reply: str, frame: object) -> Point | Box:
    """The point (or box) a grounding reply names, in observation-image pixels."""
    from ..backends.coordinates import ModelReplyError

    parse_point = getattr(adapter, "parse_point", None)
    if callable(parse_point):
        return parse_point(reply, frame)
    parsed = adapter.parse(reply, frame)  # type: ignore[attr-defined]
    for action in parsed.actions:
        target = action.target
        if isinstance(target, Point | Box):
            return target
    raise ModelReplyError("the reply names no point or box")


def zoom_region(center: Point, size: tuple[int, int], zoom: ZoomSettings) -> Box:
    """A crop of 1/factor of the image around ``center``, at least ``min_side``, inside it."""
    width, height = size
    w = min(width, max(zoom.min_side, round(width / zoom.factor)))
    h = min(height, max(zoom.min_side, round(height / zoom.factor)))
    left = min(max(0, center.x - w // 2), width - w)
    top = min(max(0, center.y - h // 2), height - h)
    return Box(left, top, w, h)
