"""`gui-agent bench retrieval`: how well the experience memory picks the skill for a task.

The dataset (``datasets/skill_retrieval.yaml``) holds a skill library and task phrasings, each
labelled with the skill that should run and its parameter values, or ``none``. Figures:

- *top-1*: cases with a skill whose first-ranked skill is that skill (confident or not);
- *parameters*: of those (skills with parameters only), the share whose values are all right;
- *false runs*: confident runs where the label is ``none``, another skill or a flagged skill,
  over all cases (the number that must stay near zero); runs of the right skill with a wrong
  value are counted apart;
- *missed runs*: cases labelled with a runnable skill that did not run it confidently.

Cases marked ``held_out`` are reported apart: they were written before the thresholds were tuned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError, GuiAgentError
from ..memory.models import Skill, SkillParameter, SkillStats, SkillStep

DEFAULT_DATASET = Path(__file__).resolve().parents[2] / "datasets" / "skill_retrieval.yaml"
NONE = "none"


@dataclass(frozen=True)
class Case:
    task: str
    skill: str | None                  # None: no skill should run
    values: dict[str, str | float]     # expected values (defaults filled in)
    held_out: bool = False
    why: str = ""
    line: int = 0


@dataclass(frozen=True)
class CaseResult:
    case: Case
    top: str | None                    # the first-ranked skill
    confident: bool
    values: dict[str, str | float]
    why: str
    expect_run: bool                   # labelled with a skill that is not flagged

    @property
    def ran(self) -> str | None:
        return self.top if self.confident else None

    @property
    def false_run(self) -> bool:
        return self.confident and (not self.expect_run or self.top != self.case.skill)

    @property
    def wrong_values(self) -> bool:
        return self.top == self.case.skill and self.values != self.case.values

    @property
    def missed(self) -> bool:
        return self.expect_run and not (self.confident and self.top == self.case.skill)


@dataclass(frozen=True)
class Figures:
    cases: int
    with_skill: int
    top1: float
    parameters: float
    false_runs: int
    false_run_rate: float
    wrong_value_runs: int
    missed_runs: int
    missed_run_rate: float


@dataclass(frozen=True)
class RetrievalReport:
    path: Path
    skills: int
    results: tuple[CaseResult, ...]
    overall: Figures
    tuned: Figures                     # the cases that are not held out
    held_out: Figures


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def figures(results: Sequence[CaseResult], parameterised: set[str]) -> Figures:
    labelled = [r for r in results if r.case.skill is not None]
    hits = [r for r in labelled if r.top == r.case.skill]
    with_params = [r for r in hits if r.case.skill in parameterised]
    runnable = [r for r in labelled if r.expect_run]
    false_runs = sum(r.false_run for r in results)
    missed = sum(r.missed for r in runnable)
    return Figures(
        cases=len(results), with_skill=len(labelled), top1=_ratio(len(hits), len(labelled)),
        parameters=_ratio(sum(not r.wrong_values for r in with_params), len(with_params)),
        false_runs=false_runs, false_run_rate=_ratio(false_runs, len(results)),
        wrong_value_runs=sum(r.confident and r.wrong_values for r in hits),
        missed_runs=missed, missed_run_rate=_ratio(missed, len(runnable)))


def load_dataset(path: Path | None = None) -> tuple[list[Skill], list[Case]]:
    """The skill library and the cases of a retrieval dataset; ConfigError (file:line) if invalid."""
    import yaml

    from ..actions import format_action, parse_action
    from ..batch.yaml_nodes import NodeReader

    path = Path(path) if path is not None else DEFAULT_DATASET
    if not path.is_file():
        raise ConfigError(f"{path}: no such retrieval dataset (pass the path of a YAML file "
                          "with `skills:` and `cases:`)")
    reader = NodeReader(path)
    try:
        root = yaml.compose(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        raise ConfigError(f"{path}:{line}: not valid YAML: {getattr(exc, 'problem', None) or exc}") from None
    if root is None:
        raise reader.error(None, "the file is empty; it needs `skills:` and `cases:`")
    top = reader.mapping(root, "the dataset", ("skills", "cases"))
    if "skills" not in top or "cases" not in top:
        raise reader.error(root, "the dataset needs both `skills:` and `cases:`")

    skills: dict[str, Skill] = {}
    for node in reader.items(top["skills"][1], "skills"):
        f = reader.mapping(node, "a skill", ("name", "description", "parameters", "examples",
                                             "steps", "flagged"))
        if "name" not in f or "steps" not in f:
            raise reader.error(node, "a skill needs a `name` and `steps`")
        params = []
        for pnode in reader.items(f["parameters"][1], "parameters") if "parameters" in f else []:
            pf = reader.mapping(pnode, "a parameter", ("name", "kind", "default", "choices",
                                                        "description"))
            raw = {k: reader.value(v) for k, (_, v) in pf.items()}
            try:
                params.append(SkillParameter(**{**raw, "choices": tuple(raw.get("choices") or ())}))
            except (ConfigError, TypeError) as exc:
                raise reader.error(pnode, str(exc)) from None
        steps = []
        for snode in reader.items(f["steps"][1], "steps"):
            text = reader.string(snode, "a step")
            try:
                canonical = format_action(parse_action(text))
            except GuiAgentError as exc:
                raise reader.error(snode, f"step {text!r} is not an action: {exc}") from None
            if canonical != text:
                raise reader.error(snode, f"write the step in canonical form: {canonical}")
            steps.append(SkillStep(action=text))
        flagged = reader.value(f["flagged"][1]) if "flagged" in f else False
        if not isinstance(flagged, bool):
            raise reader.error(f["flagged"][1], "`flagged` must be true or false")
        stats = SkillStats(runs=4, successes=1, recent=(False, False, False, True)) if flagged \
            else SkillStats()
        try:
            skill = Skill(name=reader.string(f["name"][1], "a skill name"), steps=tuple(steps),
                          description=reader.string(f["description"][1], "a description")
                          if "description" in f else "",
                          parameters=tuple(params), stats=stats,
                          examples=reader.strings(f["examples"][1], "examples") if "examples" in f
                          else ())
            skill.check_actions()
        except ConfigError as exc:
            raise reader.error(node, str(exc)) from None
        if skill.name in skills:
            raise reader.error(node, f"skill {skill.name!r} is defined twice")
        skills[skill.name] = skill

    cases = []
    for node in reader.items(top["cases"][1], "cases"):
        f = reader.mapping(node, "a case", ("task", "skill", "values", "held_out", "why"))
        if "task" not in f or "skill" not in f:
            raise reader.error(node, "a case needs a `task` and a `skill` (a skill's name or none)")
        name = reader.string(f["skill"][1], "the case's skill")
        if name != NONE and name not in skills:
            raise reader.error(f["skill"][1], f"unknown skill {name!r}; known: "
                                              f"{', '.join(skills)} or {NONE}")
        given = reader.value(f["values"][1]) if "values" in f else {}
        if not isinstance(given, dict):
            raise reader.error(f["values"][1], "`values` must be a mapping (parameter: value)")
        if name == NONE and given:
            raise reader.error(f["values"][1], "a case with skill none has no values")
        try:
            values = skills[name].values(given) if name != NONE else {}
        except ConfigError as exc:
            raise reader.error(node, str(exc)) from None
        held = reader.value(f["held_out"][1]) if "held_out" in f else False
        if not isinstance(held, bool):
            raise reader.error(f["held_out"][1], "`held_out` must be true or false")
        cases.append(Case(task=reader.string(f["task"][1], "a task"),
                          skill=None if name == NONE else name, values=values, held_out=held,
                          why=reader.string(f["why"][1], "why") if "why" in f else "",
                          line=node.start_mark.line + 1))
    if not skills or not cases:
        raise reader.error(root, "the dataset needs at least one skill and one case")
    return list(skills.values()), cases


def evaluate(path: Path | None = None) -> RetrievalReport:
    """Rank every case's task against the dataset's skill library and score the decisions."""
    from ..memory.recall import SkillIndex

    skills, cases = load_dataset(path)
    index = SkillIndex(skills)
    flagged = {s.name for s in skills if s.flagged}
    results = []
    for case in cases:
        ranked = index.rank(case.task, 1)
        top = ranked[0] if ranked else None
        results.append(CaseResult(
            case=case, top=top.skill.name if top else None, confident=bool(top and top.confident),
            values=top.values if top else {}, why=top.why if top else "no skill ranked",
            expect_run=case.skill is not None and case.skill not in flagged))
    parameterised = {s.name for s in skills if s.parameters}
    return RetrievalReport(
        path=Path(path) if path is not None else DEFAULT_DATASET, skills=len(skills),
        results=tuple(results), overall=figures(results, parameterised),
        tuned=figures([r for r in results if not r.case.held_out], parameterised),
        held_out=figures([r for r in results if r.case.held_out], parameterised))


def _line(label: str, f: Figures) -> str:
    return (f"{label:<9} {f.cases:>5} {f.top1:>7.1%} {f.parameters:>7.1%} "
            f"{f.false_runs:>4} ({f.false_run_rate:5.1%}) {f.missed_runs:>4} ({f.missed_run_rate:5.1%}) "
            f"{f.wrong_value_runs:>10}")


def format_report(report: RetrievalReport) -> str:
    """A plain-text summary: the figures (all / tuned / held out), then every case that went wrong."""
    lines = [f"skill retrieval: {report.path} ({report.skills} skills, {report.overall.cases} cases)",
             f"{'cases':<9} {'n':>5} {'top-1':>7} {'params':>7} {'false runs':>12} "
             f"{'missed runs':>12} {'bad values':>10}",
             _line("all", report.overall), _line("tuned", report.tuned),
             _line("held out", report.held_out)]
    problems = []
    for r in report.results:
        c = r.case
        tag = " [held out]" if c.held_out else ""
        expected = c.skill or NONE
        if r.false_run:
            kind = "FALSE RUN"
        elif r.confident and r.wrong_values:
            kind = "BAD VALUES"
        elif c.skill is not None and r.top != c.skill:
            kind = "WRONG TOP-1"
        elif r.missed:
            kind = "MISSED RUN"
        elif r.wrong_values and c.skill is not None:
            kind = "values"
        else:
            continue
        problems.append(f"  {kind:<11} line {c.line}{tag}: {c.task!r}\n"
                        f"              expected {expected} {c.values or ''}, got {r.top} "
                        f"{r.values or ''}; {r.why}")
    lines.append("problems:" if problems else "problems: none")
    return "\n".join(lines + problems)
