"""A suite's ``ray:`` section: per-worker resources and fault limits, errors with their line."""

from __future__ import annotations

import textwrap

import pytest

from gui_agent.batch.ray_options import MIB, RayOptions, parse_size
from gui_agent.batch.ray_runner import HANG_GRACE, task_limit
from gui_agent.batch.suite import SuiteError, load_suite


def suite_file(tmp_path, ray: str, extra: str = ""):
    path = tmp_path / "s.yaml"
    head = 'tasks:\n  - id: a\n    instruction: click "OK"\n    max_seconds: 30\n'
    path.write_text(head + extra + "ray:\n" + textwrap.indent(textwrap.dedent(ray), "  "),
                    encoding="utf-8")
    return path


def test_the_ray_section_overrides_each_default(tmp_path):
    suite = load_suite(suite_file(tmp_path, """\
        num_cpus: 2
        memory: 1.5GiB
        resources: {desktop: 1}
        task_retries: 0
        task_timeout: 90
        max_run_mb: 5
        restarts: 1
        start_timeout: 30
        """))
    assert suite.ray == RayOptions(num_cpus=2.0, memory=1536 * MIB, resources=(("desktop", 1.0),),
                                   task_retries=0, task_timeout=90.0, max_run_mb=5.0, restarts=1,
                                   start_timeout=30.0)
    assert suite.ray.describe() == "num_cpus=2, memory=1.50 GiB, desktop=1"
    assert load_suite(suite_file(tmp_path, "num_cpus: 1\n")).ray.memory == RayOptions().memory


@pytest.mark.parametrize("text, size", [("800MB", 800_000_000), ("512 MiB", 512 * MIB),
                                        ("2G", 2 * 1024**3), (4096, 4096), ("1.5gib", 1536 * MIB)])
def test_sizes_read_as_bytes(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["lots", "-1GB", "2 parsecs", "", True, 0])
def test_what_is_not_a_size(text):
    assert parse_size(text) is None


@pytest.mark.parametrize("ray, line, problem", [
    ("memory: lots\n", 6, "ray memory must be a size"),
    ("num_cpus: 0\n", 6, "ray num_cpus must be a number above 0"),
    ("task_retries: -1\n", 6, "ray task_retries must be a whole number, 0 or more"),
    ("resources: {CPU: 1}\n", 6, "'CPU' is not a custom resource"),
    ("workers: 3\n", 6, "unknown key 'workers' in ray"),
])
def test_a_bad_ray_section_names_its_line(tmp_path, ray, line, problem):
    path = suite_file(tmp_path, ray)
    with pytest.raises(SuiteError) as err:
        load_suite(path)
    assert str(err.value).startswith(f"{path.resolve()}:{line}: {problem}")


def test_a_task_counts_as_hung_after_everything_it_may_wait_for(tmp_path):
    path = suite_file(tmp_path, "num_cpus: 1\n", extra=textwrap.dedent("""\
        setup:
          - start: "{python} -c pass"
            ready: {timeout: 40}
          - run: "{python} -c pass"
            timeout: 10
        """))
    suite = load_suite(path)
    assert task_limit(suite, suite.tasks[0], suite.ray) == 30 + 40 + 10 + HANG_GRACE
    fixed = RayOptions(task_timeout=7)
    assert task_limit(suite, suite.tasks[0], fixed) == 7
