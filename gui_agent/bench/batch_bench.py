"""`gui-agent bench batch`: a suite with the local runner vs on Ray, and what a desktop worker costs.

Each configuration (local runner or ``--ray local``, at each ``--workers`` count) runs the whole
suite as ``gui-agent batch`` would, in a subprocess, interleaved so that a machine that gets
busier part-way hurts both alike. Measured per run: wall time, tasks passed, CPU time of the
whole process tree, and per desktop worker (the worker process or Ray actor with its Xvfb and
apps, sampled from /proc twice a second): CPU seconds and peak memory (PSS, so shared pages are
split between processes, not counted twice); and for Ray runs the memory of Ray's own processes.
A start-and-stop of an empty local Ray cluster is timed apart. Derived: Ray's wall time over the
local runner's at the same worker count, and Ray's overhead per task, with and without that
fixed start-up. Linux only (it reads /proc).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import ConfigError

PACKAGE_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SUITE = PACKAGE_ROOT / "datasets" / "suites" / "playground.yaml"
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass
class Sample:
    """Peaks and totals seen so far for one desktop worker (one process subtree)."""

    cpu_seconds: float = 0.0
    peak_mb: float = 0.0


@dataclass
class RunFigures:
    runner: str                  # local | ray
    workers: int
    wall_seconds: float
    tasks: int
    passed: int
    cpu_seconds: float           # the whole process tree (driver, workers, apps, Ray's)
    worker_cpu_seconds: list[float] = field(default_factory=list)
    worker_peak_mb: list[float] = field(default_factory=list)
    ray_system_peak_mb: float = 0.0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--suite", type=Path, default=DEFAULT_SUITE, help="the suite (default: the "
                   "shipped playground suite)")
    p.add_argument("--workers", default="1,2", help="worker counts to compare (default 1,2)")
    p.add_argument("--repeats", type=int, default=1, help="runs of each configuration")
    p.add_argument("--out", type=Path, help="keep the runs' folders here (default: a temp folder)")
    p.add_argument("--json", type=Path, help="also write the figures here")


# -- /proc ---------------------------------------------------------------------------------
def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds incl. reaped children) of a process, None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return int(fields[1]), sum(int(v) for v in fields[11:15]) / _TICK


def _pss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0.0


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _tree(root: int) -> dict[int, tuple[int, float]]:
    """Every live process under ``root`` (itself included): pid -> (parent, CPU seconds)."""
    stats = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            found = _stat(int(name))
            if found:
                stats[int(name)] = found
    children: dict[int, list[int]] = {}
    for pid, (parent, _cpu) in stats.items():
        children.setdefault(parent, []).append(pid)
    out, todo = {}, [root]
    while todo:
        pid = todo.pop()
        if pid in stats:
            out[pid] = stats[pid]
            todo += children.get(pid, [])
    return out


def _is_worker(cmdline: str) -> bool:
    return "gui_agent.batch.worker" in cmdline or cmdline.startswith("ray::DesktopActor")


class TreeSampler:
    """Samples a batch run's process tree: per desktop worker subtree, and Ray's own processes."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.workers: dict[int, Sample] = {}
        self.ray_system_peak_mb = 0.0
        self.cpu_seconds = 0.0

    def sample(self) -> None:
        tree = _tree(self.root)
        # A process's figures include its reaped children's: the sum over the live tree grows
        # with every CPU second spent in it, whoever has exited since.
        self.cpu_seconds = max(self.cpu_seconds, sum(cpu for _parent, cpu in tree.values()))
        children: dict[int, list[int]] = {}
        for pid, (parent, _cpu) in tree.items():
            children.setdefault(parent, []).append(pid)
        in_workers: set[int] = set()
        for pid in tree:
            if not _is_worker(_cmdline(pid)):
                continue
            members, todo = [], [pid]
            while todo:
                p = todo.pop()
                members.append(p)
                todo += children.get(p, [])
            in_workers.update(members)
            seen = self.workers.setdefault(pid, Sample())
            seen.cpu_seconds = max(seen.cpu_seconds, sum(tree[p][1] for p in members))
            seen.peak_mb = max(seen.peak_mb, sum(_pss_mb(p) for p in members))
        ray_system = [p for p in tree if p not in in_workers and p != self.root
                      and "gui_agent" not in _cmdline(p)]
        self.ray_system_peak_mb = max(self.ray_system_peak_mb,
                                      sum(_pss_mb(p) for p in ray_system))


# -- runs ----------------------------------------------------------------------------------
def run_once(suite: Path, out: Path, workers: int, ray: bool) -> RunFigures:
    argv = [sys.executable, "-m", "gui_agent.cli", "batch", str(suite), "--headless", "--quiet",
            "--workers", str(workers), "--out", str(out)] + (["--ray", "local"] if ray else [])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(PACKAGE_ROOT), os.environ.get("PYTHONPATH")) if p)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    sampler = TreeSampler(proc.pid)
    while proc.poll() is None:
        sampler.sample()
        time.sleep(0.5)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    output = proc.stdout.read() if proc.stdout else ""
    from ..batch.results import latest_by_task, read_records

    latest = latest_by_task(read_records(out / "results.jsonl"))
    if proc.returncode not in (0, 1) or not latest:
        raise ConfigError(f"the batch run failed (exit {proc.returncode}): {output[-1500:]}")
    # The driver's children reap the local runner's whole tree; Ray's processes are reaped
    # elsewhere, so the samples count them.
    cpu = max(sampler.cpu_seconds, (after.ru_utime - before.ru_utime)
              + (after.ru_stime - before.ru_stime))
    return RunFigures(
        "ray" if ray else "local", workers, round(wall, 2), len(latest),
        sum(r.passed for r in latest.values()), round(cpu, 1),
        [round(s.cpu_seconds, 1) for s in sampler.workers.values()],
        [round(s.peak_mb) for s in sampler.workers.values()],
        round(sampler.ray_system_peak_mb) if ray else 0.0)


def ray_start_stop_seconds() -> float:
    """A local Ray cluster started and stopped with nothing run on it (the fixed cost)."""
    code = ("import logging, ray; ray.init(address='local', include_dashboard=False, "
            "log_to_driver=False, logging_level=logging.ERROR); ray.shutdown()")
    started = time.monotonic()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, timeout=300)
    return round(time.monotonic() - started, 2)


def summarize(runs: list[RunFigures], ray_fixed: float) -> dict[str, object]:
    def median_of(what: str, runner: str, workers: int) -> float | None:
        values = [getattr(r, what) for r in runs if r.runner == runner and r.workers == workers]
        return statistics.median(values) if values else None

    compared = {}
    for workers in sorted({r.workers for r in runs}):
        local, ray = median_of("wall_seconds", "local", workers), \
            median_of("wall_seconds", "ray", workers)
        local_cpu, ray_cpu = median_of("cpu_seconds", "local", workers), \
            median_of("cpu_seconds", "ray", workers)
        tasks = max(r.tasks for r in runs if r.workers == workers)
        if local and ray and local_cpu is not None and ray_cpu is not None:
            compared[workers] = {
                "local_s": local, "ray_s": ray, "ratio": round(ray / local, 2),
                "overhead_per_task_s": round((ray - local) / tasks, 2),
                "overhead_per_task_after_start_s": round((ray - local - ray_fixed) / tasks, 2),
                "cpu_overhead_per_task_s": round((ray_cpu - local_cpu) / tasks, 2)}
    per_worker_cpu = [c for r in runs for c in r.worker_cpu_seconds]
    per_worker_mb = [m for r in runs for m in r.worker_peak_mb]
    busy = [c / r.wall_seconds for r in runs if r.workers == 1 for c in r.worker_cpu_seconds]
    return {
        "compared": compared, "ray_start_stop_s": ray_fixed,
        "worker_peak_mb_max": max(per_worker_mb, default=0),
        "worker_peak_mb_median": statistics.median(per_worker_mb) if per_worker_mb else 0,
        "worker_cores_alone": round(max(busy), 2) if busy else None,
        "worker_cpu_s_per_task": round(statistics.median(
            sum(r.worker_cpu_seconds) / r.tasks for r in runs if r.worker_cpu_seconds), 2)
        if per_worker_cpu else None,
        "ray_system_peak_mb": max((r.ray_system_peak_mb for r in runs if r.runner == "ray"),
                                  default=0),
    }


def format_report(runs: list[RunFigures], summary: dict[str, object]) -> str:
    lines = ["runner  workers  wall s  passed   tree CPU s  per worker: CPU s / peak MB"]
    for r in runs:
        per = ", ".join(f"{c:g}/{m:g}" for c, m in zip(r.worker_cpu_seconds, r.worker_peak_mb,
                                                        strict=False))
        lines.append(f"{r.runner:<7} {r.workers:>7} {r.wall_seconds:>7.1f} {r.passed:>3}/"
                     f"{r.tasks:<3} {r.cpu_seconds:>11.1f}  {per}")
    lines.append(f"a local Ray cluster started and stopped empty: {summary['ray_start_stop_s']} s")
    for workers, c in summary["compared"].items():  # type: ignore[attr-defined]
        lines.append(f"{workers} worker(s): Ray {c['ray_s']:.1f} s vs local {c['local_s']:.1f} s "
                     f"= x{c['ratio']}; overhead {c['overhead_per_task_s']:+.2f} s per task "
                     f"({c['overhead_per_task_after_start_s']:+.2f} s without Ray's start-up); "
                     f"CPU {c['cpu_overhead_per_task_s']:+.2f} s per task")
    lines.append(f"one desktop worker (process or actor + Xvfb + app): peak "
                 f"{summary['worker_peak_mb_max']:.0f} MB (median "
                 f"{summary['worker_peak_mb_median']:.0f}); alone it used "
                 f"{summary['worker_cores_alone']} cores; "
                 f"{summary['worker_cpu_s_per_task']} CPU s per task; Ray's own processes "
                 f"peaked at {summary['ray_system_peak_mb']:.0f} MB")
    return "\n".join(lines)


def run_batch_bench(args: argparse.Namespace) -> int:
    if not sys.platform.startswith("linux"):
        raise ConfigError("bench batch reads /proc: it runs on Linux only")
    from ..batch.ray_cluster import require_ray

    require_ray()
    try:
        counts = [int(v) for v in str(args.workers).split(",")]
    except ValueError:
        raise ConfigError(f"--workers takes counts like 1,2, not {args.workers!r}") from None
    with tempfile.TemporaryDirectory(prefix="gui-agent-bench-batch-") as tmp:
        root = args.out or Path(tmp)
        runs = []
        for repeat in range(args.repeats):
            for workers in counts:
                for ray in (False, True):
                    name = f"{'ray' if ray else 'local'}-w{workers}-r{repeat + 1}"
                    print(f"running {name} ...", file=sys.stderr, flush=True)
                    runs.append(run_once(args.suite, root / name, workers, ray))
        fixed = ray_start_stop_seconds()
    summary = summarize(runs, fixed)
    print(format_report(runs, summary))
    if args.json:
        args.json.write_text(json.dumps({"runs": [asdict(r) for r in runs], "summary": summary},
                                        indent=2), encoding="utf-8")
    return 0 if all(r.passed == r.tasks for r in runs) else 1
