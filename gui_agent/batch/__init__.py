"""Headless batch automation: task suites (YAML) run on virtual displays by worker processes,
or by Ray actors on a cluster (``--ray``: ``ray_runner``, ``ray_actor``; Ray imported lazily).

``load_suite(path)`` reads and validates a suite; ``run_batch(...)`` runs it and returns the
exit code (0 all passed, 1 some failed, 2 the suite could not run). See ``suite.py`` for the
file format.
"""

from __future__ import annotations

from .suite import SuiteError, load_suite

__all__ = ["SuiteError", "load_suite"]
