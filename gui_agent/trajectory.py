"""The record of one run: each step renders itself into the JSONL log and the HTML report.

A run folder holds ``run.json`` (the task and the outcome, written at the end), ``steps.jsonl``
(one line per step, appended and flushed as each step ends, so a crash loses nothing finished)
and ``shots/`` (screenshots before and after each step, the point acted on drawn in red).
The folder is 0700 and its files 0600; the secrets the task names (and any an extra masker
knows) are masked in the folder's name and in everything written (:mod:`gui_agent.secrets`).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from . import private_files
from .geometry import Box, Point
from .secrets import TaskSecrets, TextMasker, chain, mask_result, mask_step
from .slugs import slugify

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StepLog:
    index: int
    subtask: str
    action: str                          # canonical action text
    outcome: str                         # ok | failed | refused | skipped
    target: str | None = None            # the description (or point) that was grounded
    point: tuple[int, int] | None = None          # image pixels
    screen_point: tuple[int, int] | None = None   # what the controller was given
    box: tuple[int, int, int, int] | None = None  # the chosen element (l, t, r, b), image pixels
    source: str | None = None            # the grounding rung that found it
    score: float | None = None
    alternatives: tuple[str, ...] = ()   # other candidates, strongest first
    why: str = ""                        # reasoning: the planner's and the grounder's
    error: str = ""
    before: str | None = None            # screenshot paths relative to the run folder
    after: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    crop: str | None = None              # the target as it looked (run-relative), for skills
    ocr_text: str | None = None          # the text read on the target
    landmarks: tuple[tuple[str, int, int], ...] = ()  # (nearby text, dx, dy) to its centre
    expect: str | None = None            # text the subtask expected once done

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self, dry_run: bool = False) -> str:
        """One line for the terminal; a dry run's step says what it *would* do."""
        where = f" at {self.screen_point}" if self.screen_point else ""
        via = f" via {self.source}" if self.source and self.source != "point" else ""
        tail = f" — {self.error}" if self.error else ""
        total = sum(self.timings.values())
        shown = "would" if dry_run and self.outcome == "ok" else self.outcome
        return f"[{self.index:>2}] {shown:<7} {self.action}{where}{via} ({total:.2f}s){tail}"


@dataclass(frozen=True)
class RunResult:
    task: str
    outcome: str                 # done | failed | refused | stopped | error
    reason: str = ""
    answer: str | None = None
    steps: tuple[StepLog, ...] = ()
    run_dir: Path | None = None
    seconds: float = 0.0
    skill: str | None = None     # the skill from memory that did the task (None: planned)

    @property
    def ok(self) -> bool:
        return self.outcome == "done"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["run_dir"] = str(self.run_dir) if self.run_dir else None
        return data


def annotate(image: Image.Image, point: Point | None, box: Box | None) -> Image.Image:
    """A copy of the screenshot with the chosen element boxed and the point marked."""
    if point is None and box is None:
        return image
    out = image.convert("RGB").copy()
    draw = ImageDraw.Draw(out)
    if box is not None:
        draw.rectangle([box.left, box.top, box.right - 1, box.bottom - 1], outline=(255, 0, 0), width=2)
    if point is not None:
        r = 9
        draw.ellipse([point.x - r, point.y - r, point.x + r, point.y + r], outline=(255, 0, 0), width=3)
        draw.line([point.x - r - 5, point.y, point.x + r + 5, point.y], fill=(255, 0, 0), width=1)
        draw.line([point.x, point.y - r - 5, point.x, point.y + r + 5], fill=(255, 0, 0), width=1)
    return out


RUNS_FIX = ("choose a runs folder you can write to (--runs-dir, the runs_dir setting, or "
            "GUI_AGENT_DATA_DIR for all of gui-agent's data)")


def prepare_runs_dir(root: Path) -> Path:
    """The runs folder, created 0700; inside gui-agent's data folder (its own) the data folder
    and the runs folder are tightened too, a folder the user chose elsewhere keeps its mode."""
    data = private_files.data_dir()
    if private_files.within(root, data):
        private_files.private_dir(data, private_files.DATA_FIX)
        for folder in reversed([p for p in (root, *root.parents) if private_files.within(p, data)
                                and p != data]):
            private_files.private_dir(folder, RUNS_FIX)
        return root
    return private_files.private_dir(root, RUNS_FIX, owned=False)


class RunFolder:
    """Writes one run's trajectory; screenshots are encoded on a background thread.

    ``task`` is the task as given: its secrets are found here and masked, with ``masker`` (the
    values of a skill's secret parameters, say) in :attr:`mask`, before anything is written.
    """

    def __init__(self, root: Path, task: str, save_screenshots: bool = True,
                 masker: TextMasker | None = None) -> None:
        self.secrets = TaskSecrets.from_task(task)
        self.mask: TextMasker = chain(self.secrets.mask, masker)
        self.task = self.mask(task)
        root = prepare_runs_dir(Path(root))
        stamp = time.strftime("%Y%m%d-%H%M%S")
        base = root / f"{stamp}-{slugify(self.task)}"
        path, n = base, 1
        while True:
            try:
                path.mkdir(mode=private_files.DIR_MODE)
                break
            except FileExistsError:
                n += 1
                path = base.with_name(f"{base.name}-{n}")
            except OSError as exc:
                if not private_files.is_write_error(exc):
                    raise
                why = private_files.describe(exc)
                raise private_files.NotWritable(root, why, RUNS_FIX) from None
        private_files.set_mode(path, private_files.DIR_MODE)   # whatever the umask
        private_files.private_dir(path / "shots", RUNS_FIX)
        self.path = path
        self.save_screenshots = save_screenshots
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="shots")
        self._pending: list[Future[None]] = []
        self._lock = threading.Lock()
        self._steps = private_files.open_private(path / "steps.jsonl", "a", encoding="utf-8")

    def save_crop(self, name: str, image: Image.Image) -> str:
        """An unmarked image (a target's crop, kept for skills) saved now; its run-relative path."""
        rel = f"shots/{name}.png"
        private_files.save_image(image, self.path / rel)
        return rel

    def save_image(self, name: str, image: Image.Image, point: Point | None = None,
                   box: Box | None = None) -> str | None:
        if not self.save_screenshots:
            return None
        rel = f"shots/{name}.png"

        def write() -> None:
            private_files.save_image(annotate(image, point, box), self.path / rel, compress_level=1)

        self._pending.append(self._pool.submit(write))
        return rel

    def append_step(self, step: StepLog) -> None:
        with self._lock:
            line = json.dumps(mask_step(step, self.mask).to_json(), ensure_ascii=False)
            self._steps.write(line + "\n")
            self._steps.flush()

    def finish(self, result: RunResult) -> None:
        for fut in self._pending:
            try:
                fut.result()
            except OSError as exc:  # a full disk must not hide the run's outcome
                log.warning("could not write a screenshot: %s", exc)
        self._pool.shutdown(wait=True)
        self._steps.close()
        data = mask_result(result, self.mask).to_json()
        data.pop("steps")
        tmp = self.path / "run.json.tmp"
        private_files.write_text(tmp, json.dumps(data, indent=2, ensure_ascii=False))
        tmp.replace(self.path / "run.json")


def load_run(path: Path) -> RunResult:
    """Read a run folder back (for reports)."""
    meta = json.loads((path / "run.json").read_text(encoding="utf-8"))
    steps = []
    steps_file = path / "steps.jsonl"
    if steps_file.exists():
        for line in steps_file.read_text(encoding="utf-8").splitlines():
            if line.strip():
                raw = json.loads(line)
                for key in ("point", "screen_point", "box"):
                    if raw.get(key) is not None:
                        raw[key] = tuple(raw[key])
                raw["alternatives"] = tuple(raw.get("alternatives", ()))
                raw["landmarks"] = tuple(tuple(m) for m in raw.get("landmarks", ()))
                steps.append(StepLog(**raw))
    return RunResult(
        task=meta["task"], outcome=meta["outcome"], reason=meta.get("reason", ""),
        answer=meta.get("answer"), steps=tuple(steps), run_dir=path, seconds=meta.get("seconds", 0.0),
        skill=meta.get("skill"),
    )
