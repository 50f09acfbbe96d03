"""Reaching a Ray cluster for ``gui-agent batch --ray ADDRESS``; Ray is imported only here.

``local`` starts a throwaway single-machine cluster for the run (sized so that ``--workers N``
fit) and stops it at the end; ``auto`` joins the cluster ``ray start`` runs on this machine
(or ``RAY_ADDRESS``); anything else is a cluster address (``HOST:PORT``, ``ray://HOST:10001``).
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ..errors import ConfigError
from .ray_options import RayOptions, format_size

INSTALL = "pip install 'gui-agent[cluster]' (or: pip install ray)"


def require_ray() -> ModuleType:
    """The ``ray`` module, or a ConfigError saying how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise ConfigError(f"--ray needs Ray, which is not installed ({exc}): {INSTALL}; "
                          "or leave out --ray to run the workers as local processes") from None
    return ray


@dataclass(frozen=True)
class ClusterInfo:
    address: str             # what the user gave: local, auto or an address
    started_here: bool       # a throwaway local cluster that ends with the run
    nodes: int
    fit: int                 # how many workers the alive nodes can host at once now

    def describe(self) -> str:
        where = "a local Ray cluster started for this run" if self.started_here else \
            f"the Ray cluster at {self.address}"
        return f"{where}: {self.nodes} node{'s' * (self.nodes != 1)}"


def actor_demand(options: RayOptions) -> dict[str, float]:
    return {"CPU": options.num_cpus, "memory": float(options.memory), **dict(options.resources)}


def _fits(resources: dict[str, float], demand: dict[str, float]) -> int:
    counts = [int(resources.get(name, 0.0) // amount) for name, amount in demand.items()
              if amount > 0]
    return min(counts) if counts else 0


def workers_that_fit(nodes: list[dict[str, Any]], options: RayOptions) -> int:
    """How many workers the alive nodes could host at once, by their total resources."""
    demand = actor_demand(options)
    return sum(_fits(n.get("Resources", {}), demand) for n in nodes if n.get("Alive"))


def _check_reachable(address: str, timeout: float = 10.0) -> None:
    """A HOST:PORT that nothing answers on fails now, in words (Ray would retry for minutes)."""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        return  # not HOST:PORT: Ray reads it
    host = host.strip("[]") or "127.0.0.1"
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ConfigError(f"--ray {address}: nothing answers at {host}:{port} "
                          f"({exc.strerror or exc}); give the head node's address as "
                          "`ray start --head` prints it, or use --ray local") from None


def _connect(ray: ModuleType, address: str, workers: int, options: RayOptions) -> None:
    quiet = {"log_to_driver": False, "logging_level": logging.ERROR}
    if address == "local":
        cpus = max(os.cpu_count() or 1, int(workers * options.num_cpus + 0.999))
        custom = {name: amount * workers for name, amount in options.resources}
        ray.init(address="local", num_cpus=cpus, resources=custom or None,
                 include_dashboard=False, **quiet)
        return
    if address != "auto":
        _check_reachable(address)
    try:
        ray.init(address=address, **quiet)
    except ConnectionError as exc:
        if _asks_for_a_token(exc):
            raise ConfigError(
                f"--ray {address}: the cluster asks for a token (Ray's token authentication, on "
                "by default for `ray start --head` since Ray 2.5x): set RAY_AUTH_MODE=token and "
                "RAY_AUTH_TOKEN to what `ray get-auth-token` prints on the head node") from None
        hint = ("start one with `ray start --head` (or use --ray local for a throwaway one on "
                "this machine)") if address == "auto" else \
            "check the address (HOST:PORT of the head node's GCS, as `ray start --head` prints it)"
        raise ConfigError(f"--ray {address}: no Ray cluster there ({exc}); {hint}") from None


def _asks_for_a_token(exc: BaseException) -> bool:
    """Whether a failed connection was refused for a missing or wrong token (Ray says so only
    in the error it chains)."""
    seen: BaseException | None = exc
    while seen is not None:
        if "AuthToken" in str(seen) or "Unauthenticated" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


@contextmanager
def ray_session(address: str, workers: int, options: RayOptions) -> Iterator[ClusterInfo]:
    """Connected to (or running) the cluster for the duration; a check that one worker fits."""
    ray = require_ray()
    if ray.is_initialized():  # a caller (a notebook, a test) already connected: keep it so
        owned = False
    else:
        _connect(ray, address, workers, options)
        owned = True
    try:
        nodes = ray.nodes()
        fit = workers_that_fit(nodes, options)
        info = ClusterInfo(address, address == "local", sum(bool(n.get("Alive")) for n in nodes),
                           fit)
        if fit == 0 and address == "local":
            total = ray.cluster_resources()
            raise ConfigError(
                f"this machine cannot host one desktop worker: each asks for "
                f"{options.describe()}, and Ray sees CPU={total.get('CPU', 0):g}, memory="
                f"{format_size(total.get('memory', 0))}; lower the suite's ray: memory / "
                "num_cpus")
        yield info
    finally:
        if owned:
            ray.shutdown()
