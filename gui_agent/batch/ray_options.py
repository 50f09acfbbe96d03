"""A suite's ``ray:`` section: what each desktop worker asks of a Ray cluster, and its limits.

    ray:
      num_cpus: 1              # Ray CPUs per worker (one desktop: Xvfb, the apps, the agent)
      memory: 1GiB             # memory reserved per worker: bytes, or a number with KB..GiB
      resources: {desktop: 1}  # custom Ray resources a node must offer (nodes with the apps)
      task_retries: 2          # re-runs of a task whose worker or node died
      task_timeout: 300        # seconds before a task counts as hung (default: from its limits)
      max_run_mb: 50           # run folder (screenshots) copied back per task; the rest is named
      restarts: 4              # times Ray replaces one worker that died or hung
      start_timeout: 300       # seconds to wait for a first worker to come up

Only ``--ray`` runs read it; the local runner ignores it. Nothing here imports Ray.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from yaml.nodes import MappingNode, Node, ScalarNode

from .yaml_nodes import NodeReader

RAY_KEYS = ("num_cpus", "memory", "resources", "task_retries", "task_timeout", "max_run_mb",
            "restarts", "start_timeout")
MIB = 1024 * 1024
_UNITS = {"b": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "kib": 1024, "mib": MIB,
          "gib": 1024**3, "k": 1024, "m": MIB, "g": 1024**3}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")


@dataclass(frozen=True)
class RayOptions:
    """Per-worker Ray resources and the fault limits of a ``--ray`` run."""

    num_cpus: float = 1.0
    memory: int = 1024 * MIB        # measured: a playground desktop worker peaks near 0.6 GiB
    resources: tuple[tuple[str, float], ...] = ()
    task_retries: int = 2
    task_timeout: float | None = None
    max_run_mb: float = 50.0
    restarts: int = 4
    start_timeout: float = 300.0

    @property
    def max_run_bytes(self) -> int:
        return int(self.max_run_mb * MIB)

    def describe(self) -> str:
        """What one worker asks for, in words (for messages about placement)."""
        parts = [f"num_cpus={self.num_cpus:g}", f"memory={format_size(self.memory)}"]
        parts += [f"{name}={amount:g}" for name, amount in self.resources]
        return ", ".join(parts)


def format_size(size: float) -> str:
    return f"{size / 1024**3:.2f} GiB" if size >= 1024**3 else f"{size / MIB:.0f} MiB"


def parse_size(value: object) -> int | None:
    """Bytes from ``1536`` (bytes), ``"1.5GiB"``, ``"800 MB"``; None when it is not a size."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return int(value) if value > 0 else None
    if not isinstance(value, str):
        return None
    m = _SIZE.match(value)
    if not m or m.group(2).lower() not in _UNITS | {"": 1}:
        return None
    size = int(float(m.group(1)) * _UNITS.get(m.group(2).lower(), 1))
    return size if size > 0 else None


def read_ray_options(reader: NodeReader, node: Node) -> RayOptions:
    """The ``ray:`` mapping of a suite; each bad value is a SuiteError with its line."""
    keys = reader.mapping(node, "ray", RAY_KEYS)
    values: dict[str, object] = {}
    if "num_cpus" in keys:
        values["num_cpus"] = float(reader.number(keys["num_cpus"][1], "ray num_cpus"))
    if "memory" in keys:
        v_node = keys["memory"][1]
        size = parse_size(reader.value(v_node)) if isinstance(v_node, ScalarNode) else None
        if size is None:
            raise reader.error(v_node, "ray memory must be a size: bytes, or a number with a "
                                       "unit (KB, MB, GB, KiB, MiB, GiB), e.g. 1.5GiB")
        values["memory"] = size
    if "resources" in keys:
        values["resources"] = _resources(reader, keys["resources"][1])
    for name in ("task_retries", "restarts"):
        if name in keys:
            count = reader.value(keys[name][1])
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise reader.error(keys[name][1], f"ray {name} must be a whole number, 0 or more")
            values[name] = count
    for name in ("task_timeout", "max_run_mb", "start_timeout"):
        if name in keys:
            values[name] = float(reader.number(keys[name][1], f"ray {name}"))
    return RayOptions(**values)  # type: ignore[arg-type]


def _resources(reader: NodeReader, node: Node) -> tuple[tuple[str, float], ...]:
    if not isinstance(node, MappingNode):
        raise reader.error(node, "ray resources must be a mapping of resource names to amounts, "
                                 "e.g. {desktop: 1}")
    out: list[tuple[str, float]] = []
    for key_node, value_node in node.value:
        name = reader.string(key_node, "a ray resource's name")
        if name in ("CPU", "GPU", "memory", "num_cpus", "num_gpus"):
            raise reader.error(key_node, f"{name!r} is not a custom resource: use num_cpus or "
                                         "memory for it")
        out.append((name, float(reader.number(value_node, f"ray resource {name}"))))
    return tuple(out)
