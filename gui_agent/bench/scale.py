"""`gui-agent bench scale`: how the costs grow with the screen, the library and the work.

Three parts, each a table of ratios taken within one run (the machine is stated above them):

- ``parse``: the screen parser against plain RapidOCR at full resolution (the same PP-OCRv4
  models) on generated frames (:mod:`.scale_frames`: an app screen, a dense text page, a
  spreadsheet) at each size; the two are run in turn, ``--repeats`` times, the parser's caches
  emptied before each (a screen never seen). Reported: min and median seconds of each, the
  median of the per-pair ratio, and the drawn words each found (:func:`correct_words`).
- ``recall``: a synthetic skill library (:mod:`.skill_library`) of each size stored in a fresh
  memory database: its size on disk, the first recall of a run (loading and indexing the
  library), the median recall after it (the index kept), and, for comparison in the same run,
  a recall that rebuilds the index from the store as every recall did before.
- ``skills``: the skills benchmark (`gui-agent bench skills`): agent seconds for the measured
  tasks from scratch and with memory.

``--plot`` draws the growth curves (matplotlib, in the ``bench`` extra) to ``scale.png``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..geometry import Box

PARTS = ("parse", "recall", "skills")
DEFAULT_SIZES = "1280x800,1920x1080,3840x2160"
DEFAULT_LIBRARIES = "10,1000,10000"


@dataclass(frozen=True)
class ParseRow:
    kind: str
    size: str
    words: int                  # drawn on the frame
    parser_min: float
    parser_median: float
    rapid_min: float
    rapid_median: float
    ratio: float                # median over the pairs of parser / RapidOCR seconds
    parser_words: int           # drawn words found
    rapid_words: int


@dataclass(frozen=True)
class RecallRow:
    skills: int
    database_bytes: int
    first_recall: float         # seconds: load the library and index it, then recall
    recall_median: float        # seconds, the index kept
    recall_min: float
    rebuilt_median: float       # seconds: rebuilding the index from the store for the recall
    right: int                  # tasks recalled as they were made (the skill, or none)
    tasks: int


def machine() -> str:
    """The machine the figures were measured on, in one line."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = f", load {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    return (f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores"
            f"{f' ({model})' if model else ''}{load}, Python {platform.python_version()}")


# -- parse ------------------------------------------------------------------------------------

def _sizes(text: str) -> list[tuple[int, int]]:
    try:
        out = [tuple(int(v) for v in part.lower().split("x")) for part in text.split(",")]
    except ValueError as exc:
        raise ConfigError(f"--sizes takes WxH,WxH (e.g. 1280x800,3840x2160), not {text!r}") from exc
    if any(len(s) != 2 or min(s) < 64 for s in out):
        raise ConfigError(f"--sizes takes WxH,WxH with sides of 64 px or more, not {text!r}")
    return out  # type: ignore[return-value]


class PlainRapidOcr:
    """RapidOCR as it comes (same models, no angle classifier), at full resolution."""

    def __init__(self, threads: int) -> None:
        from rapidocr_onnxruntime import RapidOCR

        self._engine = RapidOCR(intra_op_num_threads=threads, inter_op_num_threads=1, use_cls=False,
                                max_side_len=100_000)

    def read(self, bgr: Any) -> list[tuple[str, Box]]:
        result, _ = self._engine(bgr, use_cls=False)
        lines = []
        for points, text, _score in result or ():
            xs, ys = [p[0] for p in points], [p[1] for p in points]
            lines.append((str(text), Box.from_corners(min(xs), min(ys), max(xs), max(ys))))
        return lines


def measure_parse(kinds: Sequence[str], sizes: Sequence[tuple[int, int]], repeats: int,
                  say: Callable[[str], None] = print) -> list[ParseRow]:
    import numpy as np

    from ..parsing.screen_parser import ScreenParser
    from .scale_frames import correct_words, frame

    parser = ScreenParser()
    rapid = PlainRapidOcr(parser.ocr.threads)
    warm = frame("app", 320, 200)   # both load their models before anything is timed
    parser.parse(warm.image)
    rapid.read(np.ascontiguousarray(np.asarray(warm.image)[:, :, ::-1]))
    rows = []
    for kind in kinds:
        for w, h in sizes:
            f = frame(kind, w, h)
            rgb = np.asarray(f.image)
            bgr = np.ascontiguousarray(rgb[:, :, ::-1])
            ours, theirs, ratios = [], [], []
            found = (0, 0)
            for r in range(max(1, repeats)):
                parser.reset(ocr_cache=True)
                t = time.perf_counter()
                parsed = parser.parse(rgb)
                a = time.perf_counter() - t
                t = time.perf_counter()
                read = rapid.read(bgr)
                b = time.perf_counter() - t
                ours.append(a)
                theirs.append(b)
                ratios.append(a / b)
                if r == 0:
                    lines = [(e.text, e.box) for e in parsed.elements if e.text]
                    lines += [(e.label, e.box) for e in parsed.elements if e.label]
                    found = (correct_words(f.words, lines), correct_words(f.words, read))
            row = ParseRow(kind, f"{w}x{h}", len(f.words), min(ours), statistics.median(ours), min(theirs),
                           statistics.median(theirs), statistics.median(ratios), *found)
            say(f"  parse {kind} {row.size}: parser {row.parser_median:.2f} s, RapidOCR "
                f"{row.rapid_median:.2f} s (x{row.ratio:.2f}); words {row.parser_words} vs "
                f"{row.rapid_words} of {row.words}")
            rows.append(row)
    return rows


# -- recall -----------------------------------------------------------------------------------

def measure_recall(libraries: Sequence[int], queries: int = 40,
                   say: Callable[[str], None] = print) -> list[RecallRow]:
    from ..memory.experience import ExperienceMemory
    from ..memory.recall import SkillIndex
    from ..memory.store import MemoryStore
    from .skill_library import recall_queries, synthetic_skills

    rows = []
    for n in libraries:
        skills = synthetic_skills(n)
        tasks = recall_queries(skills, queries)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "memory.sqlite3"
            with MemoryStore(path) as store:
                for skill in skills:
                    store.save_skill(skill)
            size = path.stat().st_size   # closed: the write-ahead log is folded in
            store = MemoryStore(path)
            try:
                memory = ExperienceMemory(store)
                t = time.perf_counter()
                memory.recall(tasks[0].task)
                first = time.perf_counter() - t
                kept, right = [], 0
                for q in tasks:
                    t = time.perf_counter()
                    got = memory.recall(q.task)
                    kept.append(time.perf_counter() - t)
                    right += (got.skill.name if got else None) == q.skill
                rebuilt = []
                for q in tasks[:max(1, min(len(tasks), 3 if n > 2000 else 10))]:
                    t = time.perf_counter()
                    SkillIndex(store.list_skills(include_flagged=True)).best(q.task)
                    rebuilt.append(time.perf_counter() - t)
            finally:
                store.close()
        row = RecallRow(n, size, first, statistics.median(kept), min(kept), statistics.median(rebuilt),
                        right, len(tasks))
        say(f"  recall {n} skills: {row.recall_median * 1000:.2f} ms (first {row.first_recall:.2f} s, "
            f"rebuilt per recall {row.rebuilt_median:.2f} s), database {size / 1e6:.1f} MB")
        rows.append(row)
    return rows


# -- skills -----------------------------------------------------------------------------------

def measure_skills(out: Path) -> dict[str, Any]:
    from .skills import add_arguments, run_skills_bench

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    status = run_skills_bench(parser.parse_args(["--headless", "--out", str(out / "skills")]))
    rows = json.loads((out / "skills" / "skills-bench.json").read_text(encoding="utf-8"))
    total = {mode: sum(r["seconds"] for r in rows if r["mode"] == mode) for mode in ("scratch", "memory")}
    ok = {mode: sum(r["ok"] for r in rows if r["mode"] == mode) for mode in ("scratch", "memory")}
    n = sum(r["mode"] == "scratch" for r in rows)
    return {"scratch_seconds": total["scratch"], "memory_seconds": total["memory"],
            "ratio": total["scratch"] / max(total["memory"], 1e-9), "scratch_ok": ok["scratch"],
            "memory_ok": ok["memory"], "tasks": n, "status": status}


# -- report -----------------------------------------------------------------------------------

def format_tables(report: dict[str, Any]) -> str:
    lines = [f"machine: {report['machine']}", ""]
    if report.get("parse"):
        lines += ["| screen | size | words drawn | parser s (min / median) | RapidOCR s (min / median) "
                  "| parser / RapidOCR | words found: parser | words found: RapidOCR |",
                  "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for r in map(lambda d: ParseRow(**d), report["parse"]):
            lines.append(f"| {r.kind} | {r.size} | {r.words} | {r.parser_min:.2f} / {r.parser_median:.2f} | "
                         f"{r.rapid_min:.2f} / {r.rapid_median:.2f} | {r.ratio:.2f} | {r.parser_words} | "
                         f"{r.rapid_words} |")
        lines.append("")
    if report.get("recall"):
        lines += ["| skills | database | first recall of a run | recall (min / median) | index rebuilt per "
                  "recall (before) | recalled right |",
                  "| ---: | ---: | ---: | ---: | ---: | ---: |"]
        for r in map(lambda d: RecallRow(**d), report["recall"]):
            lines.append(f"| {r.skills:,} | {r.database_bytes / 1e6:.1f} MB | {r.first_recall:.2f} s | "
                         f"{r.recall_min * 1000:.2f} / {r.recall_median * 1000:.2f} ms | "
                         f"{r.rebuilt_median * 1000:.0f} ms | {r.right}/{r.tasks} |")
        lines.append("")
    if report.get("skills"):
        s = report["skills"]
        lines += ["| tasks | from scratch | with memory | less time | success |",
                  "| ---: | ---: | ---: | ---: | --- |",
                  f"| {s['tasks']} | {s['scratch_seconds']:.1f} s | {s['memory_seconds']:.1f} s | "
                  f"{s['ratio']:.1f}x | {s['scratch_ok']}/{s['tasks']} from scratch, "
                  f"{s['memory_ok']}/{s['tasks']} with memory |", ""]
    return "\n".join(lines)


def plot(report: dict[str, Any], path: Path) -> Path:
    """The growth curves: parse seconds by megapixels (parser, RapidOCR), recall by skills."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ConfigError("--plot needs matplotlib: pip install 'gui-agent[bench]'") from exc
    parts = [p for p in ("parse", "recall") if report.get(p)]
    if not parts:
        raise ConfigError("--plot needs the parse or the recall part")
    fig, axes = plt.subplots(1, len(parts), figsize=(6 * len(parts), 4.2), squeeze=False)
    axes = axes[0]
    k = 0
    if report.get("parse"):
        ax = axes[k]
        k += 1
        rows = [ParseRow(**d) for d in report["parse"]]
        for kind in dict.fromkeys(r.kind for r in rows):
            mine = [r for r in rows if r.kind == kind]
            mp = [int(r.size.split("x")[0]) * int(r.size.split("x")[1]) / 1e6 for r in mine]
            line, = ax.plot(mp, [r.parser_median for r in mine], "o-", label=f"parser, {kind}")
            ax.plot(mp, [r.rapid_median for r in mine], "s--", color=line.get_color(),
                    label=f"RapidOCR, {kind}")
        ax.set(xlabel="megapixels", ylabel="seconds per new screen (median)", title="Parse time")
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    if report.get("recall"):
        ax = axes[k]
        rows_r = [RecallRow(**d) for d in report["recall"]]
        xs = [r.skills for r in rows_r]
        ax.plot(xs, [r.recall_median * 1000 for r in rows_r], "o-", label="index kept")
        ax.plot(xs, [r.rebuilt_median * 1000 for r in rows_r], "s--", label="index rebuilt per recall")
        ax.set(xscale="log", yscale="log", xlabel="skills in the library", ylabel="ms per recall (median)",
               title="Skill recall")
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3, which="both")
    fig.suptitle(report["machine"], fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def run_scale_bench(args: argparse.Namespace) -> int:
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        raise ConfigError(f"--parts takes {', '.join(PARTS)}, not {', '.join(unknown)}")
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    from .scale_frames import KINDS

    if any(k not in KINDS for k in kinds):
        raise ConfigError(f"--kinds takes {', '.join(KINDS)}, not {args.kinds!r}")
    try:
        libraries = [int(v) for v in args.skills.split(",")]
    except ValueError as exc:
        raise ConfigError(f"--skills takes counts such as 10,1000,10000, not {args.skills!r}") from exc
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"machine": machine()}
    print(f"machine: {report['machine']}", flush=True)
    if "parse" in parts:
        report["parse"] = [asdict(r) for r in measure_parse(kinds, _sizes(args.sizes), args.repeats)]
    if "recall" in parts:
        report["recall"] = [asdict(r) for r in measure_recall(libraries)]
    if "skills" in parts:
        report["skills"] = measure_skills(out)
    (out / "scale.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    tables = format_tables(report)
    (out / "scale.md").write_text(tables + "\n", encoding="utf-8")
    print(tables)
    if args.plot:
        print(f"plot: {plot(report, out / 'scale.png')}")
    print(f"figures: {out / 'scale.json'}, {out / 'scale.md'}")
    return 0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated parts ({', '.join(PARTS)})")
    p.add_argument("--sizes", default=DEFAULT_SIZES, help="screen sizes for the parse part")
    p.add_argument("--kinds", default="app,dense,spreadsheet", help="generated screens for the parse part")
    p.add_argument("--repeats", type=int, default=3, help="parser/RapidOCR pairs per screen")
    p.add_argument("--skills", default=DEFAULT_LIBRARIES, help="library sizes for the recall part")
    p.add_argument("--out", type=Path, default=Path("bench-scale"), help="folder for the figures")
    p.add_argument("--plot", action="store_true", help="draw the growth curves to OUT/scale.png")
